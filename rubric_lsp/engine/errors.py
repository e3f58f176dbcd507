"""Why a grading cannot be carried out or stops (``GradingError`` and its kinds), and the total
deadline that stops it (``within_deadline``).

Below the runner and batch mode, which both run a grading under the deadline; the runner
re-exports them, where the graders have always imported them from.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from rubric_lsp.engine.request import RequestKind

T = TypeVar("T")

DEADLINE_HELP = "raise it with `rubric grade --deadline SECONDS` or the editor setting rubric.judge.deadlineSeconds"


class GradingError(Exception):
    """The file cannot be graded (not readable, not a rubric, invalid); the message says why."""


class DeadlineExceeded(GradingError):
    """The grading ran past its total deadline; nothing it judged is reported as a verdict."""


class GradeExtraMissing(GradingError):
    """litellm (the ``[grade]`` extra) is not installed; the message is one line saying how to install it."""


class UnsupportedRequest(GradingError):
    """The file's format does not answer this kind of request (e.g. examples asked of a file that has none)."""

    def __init__(self, kind: RequestKind, what: str) -> None:
        super().__init__(f"This file cannot answer a {kind.value} request: {what}.")
        self.kind = kind


async def within_deadline(work: Awaitable[T], deadline: float | None, progress: Callable[[], str]) -> T:
    """``await work``, cancelled past ``deadline`` seconds with ``DeadlineExceeded`` (its message says
    ``progress()``); no deadline when None."""
    if deadline is None:
        return await work
    # The grading runs as a task of its own that the deadline cancels (asyncio.timeout is 3.11+,
    # and we support 3.10): a TimeoutError raised inside the grader stays what it is.
    task = asyncio.ensure_future(work)
    expired = False

    def expire() -> None:
        nonlocal expired
        expired = True
        task.cancel()

    timer = asyncio.get_running_loop().call_later(deadline, expire)
    try:
        return await task
    except asyncio.CancelledError:
        if not expired:
            raise
        raise DeadlineExceeded(
            f"The grading did not finish within its deadline of {deadline:g} s ({progress()}); "
            f"{DEADLINE_HELP}. A judge that never answers is the usual cause."
        ) from None
    finally:
        timer.cancel()
