"""CPU of the run's rate limiter per judge call: entering and leaving ``RateLimiter.slot``.

Every judge call of a grading run passes through one slot (rubric_lsp/engine/limits/rate_limit.py);
issue 18's goal is < 1 ms of CPU per call in total at concurrency 64, so the limiter's share
must stay a few microseconds. Measured on one event loop, against ``asyncio.Semaphore`` (what
the run used before) doing the same work:

- uncontended: one task entering and leaving slots back to back (the fast path);
- contended: ``--tasks`` tasks (default 512) at concurrency 64, each holding its slot over one
  loop iteration, so most entries wait and are handed the slot by a release;
- contended with rpm/tpm ceilings set high enough never to bind (the buckets' arithmetic).

Figures are process CPU time per slot, best of ``--repeat``. No judge, no network.

    python bench/bench_rate_limit.py [--calls 200000] [--tasks 512] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rubric_lsp.engine.limits.rate_limit import RateLimiter


def _slot(limiter: Any) -> Any:
    return limiter.slot(100) if isinstance(limiter, RateLimiter) else limiter


async def _uncontended(limiter: Any, calls: int) -> None:
    for _ in range(calls):
        async with _slot(limiter):
            pass


async def _contended(limiter: Any, calls: int, tasks: int) -> None:
    per_task = calls // tasks

    async def one() -> None:
        for _ in range(per_task):
            async with _slot(limiter):
                await asyncio.sleep(0)

    await asyncio.gather(*(one() for _ in range(tasks)))


def _cpu_per_call(make: Callable[[], Any], run: Callable[[Any], Any], calls: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):

        async def timed() -> float:
            limiter = make()
            start = time.process_time()
            await run(limiter)
            return time.process_time() - start

        best = min(best, asyncio.run(timed()))
    return best / calls * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--tasks", type=int, default=512)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    calls, tasks = args.calls, args.tasks
    makers: dict[str, Callable[[], Any]] = {
        "asyncio.Semaphore(64)": lambda: asyncio.Semaphore(64),
        "RateLimiter(64)": lambda: RateLimiter(64),
        "RateLimiter(64, rpm, tpm)": lambda: RateLimiter(64, rpm=1e12, tpm=1e15),
    }
    print(f"CPU per slot (µs), best of {args.repeat}; contended: {tasks} tasks at concurrency 64")
    print(f"{'':28}{'uncontended':>14}{'contended':>12}")
    for name, make in makers.items():
        alone = _cpu_per_call(make, lambda lim: _uncontended(lim, calls), calls, args.repeat)
        # The contended figure includes the tasks' own loop iteration (asyncio.sleep(0)), as the baseline's does.
        crowd = _cpu_per_call(make, lambda lim: _contended(lim, calls, tasks), calls // tasks * tasks, args.repeat)
        print(f"{name:28}{alone:14.2f}{crowd:12.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
