"""What the report shows of each judge call ("what the judge was sent"), kept small.

The messages embed the graded output, which may be megabytes; a grading of many assertions keeping
every call's messages whole would hold one copy of the output per call (600 × 4 MB), which the
judge's prompt window (``Judge.ask``) exists to avoid. The output is shown once, in full, beside the
tests, so an output longer than ``OUTPUT_KEPT_WHOLE`` is kept as a mark pointing there; what is still long after that (a rendered var,
a parsed copy of the output) is cut at ``KEPT_CHARS``, saying how much was left out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

KEPT_CHARS = 8_000
OUTPUT_MARK = "[the graded output, shown in full above]"
# An output up to this long stays in the messages as sent: the prompt reads whole, at little cost.
OUTPUT_KEPT_WHOLE = 2_000

Messages = list[dict[str, Any]]


def kept(messages: Messages, output: str | None = None) -> Messages:
    """A copy of ``messages`` with a long ``output`` replaced by a mark, and every text content at most
    ``KEPT_CHARS`` long (a note ends a cut one)."""
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str) and output and len(output) > OUTPUT_KEPT_WHOLE and output in content:
            content = content.replace(output, OUTPUT_MARK)
        if isinstance(content, str) and len(content) > KEPT_CHARS:
            left_out = len(content) - KEPT_CHARS
            content = f"{content[:KEPT_CHARS]}\n… [{left_out:,} more characters not kept here]"
        out.append({**message, "content": content})
    return out


def noting(build: Callable[[], Messages], sent: list[Any], output: str | None = None) -> Callable[[], Messages]:
    """``build``, which also records a kept copy of what it built in ``sent`` (in call order)."""

    def run() -> Messages:
        messages = build()
        sent.append(kept(messages, output))
        return messages

    return run
