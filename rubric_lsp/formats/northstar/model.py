"""NorthStar's eval models (faithful to NorthStar at its public head), shared by lint, export and grading.

Two kinds of file: an ``EvalRunRequest`` (``{"graders": [...]}``, what NorthStar's dashboard
sends to its Python eval worker) and eval-case datasets (one case, a list of cases,
``{"cases": [...]}``, or JSON Lines). NorthStar's own models forbid unknown keys
(``extra="forbid"``); so do these, except the grader entries: the eval worker reads each
grader with ``dict.get``/``[...]`` and ignores keys it does not know.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

SCORING_MODES = ("binary", "numeric")
RUBRIC_JUDGE_TYPES = ("rubric", "faithfulness")
GRADER_TYPES = ("rubric", "faithfulness", "python", "typescript", "regex", "trace")
TRACE_CHECKS = (
    "bad_tool_failure_recovery",
    "unnecessary_tool_loop",
    "stale_context_usage",
    "invalid_state_transition",
    "retrieval_precision_recall",
    "step_cost_attribution",
    "failure_origin",
    "hallucinated_tool_result_judge",
    "planning_action_mismatch_judge",
)
REGEX_FLAGS = ("ignorecase", "multiline", "dotall")
# RubricJudge(threshold=0.5), FaithfulnessJudge(threshold=0.7); both temperature 0.0.
DEFAULT_THRESHOLD = {"rubric": 0.5, "faithfulness": 0.7}
DEFAULT_TEMPERATURE = 0.0

_FORBID = ConfigDict(defer_build=True, extra="forbid")


class JudgeScoringConfig(BaseModel):
    """How a judge's reply is read: a raw score on [min_score, max_score], or passed/failed."""

    model_config = _FORBID

    mode: Literal["binary", "numeric"] = Field(
        description="'numeric': the judge returns a score in [min_score, max_score], normalised to [0, 1]; 'binary': the judge returns passed: true/false."
    )
    min_score: float = Field(0.0, description="Lower bound of the judge's raw score (numeric mode).")
    max_score: float = Field(1.0, description="Upper bound of the judge's raw score; must be greater than min_score.")
    passing_score: float | None = Field(
        None,
        description="The raw score at or above which the grade passes. Required in numeric mode, within [min_score, max_score]; binary mode defaults it to max_score and never checks it.",
    )
    labels: dict[float, str] | None = Field(
        None,
        description='Label per raw score, e.g. {"4": "good", "5": "excellent"}; a label is used when the judge\'s raw score equals the key exactly.',
    )

    @model_validator(mode="after")
    def _validate_scoring(self) -> JudgeScoringConfig:
        # Same order and outcomes as NorthStar's JudgeScoringConfig.validate_scoring.
        if self.max_score <= self.min_score:
            raise PydanticCustomError(
                "ns_score_range",
                "max_score ({max_score}) must be greater than min_score ({min_score})",
                {"max_score": self.max_score, "min_score": self.min_score},
            )
        if self.mode == "binary":
            if self.passing_score is None:
                self.passing_score = self.max_score
            return self
        if self.passing_score is None:
            raise PydanticCustomError("ns_passing_score_missing", "passing_score is required for numeric judge scoring")
        if not self.min_score <= self.passing_score <= self.max_score:
            raise PydanticCustomError(
                "ns_passing_score_range",
                "passing_score ({passing_score}) must be within min_score ({min_score}) and max_score ({max_score})",
                {"passing_score": self.passing_score, "min_score": self.min_score, "max_score": self.max_score},
            )
        return self

    def normalized(self, raw: float) -> float:
        """A raw numeric score on [0, 1] (NorthStar: (raw - min) / (max - min))."""
        return (raw - self.min_score) / (self.max_score - self.min_score)


