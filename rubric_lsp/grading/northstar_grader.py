"""Grading with a NorthStar ``EvalRunRequest``'s LLM graders (semantics.md §3).

Each ``rubric`` / ``faithfulness`` grader is one judge call. Numeric mode normalises the
raw score to [0, 1] and passes iff ``raw >= passing_score``; binary mode scores 1/0 from
``passed``. Replies are validated strictly (no extra keys, non-blank reason and feedback,
score in range); anything else is "LLM judge returned invalid JSON.". A failed call is a
FAILED grade carrying NorthStar's message for the error, never a crash and never a pass.

The scoring config is read here with a few lines of our own (the NorthStar format model is
written elsewhere); it accepts what ``JudgeScoringConfig`` accepts.
"""

from __future__ import annotations

import asyncio
import json
import math
from dataclasses import dataclass, field
from typing import Any, Callable

from rubric_lsp.grading.judge import Judge, JudgeFailure
from rubric_lsp.grading.replies import extract
from rubric_lsp.grading.report import ERROR_VERDICT, GradeReport, Verdict

LLM_GRADER_TYPES = {"rubric": 0.5, "faithfulness": 0.7}  # type -> default threshold
INVALID_JSON = "LLM judge returned invalid JSON."

RUBRIC_SYSTEM = (
    "You are a strict evaluator of an AI agent's final response. Grade it against the rubric "
    "(or, without one, the goal) using the ground truth, context and tool outputs given.\n"
)
FAITHFULNESS_SYSTEM = (
    "You are a strict evaluator of faithfulness. Check that every claim in the final response is "
    "supported by the context or tool outputs given; penalise claims they do not support, even plausible ones.\n"
)


class ScoringError(ValueError):
    pass


