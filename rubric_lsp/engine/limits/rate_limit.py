"""The run's concurrency limit, adapting to what the provider says (``RateLimiter``).

Every judge call of a grading run enters ``async with limit.slot(tokens)`` around its HTTP
request. The policy, and why:

- **At most ``limit`` calls in flight**, ``limit`` starting at the configured concurrency
  (``--concurrency``, its ceiling). Waiters are served first come, first served.
- **Retry-After pauses the whole run.** A 429 carrying ``Retry-After: S`` stops *new* sends
  of every call of the run for S seconds (at most ``MAX_PAUSE_SECONDS``), not just that
  call's retry: the provider said the account is over its limit, and every other call sent
  meanwhile would earn a 429 of its own (and count against the limit again). Calls admitted
  before the 429 but not yet sent wait too (``Slot.sending``).
- **A burst of 429s halves the concurrency** (multiplicative decrease, never below 1):
  ``BURST_429S`` 429s within ``BURST_WINDOW_SECONDS``, counting only calls sent under the
  current limit. The answers of calls sent before a cut arrive after it; counting them
  would halve again for the same overload (TCP's rule: one decrease per window).
  A single 429 changes no limit: providers answer one now and then under any load.
- **Successes ramp it back up** (additive increase): after ``limit`` successive successes
  sent under the current limit (one round trip's worth of calls), ``limit`` grows by one,
  up to the ceiling. Halving on trouble and creeping back is what keeps a shared limit
  stable (AIMD converges where additive decrease oscillates), and probing one step per
  round trip finds the provider's real capacity again when the overload was passing.
- **Optional ceilings**: ``rpm`` requests and ``tpm`` tokens per minute, each a token bucket
  refilled continuously and holding one second's worth, so any window of T seconds sees at
  most ``rate * T`` plus one second's burst (providers enforce per-minute limits over
  shorter windows too). A call's tokens are estimated before it is sent (``estimate``:
  about four characters a token, plus the completion size seen so far) and corrected from
  the reply's usage (``Slot.settle``). A call bigger than the bucket goes once the bucket
  is full, leaving it in debt, so the long-run rate holds and nothing waits forever.

**Prompts alive at once** (``RateLimiter.prompts``): a call builds its prompt only once it holds
one of ``PROMPTS_PER_SLOT × concurrency`` turns, and lets go of it when the call is done
(``Judge.ask``). A prompt embeds the graded response, so building every criterion's prompt up front
kept one copy of the response per criterion: 600 criteria and a 4 MB response reached 2.5 GB
(issue 26). Twice the concurrency leaves room for cache hits and replays to go on while every
slot is busy; the rest of a grading's calls wait holding nothing but a shared reference.

The per-call retry (judge.py) is unchanged: a 429 is retried after its Retry-After or a
back-off, and a 429 after the last retry is a judge failure, never a verdict.

Entering and leaving a slot is O(1) and allocation-light when nothing waits (no clock
read, no future): a grading run at concurrency 64 makes tens of thousands of calls.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Any

MAX_PAUSE_SECONDS = 60.0
BURST_429S = 3
BURST_WINDOW_SECONDS = 10.0
CHARS_PER_TOKEN = 4
FIRST_COMPLETION_GUESS = 256  # tokens, until replies say how long the judge's answers are
PROMPTS_PER_SLOT = 2  # prompts built at once per call in flight (module docstring)


class _Bucket:
    """``per_minute`` units a minute, refilled continuously, holding one second's worth (at least 1)."""

    __slots__ = ("capacity", "level", "rate", "stamp")

    def __init__(self, per_minute: float, now: float) -> None:
        self.rate = per_minute / 60.0
        self.capacity = max(1.0, self.rate)
        self.level = self.capacity
        self.stamp = now

    def wait(self, cost: float, now: float) -> float:
        """Seconds until ``cost`` may be taken (0: now)."""
        if now > self.stamp:
            self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
            self.stamp = now
        missing = min(cost, self.capacity) - self.level
        return 0.0 if missing <= 0 else missing / self.rate

    def give(self, amount: float) -> None:
        """Add back (or, negative, take) ``amount``: the correction once a call's real size is known."""
        self.level = min(self.capacity, self.level + amount)


