"""The options autorubric's graders read (``Format.grade_options``): how abstentions count, the 0–1
score, option shuffling and how several judges' binary votes combine.

Imported when the format registers (the command line and the editor settings are made from
these declarations), so it imports nothing heavy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rubric_lsp.formats.options import GradeOption, read_options

# How an abstention counts in the score (score.py applies them; autorubric's CannotAssessStrategy).
CANNOT_ASSESS_STRATEGIES = ("skip", "zero", "partial", "fail")
# How several judges' binary votes combine (grading/votes.py: aggregate; CriterionGrader(aggregation=...)).
BINARY_AGGREGATIONS = ("majority", "weighted", "unanimous", "any")


def fraction(text: str) -> float:
    """A number from 0 to 1 (``--partial-credit``)."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"must be a number between 0 and 1, got {text}") from None
    if not 0.0 <= value <= 1.0:  # NaN fails too
        raise ValueError(f"must be between 0 and 1, got {text}")
    return value


GRADE_OPTIONS = (
    GradeOption(
        "cannot_assess",
        "skip",
        "how abstentions count (default: skip)",
        "--cannot-assess",
        choices=CANNOT_ASSESS_STRATEGIES,
        setting="grading.cannotAssess",
        env="RUBRIC_CANNOT_ASSESS",
    ),
    GradeOption(
        "partial_credit",
        0.5,
        "credit for an abstention under --cannot-assess partial (default: 0.5)",
        "--partial-credit",
        parse=fraction,
    ),
    GradeOption("normalize", True, "report the raw weighted sum instead of a 0–1 score", "--raw"),
    GradeOption(
        "aggregation",
        "majority",
        "several judges: how binary votes combine (default: majority; judges weigh equally, so weighted = majority)",
        "--aggregation",
        choices=BINARY_AGGREGATIONS,
    ),
    GradeOption("shuffle_options", True, "show multi-choice options in authored order", "--no-shuffle"),
)


@dataclass(frozen=True)
class AutorubricOptions:
    """The options of one grading, checked, with their defaults filled in."""

    cannot_assess: str = "skip"
    partial_credit: float = 0.5
    normalize: bool = True
    shuffle_options: bool = True
    aggregation: str = "majority"

    @classmethod
    def of(cls, given: Mapping[str, Any]) -> AutorubricOptions:
        """From a request's ``options`` (ValueError naming a bad one)."""
        return cls(**read_options(given, GRADE_OPTIONS))
