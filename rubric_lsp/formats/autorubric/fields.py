"""An autorubric criterion without pydantic: the values the view, the rules and grading read, and the checks.

``model.py``'s pydantic models state the schema (hover, the exported JSON Schema) and judge what the lint's
fast path cannot vouch for; a criterion whose values plainly fit them (:mod:`rubric_lsp.formats.shapes`)
is read here without importing pydantic, into the same values pydantic would build
(tests/test_model_shapes.py compares the two on generated criteria). The model validators' conditions
are constraints.py's, for both.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from rubric_lsp.formats.autorubric.constraints import field_of, option_value_in_range, options_problem
from rubric_lsp.formats.autorubric.shapes import MODELS
from rubric_lsp.formats.shapes import field_keys, fields_if_plain

CRITERION_KEYS = frozenset(field_keys(MODELS["Criterion"]))
OPTION_KEYS = frozenset(field_keys(MODELS["CriterionOption"]))


# The model validators' plain counterparts, by the validator's name (formats.shapes checks each).
CHECKS = {
    "_value_in_range": lambda fields: option_value_in_range(fields["value"], fields["na"]),
    "_enough_options": lambda fields: options_problem(fields["options"]) is None,
}


@dataclass(frozen=True, slots=True)
class OptionValues:
    label: str
    value: float
    na: bool = False


@dataclass(frozen=True, slots=True)
class CriterionValues:
    """A valid criterion's values, as autorubric builds its Criterion (defaults filled in, weights floats)."""

    requirement: str
    weight: float = 10.0
    name: str | None = None
    options: list[OptionValues] | None = None
    scale_type: Literal["ordinal", "nominal"] = "ordinal"
    aggregation: str | None = None

    @property
    def is_binary(self) -> bool:
        return self.options is None

    @classmethod
    def of(cls, fields: dict[str, Any]) -> CriterionValues:
        """From a criterion's fields by name (nested options as mappings or objects with the option's fields)."""
        options = fields.get("options")
        return cls(
            requirement=fields["requirement"],
            weight=fields["weight"],
            name=fields["name"],
            options=None
            if options is None
            else [OptionValues(field_of(o, "label"), field_of(o, "value"), field_of(o, "na")) for o in options],
            scale_type=fields["scale_type"],
            aggregation=fields["aggregation"],
        )

    @classmethod
    def of_model(cls, model: Any) -> CriterionValues:
        """From a pydantic Criterion (what model_validate built where the fast path could not vouch)."""
        return cls.of({name: getattr(model, name) for name in _CRITERION_NAMES})


_CRITERION_NAMES = tuple(field.name for field in dataclasses.fields(CriterionValues))


def plain_criterion(data: Any) -> CriterionValues | None:
    """The criterion ``data`` (a mapping as PyYAML or json built it) when its values plainly fit the model,
    else None: pydantic then judges it (and words what it refuses)."""
    fields = fields_if_plain(data, "Criterion", MODELS, CHECKS)
    return None if fields is None else CriterionValues.of(fields)