class GraderConfig(BaseModel):
    """One grader of an EvalRunRequest. Keys other than these are ignored by NorthStar."""

    model_config = ConfigDict(defer_build=True, extra="allow", json_schema_extra={"additionalProperties": False})

    type: Literal["rubric", "faithfulness", "python", "typescript", "regex", "trace"] = Field(
        "rubric",
        description="The grader: 'rubric' (RubricJudge), 'faithfulness' (FaithfulnessJudge), 'python'/'typescript' (code), 'regex', or 'trace'. Defaults to 'rubric'.",
    )
    name: str = Field(description="The grader name shown in results (GradeResult.name); unique within the request.")
    model: str | None = Field(
        None,
        description="The judge model, any LiteLLM model string (e.g. 'gpt-4o', 'openrouter/deepseek/deepseek-v4-flash').",
    )
    rubric: str | None = Field(
        None,
        description="Rubric judges: a grading rubric applied to every case. Without it the judge falls back to expected.rubric, then expected.goal; a case with neither is skipped.",
    )
    threshold: float | None = Field(
        None,
        description="The passing score when no scoring config is given (RubricJudge 0.5, FaithfulnessJudge 0.7). Ignored when scoring sets passing_score.",
    )
    temperature: float = Field(
        DEFAULT_TEMPERATURE,
        description="Sampling temperature of the judge model (0 to 2). Keep 0 for repeatable grades.",
    )
    scoring: JudgeScoringConfig | None = Field(
        None,
        description="How the judge's reply is scored. Without it: numeric mode on [0, 1] with passing_score = threshold.",
    )
    code: str | None = Field(None, description="Code graders ('python'/'typescript'): the grader's source.")
    timeout_ms: int | None = Field(None, description="Code graders: time limit in milliseconds (1 to 5000).")
    pattern: str | None = Field(None, description="Regex graders: the pattern.")
    target: str | None = Field(
        None, description="Regex graders: what the pattern is matched against (e.g. 'final_response')."
    )
    flags: list[Literal["ignorecase", "multiline", "dotall"]] | None = Field(None, description="Regex graders: flags.")
    check: str | None = Field(None, description="Trace graders: which trace check to run.")

    @property
    def is_judge(self) -> bool:
        return self.type in RUBRIC_JUDGE_TYPES

    def effective_scoring(self) -> JudgeScoringConfig:
        """The scoring NorthStar uses: the given config, else numeric [0, 1] passing at threshold."""
        if self.scoring is not None:
            return self.scoring
        threshold = self.threshold if self.threshold is not None else DEFAULT_THRESHOLD.get(self.type, 0.5)
        return JudgeScoringConfig(mode="numeric", min_score=0.0, max_score=1.0, passing_score=threshold)


class EvalRunRequest(BaseModel):
    """NorthStar's EvalRunRequest: the graders an eval run applies to every case."""

    model_config = _FORBID

    graders: list[GraderConfig] = Field(description="The graders to run on every case, in order.")


def _string_list(value: Any) -> Any:
    # NorthStar accepts a single string where a list of strings is expected.
    return [value] if isinstance(value, str) else value


def _non_negative(value: float | None, field: str) -> float | None:
    if value is not None and value < 0:
        raise PydanticCustomError(
            "ns_negative_limit", "{field} must be non-negative (got {value})", {"field": field, "value": value}
        )
    return value


class ExpectedToolArguments(BaseModel):
    model_config = _FORBID

    name: str = Field(description="The tool's name.")
    arguments: dict[str, Any] = Field(description="The arguments the tool must be called with.")


class ExpectedStateTransition(BaseModel):
    model_config = _FORBID

    from_state: str = Field(description="State before the transition.")
    to_state: str = Field(description="State after the transition.")


class TraceExpected(BaseModel):
    model_config = _FORBID

    max_repeated_tool_calls: int | None = Field(None, description="Most identical tool calls allowed (positive).")
    allowed_state_transitions: list[ExpectedStateTransition] | None = Field(
        None, description="State transitions the agent may make."
    )
    relevant_retrieval_ids: list[str] | None = Field(None, description="Ids of the documents retrieval should return.")
    min_retrieval_precision: float | None = Field(None, description="Lowest acceptable retrieval precision, in [0, 1].")
    min_retrieval_recall: float | None = Field(None, description="Lowest acceptable retrieval recall, in [0, 1].")
    max_step_cost_usd: float | None = Field(None, description="Most a single step may cost, in USD (non-negative).")

    @field_validator("max_repeated_tool_calls")
    @classmethod
    def _positive(cls, value: int | None) -> int | None:
        if value is not None and value <= 0:
            raise PydanticCustomError(
                "ns_negative_limit", "max_repeated_tool_calls must be positive (got {value})", {"value": value}
            )
        return value

    @field_validator("min_retrieval_precision", "min_retrieval_recall")
    @classmethod
    def _ratio(cls, value: float | None) -> float | None:
        if value is not None and not 0 <= value <= 1:
            raise PydanticCustomError(
                "ns_ratio_range", "a retrieval threshold must be between 0 and 1 (got {value})", {"value": value}
            )
        return value

    @field_validator("max_step_cost_usd")
    @classmethod
    def _cost(cls, value: float | None) -> float | None:
        return _non_negative(value, "max_step_cost_usd")