@dataclass
class Scoring:
    mode: str = "numeric"
    min_score: float = 0.0
    max_score: float = 1.0
    passing_score: float | None = None
    labels: dict[float, str] = field(default_factory=dict)

    @classmethod
    def read(cls, data: Any, threshold: float) -> "Scoring":
        if data is None:
            return cls(passing_score=threshold)
        if not isinstance(data, dict):
            raise ScoringError("'scoring' must be an object")
        unknown = set(data) - {"mode", "min_score", "max_score", "passing_score", "labels"}
        if unknown:
            raise ScoringError(f"'scoring' has unknown keys: {', '.join(sorted(unknown))}")
        mode = data.get("mode", "numeric")
        if mode not in ("numeric", "binary"):
            raise ScoringError(f"scoring.mode must be 'numeric' or 'binary', got {mode!r}")
        low, high = _number(data.get("min_score", 0.0), "min_score"), _number(data.get("max_score", 1.0), "max_score")
        if high <= low:
            raise ScoringError(f"scoring.max_score ({high:g}) must be greater than min_score ({low:g})")
        passing = data.get("passing_score")
        if passing is None:
            if mode == "numeric":
                raise ScoringError("numeric scoring needs 'passing_score'")
            passing_value = high
        else:
            passing_value = _number(passing, "passing_score")
            if mode == "numeric" and not low <= passing_value <= high:
                raise ScoringError(f"scoring.passing_score ({passing_value:g}) must lie within [{low:g}, {high:g}]")
        labels_raw = data.get("labels") or {}
        if not isinstance(labels_raw, dict):
            raise ScoringError("scoring.labels must map scores to label strings")
        labels = {_number(k, "a labels key"): str(v) for k, v in labels_raw.items()}
        return cls(mode, low, high, passing_value, labels)


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool):
        raise ScoringError(f"{what} must be a number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ScoringError(f"{what} must be a number, got {value!r}") from None
    if math.isnan(number):
        raise ScoringError(f"{what} must be a number, got NaN")
    return number


@dataclass
class GraderInput:
    index: int
    name: str
    kind: str
    rubric: str | None
    scoring: Scoring | None
    model: str | None
    temperature: float
    range: dict[str, Any] | None
    config_error: str | None = None


def read_graders(data: Any, range_of: Callable[[int], dict[str, Any] | None]) -> list[GraderInput]:
    graders = data.get("graders") if isinstance(data, dict) else None
    result: list[GraderInput] = []
    if not isinstance(graders, list):
        return result
    for index, grader in enumerate(graders):
        if not isinstance(grader, dict) or grader.get("type") not in LLM_GRADER_TYPES:
            continue
        kind = grader["type"]
        threshold = grader.get("threshold", LLM_GRADER_TYPES[kind])
        entry = GraderInput(index, str(grader.get("name") or f"{kind}_judge"), kind, grader.get("rubric") if isinstance(grader.get("rubric"), str) else None, None,
                            grader.get("model") if isinstance(grader.get("model"), str) else None, float(grader.get("temperature") or 0.0), range_of(index))
        try:
            entry.scoring = Scoring.read(grader.get("scoring"), _number(threshold, "threshold"))
        except ScoringError as exc:
            entry.config_error = str(exc)
        result.append(entry)
    return result


def messages_for(grader: GraderInput, response: str, query: str | None) -> list[dict[str, str]]:
    scoring = grader.scoring
    assert scoring is not None
    if scoring.mode == "numeric":
        contract = (
            f'Reply with one JSON object and nothing else: {{"score": <number from {scoring.min_score:g} to {scoring.max_score:g}>, '
            '"reason": "<why>", "feedback": "<how to improve>", "label": "<optional short label>", '
            '"confidence": <optional 0..1>, "evidence": ["<quotes from the response>"]}. No other keys.'
        )
    else:
        contract = (
            'Reply with one JSON object and nothing else: {"passed": true|false, "reason": "<why>", '
            '"feedback": "<how to improve>", "label": "<optional short label>", "confidence": <optional 0..1>, '
            '"evidence": ["<quotes from the response>"]}. No other keys.'
        )
    system = (FAITHFULNESS_SYSTEM if grader.kind == "faithfulness" else RUBRIC_SYSTEM) + contract
    payload = {
        "goal": query,
        "rubric": grader.rubric,
        "ground_truth": None,
        "final_response": response,
        "tool_calls": [],
        "tool_outputs": [],
        "context": None,
    }
    return [{"role": "system", "content": system}, {"role": "user", "content": json.dumps(payload, ensure_ascii=False)}]


_NUMERIC_KEYS = {"score", "reason", "feedback", "label", "confidence", "evidence"}
_BINARY_KEYS = {"passed", "reason", "feedback", "label", "confidence", "evidence"}


def parse_reply(content: str, scoring: Scoring) -> tuple[dict[str, Any], bool]:
    key = "score" if scoring.mode == "numeric" else "passed"
    found = extract(content, lambda o: key in o, lambda o: o.get(key))
    if found is None:
        raise JudgeFailure("parse", INVALID_JSON, "bad_reply")
    reply = found.value
    allowed = _NUMERIC_KEYS if scoring.mode == "numeric" else _BINARY_KEYS
    valid = not (set(reply) - allowed)
    for text_key in ("reason", "feedback"):
        valid = valid and isinstance(reply.get(text_key), str) and bool(reply[text_key].strip())
    if reply.get("label") is not None and not isinstance(reply.get("label"), str):
        valid = False
    confidence = reply.get("confidence")
    if confidence is not None and (isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 <= confidence <= 1):
        valid = False
    evidence = reply.get("evidence", [])
    if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
        valid = False
    if scoring.mode == "numeric":
        score = reply.get("score")
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not scoring.min_score <= score <= scoring.max_score:
            valid = False
    elif not isinstance(reply.get("passed"), bool):
        valid = False
    if not valid:
        raise JudgeFailure("parse", INVALID_JSON, "bad_reply")
    return reply, found.ambiguous


async def grade_graders(judges_for: Callable[[GraderInput], Judge], graders: list[GraderInput], response: str, query: str | None, *, on_progress: Callable[[int, int], None] | None = None) -> GradeReport:
    report = GradeReport(format="northstar")
    done = 0
    judges: list[Judge] = []

    async def one(grader: GraderInput) -> Verdict:
        nonlocal done
        try:
            return await _grade_one(grader)
        finally:
            done += 1
            if on_progress:
                on_progress(done, len(graders))

    async def _grade_one(grader: GraderInput) -> Verdict:
        base = dict(name=grader.name, index=grader.index, range=grader.range)
        if grader.config_error:
            failure = JudgeFailure("unknown", f"Invalid scoring config: {grader.config_error}", "config")
            return Verdict(verdict=ERROR_VERDICT, reason=failure.message, error=failure.error, counted_as="FAIL", passed=False, **base)
        if grader.kind == "faithfulness":
            # NorthStar skips faithfulness without context or tool outputs; a bare response has neither.
            return Verdict(verdict="SKIPPED", reason="Faithfulness needs context or tool outputs to check against; a single response has none, so NorthStar skips it.", **base)
        scoring = grader.scoring
        assert scoring is not None
        try:
            judge = judges_for(grader)
            judges.append(judge)
            (reply, ambiguous), cached = await judge.ask(messages_for(grader, response, query), {"type": "json_object"}, lambda c: parse_reply(c, scoring))
        except asyncio.CancelledError:
            raise
        except JudgeFailure as failure:
            return Verdict(verdict=ERROR_VERDICT, reason=failure.message, error=failure.error, counted_as="FAIL", passed=False, **base)
        if scoring.mode == "numeric":
            raw = float(reply["score"])
            score = (raw - scoring.min_score) / (scoring.max_score - scoring.min_score)
            passed = raw >= (scoring.passing_score if scoring.passing_score is not None else scoring.max_score)
            label = scoring.labels.get(raw) or reply.get("label") or ("pass" if passed else "fail")
        else:
            passed = bool(reply["passed"])
            score = 1.0 if passed else 0.0
            label = reply.get("label") or ("pass" if passed else "fail")
        return Verdict(verdict="PASS" if passed else "FAIL", reason=reply["reason"], score=score, passed=passed, label=label, ambiguous=ambiguous, cached=cached, **base)

    tasks = [asyncio.ensure_future(one(g)) for g in graders]
    try:
        report.verdicts = list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        raise
    for judge in {id(j): j for j in judges}.values():
        report.usage.merge(judge.usage)
    report.model = ", ".join(sorted({j.model for j in judges})) or None
    scored = [v for v in report.verdicts if v.verdict in ("PASS", "FAIL") or v.failed]
    if scored:
        report.score = sum(v.score or 0.0 for v in scored) / len(scored)
        report.raw_score = report.score
        report.passed = all(v.passed for v in scored)
    if report.verdicts and all(v.failed for v in report.verdicts):
        report.error = "Every grader failed: " + (report.verdicts[0].error or "")
        report.score = report.raw_score = None
        report.passed = False
    return report
