"""The options promptfoo's grader reads (``Format.grade_options``); imported when the format registers,
so it imports nothing heavy."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rubric_lsp.formats.options import GradeOption, read_options

GRADE_OPTIONS = (
    GradeOption(
        "swap",
        False,
        "select-best: ask again with the outputs in reverse order and report how often the winner changes",
        "--swap",
    ),
)


@dataclass(frozen=True)
class PromptfooOptions:
    """The options of one grading, checked, with their defaults filled in."""

    swap: bool = False

    @classmethod
    def of(cls, given: Mapping[str, Any]) -> PromptfooOptions:
        """From a request's ``options`` (ValueError naming a bad one)."""
        return cls(**read_options(given, GRADE_OPTIONS))
