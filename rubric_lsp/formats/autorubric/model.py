"""The autorubric schema (faithful to autorubric 1.6.1), shared by lint, export and grading.

Validation mirrors autorubric's own models: lax pydantic coercion (``weight: "3"`` is
accepted there too) and unknown keys dropped. The exported JSON Schema is stricter on
unknown keys (``additionalProperties: false``) because that is how editors catch typos;
the linter reports them as warnings, not errors, since autorubric ignores them.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from rubric_lsp.formats.autorubric.constraints import (
    NOMINAL_AGGREGATIONS,
    ORDINAL_AGGREGATIONS,
    VERDICTS,
    option_value_in_range,
    options_problem,
)

__all__ = ["NOMINAL_AGGREGATIONS", "ORDINAL_AGGREGATIONS", "VERDICTS"]  # (their home is constraints.py)

_STRICT_KEYS = ConfigDict(defer_build=True, extra="ignore", json_schema_extra={"additionalProperties": False})


class CriterionOption(BaseModel):
    model_config = _STRICT_KEYS

    label: str = Field(
        description="Text shown to the judge for this option; ground truth names options by label (matched ignoring case and surrounding spaces)."
    )
    value: float = Field(
        description="Score in [0, 1] when the judge picks this option (not range-checked for an NA option)."
    )
    na: bool = Field(False, description="Marks a 'not applicable' option: picking it abstains, like CANNOT_ASSESS.")

    @model_validator(mode="after")
    def _value_in_range(self) -> CriterionOption:
        if not option_value_in_range(self.value, self.na):
            raise PydanticCustomError(
                "ar_option_value_range",
                "Option value must be between 0 and 1 (got {value}); only an option with na: true may lie outside",
                {"value": self.value},
            )
        return self


class Criterion(BaseModel):
    model_config = _STRICT_KEYS

    requirement: str = Field(
        description="What the judge checks. Binary criteria are judged MET / UNMET / CANNOT_ASSESS against it."
    )
    weight: float = Field(
        10.0,
        description="Contribution to the score (default 10). Negative weights are penalties: MET means the response does the bad thing.",
    )
    name: str | None = Field(None, description="Short identifier shown in reports; names should be unique.")
    options: list[CriterionOption] | None = Field(
        None,
        description="Makes the criterion multi-choice: at least 2 options, at least 2 of them not NA. Omit for a binary criterion.",
    )
    scale_type: Literal["ordinal", "nominal"] = Field(
        "ordinal",
        description="For multi-choice criteria: 'ordinal' (ordered options, default) or 'nominal' (unordered categories).",
    )
    aggregation: str | None = Field(
        None,
        description="Per-criterion override of how several judges' picks are combined: ordinal mean|median|weighted_mean|mode|min|max; nominal mode|weighted_mode|unanimous.",
    )

    @model_validator(mode="after")
    def _enough_options(self) -> Criterion:
        problem = options_problem(self.options)
        if problem == "ar_too_few_options":
            raise PydanticCustomError(
                problem,
                "A multi-choice criterion needs at least 2 options (got {count})",
                {"count": len(self.options or [])},
            )
        if problem == "ar_too_few_scored_options":
            raise PydanticCustomError(problem, "A multi-choice criterion needs at least 2 options that are not NA")
        return self

    @property
    def is_binary(self) -> bool:
        return self.options is None


class Section(BaseModel):
    """A group of criteria. Sections nest one level only; keys other than 'criteria' are ignored."""

    model_config = ConfigDict(defer_build=True, extra="allow")

    name: str | None = Field(None, description="Section title (ignored by autorubric).")
    criteria: list[Criterion] = Field(description="The criteria of this section.")


class RubricBody(BaseModel):
    """A rubric mapping: 'sections' wins over 'criteria' when both are present."""

    model_config = _STRICT_KEYS

    sections: list[Section] | None = Field(None, description="Sections, each with its 'criteria'.")
    criteria: list[Criterion | Section] | None = Field(None, description="Criteria (or sections).")
    guidelines: str | None = Field(
        None, description="Extra instructions for the judge. Give them here or beside 'rubric', not both."
    )


class ExampleExpectation(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid")

    min_score: float | None = Field(None, description="The example passes when its score is at least this.")
    verdicts: list[str] | dict[str, str] | None = Field(
        None,
        description="Expected verdict per criterion (MET/UNMET/CANNOT_ASSESS or an option label), as a list in criterion order or a mapping by criterion name.",
    )


class Example(BaseModel):
    """A response embedded in the rubric file to grade in the editor (rubric-lsp only; autorubric ignores it)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    name: str = Field(description="Shown beside the example's score.")
    query: str | None = Field(None, description="The prompt the response answers.")
    response: str = Field(description="The response to grade.")
    expect: ExampleExpectation | None = Field(
        None, description="What grading should produce; unmet expectations are reported."
    )


