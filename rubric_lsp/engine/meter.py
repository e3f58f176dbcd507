"""What a grading run has done so far, for a progress display: ``Meter``.

The runner keeps it (``Grading.meter``; ``grade(..., meter=...)`` lets a caller hold it):
work items done of the total (``Grading.expect`` / ``tick``), the judge calls' tokens and
cost as each lands (``Judge.meter``), and the runs' rate limiters (calls in flight, back-off).
``snapshot()`` turns that into the figures ``rubric grade`` shows: done/total, in flight, the
recent rate, ETA, tokens, cost and what the limiter is doing about 429s.

It is read from another thread (rich's refresh thread): every field is a number replaced
whole, and only the reader touches the rate samples.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rubric_lsp.engine.limits.rate_limit import RateLimiter
    from rubric_lsp.engine.usage import Usage

RATE_WINDOW_SECONDS = 10.0  # the rate is over this much recent time, so a resume's replays fade out
_SAMPLE_EVERY_SECONDS = 0.25


@dataclass(frozen=True)
class Snapshot:
    done: int
    total: int
    in_flight: int
    rate: float | None  # work items done a second, recently (None: too early to say)
    eta_seconds: float | None
    tokens: int
    cost_usd: float | None
    status: str | None  # e.g. "backing off: 429s, concurrency 64→32, resuming in 4 s"

    def line(self) -> str:
        """The figures besides done/total, shortly: ``12 in flight · 31.2/s · ETA 2:36 · 1.2M tokens · $0.42``."""
        parts = [f"{self.in_flight} in flight"]
        if self.rate is not None:
            parts.append(f"{self.rate:.1f}/s")
        if self.eta_seconds is not None:
            parts.append(f"ETA {clock_time(self.eta_seconds)}")
        parts.append(f"{short_count(self.tokens)} tokens")
        if self.cost_usd is not None:
            parts.append(f"${self.cost_usd:.4f}" if self.cost_usd < 1 else f"${self.cost_usd:,.2f}")
        if self.status:
            parts.append(self.status)
        return " · ".join(parts)


def clock_time(seconds: float) -> str:
    """``2:36``, ``1:02:03``."""
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def short_count(n: int) -> str:
    """``950``, ``12.3k``, ``1.2M``."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.1f}M"


@dataclass
class Meter:
    clock: Callable[[], float] = time.monotonic
    done: int = 0
    total: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    limiters: list[RateLimiter] = field(default_factory=list)
    _samples: deque[tuple[float, int]] = field(default_factory=deque)

    def __post_init__(self) -> None:
        self._samples.append((self.clock(), 0))

    def watch(self, limiter: RateLimiter) -> None:
        """Count ``limiter``'s calls in flight and report its back-off."""
        self.limiters.append(limiter)

    def add(self, usage: Usage) -> None:
        """One judge call's usage (replayed and cached ones too: the figures are the run's)."""
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens
        if usage.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + usage.cost_usd

    def snapshot(self) -> Snapshot:
        now, done = self.clock(), self.done
        samples = self._samples
        if now - samples[-1][0] >= _SAMPLE_EVERY_SECONDS:
            samples.append((now, done))
        while len(samples) > 1 and now - samples[1][0] >= RATE_WINDOW_SECONDS:
            samples.popleft()
        since, done_then = samples[0]
        rate = (done - done_then) / (now - since) if now - since >= 1.0 else None
        eta = None
        if rate is not None and self.total:
            eta = (self.total - done) / rate if rate > 0 else None
        statuses = [s for s in (limiter.status() for limiter in self.limiters) if s]
        return Snapshot(
            done=done,
            total=self.total,
            in_flight=sum(limiter.in_flight for limiter in self.limiters),
            rate=rate,
            eta_seconds=eta,
            tokens=self.prompt_tokens + self.completion_tokens,
            cost_usd=self.cost_usd,
            status=statuses[0] if statuses else None,
        )


_current: ContextVar[Meter | None] = ContextVar("rubric_grading_meter", default=None)


def current() -> Meter | None:
    """The meter of the grading running in this context (set by ``runner.grade``), if any."""
    return _current.get()


@contextmanager
def activate(meter: Meter) -> Iterator[Meter]:
    """``meter`` is the current one inside the block (for this task and the tasks it starts)."""
    token = _current.set(meter)
    try:
        yield meter
    finally:
        _current.reset(token)
