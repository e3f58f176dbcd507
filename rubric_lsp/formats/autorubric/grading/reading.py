"""How an autorubric verdict reads (``result.Outcome``): the one place its verdict words are interpreted.

A criterion's weight says which way it counts: a negative weight is a penalty, so a MET
penalty is a loss and an UNMET one a penalty avoided (a pass). CANNOT_ASSESS, and an option
marked ``na``, are abstentions. A multi-choice option counts by its value: above 0 it earned
something (a pass, or a loss on a penalty), at or below 0 nothing (a fail, or a penalty avoided).
"""

from __future__ import annotations

from rubric_lsp.engine.result import Outcome

CREDIT = {"MET": 1.0, "UNMET": 0.0}  # a binary verdict's share of the criterion's weight


def binary_reading(verdict: str, weight: float) -> Outcome:
    credit = CREDIT.get(verdict)
    return Outcome.ABSTAIN if credit is None else _counted(credit, weight)


def option_reading(value: float | None, weight: float) -> Outcome:
    """An option's outcome; ``value`` None: an NA option (an abstention)."""
    return Outcome.ABSTAIN if value is None else _counted(value, weight)


def _counted(credit: float, weight: float) -> Outcome:
    earned = credit > 0
    if weight < 0:
        return Outcome.LOSS if earned else Outcome.PASS
    return Outcome.PASS if earned else Outcome.FAIL