class Slot:
    """One call's turn: ``async with limiter.slot(tokens) as slot``; see the module docstring."""

    __slots__ = ("_admitted", "_limiter", "epoch", "tokens")

    def __init__(self, limiter: RateLimiter, tokens: int) -> None:
        self._limiter = limiter
        self.tokens = tokens
        self.epoch = -1
        self._admitted = False

    async def __aenter__(self) -> Slot:
        await self._limiter._acquire(self)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._limiter._release(self, exc_type is None)

    async def sending(self) -> None:
        """Wait out a pause that began after this slot was admitted (call right before the request leaves).

        judge.py calls it holding the loop's send gate, so the calls queued behind it wait too: they
        would wait for the same pause anyway, unless another grading runs on the same loop (the
        language server grading two files at once), which then waits out the pause as well."""
        limiter = self._limiter
        if limiter.paused_until:
            delay = limiter.paused_until - limiter.clock()
            if delay > 0:
                await asyncio.sleep(delay)

    def rate_limited(self, retry_after: float | None) -> None:
        """This slot's request was answered 429 (``retry_after``: the seconds the server asked for)."""
        self._limiter.rate_limited(self, retry_after, self._limiter.clock())

    def settle(self, prompt_tokens: int, completion_tokens: int) -> None:
        """The reply's usage: correct the token estimate this slot took from the tpm bucket."""
        self._limiter.settle(self, prompt_tokens, completion_tokens)


