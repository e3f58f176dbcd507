"""Grading with a NorthStar ``EvalRunRequest``'s LLM graders (semantics.md §3).

Each ``rubric`` grader is one judge call. Numeric mode normalises the raw score to [0, 1]
and passes iff ``raw >= passing_score``; binary mode scores 1/0 from ``passed``. A reply is
read as NorthStar reads it: the whole reply (ANSI codes and a Markdown fence stripped),
then every ``{`` in order, the first candidate that its reply model accepts wins (pydantic's
ordinary coercion, no extra keys, non-blank reason and feedback, score in range); none →
"LLM judge returned invalid JSON.". When a later candidate would have given another
outcome the verdict is marked ambiguous. A failed call is a FAILED grade carrying
NorthStar's message for the error, never a crash and never a pass.

Graders are read with the NorthStar format's ``read_request`` and its ``JudgeScoringConfig``
(NorthStar's validators and threshold defaults), so lint and grading accept the same files.
A grader type NorthStar does not know refuses the whole request, as NorthStar does; code,
regex and trace graders are not LLM judges and are named in a note, not run.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator

from rubric_lsp.document import Node
from rubric_lsp.engine.failures import JudgeFailure
from rubric_lsp.engine.judge import Judge
from rubric_lsp.engine.report import GradeReport, Subject, Verdict
from rubric_lsp.engine.runner import fan_out
from rubric_lsp.formats.northstar.model import GRADER_TYPES, RUBRIC_JUDGE_TYPES, JudgeScoringConfig
from rubric_lsp.formats.northstar.view import Problem, read_request

INVALID_JSON = "LLM judge returned invalid JSON."
# NorthStar's RubricJudge model when a grader names none.
DEFAULT_JUDGE_MODEL = "openrouter/deepseek/deepseek-v4-flash"
# What NorthStar puts in the prompt's rubric when a judge has none but the case has a goal.
GOAL_RUBRIC = "Pass only if the final response satisfies the stated goal."

SYSTEM = (
    "You grade an AI agent's final response, strictly. Use only what is given to you: the "
    "final_response, rubric, goal, ground_truth, context, tool_calls and tool_outputs. Give no "
    "credit for claims those inputs do not support, and do not fill in facts that are missing. "
    "Answer with a JSON object only."
)
NUMERIC_INSTRUCTIONS = (
    "Give `score`, a number from {low:g} to {high:g}; the grade passes only when the score is "
    "{passing:g} or more, so do not decide pass or fail yourself. Spread your scores over the "
    "whole scale: low for answers that are missing, unsupported or harmful, high only for "
    "complete, well-supported ones."
)
BINARY_INSTRUCTIONS = (
    "Give `passed` as true or false (and, if you like, `label` as pass or fail); give no "
    "numeric score. `passed` is true only when the response meets every criterion the rubric requires."
)
FIELD_INSTRUCTIONS = (
    "`reason` justifies the score or decision in a few words. `feedback` is never empty: it tells "
    "the author of the answer what to fix (a short positive note only when nothing needs fixing). "
    "`confidence`, if given, is between 0 and 1. `evidence`, if given, is a list of short strings "
    "quoted or summarised from the inputs."
)
NON_LLM_TYPES = tuple(t for t in GRADER_TYPES if t not in RUBRIC_JUDGE_TYPES)


class GraderRequestError(ValueError):
    """The request cannot be graded as NorthStar would run it (it refuses the whole request)."""


@dataclass
class GraderInput:
    index: int
    name: str
    kind: str
    rubric: str | None
    scoring: JudgeScoringConfig | None
    model: str | None
    temperature: float
    range: dict[str, Any] | None
    config_error: str | None = None


@dataclass
class GraderPlan:
    judges: list[GraderInput] = field(default_factory=list)
    not_run: list[str] = field(default_factory=list)  # code, regex and trace graders, by name


def read_graders(root: Node, range_of: Callable[[Node], dict[str, Any] | None]) -> GraderPlan:
    """The LLM judges of an EvalRunRequest, read by the NorthStar format's own reader.

    A judge NorthStar would refuse (bad scoring, a field of the wrong type) is kept with
    ``config_error`` set, so its grade fails with the reason instead of disappearing. An
    entry that is not a grader at all, or names a type NorthStar does not know, raises
    GraderRequestError: NorthStar refuses the request, so no grade of it would be honest.
    """
    view = read_request(root)
    plan = GraderPlan()
    for entry in view.graders:
        grader = entry.grader
        if grader is not None:
            if not grader.is_judge:
                plan.not_run.append(f"'{grader.name}' ({grader.type})")
                continue
            plan.judges.append(
                GraderInput(
                    entry.index,
                    grader.name,
                    grader.type,
                    grader.rubric,
                    grader.effective_scoring(),
                    grader.model,
                    grader.temperature,
                    range_of(entry.node),
                )
            )
            continue
        where = f"grader {entry.index + 1}"
        if not entry.node.is_map:
            raise GraderRequestError(f"{where} is not a grader object, so NorthStar refuses the request.")
        kind = _scalar(entry.node, "type", "rubric")  # NorthStar's default type is 'rubric'
        if kind not in GRADER_TYPES:
            known = ", ".join(GRADER_TYPES)
            raise GraderRequestError(
                f"{where} has type {kind!r}, which NorthStar does not know ({known}), so it refuses the whole request."
            )
        name = _scalar(entry.node, "name", None)
        name = name if isinstance(name, str) else f"{kind} grader {entry.index + 1}"
        if kind not in RUBRIC_JUDGE_TYPES:
            plan.not_run.append(f"'{name}' ({kind})")
            continue
        problems = [
            _described(p)
            for p in view.problems
            if p.kind == "grader-invalid" and entry.node.start <= p.node.start and p.node.end <= entry.node.end
        ]
        plan.judges.append(
            GraderInput(
                entry.index,
                name,
                kind,
                None,
                None,
                None,
                0.0,
                range_of(entry.node),
                config_error="; ".join(problems) or "NorthStar refuses this grader",
            )
        )
    return plan


def _described(problem: Problem) -> str:
    error = problem.error
    parts = (
        [*error.path, *([error.missing_key] if error.missing_key and error.missing_key not in error.path else [])]
        if error is not None
        else []
    )
    path = ".".join(str(part) for part in parts)
    return f"{path}: {problem.message}" if path else problem.message


def _scalar(node: Node, key: str, default: Any) -> Any:
    child = node.get(key)
    return child.value if child is not None and child.is_scalar else default


def skip_reason(grader: GraderInput, query: str | None) -> str | None:
    """Why NorthStar would skip this judge for a bare response, or None when it calls its judge."""
    if grader.kind == "faithfulness":
        # NorthStar skips faithfulness without context or tool outputs; a bare response has neither.
        return "Faithfulness needs context or tool outputs to check against; a single response has none, so NorthStar skips it."
    if grader.rubric is None and query is None:
        return "This judge has no rubric and there is no goal, so NorthStar skips it; give the goal with --query."
    return None


def messages_for(grader: GraderInput, response: str, query: str | None) -> list[dict[str, str]]:
    scoring = grader.scoring
    assert scoring is not None
    if scoring.mode == "numeric":
        instructions = NUMERIC_INSTRUCTIONS.format(
            low=scoring.min_score, high=scoring.max_score, passing=passing_score_of(scoring)
        )
    else:
        instructions = BINARY_INSTRUCTIONS
    payload: dict[str, Any] = {
        "goal": query,
        "rubric": grader.rubric or GOAL_RUBRIC,
        "ground_truth": None,
        "final_response": response,
        "tool_calls": [],
        "tool_outputs": [],
        "context": None,
    }
    system = f"{SYSTEM} {instructions} {FIELD_INSTRUCTIONS}"
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": json.dumps(payload, ensure_ascii=True, default=str)},
    ]


def passing_score_of(scoring: JudgeScoringConfig) -> float:
    return scoring.passing_score if scoring.passing_score is not None else scoring.max_score


def _not_blank(value: str) -> str:
    stripped = value.strip()
    if not stripped:
        raise ValueError("must not be blank")
    return stripped


class _Reply(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str
    feedback: str
    label: str | None = None
    confidence: float | None = Field(default=None, ge=0, le=1)
    evidence: list[str] = Field(default_factory=list)

    _reason_not_blank = field_validator("reason", "feedback")(_not_blank)


class BinaryReply(_Reply):
    passed: bool


@lru_cache(maxsize=64)
def reply_model(scoring_mode: str, min_score: float, max_score: float) -> type[BaseModel]:
    """The reply NorthStar accepts for a scoring config (ordinary pydantic coercion, as NorthStar's)."""
    if scoring_mode == "binary":
        return BinaryReply
    return create_model("NumericReply", __base__=_Reply, score=(float, Field(ge=min_score, le=max_score)))


def response_format(scoring: JudgeScoringConfig) -> dict[str, Any]:
    model = reply_model(scoring.mode, scoring.min_score, scoring.max_score)
    return {"type": "json_schema", "json_schema": {"name": "northstar_judgment", "schema": model.model_json_schema()}}


_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def candidates(content: str) -> list[str]:
    """NorthStar's reading order: the whole reply, then each JSON object starting at a ``{``."""
    text = _ANSI.sub("", content).strip()
    if text.startswith("```"):
        lines = text.splitlines()[1:]
        if lines and lines[-1].startswith("```"):
            lines = lines[:-1]
        text = "\n".join(lines).strip()
    if not text:
        return []
    found = [text]
    decoder = json.JSONDecoder()
    for position, char in enumerate(text):
        if char != "{":
            continue
        try:
            value, length = decoder.raw_decode(text, position)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(text[position:length])
    return found


def parse_reply(content: str, scoring: JudgeScoringConfig) -> tuple[dict[str, Any], bool]:
    """(the reply NorthStar would take, ambiguous): ambiguous when a later valid candidate differs."""
    model = reply_model(scoring.mode, scoring.min_score, scoring.max_score)
    accepted: list[dict[str, Any]] = []
    for candidate in candidates(content):
        try:
            accepted.append(model.model_validate_json(candidate).model_dump())
        except (ValidationError, ValueError):
            continue
    if not accepted:
        raise JudgeFailure("parse", INVALID_JSON, "bad_reply")
    key = "score" if scoring.mode == "numeric" else "passed"
    return accepted[0], len({reply[key] for reply in accepted}) > 1


async def grade_graders(
    judges_for: Callable[[GraderInput], Judge],
    plan: GraderPlan,
    response: str,
    query: str | None,
    *,
    on_progress: Callable[[int, int], None] | None = None,
) -> GradeReport:
    report = GradeReport(format="northstar")
    graders = plan.judges
    judges: list[Judge] = []

    async def one(grader: GraderInput) -> Verdict:
        try:
            return await _grade_one(grader)
        finally:
            if on_progress:
                on_progress(0, len(graders))

    async def _grade_one(grader: GraderInput) -> Verdict:
        subject = Subject(grader.name, grader.index, grader.range)
        if grader.config_error:
            failure = JudgeFailure("unknown", f"Invalid grader config: {grader.config_error}", "config")
            return subject.failure(failure.message, failure.error, "FAIL", passed=False)
        skipped = skip_reason(grader, query)
        if skipped is not None:
            return subject.skipped(skipped)
        scoring = grader.scoring
        assert scoring is not None
        try:
            judge = judges_for(grader)
            judges.append(judge)
            (reply, ambiguous), cached = await judge.ask(
                lambda: messages_for(grader, response, query),  # built inside the judge's prompt window
                response_format(scoring),
                lambda c: parse_reply(c, scoring),
            )
        except asyncio.CancelledError:
            raise
        except JudgeFailure as failure:
            if failure.category == "parse" and failure.message != INVALID_JSON:
                # An empty or message-less reply: NorthStar reports every unusable reply alike.
                return subject.failure(
                    INVALID_JSON, f"parse: {INVALID_JSON}", "FAIL", passed=False, feedback=failure.message
                )
            return subject.failure(failure.message, failure.error, "FAIL", passed=False)
        if scoring.mode == "numeric":
            raw = float(reply["score"])
            score = scoring.normalized(raw)
            passed = raw >= passing_score_of(scoring)
            label = (scoring.labels or {}).get(raw) or reply.get("label") or ("pass" if passed else "fail")
        else:
            passed = bool(reply["passed"])
            score = 1.0 if passed else 0.0
            label = reply.get("label") or ("pass" if passed else "fail")
        return subject.judged(
            "PASS" if passed else "FAIL",
            reply["reason"],
            feedback=reply["feedback"],
            confidence=reply.get("confidence"),
            evidence=reply.get("evidence") or None,
            score=score,
            passed=passed,
            label=label,
            ambiguous=ambiguous,
            cached=cached,
        )

    report.verdicts = await fan_out(one(g) for g in graders)
    _finish(report, plan, judges)
    return report


def _finish(report: GradeReport, plan: GraderPlan, judges: list[Judge]) -> None:
    """Usage, model, notes and NorthStar's score and pass over the graders' verdicts."""
    for judge in {id(j): j for j in judges}.values():
        report.usage.merge(judge.usage)
    report.model = ", ".join(sorted({j.model for j in judges})) or None
    if plan.not_run:
        report.notes = [
            f"Not graded here (rubric grade runs NorthStar's LLM judges only): {', '.join(plan.not_run)}; the result leaves them out."
        ]
    scored = [v for v in report.verdicts if v.verdict in ("PASS", "FAIL") or v.failed]
    if scored:
        report.score = sum(v.score or 0.0 for v in scored) / len(scored)
        report.raw_score = report.score
        report.passed = all(v.passed for v in scored)
    if report.verdicts and all(v.failed for v in report.verdicts):
        report.error = "Every grader failed: " + (report.verdicts[0].error or "")
        report.score = report.raw_score = None
        report.passed = False
