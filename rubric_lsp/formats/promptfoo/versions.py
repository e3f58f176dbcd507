"""What differs between the promptfoo releases rubric-lsp tracks (read from each release's package).

Pure data (the lint path reads it for PF004/PF006; grading for ``not-`` and var order):

- ``inverting``: the model-graded types whose ``not-`` form inverts (pass flipped, score
  ``1 - score``, a grader failure left as it is). The others grade exactly like their plain
  type: ``not-factuality`` *is* ``factuality``.
  0.121.9: only g-eval (``handleLlmRubric`` ignored ``inverse``); 0.123.1: llm-rubric and
  g-eval (factuality and model-graded-closedqa still ignore it).
- ``rubric_vars_last``: whether llm-rubric spreads the test vars after ``output``/``rubric``
  (0.121.9: ``{output, rubric, ...vars}``, so a var named ``output`` replaced the graded
  output); 0.123.1 spreads them first (``{...vars, output, rubric}``).

A version between two tracked releases is read as the older one; one before the oldest as the
oldest; a missing or unreadable version as the latest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ENV_VERSION = "RUBRIC_PROMPTFOO_VERSION"
NEGATABLE_MODEL_GRADED = ("llm-rubric", "g-eval", "factuality", "model-graded-factuality", "model-graded-closedqa")


@dataclass(frozen=True)
class Release:
    version: str
    inverting: frozenset[str]
    rubric_vars_last: bool


RELEASES = (
    Release("0.121.9", frozenset({"g-eval"}), rubric_vars_last=True),
    Release("0.123.1", frozenset({"llm-rubric", "g-eval"}), rubric_vars_last=False),
)
LATEST = RELEASES[-1]


def _key(version: str) -> tuple[int, ...] | None:
    match = re.fullmatch(r"v?(\d+)\.(\d+)\.(\d+)(?:[-+].*)?", version.strip())
    return tuple(int(part) for part in match.groups()) if match else None


def release(version: str | None) -> Release:
    """The tracked release whose behaviour ``version`` has."""
    key = _key(version) if version else None
    if key is None:
        return LATEST
    chosen = RELEASES[0]
    for candidate in RELEASES:
        if _key(candidate.version) <= key:  # type: ignore[operator]
            chosen = candidate
    return chosen


def inverts(type_name: str, version: str | None = None) -> bool:
    """Whether ``not-<type_name>`` inverts the verdict in ``version`` (default: the latest tracked)."""
    return type_name in release(version).inverting


def negation_note(type_name: str) -> str:
    """Which tracked releases invert ``not-<type_name>``, in words."""
    inverting = [r.version for r in RELEASES if type_name in r.inverting]
    ignoring = [r.version for r in RELEASES if type_name not in r.inverting]
    if not inverting:
        return f"promptfoo ignores the not- of '{type_name}' ({', '.join(ignoring)}): 'not-{type_name}' grades exactly like '{type_name}'"
    if not ignoring:
        return f"promptfoo inverts 'not-{type_name}' ({', '.join(inverting)})"
    return (
        f"'not-{type_name}' is ignored (graded like '{type_name}') in promptfoo {', '.join(ignoring)} "
        f"and inverted in {', '.join(inverting)}"
    )