class RateLimiter:
    """A run's adaptive concurrency limit with optional rpm / tpm ceilings (module docstring)."""

    def __init__(
        self,
        concurrency: int,
        *,
        rpm: float | None = None,
        tpm: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ceiling = max(1, int(concurrency))
        self.limit = self.ceiling
        self.in_flight = 0
        self.clock = clock
        self.paused_until = 0.0  # new sends wait until then (clock time; 0: never paused)
        self.epoch = 0  # number of cuts so far; a slot remembers the epoch it was admitted in
        self.cuts: list[tuple[int, int]] = []  # (from, to) of every cut, in order
        self.rate_limited_calls = 0
        self._successes = 0  # successive successes under the current limit
        self._recent_429s: deque[float] = deque()
        now = clock()
        self._requests = _Bucket(rpm, now) if rpm else None
        self._tokens = _Bucket(tpm, now) if tpm else None
        self._completion_guess = float(FIRST_COMPLETION_GUESS)
        self._waiters: deque[tuple[asyncio.Future[None], Slot]] = deque()
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = math.inf
        # Bound to the loop of its first wait; a limiter lives for one grading run, on one loop.
        self.prompts = asyncio.Semaphore(PROMPTS_PER_SLOT * self.ceiling)

    # -- the calls' side ----------------------------------------------------------------
    def slot(self, tokens: int = 0) -> Slot:
        """A turn for one request of about ``tokens`` tokens (only the tpm ceiling reads it)."""
        return Slot(self, tokens)

    @property
    def counts_tokens(self) -> bool:
        """Whether ``slot`` needs a token estimate (a tpm ceiling is set)."""
        return self._tokens is not None

    def estimate(self, messages: Sequence[Mapping[str, Any]], max_tokens: int | None = None) -> int:
        """The tokens a request with ``messages`` will likely use: prompt characters / 4 plus the mean
        completion seen so far (never more than ``max_tokens``)."""
        chars = 0
        for message in messages:
            content = message.get("content")
            if isinstance(content, str):
                chars += len(content)
            elif isinstance(content, list):
                chars += sum(len(str(part.get("text", ""))) for part in content if isinstance(part, Mapping))
        completion = self._completion_guess if max_tokens is None else min(self._completion_guess, max_tokens)
        return math.ceil(chars / CHARS_PER_TOKEN + completion)

    # -- state machine (every decision; ``now`` is the clock's time) ----------------------
    def _admit(self, slot: Slot) -> bool:
        """Admit ``slot`` now if every limit allows it; otherwise arrange to be woken and say no."""
        if self.in_flight >= self.limit:
            return False  # a release wakes the waiters
        if self.paused_until or self._requests is not None or self._tokens is not None:
            now = self.clock()
            wait = self.paused_until - now if self.paused_until > now else 0.0
            if self._requests is not None:
                wait = max(wait, self._requests.wait(1, now))
            if self._tokens is not None:
                wait = max(wait, self._tokens.wait(slot.tokens, now))
            if wait > 0:
                self._wake_in(wait)
                return False
            if self._requests is not None:
                self._requests.level -= 1
            if self._tokens is not None:
                self._tokens.level -= slot.tokens
        self.in_flight += 1
        slot.epoch = self.epoch
        slot._admitted = True
        return True

    def _release(self, slot: Slot, ok: bool) -> None:
        if not slot._admitted:
            return
        slot._admitted = False
        self.in_flight -= 1
        if ok and slot.epoch == self.epoch and self.limit < self.ceiling:
            self._successes += 1
            if self._successes >= self.limit:
                self.limit += 1
                self._successes = 0
        if self._waiters:
            self._wake()

    def rate_limited(self, slot: Slot, retry_after: float | None, now: float) -> None:
        """A 429 for ``slot``: pause the run for its Retry-After; cut the limit on a burst."""
        self.rate_limited_calls += 1
        if retry_after is not None and retry_after > 0:
            self.paused_until = max(self.paused_until, now + min(retry_after, MAX_PAUSE_SECONDS))
        if slot.epoch != self.epoch:
            return  # sent under an earlier limit: that overload was already answered
        self._successes = 0
        recent = self._recent_429s
        recent.append(now)
        while now - recent[0] > BURST_WINDOW_SECONDS:
            recent.popleft()
        if len(recent) >= BURST_429S:
            recent.clear()
            if self.limit == 1:
                return  # the floor: only Retry-After and the calls' own back-off slow it further
            before, self.limit = self.limit, max(1, self.limit // 2)
            self.epoch += 1
            self.cuts.append((before, self.limit))

    def settle(self, slot: Slot, prompt_tokens: int, completion_tokens: int) -> None:
        if self._tokens is None or prompt_tokens + completion_tokens <= 0:
            return  # no ceiling, or a reply without usage: the estimate stands
        self._tokens.give(slot.tokens - prompt_tokens - completion_tokens)
        # A slow-moving mean: judges' answers are similar in length within a run.
        self._completion_guess += (completion_tokens - self._completion_guess) / 8

    def status(self) -> str | None:
        """What the limiter is doing about 429s, for the progress display (None: nothing)."""
        now = self.clock()
        parts = []
        if self.limit < self.ceiling:
            parts.append(f"concurrency {self.ceiling}\u2192{self.limit}")
        if self.paused_until > now:
            parts.append(f"resuming in {math.ceil(self.paused_until - now)} s")
        return f"backing off: 429s, {', '.join(parts)}" if parts else None

    # -- waiting ----------------------------------------------------------------------------
    async def _acquire(self, slot: Slot) -> None:
        if not self._waiters and self._admit(slot):
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((future, slot))
        try:
            await future
        except asyncio.CancelledError:
            if slot._admitted:  # admitted, then cancelled before it could run: hand the turn on
                self._release(slot, False)
            raise

    def _wake(self) -> None:
        """Admit waiters in order while the limits allow."""
        waiters = self._waiters
        while waiters:
            future, slot = waiters[0]
            if future.done():  # cancelled while waiting
                waiters.popleft()
                continue
            if not self._admit(slot):
                return
            waiters.popleft()
            future.set_result(None)

    def _wake_in(self, delay: float) -> None:
        """Try the waiters again after ``delay`` seconds (a pause ends, a bucket refills)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # the state machine driven without a loop (unit tests): nobody waits
            return
        at = loop.time() + delay
        if self._timer is not None and self._timer_at <= at:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = at
        self._timer = loop.call_at(at, self._on_timer)

    def _on_timer(self) -> None:
        self._timer, self._timer_at = None, math.inf
        self._wake()
