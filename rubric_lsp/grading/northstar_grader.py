"""Grading with a NorthStar ``EvalRunRequest``'s LLM graders (semantics.md §3).

Each ``rubric`` / ``faithfulness`` grader is one judge call. Numeric mode normalises the
raw score to [0, 1] and passes iff ``raw >= passing_score``; binary mode scores 1/0 from
``passed``. Replies are validated strictly (no extra keys, non-blank reason and feedback,
score in range); anything else is "LLM judge returned invalid JSON.". A failed call is a
FAILED grade carrying NorthStar's message for the error, never a crash and never a pass.

Graders are read with the NorthStar format's ``read_request`` and its ``JudgeScoringConfig``
(NorthStar's validators and threshold defaults), so lint and grading accept the same files.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any, Callable

from rubric_lsp.document import Node
from rubric_lsp.formats.northstar.model import RUBRIC_JUDGE_TYPES, JudgeScoringConfig
from rubric_lsp.formats.northstar.view import Problem, read_request
from rubric_lsp.grading.failures import JudgeFailure
from rubric_lsp.grading.judge import Judge
from rubric_lsp.grading.replies import extract
from rubric_lsp.grading.report import ERROR_VERDICT, GradeReport, Verdict

INVALID_JSON = "LLM judge returned invalid JSON."

RUBRIC_SYSTEM = (
    "You are a strict evaluator of an AI agent's final response. Grade it against the rubric "
    "(or, without one, the goal) using the ground truth, context and tool outputs given.\n"
)
FAITHFULNESS_SYSTEM = (
    "You are a strict evaluator of faithfulness. Check that every claim in the final response is "
    "supported by the context or tool outputs given; penalise claims they do not support, even plausible ones.\n"
)


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


def read_graders(root: Node, range_of: Callable[[Node], dict[str, Any] | None]) -> list[GraderInput]:
    """The LLM judges of an EvalRunRequest, read by the NorthStar format's own reader.

    A judge NorthStar would refuse (bad scoring, a field of the wrong type) is kept with
    ``config_error`` set, so its grade fails with the reason instead of disappearing.
    """
    view = read_request(root)
    result: list[GraderInput] = []
    for entry in view.graders:
        grader = entry.grader
        if grader is not None:
            if not grader.is_judge:
                continue
            result.append(GraderInput(entry.index, grader.name, grader.type, grader.rubric, grader.effective_scoring(), grader.model,
                                      grader.temperature, range_of(entry.node)))
            continue
        if not entry.node.is_map:
            continue
        kind = _scalar(entry.node, "type", "rubric")  # NorthStar's default type is 'rubric'
        if kind not in RUBRIC_JUDGE_TYPES:
            continue
        problems = [_described(p) for p in view.problems if p.kind == "grader-invalid" and entry.node.start <= p.node.start and p.node.end <= entry.node.end]
        name = _scalar(entry.node, "name", None)
        result.append(GraderInput(entry.index, name if isinstance(name, str) else f"{kind} grader {entry.index + 1}", kind, None, None, None, 0.0,
                                  range_of(entry.node), config_error="; ".join(problems) or "NorthStar refuses this grader"))
    return result


def _described(problem: Problem) -> str:
    error = problem.error
    parts = [*error.path, *([error.missing_key] if error.missing_key and error.missing_key not in error.path else [])] if error is not None else []
    path = ".".join(str(part) for part in parts)
    return f"{path}: {problem.message}" if path else problem.message


def _scalar(node: Node, key: str, default: Any) -> Any:
    child = node.get(key)
    return child.value if child is not None and child.is_scalar else default


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


def parse_reply(content: str, scoring: JudgeScoringConfig) -> tuple[dict[str, Any], bool]:
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
            failure = JudgeFailure("unknown", f"Invalid grader config: {grader.config_error}", "config")
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
            score = scoring.normalized(raw)
            passed = raw >= (scoring.passing_score if scoring.passing_score is not None else scoring.max_score)
            label = (scoring.labels or {}).get(raw) or reply.get("label") or ("pass" if passed else "fail")
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
