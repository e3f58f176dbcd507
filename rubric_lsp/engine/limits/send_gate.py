"""One judge request at a time is built and sent; the others wait their turn before starting.

Why: litellm builds each request in several steps with suspensions between them (it runs
the request builder in a thread). With 32 calls started together, the event loop
interleaves those steps, so *no* request leaves before almost every request is built
(measured: the first one reached the server 85 ms after it started, the last 105 ms). Every
call's answer then comes back in the same burst, its post-processing delays the next
burst, and each round of a grading run costs the judge's latency plus all its calls' CPU.
Letting one call build and send before the next one starts sends the first request after
its own few milliseconds; answers come back spread out and are processed while the others
are still waiting for theirs. Measured at 100 criteria, 200 ms judge latency, concurrency
32: 1.03-1.10 s without the gate, 0.89-0.94 s with it (ideal 0.80 s); at concurrency 8
nothing changes (the loop is idle most of the time anyway).

The turn ends when litellm logs the request it is about to send (its per-call
``logger_fn`` hook, called right before the HTTP request) or when the call ends, whichever
comes first. A provider route that never calls the hook would make calls go one at a time,
so the first call that completes without it takes that model out of the gate for good.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

RequestSent = Callable[..., None]


class SendGate:
    """Per event loop: all judge calls on a loop share its CPU, whichever grading run they belong to."""

    def __init__(self) -> None:
        self._turn = asyncio.Lock()
        self._ungated_models: set[str] = set()

    def gates(self, model: str) -> bool:
        return model not in self._ungated_models

    @asynccontextmanager
    async def turn(self, model: str) -> AsyncIterator[RequestSent | None]:
        """Wait for this call's turn; yields the hook to pass as litellm's ``logger_fn`` (None: no gate)."""
        if not self.gates(model):
            yield None
            return
        await self._turn.acquire()
        loop = asyncio.get_running_loop()
        loop_thread = threading.get_ident()
        state = {"released": False, "sent": False}

        def release() -> None:
            if not state["released"]:
                state["released"] = True
                self._turn.release()

        def request_sent(*_: Any, **__: Any) -> None:
            state["sent"] = True
            # litellm calls the hook on the event loop for most routes, but some build and
            # send inside the worker thread it runs the request builder in.
            if threading.get_ident() == loop_thread:
                release()
            else:
                loop.call_soon_threadsafe(release)

        if not self.gates(model):  # a call that finished while this one waited found the route unhooked
            release()
            yield None
            return
        try:
            yield request_sent
            if not state["sent"]:
                self._ungated_models.add(model)
        finally:
            release()


_gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, SendGate] = weakref.WeakKeyDictionary()


def send_gate() -> SendGate:
    """The running loop's gate."""
    loop = asyncio.get_running_loop()
    gate = _gates.get(loop)
    if gate is None:
        gate = _gates[loop] = SendGate()
    return gate