class EvalExpected(BaseModel):
    model_config = _FORBID

    goal: str | None = Field(
        None, description="What the agent should achieve; rubric judges grade against it when there is no rubric."
    )
    ground_truth: str | None = Field(None, description="The correct answer, shown to judges.")
    context: list[str] | None = Field(
        None,
        description="Grounding passages (a string or a list); FaithfulnessJudge is skipped without context or tool output.",
    )
    rubric: str | None = Field(None, description="A per-case rubric for rubric judges that have none of their own.")
    required_tools: list[str] | None = Field(None, description="Tools that must be called.")
    forbidden_tools: list[str] | None = Field(None, description="Tools that must not be called.")
    tool_sequence: list[str] | None = Field(None, description="Tools in the order they must be called.")
    contains: list[str] | None = Field(None, description="Phrases the final response must contain.")
    not_contains: list[str] | None = Field(None, description="Phrases the final response must not contain.")
    tool_arguments: list[ExpectedToolArguments] | None = Field(
        None, description="Tool calls with the arguments they must have."
    )
    require_tool_output_reference: bool | None = Field(
        None, description="The final response must use some tool output."
    )
    max_tool_calls: int | None = Field(None, description="Most tool calls allowed (non-negative).")
    max_latency_ms: float | None = Field(None, description="Slowest acceptable run, in milliseconds (non-negative).")
    max_cost_usd: float | None = Field(None, description="Most the run may cost, in USD (non-negative).")
    trace: TraceExpected | None = Field(None, description="Expectations on the run's trace.")

    @field_validator(
        "required_tools", "forbidden_tools", "tool_sequence", "context", "contains", "not_contains", mode="before"
    )
    @classmethod
    def _single_string_lists(cls, value: Any) -> Any:
        return _string_list(value)

    @field_validator("max_tool_calls", "max_latency_ms", "max_cost_usd")
    @classmethod
    def _limits(cls, value, info):
        return _non_negative(value, info.field_name)


class EvalMetrics(BaseModel):
    model_config = _FORBID

    latency_ms: float | None = Field(None, description="The run's latency in milliseconds.")
    cost_usd: float | None = Field(None, description="The run's cost in USD.")


class EvalCase(BaseModel):
    """One NorthStar eval case."""

    model_config = _FORBID

    id: str = Field(description="The case id, unique in the dataset.")
    input: Any = Field(None, description="The input given to the agent (free form).")
    trace: dict[str, Any] | None = Field(None, description="A recorded trace of the run (for trace graders).")
    messages: list[dict[str, Any]] = Field(
        description="The conversation in OpenAI chat format; the last assistant message is the final response."
    )
    expected: EvalExpected = Field(default_factory=EvalExpected, description="What graders check the run against.")
    metrics: EvalMetrics = Field(default_factory=EvalMetrics, description="Measured latency and cost of the run.")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Free-form metadata.")


class EvalCaseList(BaseModel):
    """The ``{"cases": [...]}`` shape of an eval dataset."""

    model_config = ConfigDict(defer_build=True, extra="allow")

    cases: list[EvalCase] = Field(description="The eval cases.")


def request_json_schema() -> dict[str, Any]:
    schema = EvalRunRequest.model_json_schema()
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    schema["title"] = "NorthStar EvalRunRequest"
    schema["description"] = 'The graders of a NorthStar eval run: {"graders": [...]}.'
    return schema


def cases_json_schema() -> dict[str, Any]:
    wrapped = EvalCaseList.model_json_schema()
    defs = wrapped.pop("$defs", {})
    defs["EvalCase"] = defs.get("EvalCase") or EvalCase.model_json_schema()
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "NorthStar eval cases",
        "description": 'A NorthStar eval dataset: one case, a list of cases, or {"cases": [...]} (JSON Lines files hold one case per line).',
        "anyOf": [
            {"$ref": "#/$defs/EvalCase"},
            {"type": "array", "items": {"$ref": "#/$defs/EvalCase"}},
            wrapped,
        ],
        "$defs": defs,
    }


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
