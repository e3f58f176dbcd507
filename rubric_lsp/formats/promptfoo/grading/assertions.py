"""Grading a promptfoo config's model-graded assertions (semantics.md §2).

``rubric grade`` runs ``llm-rubric``, ``model-graded-closedqa``, ``factuality`` (and its alias
``model-graded-factuality``) and ``g-eval``, each with its ``not-`` variant; the last three
live in ``model_graded`` (semantics and sources there). ``select-best`` compares
several outputs, so it runs only with several ``--response`` (``outputs.grade_promptfoo_outputs``,
semantics in ``select_best``). Other model-graded types (``answer-relevance``,
``context-*``, ...) are not run: the report names them in a note. The config is resolved by ``rubric_lsp.formats.promptfoo.resolve`` (merged assertions per
test, effective grader with its config, rubricPrompt, threshold, vars). For each assertion:

- ``value`` is rendered with the test vars first (Nunjucks through Jinja, ``prompts.render``;
  so ``{{output}}`` inside it renders empty, as in promptfoo), then promptfoo 0.123.1's own
  grading prompt (``owner_prompts``), or the ``rubricPrompt``, is rendered with the test vars
  spread first and ``output`` / ``rubric`` over them (0.121.9 spread the vars last: graded so
  when that release is targeted, with a note), and read as promptfoo's chat provider reads it;
- variables reach the grading prompt as promptfoo hands them to Nunjucks: the output
  JSON-parsed when it is JSON text (``tryParse``), objects as compact ``JSON.stringify``
  text, arrays comma-joined, null/undefined empty, numbers as JavaScript prints them; a
  missing ``value`` is an empty rubric. JSON mode only with promptfoo's default llm-rubric
  grader (``defaults``); a grader named by the config or ``--model`` gets none;
- verdict: ``pass = reply.pass ?? true``, a non-boolean pass is true iff ``String(pass)``
  is true|yes|pass|y; ``score = reply.score`` if a number, else ``Number(score)`` (JavaScript's
  ``Number``: ``js_number``) when finite, else ``Number(pass)``; a string ``threshold`` goes
  through ``Number()``; with a finite threshold ``pass = pass and score >= threshold``;
- ``not-`` inverts ``pass`` and scores ``1 - score`` clamped to 0..1 for the types the
  targeted release inverts (``versions``: llm-rubric and g-eval in 0.123.1); for the others it
  is ignored, as there. A grader failure is never inverted: it stays a failure, not a pass;
- each test's pass and score are promptfoo's (``aggregate``, run by ``response``): weights,
  metrics, assert-sets, the test-level ``threshold``; a weight-0 assertion (promptfoo forces it
  to pass) keeps its own verdict, an ERROR included, but counts toward neither.

Graders: ``--model`` / ``RUBRIC_JUDGE_MODEL`` replaces the ``defaultTest.options.provider``
slot whole (its config goes too), like promptfoo's ``--grader``; a grader the file names
keeps its config (``providers.settings_from_promptfoo``), and its own ``apiBaseUrl``/``apiHost``
wins over ``--api-base``, which serves the graders without one.

For closedqa, factuality and g-eval the prompt the output answers is ``--query`` when given,
else the config's prompt that produced the output (its first, or with one output per prompt
each output's own) rendered with the test vars (noted in the report), else the assertion is an
error verdict (promptfoo refuses to grade these types without a prompt).

Objects in the reply are found as promptfoo finds them (``reply_objects``: YAML-style, so
unquoted keys and ``//`` comments read). Unlike promptfoo, the verdict is the object the judge
*concluded* with (the last one that has ``pass`` or ``score``, else the last object), not the
first one quoted in a reasoning preamble; a reply whose objects disagree is marked ambiguous.
Only a reply with no object at all is a parse failure.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from rubric_lsp.document import Document
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.engine.failures import JudgeFailure
from rubric_lsp.engine.judge import Judge
from rubric_lsp.engine.replies import snippet, strip_thinking
from rubric_lsp.engine.report import Subject, Verdict
from rubric_lsp.formats.promptfoo.grading.model_graded import GEVAL_DEFAULT_THRESHOLD, base_of, grade_model_graded
from rubric_lsp.formats.promptfoo.grading.prompts import (
    UNDEFINED,
    grading_messages,
    js_json,
    js_number,
    js_string,
    render,
)
from rubric_lsp.formats.promptfoo.grading.reply_objects import reply_objects
from rubric_lsp.formats.promptfoo.grading.sent import noting
from rubric_lsp.formats.promptfoo.versions import release

RUBRIC_TYPES = ("llm-rubric", "not-llm-rubric")
# Graded by model_graded.
MODEL_GRADED_TYPES = tuple(
    name
    for base in ("model-graded-closedqa", "factuality", "model-graded-factuality", "g-eval")
    for name in (base, f"not-{base}")
)
GRADED_TYPES = RUBRIC_TYPES + MODEL_GRADED_TYPES


def parse_rubric_reply(content: str) -> tuple[bool, float, str, bool]:
    """(pass, score, reason, ambiguous) the way promptfoo reads it, from the concluded object.

    Objects are found as promptfoo finds them (``reply_objects``: YAML-style, so unquoted keys,
    Python-ish dicts and ``//`` comments read); of those, the last with ``pass`` or ``score``."""
    objects = reply_objects(strip_thinking(content))
    fitting = [o for o in objects if "pass" in o or "score" in o]
    if not objects:
        raise JudgeFailure("parse", f"The grader's reply has no JSON object: {snippet(content)!r}", "bad_reply")
    # promptfoo reads whatever object comes first; we take the last one (no pass: PASS, score 1).
    chosen = (fitting or objects)[-1]
    verdicts = {json.dumps([o.get("pass"), o.get("score")], default=str) for o in fitting}
    passed = coerce_pass(chosen.get("pass", UNDEFINED))
    score = coerce_score(chosen.get("score", UNDEFINED), passed)
    reason = chosen.get("reason")
    return passed, score, reason if isinstance(reason, str) else "", len(verdicts) > 1


def coerce_pass(value: Any) -> bool:
    """promptfoo: ``pass ?? true``, then a non-boolean passes iff String(pass) is true|yes|pass|y."""
    if value is None or value is UNDEFINED:
        return True
    if isinstance(value, bool):
        return value
    return re.fullmatch(r"(true|yes|pass|y)", js_string(value), re.IGNORECASE) is not None


def coerce_score(value: Any, passed: bool) -> float:
    """promptfoo: a number stays; else ``Number(score)`` when finite; else ``Number(pass)``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    number = js_number(value)
    return number if math.isfinite(number) else (1.0 if passed else 0.0)


def rubric_threshold(raw: Any) -> float | None:
    """llm-rubric's threshold: a string through ``Number()``, a number as is; NaN or anything else: none."""
    if isinstance(raw, str):
        number = js_number(raw)
    elif isinstance(raw, (int, float)) and not isinstance(raw, bool):
        number = float(raw)
    else:
        return None
    return number if math.isfinite(number) else None


def compared_threshold(raw: Any, default: float | None) -> float | None:
    """A threshold JavaScript compares with ``>=`` / ``<`` (g-eval's ``threshold ?? 0.7``,
    max-score's ``value.threshold``): ``Number()`` of it, NaN included (every comparison false)."""
    if raw is None or raw is UNDEFINED:
        return default
    return js_number(raw)


def raw_threshold(item: Any) -> Any:
    node = item.assertion.field("threshold")
    return UNDEFINED if node is None else to_plain(node)


def decide(passed: bool, score: float, threshold: float | None, inverse: bool) -> tuple[bool, float]:
    if threshold is not None and math.isfinite(threshold):
        passed = passed and score >= threshold
    if inverse:
        # promptfoo clamps the inverted score (a NaN or out-of-range score cannot escape 0..1).
        return not passed, min(1.0, max(0.0, 1.0 - (score if math.isfinite(score) else 0.0)))
    return passed, score


# How a failed judgment counts in its test's result (``Verdict.counted_as``): unknown, neither a pass nor a fail.
FAILED_JUDGMENT = "unknown"
SELECT_BEST = "select-best"
NEEDS_OUTPUTS = "select-best compares several outputs: give at least 2, with --response once per output."


@dataclass
class _Response:
    """One response graded against a config's tests: what each assertion's grading reads, and the notes it leaves."""

    doc: Document
    view: Any
    response: str
    query: str | None
    first_prompt: str | None
    notes: set[str] = field(default_factory=set)
    version: str | None = None
    json_mode: Callable[[Any], bool] = lambda item: False
    # id(assertion) -> what the report shows of its judging: the rubric as rendered, the messages sent.
    record: dict[int, dict[str, Any]] = field(default_factory=dict)
    # id(assertion) -> the output it judges when not ``response`` (a transform's, ``transforms``).
    outputs: dict[int, str] = field(default_factory=dict)

    def output_of(self, assertion: Any) -> str:
        return self.outputs.get(id(assertion), self.response)

    async def item(self, position: int, number: int, item: Any, judge: Judge | JudgeFailure) -> Verdict:
        assertion = item.assertion
        node = assertion.ref_node or assertion.node
        rng = self.doc.range(node).to_json() if assertion.source.is_config else None
        owner = release(self.version)
        base = item.type[4:] if item.type.startswith("not-") else item.type
        inverse = item.type.startswith("not-") and base in owner.inverting
        if item.type.startswith("not-") and not inverse:
            self.notes.add(
                f"test {number}: '{item.type}' is graded as '{base}': promptfoo {owner.version} ignores its not- (as graded here)."
            )
        subject = Subject(f"test {number}: {item.type}", position, rng, assertion_weight(assertion))
        test_vars = item.vars  # values, defaultTest's merged under the test's, file:// vars included
        vars_last = owner.rubric_vars_last and item.type in RUBRIC_TYPES
        for shadowed in ("output", "rubric") if vars_last else ():
            if shadowed in test_vars:
                self.notes.add(
                    f"test {number} has a var named '{shadowed}': promptfoo {owner.version} spreads test vars last, so it replaces the real {shadowed} in the grading prompt (as graded here)."
                )
        if isinstance(judge, JudgeFailure):
            return subject.failure(judge.message, judge.error, FAILED_JUDGMENT)
        if item.type in MODEL_GRADED_TYPES:
            return await self.model_graded(number, item, judge, inverse, subject)
        value = item.value
        output = self.output_of(assertion)
        # promptfoo: ``renderedValue || ''`` (a missing value is an empty rubric, not "null").
        rubric_text = "" if value is None else value if isinstance(value, str) else js_json(value)
        rubric_text = render(rubric_text, test_vars)
        sent = self.sent_by(assertion)
        if (
            isinstance(value, str) and rubric_text != value
        ):  # promptfoo's metadata.renderedAssertionValue, set when rendering changed it
            self.record[id(assertion)]["rendered"] = rubric_text
        # JSON mode exactly where promptfoo asks for it: its default llm-rubric grader (OpenAI's,
        # Mistral's, xAI's), whatever the prompt; a grader the config or --model names sends none.
        reply_format = {"type": "json_object"} if self.json_mode(item) else None
        try:
            # Built inside the judge's prompt window (the prompt holds the output), not here.
            (passed, score, reason, ambiguous), cached = await judge.ask(
                noting(
                    lambda: grading_messages(item.rubric_prompt, output, rubric_text, test_vars, vars_last),
                    sent,
                    output,
                ),
                reply_format,
                parse_rubric_reply,
            )
        except asyncio.CancelledError:
            raise
        except JudgeFailure as failure:
            # Never inverted: a failed grader call is a failure in both directions.
            reason = (
                failure.message
                if failure.kind == "config"
                else f"Grader call failed ({failure.category}): {failure.message}"
            )
            return subject.failure(reason, failure.error, FAILED_JUDGMENT)
        final_pass, final_score = decide(passed, score, rubric_threshold(raw_threshold(item)), inverse)
        return subject.judged(
            "PASS" if final_pass else "FAIL",
            reason,
            score=final_score,
            passed=final_pass,
            ambiguous=ambiguous,
            cached=cached,
        )

    def sent_by(self, assertion: Any) -> list[Any]:
        """The list each judge call of ``assertion`` adds its messages to (promptfoo's renderedGradingPrompt)."""
        entry: dict[str, Any] = {"sent": []}
        self.record[id(assertion)] = entry  # a batch round grades again: the last pass is the one reported
        return entry["sent"]

    async def model_graded(self, number: int, item: Any, judge: Judge, inverse: bool, subject: Subject) -> Verdict:
        kind = base_of(item.type)
        prompt_input = self.query
        if prompt_input is None and self.first_prompt is not None:
            prompt_input = render(self.first_prompt, item.vars)
            self.notes.add(
                f"test {number}: {kind} was graded against the config's first prompt rendered with the test's vars; pass --query to give the prompt the response answers."
            )
        if kind == "g-eval" and item.rubric_prompt and not isinstance(item.rubric_prompt, dict):
            self.notes.add(
                f"test {number}: g-eval uses a rubricPrompt only when it is an object {{steps, evaluate}}; this one is ignored, as promptfoo does."
            )
        test = self.view.test_number(number)
        factuality = test.options_field("factuality") if test is not None else None
        if factuality is None and test is not None and test.default is not None:
            factuality = test.default.options_field(
                "factuality"
            )  # options merge shallowly: the test's whole object wins
        if kind == "g-eval":
            item = replace(item, threshold=compared_threshold(raw_threshold(item), GEVAL_DEFAULT_THRESHOLD))
        try:
            outcome = await grade_model_graded(
                item,
                judge,
                self.output_of(item.assertion),
                prompt_input,
                to_plain(factuality),
                self.sent_by(item.assertion),
            )
        except asyncio.CancelledError:
            raise
        except JudgeFailure as failure:
            # Never inverted, like llm-rubric's failures.
            reason = (
                failure.message
                if failure.kind == "config"
                else f"Grader call failed ({failure.category}): {failure.message}"
            )
            return subject.failure(reason, failure.error, FAILED_JUDGMENT)
        final_pass, final_score = decide(outcome.passed, outcome.score, None, inverse)
        return subject.judged(
            "PASS" if final_pass else "FAIL",
            outcome.reason,
            score=final_score,
            passed=final_pass,
            ambiguous=outcome.ambiguous,
            cached=outcome.cached,
        )


def assertion_weight(assertion: Any) -> float | None:
    """The assertion's ``weight`` when it sets a number (promptfoo's default is 1)."""
    node = assertion.field("weight")
    value = node.value if node is not None and node.is_scalar else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)
