"""Grading a promptfoo config's model-graded assertions (semantics.md §2).

``rubric grade`` runs ``llm-rubric``, ``model-graded-closedqa``, ``factuality`` (and its alias
``model-graded-factuality``) and ``g-eval``, each with its ``not-`` variant; the last three
live in ``promptfoo_model_graded`` (semantics and sources there). ``select-best`` compares
several outputs, so it runs only with several ``--response`` (``grade_promptfoo_outputs``,
semantics in ``promptfoo_select_best``). Other model-graded types (``answer-relevance``,
``context-*``, ...) are not run: the report names them in a note. The config is resolved by ``rubric_lsp.formats.promptfoo.resolve`` (merged assertions per
test, effective grader with its config, rubricPrompt, threshold, vars). For each assertion:

- ``value`` is rendered with the test vars first (so ``{{output}}`` inside it renders empty,
  as in promptfoo), then the grading prompt (ours, or the ``rubricPrompt``) is rendered
  with ``output`` and ``rubric`` — and the test vars spread last, as promptfoo does, so a
  var named ``output``/``rubric`` replaces the real one (we note it when it happens);
- verdict: ``pass = reply.pass ?? true``; ``score = reply.score`` if a number, else
  ``Number(score)``, else ``Number(pass)``; with a finite ``threshold`` ``pass = pass and
  score >= threshold``;
- ``not-llm-rubric`` inverts ``pass`` and scores ``1 - score`` (the corrected behaviour);
  a grader failure is never inverted: it stays a failure, not a pass. The same holds for
  every ``not-`` type run here.

For closedqa, factuality and g-eval the prompt the output answers is ``--query`` when given,
else the config's first prompt rendered with the test vars (noted in the report), else the
assertion is an error verdict (promptfoo refuses to grade these types without a prompt).

Unlike promptfoo, the verdict is the JSON object the judge *concluded* with (the last one
in the reply), not the first ``{reason, pass, score}`` quoted in a reasoning preamble; a
reply whose objects disagree is marked ambiguous.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from dataclasses import replace
from typing import Any, Callable

from rubric_lsp.document import Document
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.grading.failures import JudgeFailure
from rubric_lsp.grading.judge import Judge
from rubric_lsp.grading.replies import extract, snippet
from rubric_lsp.grading.report import ERROR_VERDICT, GradeReport, Verdict
from rubric_lsp.grading.settings import JudgeSettings, promptfoo_to_litellm

RUBRIC_TYPES = ("llm-rubric", "not-llm-rubric")
# Graded by promptfoo_model_graded.
MODEL_GRADED_TYPES = tuple(name for base in ("model-graded-closedqa", "factuality", "model-graded-factuality", "g-eval")
                           for name in (base, f"not-{base}"))
GRADED_TYPES = RUBRIC_TYPES + MODEL_GRADED_TYPES

GRADING_SYSTEM = (
    "You grade an output against a rubric. Decide whether the output satisfies the rubric and how well.\n"
    'Reply with one JSON object and nothing else: {"reason": "<why>", "pass": true|false, "score": <number from 0.0 to 1.0>}'
)
GRADING_USER = "<Output>\n{{ output }}\n</Output>\n<Rubric>\n{{ rubric }}\n</Rubric>"

_VARIABLE = re.compile(r"\{\{-?\s*([A-Za-z_][\w.]*)\s*(\|[^}]*)?-?\}\}")


def render(template: str, variables: dict[str, Any]) -> str:
    """``{{ name }}`` / ``{{ name.attr }}`` substitution, Nunjucks-style: unknown names render empty,
    objects render as JSON. Filters are ignored (``| dump`` of an object is JSON anyway)."""

    def value_of(match: re.Match[str]) -> str:
        parts = match.group(1).split(".")
        value: Any = variables
        for part in parts:
            if isinstance(value, dict) and part in value:
                value = value[part]
            else:
                return ""
        if value is None:
            return ""
        if isinstance(value, (dict, list)):
            return json.dumps(value, ensure_ascii=False)
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    return _VARIABLE.sub(value_of, template)


def grading_messages(rubric_prompt: Any, output: str, rubric: str, test_vars: dict[str, Any]) -> list[dict[str, str]]:
    variables = {"output": output, "rubric": rubric, **test_vars}  # test vars last, as promptfoo
    if rubric_prompt is None:
        return [{"role": "system", "content": GRADING_SYSTEM}, {"role": "user", "content": render(GRADING_USER, variables)}]
    return custom_messages(rubric_prompt, variables)


def custom_messages(rubric_prompt: Any, variables: dict[str, Any], render_text: Callable[[str, dict[str, Any]], str] = render) -> list[dict[str, str]]:
    """A ``rubricPrompt`` (JSON chat text, a message list, or plain text) rendered with ``variables``."""
    messages: Any = rubric_prompt
    if isinstance(rubric_prompt, str):
        try:
            messages = json.loads(rubric_prompt)
        except ValueError:
            # Rendering inside the JSON text first would break it when values hold quotes; only a
            # plain string is rendered whole.
            return [{"role": "user", "content": render_text(rubric_prompt, variables)}]
    if isinstance(messages, list) and all(isinstance(m, dict) and isinstance(m.get("content"), str) for m in messages):
        return [{"role": str(m.get("role") or "user"), "content": render_text(m["content"], variables)} for m in messages]
    return [{"role": "user", "content": render_text(json.dumps(messages, ensure_ascii=False), variables)}]


def parse_rubric_reply(content: str) -> tuple[bool, float, str, bool]:
    """(pass, score, reason, ambiguous) the way promptfoo reads it, from the concluded object."""
    found = extract(content, lambda o: "pass" in o or "score" in o, lambda o: (o.get("pass"), o.get("score")))
    if found is None:
        raise JudgeFailure("parse", f"The grader's reply has no {{reason, pass, score}} object: {snippet(content)!r}", "bad_reply")
    reply = found.value
    passed = reply.get("pass")
    if passed is None:
        passed = True  # promptfoo: a missing pass means PASS
    if not isinstance(passed, bool):
        raise JudgeFailure("parse", f"The grader answered pass {passed!r}; expected true or false.", "bad_reply")
    score_raw = reply.get("score")
    if isinstance(score_raw, (int, float)) and not isinstance(score_raw, bool):
        score = float(score_raw)
    elif isinstance(score_raw, str) and _is_number(score_raw):
        score = float(score_raw)
    else:
        score = 1.0 if passed else 0.0
    reason = reply.get("reason")
    return passed, score, reason if isinstance(reason, str) else "", found.ambiguous


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def decide(passed: bool, score: float, threshold: float | None, inverse: bool) -> tuple[bool, float]:
    if threshold is not None and math.isfinite(threshold):
        passed = passed and score >= threshold
    if inverse:
        return not passed, 1.0 - score
    return passed, score


def _shadowed_names(type_name: str) -> tuple[str, ...]:
    from rubric_lsp.grading.promptfoo_model_graded import SHADOWED, base_of

    return ("output", "rubric") if type_name in RUBRIC_TYPES else SHADOWED[base_of(type_name)]


def _listing(types: list[str]) -> str:
    return ", ".join(f"'{name}'" for name in types)


SELECT_BEST = "select-best"
NEEDS_OUTPUTS = "select-best compares several outputs: give at least 2, with --response once per output."


async def grade_promptfoo(doc: Document, response: str, query: str | None, settings: JudgeSettings, *, test_index: int | None = None, on_progress: Callable[[int, int], None] | None = None,
                          compared: bool = False) -> GradeReport:
    """Grade one response. ``compared``: part of a multi-output run that grades select-best itself,
    so select-best is neither noted as not run nor an obstacle when nothing else is left to grade."""
    from rubric_lsp.formats.promptfoo.resolve import read_config
    from rubric_lsp.grading.engine import GradingError

    view = read_config(doc.root, doc.path, doc)
    if not view.tests:
        raise GradingError("This promptfoo config has no tests to grade.")
    first_prompt = view.first_prompt() if query is None else None
    numbers = list(range(1, len(view.tests) + 1))
    if test_index is not None:
        if not 0 <= test_index < len(view.tests):
            raise GradingError(f"There is no test {test_index + 1}: the config has {len(view.tests)} test(s).")
        numbers = [test_index + 1]
    model_graded = [(n, item) for n in numbers for item in view.grading_plan(n)]
    plan = [(n, item) for n, item in model_graded if item.type in GRADED_TYPES]
    run_elsewhere = {SELECT_BEST} if compared else set()
    # Other model-graded types (answer-relevance, context-*, ...) are not run here; say so
    # rather than let a result look complete.
    not_run = sorted({item.type for _, item in model_graded if item.type not in GRADED_TYPES and item.type not in run_elsewhere})
    needs_outputs = f" {NEEDS_OUTPUTS}" if SELECT_BEST in not_run else ""
    not_run_note = (f"Not graded here (rubric grade runs llm-rubric, model-graded-closedqa, factuality and g-eval, each with its not- form): "
                    f"{_listing(not_run)}; the result leaves them out.{needs_outputs}")
    report = GradeReport(format="promptfoo")
    report.test_index = test_index
    if not plan:
        if any(item.type in run_elsewhere for _, item in model_graded):
            report.notes = [not_run_note] if not_run else []
            return report  # only select-best to run: grade_promptfoo_outputs adds its verdicts
        where = f" in test {numbers[0]}" if test_index is not None else ""
        also = f"; {_listing(not_run)} {'is' if len(not_run) == 1 else 'are'} model-graded too, but rubric grade does not run {'it' if len(not_run) == 1 else 'them'} yet" if not_run else ""
        raise GradingError(f"No model-graded assertions that rubric grade runs (llm-rubric, model-graded-closedqa, factuality, g-eval and their not- forms) to grade{where}{also}.{needs_outputs}")

    run, judge_for = start_judges(settings, plan)
    notes: set[str] = set()
    if not_run:
        notes.add(not_run_note)

    # Credentials for every grader are checked before any call.
    judges: list[Judge | JudgeFailure] = []
    for _, item in plan:
        try:
            judges.append(judge_for(item))
        except JudgeFailure as failure:
            judges.append(failure)

    done = 0

    async def one(position: int, number: int, item: Any, judge: Judge | JudgeFailure) -> Verdict:
        nonlocal done
        try:
            return await _grade_item(position, number, item, judge)
        finally:
            done += 1
            if on_progress:
                on_progress(done, len(plan))

    async def _grade_item(position: int, number: int, item: Any, judge: Judge | JudgeFailure) -> Verdict:
        assertion = item.assertion
        node = assertion.ref_node or assertion.node
        rng = doc.range(node).to_json() if assertion.source.is_config else None
        inverse = item.type.startswith("not-")
        base = dict(name=f"test {number}: {item.type}", index=position, range=rng)
        test_vars = item.vars  # values, defaultTest's merged under the test's, file:// vars included
        for shadowed in _shadowed_names(item.type):
            if shadowed in test_vars:
                notes.add(f"test {number} has a var named '{shadowed}': promptfoo spreads test vars last, so it replaces the real {shadowed} in the grading prompt (as graded here).")
        if isinstance(judge, JudgeFailure):
            return Verdict(verdict=ERROR_VERDICT, reason=judge.message, error=judge.error, counted_as="FAIL", passed=False, **base)
        if item.type in MODEL_GRADED_TYPES:
            return await _grade_model_graded(number, item, judge, inverse, base)
        value = item.value
        rubric_text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        rubric_text = render(rubric_text, test_vars)
        messages = grading_messages(item.rubric_prompt, response, rubric_text, test_vars)
        try:
            (passed, score, reason, ambiguous), cached = await judge.ask(messages, {"type": "json_object"}, parse_rubric_reply)
        except asyncio.CancelledError:
            raise
        except JudgeFailure as failure:
            # Never inverted: a failed grader call is a failure in both directions.
            return Verdict(verdict=ERROR_VERDICT, reason=f"Grader call failed ({failure.category}): {failure.message}", error=failure.error, counted_as="FAIL", passed=False, **base)
        final_pass, final_score = decide(passed, score, item.threshold, inverse)
        return Verdict(verdict="PASS" if final_pass else "FAIL", reason=reason, score=final_score, passed=final_pass, ambiguous=ambiguous, cached=cached, **base)

    async def _grade_model_graded(number: int, item: Any, judge: Judge, inverse: bool, base: dict[str, Any]) -> Verdict:
        from rubric_lsp.grading.promptfoo_model_graded import base_of, grade_model_graded

        kind = base_of(item.type)
        prompt_input = query
        if prompt_input is None and first_prompt is not None:
            prompt_input = render(first_prompt, item.vars)
            notes.add(f"test {number}: {kind} was graded against the config's first prompt rendered with the test's vars; pass --query to give the prompt the response answers.")
        if kind == "g-eval" and item.rubric_prompt and not isinstance(item.rubric_prompt, dict):
            notes.add(f"test {number}: g-eval uses a rubricPrompt only when it is an object {{steps, evaluate}}; this one is ignored, as promptfoo does.")
        test = view.test_number(number)
        factuality = test.options_field("factuality") if test is not None else None
        if factuality is None and test is not None and test.default is not None:
            factuality = test.default.options_field("factuality")  # options merge shallowly: the test's whole object wins
        try:
            outcome = await grade_model_graded(item, judge, response, prompt_input, to_plain(factuality))
        except asyncio.CancelledError:
            raise
        except JudgeFailure as failure:
            # Never inverted, like llm-rubric's failures.
            reason = failure.message if failure.kind == "config" else f"Grader call failed ({failure.category}): {failure.message}"
            return Verdict(verdict=ERROR_VERDICT, reason=reason, error=failure.error, counted_as="FAIL", passed=False, **base)
        final_pass, final_score = decide(outcome.passed, outcome.score, None, inverse)
        return Verdict(verdict="PASS" if final_pass else "FAIL", reason=outcome.reason, score=final_score, passed=final_pass,
                       ambiguous=outcome.ambiguous, cached=outcome.cached, **base)

    tasks = [asyncio.ensure_future(one(i, n, item, judge)) for i, ((n, item), judge) in enumerate(zip(plan, judges))]
    try:
        report.verdicts = list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        raise
    for judge in run.judges.values():
        report.usage.merge(judge.usage)
    report.model = ", ".join(sorted({j.model for j in run.judges.values()})) or None
    report.notes = sorted(notes)
    report.links = [(n, item.assertion.node) for n, item in plan]
    if all(v.failed for v in report.verdicts):
        report.error = "Every grader call failed: " + (report.verdicts[0].error or "")
        report.passed = False
        return report
    report.score = sum(v.score or 0.0 for v in report.verdicts) / len(report.verdicts)
    report.raw_score = report.score
    report.passed = all(v.passed for v in report.verdicts)
    return report


def start_judges(settings: JudgeSettings, plan: list[tuple[int, Any]]) -> tuple[Any, Callable[[Any], Judge]]:
    """A grading run and ``judge_for(item)``: the judge of one grading-plan item (its grader, as
    promptfoo's precedence chose it, with its config; ``--model`` only where the CLI grader applies).

    Raises MissingCredentials when no judge is configured and no assertion names its grader;
    ``judge_for`` raises JudgeFailure (kind ``config``) for a grader rubric-lsp cannot run."""
    from rubric_lsp.grading.engine import Run
    from rubric_lsp.grading.settings import MissingCredentials, settings_from_promptfoo

    explicit = settings.model or settings.environ().get("RUBRIC_JUDGE_MODEL")
    try:
        run = Run.start(settings)
        default_model: str | None = run.settings.model
    except MissingCredentials:
        # Fine as long as every assertion names its grader; otherwise re-raised by judge_for.
        if _first_provider(plan) is None:
            raise
        run = Run.start(replace(settings, model=_first_provider(plan)))
        default_model = None

    def judge_for(item: Any) -> Judge:
        grader = item.grader
        if grader.problem:
            raise JudgeFailure("unknown", f"The grader provider is invalid: {grader.problem}", "config")
        model = None
        if grader.provider_id and not (explicit and grader.cli_grader_applies):
            if grader.provider_id.startswith(("file://", "exec:", "python:", "http:", "https:", "webhook:", "echo")):
                raise JudgeFailure("unknown", f"Grader {grader.provider_id!r} is a custom provider that rubric-lsp cannot run; set a model with --model.", "config")
            model = promptfoo_to_litellm(grader.provider_id)
        if model is None:
            if default_model is None:
                raise MissingCredentials(f"Test assertion '{item.type}' uses promptfoo's default grader, and no judge is configured: set RUBRIC_JUDGE_MODEL or pass --model, with that provider's API key.")
            model = default_model
        judge_settings = run.settings
        if grader.config:
            judge_settings = settings_from_promptfoo(replace(judge_settings, model=None), {"id": grader.provider_id, "config": grader.config})
            judge_settings = replace(judge_settings, model=model, api_base=run.settings.api_base or judge_settings.api_base)
        return run.judge(judge_settings, model=model)

    return run, judge_for


def _first_provider(plan: list[Any]) -> str | None:
    for _, item in plan:
        if item.grader.provider_id and not item.grader.problem:
            return promptfoo_to_litellm(item.grader.provider_id)
    return None


async def grade_promptfoo_outputs(doc: Document, responses: list[str], query: str | None, settings: JudgeSettings, *, test_index: int | None = None,
                                  on_progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Grade several outputs of the same prompt and apply each test's ``max-score`` (seed 003) and
    ``select-best`` (``promptfoo_select_best``).

    Returns ``{"outputs": [report JSON per response], "max_score": [selection per test],
    "select_best": [comparison per test]}`` (``select_best_usage`` too when a comparison ran).
    Only the model-graded assertions are run here; other assertions of the test (contains,
    python, ...) are listed in ``left_out`` and take no part in the aggregate.
    """
    from rubric_lsp.formats.promptfoo.resolve import read_config
    from rubric_lsp.grading.engine import GradingError
    from rubric_lsp.grading.promptfoo_select_best import add_verdicts, grade_select_best

    if len(responses) < 2:
        raise GradingError("max-score and select-best need at least 2 outputs to choose between; pass --response once per output.")
    reports = await asyncio.gather(*(grade_promptfoo(doc, r, query, settings, test_index=test_index, on_progress=on_progress, compared=True) for r in responses))
    view = read_config(doc.root, doc.path, doc)
    numbers = [test_index + 1] if test_index is not None else list(range(1, len(view.tests) + 1))
    # promptfoo compares (select-best) before it applies max-score, which leaves the comparison out.
    compared, compare_usage = await grade_select_best(doc, view, numbers, responses, settings)
    add_verdicts(reports, compared)
    selections = []
    for number in numbers:
        test = view.test_number(number)
        if test is None:
            continue
        top = test.top_assertions
        max_scores = [a for a in top if a.type == "max-score"]
        if not max_scores:
            continue
        chosen = max_scores[0]
        config = chosen.value if isinstance(chosen.value, dict) else {}
        method = config.get("method", "average")
        weights = config.get("weights") if isinstance(config.get("weights"), dict) else {}
        threshold = config.get("threshold")
        others = [a for a in top if a.type not in ("max-score", "select-best")]
        node = chosen.ref_node or chosen.node
        entry: dict[str, Any] = {"test": number, "range": doc.range(node).to_json() if chosen.source.is_config else None, "method": method}
        if len(max_scores) > 1:
            entry["note"] = "Only the first max-score of a test counts; the others are ignored."
        if not others:
            entry["error"] = "This test has no other assertion to score; promptfoo's whole eval crashes at the end and writes nothing."
            selections.append(entry)
            continue
        graded = [a for a in others if a.type in GRADED_TYPES]
        entry["left_out"] = [a.type for a in others if a.type not in GRADED_TYPES]
        scores: list[float | None] = []
        for report in reports:
            by_node = {id(node_): verdict for (n, node_), verdict in zip(report.links, report.verdicts) if n == number}
            total = weight_sum = 0.0
            for assertion in graded:
                verdict = by_node.get(id(assertion.node))
                weight = weights.get(assertion.type, 1)
                weight = float(weight) if isinstance(weight, (int, float)) and not isinstance(weight, bool) else 1.0
                value = 0.0 if verdict is None or verdict.failed else (verdict.score if verdict.score is not None else float(bool(verdict.passed)))
                total += value * weight
                weight_sum += weight
            if not graded:
                scores.append(None)
            else:
                scores.append(total if method == "sum" else (total / weight_sum if weight_sum else 0.0))
        entry["scores"] = scores
        winner = None
        for position, score in enumerate(scores):
            if score is not None and (winner is None or score > scores[winner]):  # first strictly greater wins; ties keep the first
                winner = position
        if winner is not None and isinstance(threshold, (int, float)) and not isinstance(threshold, bool) and scores[winner] < threshold:
            entry["reason"] = f"The best score {scores[winner]:.3g} is below the threshold {threshold:g}, so no output passes."
            winner = None
        entry["winner"] = winner
        entry["passed"] = [position == winner for position in range(len(responses))]
        selections.append(entry)
    result: dict[str, Any] = {"outputs": [r.to_json() for r in reports], "max_score": selections, "select_best": compared}
    if compared:
        result["select_best_usage"] = compare_usage.to_json()
    return result
