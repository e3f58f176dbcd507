"""What a check made here (not by a judge) gives: a result, or why promptfoo's result is not one.

``Checked`` is a handler's pass, score and reason; ``Refused`` the handler's invariant failing (promptfoo
errors the test before grading), ``Declined`` an assertion not run here and why, ``Errored`` a run that
ends in an ERROR rather than a verdict (a runaway script, a transform that throws).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


class Refused(ValueError):
    """The handler's ``invariant`` fails: promptfoo errors the test ('Invariant failed: …')."""


class Declined(RuntimeError):
    """Not run here, and why (no JavaScript engine, a script reaching what rubric grade does not have)."""


class Errored(RuntimeError):
    """What promptfoo makes of it is an error, not a verdict (a runaway script, a failing transform)."""


@dataclass(frozen=True)
class Checked:
    passed: bool
    reason: str
    # None: promptfoo's `pass ? 1 : 0`; a javascript assertion's own score otherwise.
    own_score: float | None = None

    @property
    def score(self) -> float:
        if self.own_score is not None:
            return self.own_score
        return 1.0 if self.passed else 0.0


def checked(passed: bool, what: str, inverse: bool) -> Checked:
    """promptfoo's usual result: 'Assertion passed', or 'Expected output to [not ]<what>'."""
    return Checked(passed, "Assertion passed" if passed else f"Expected output to {'not ' if inverse else ''}{what}")


def js_parses(text: str) -> bool:
    """Whether ``JSON.parse`` reads ``text`` (it has no NaN or Infinity)."""

    def refuse(constant: str) -> Any:
        raise ValueError(constant)

    try:
        json.loads(text, parse_constant=refuse)
    except ValueError:
        return False
    return True
