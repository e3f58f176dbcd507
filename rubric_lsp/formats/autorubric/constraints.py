"""What autorubric 1.6.1 requires of a criterion beyond its field types (its Criterion and CriterionOption
validators), and its words: stated once for the pydantic models (model.py) and the lint's fast path
(fields.py), neither of which imports the other's library."""

from __future__ import annotations

from typing import Any

ORDINAL_AGGREGATIONS = ("mean", "median", "weighted_mean", "mode", "min", "max")
NOMINAL_AGGREGATIONS = ("mode", "weighted_mode", "unanimous")
VERDICTS = ("MET", "UNMET", "CANNOT_ASSESS")


def option_value_in_range(value: float, na: bool) -> bool:
    """A scored option's value lies in [0, 1] (an NA option's is not checked)."""
    return na or 0.0 <= value <= 1.0


def options_problem(options: list[Any] | None) -> str | None:
    """What autorubric refuses in a criterion's options (each a mapping or an object with ``na``): None when
    nothing, else the error's type (``ar_too_few_options``, ``ar_too_few_scored_options``)."""
    if options is None:
        return None
    if len(options) < 2:
        return "ar_too_few_options"
    if sum(1 for option in options if not field_of(option, "na")) < 2:
        return "ar_too_few_scored_options"
    return None


def field_of(option: Any, name: str) -> Any:
    return option[name] if isinstance(option, dict) else getattr(option, name)