_SCHEMA_FIELD_DESCRIPTION = (
    "The JSON Schema this file follows (lets editors and rubric-lint recognise it; autorubric ignores it)."
)


class RubricFile(BaseModel):
    """An autorubric rubric file written as a mapping."""

    model_config = ConfigDict(
        defer_build=True, extra="ignore", populate_by_name=True, json_schema_extra={"additionalProperties": False}
    )

    schema_: str | None = Field(None, alias="$schema", description=_SCHEMA_FIELD_DESCRIPTION)

    rubric: list[Criterion | Section] | RubricBody | None = Field(
        None,
        description="The criteria: a list (of criteria or sections) or a mapping with 'sections' or 'criteria'. Wins over top-level 'sections'/'criteria'.",
    )
    sections: list[Section] | None = Field(
        None, description="Sections, each with its 'criteria' (used when there is no 'rubric')."
    )
    criteria: list[Criterion | Section] | None = Field(
        None, description="Criteria (used when there is neither 'rubric' nor 'sections')."
    )
    guidelines: str | None = Field(None, description="Extra instructions for the judge.")
    examples: list[Example] | None = Field(
        None, description="rubric-lsp extension: responses to grade from the editor (ignored by autorubric)."
    )


class DatasetItem(BaseModel):
    model_config = _STRICT_KEYS

    submission: str = Field(description="The response to grade (text or JSON-serialised).")
    description: str = Field(description="A short description of the item.")
    ground_truth: list[Any] | None = Field(
        None,
        description="Human verdict per criterion: MET/UNMET/CANNOT_ASSESS for binary criteria, an option label for multi-choice ones.",
    )
    ground_truth_reasons: list[str | None] | None = Field(
        None, description="Written reasons aligned with ground_truth (null where there is none)."
    )
    rubric: list[Criterion | Section] | RubricBody | None = Field(
        None, description="A per-item rubric that replaces the dataset's rubric."
    )
    prompt: str | None = Field(None, description="A per-item prompt that overrides the dataset's prompt.")
    reference_submission: str | None = Field(
        None, description="An exemplar response for calibration (overrides the dataset's)."
    )


class Dataset(BaseModel):
    """An autorubric RubricDataset (JSON)."""

    model_config = ConfigDict(
        defer_build=True, extra="ignore", populate_by_name=True, json_schema_extra={"additionalProperties": False}
    )

    schema_: str | None = Field(None, alias="$schema", description=_SCHEMA_FIELD_DESCRIPTION)

    name: str | None = Field(None, description="Dataset name.")
    prompt: str | None = Field(None, description="The prompt every item answers (items may override it).")
    rubric: list[Criterion | Section] | RubricBody | None = Field(
        description="The shared rubric (required key; null when every item has its own)."
    )
    reference_submission: str | None = Field(None, description="An exemplar response for calibration.")
    items: list[DatasetItem] = Field(default_factory=list, description="The items to grade.")


# The models the lint validates with, exported as shape tables for its fast path (formats/shape_export.py).
SHAPED = (Criterion, Example)


def rubric_json_schema() -> dict[str, Any]:
    file_schema = RubricFile.model_json_schema()
    defs = file_schema.pop("$defs", {})
    list_form = {
        "type": "array",
        "description": "A list of criteria or sections.",
        "items": {"anyOf": [{"$ref": "#/$defs/Criterion"}, {"$ref": "#/$defs/Section"}]},
    }
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "autorubric rubric",
        "description": "An autorubric rubric: a list of criteria or sections, or a mapping with 'rubric', 'sections' or 'criteria'.",
        "anyOf": [list_form, file_schema],
        "$defs": defs,
    }


def dataset_json_schema() -> dict[str, Any]:
    schema = Dataset.model_json_schema()
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    schema["title"] = "autorubric dataset"
    return schema


def is_finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
