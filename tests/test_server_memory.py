"""The server returns what each edit used (issue 13, item 13).

pygls 2.1.1 keeps every notification's future for good (docs/upstream/pygls-memory.md), about
2 KB per didChange; ``RubricProtocol._execute_handler`` drops it once it is done. The bench
(``bench/bench_server.py --memory-only``) measures the resident memory after 10,000 edits.
"""

from __future__ import annotations

import asyncio
import gc
import tracemalloc

from rubric_lsp.server.main import build_server
from tests.server_helpers import Responses, in_process_sender


class NullWriter:
    def write(self, data: bytes) -> None:
        pass

    def close(self) -> None:
        pass


async def _settle(ls) -> None:
    """Wait until every lint and task the edits started has finished."""
    for _ in range(200):
        await asyncio.sleep(0.05)
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()]
        if not ls.lint_busy and not others:
            break
    gc.collect()


async def _edit_many(edits: int) -> tuple[int, int]:
    ls = build_server()
    ls.protocol.set_writer(NullWriter())
    protocol = ls.protocol
    send = in_process_sender(ls)

    send("initialize", {"processId": None, "rootUri": "file:///nowhere", "capabilities": {}}, 1)
    send("initialized", {})
    uri = "file:///nowhere/a.rubric.yaml"
    text = "rubric:\n  - requirement: Hi\n"
    send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}})

    def change(version: int) -> None:
        at = {"line": 1, "character": 17}
        send(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": at, "end": at}, "text": "x"}],
            },
        )

    for version in range(2, 202):  # warm up: imports, caches
        change(version)
    await _settle(ls)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for version in range(202, 202 + edits):
        change(version)
        if version % 100 == 0:
            await asyncio.sleep(0)
    await _settle(ls)
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    pending = len(protocol._request_futures)
    ls.lint_pool.shutdown(wait=True)
    return pending, after - before


def test_edits_leave_no_futures_or_memory_behind():
    edits = 2000
    pending, grown = asyncio.run(_edit_many(edits))
    assert pending <= 2  # pygls alone: one per notification, ~2,200 here
    assert grown / edits < 300, f"{grown / edits:.0f} bytes kept per edit"  # pygls alone: ~1,700-3,500


async def _shut_down_while_opening() -> dict | None:
    ls = build_server()
    responses = Responses()
    ls.protocol.set_writer(responses)
    send = in_process_sender(ls)
    send("initialize", {"processId": None, "rootUri": "file:///nowhere", "capabilities": {}}, 1)
    send("initialized", {})
    text = "rubric:\n  - requirement: Hi\n"
    send(
        "textDocument/didOpen",
        {"textDocument": {"uri": "file:///nowhere/a.rubric.yaml", "languageId": "yaml", "version": 1, "text": text}},
    )
    send("shutdown", None, 2)  # the open's handler has not run yet: its notification is pending
    await _settle(ls)
    ls.lint_pool.shutdown(wait=True)
    return responses.answer(2)


def test_a_shutdown_with_a_notification_pending_is_answered():
    """pygls cancels what is pending as it shuts down, walking its futures; the callback that drops a notification's
    future (above) then ran inside that walk and broke it: the client got an internal error for its shutdown."""
    answer = asyncio.run(_shut_down_while_opening())
    assert answer is not None and "error" not in answer, answer
    assert answer["result"] is None
