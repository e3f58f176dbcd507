"""promptfoo's ``select-best`` assertion over several outputs of one test (semantics.md §2).

What promptfoo does, read from ``matchesSelectBest`` (``src/matchers/comparison.ts``),
``runCompareAssertion`` (``src/assertions/index.ts``), ``getFinalTest``
(``src/assertions/utils.ts``) and the comparison pass of ``src/evaluator.ts``; the prompt is
promptfoo's own (``owner_prompts.SELECT_BEST_PROMPT``), sent without JSON mode:

- Only the first ``select-best`` among a test's top-level assertions (``defaultTest``'s
  first) is run; further ones, and any inside an assert-set, are skipped without a word.
- ``value`` must be a string (otherwise promptfoo throws and the eval stops). It is passed
  as ``criteria`` as written: unlike llm-rubric's value it is not rendered with the test vars,
  so a ``{{var}}`` in it reaches the judge literally.
- Prompt variables: the test vars, then ``criteria`` and ``outputs`` (each output JSON-parsed
  when it parses, an object or list shown again as compact JSON) over them, so a var named
  ``criteria`` or ``outputs`` does not replace the real one (0.123.1). promptfoo's default prompt lists
  the outputs numbered from 0 and asks for the index of the best as a single integer. A
  custom ``rubricPrompt`` (assertion, else test, else defaultTest options) is rendered with
  the same variables; ``{% for x in outputs %}`` loops with ``loop.index0`` / ``loop.index``
  are expanded here, and a bare ``{{ outputs }}`` renders comma-joined as in Nunjucks.
- One judge call (the grader the plan item carries, precedence as for llm-rubric). The
  winner gets pass true, score 1, reason "selected as the best"; every other output pass
  false, score 0. A failed call, no number, or an index outside 0..n-1 fails every output
  (pass false, score 0); nobody passes.
- In each output's result the comparison is one more component: the output passes only if
  it passed before and select-best passed it; a non-selected output's test score becomes 0
  (the winner keeps its score).

How we read the judge, unlike promptfoo: promptfoo takes the first run of digits anywhere in
the reply (releases before that the first single digit, so more than 10 outputs could never
be chosen), so "Comparing outputs 1 and 2 ... the best is 0" picks output 1. We read the
index the judge concluded with: the last JSON object with a ``best`` key (``ambiguous`` when
such objects disagree), else a reply — or its last non-empty line — that is a bare integer
(``**3**``, ``Index: 3.``), else the last integer in the reply. Indexes of
10 and more win normally. When promptfoo's reading would pick another output, the result
says which (``promptfoo_reads``). A reply with no readable index, or an index out of range,
is a judge failure (``parse``): every output gets an ERROR verdict, never a pass.

The per-output reports get one ``select-best`` verdict each (PASS score 1 / FAIL score 0 /
ERROR) and their ``passed`` takes it into account; their ``score`` stays the mean of the
other assertions' verdicts (it spans every graded test, where promptfoo's test score would
drop to 0 for a non-selected output).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any

from rubric_lsp.document import Document
from rubric_lsp.engine.failures import JudgeFailure
from rubric_lsp.engine.replies import extract, snippet, strip_thinking
from rubric_lsp.engine.report import GradeReport, Subject
from rubric_lsp.engine.runner import fan_out
from rubric_lsp.engine.usage import Usage
from rubric_lsp.formats.promptfoo.grading.assertions import FAILED_JUDGMENT, SELECT_BEST
from rubric_lsp.formats.promptfoo.grading.judges import start_judges
from rubric_lsp.formats.promptfoo.grading.owner_prompts import SELECT_BEST_PROMPT
from rubric_lsp.formats.promptfoo.grading.prompts import owner_messages, try_parse

_LABELLED_NUMBER = re.compile(r"^(?:[A-Za-z][\w ]{0,30}[:=]\s*)?(\d+)$")
_FIRST_INTEGER = re.compile(r"\d+")


@dataclass
class Pick:
    best: int
    reason: str
    ambiguous: bool


def select_best_messages(
    rubric_prompt: Any, criteria: str, outputs: list[str], test_vars: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """promptfoo's messages (its prompt, or the custom one) and no JSON mode: promptfoo's select-best
    grader is its plain grading provider. Test vars first, then ``criteria`` and ``outputs``."""
    variables = {**test_vars, "criteria": criteria, "outputs": [try_parse(o) for o in outputs]}
    return owner_messages(rubric_prompt, SELECT_BEST_PROMPT, variables), None


def _index(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def parse_pick(content: str, count: int) -> Pick:
    """The index the judge concluded with; raises JudgeFailure when there is none or it is out of range."""
    found = extract(content, lambda o: "best" in o, lambda o: o.get("best"))
    if found is not None:
        best = _index(found.value["best"])
        if best is None:
            raise JudgeFailure(
                "parse", f"The grader's choice {found.value['best']!r} is not an output number.", "bad_reply"
            )
        reason = found.value.get("reason")
        pick = Pick(best, reason.strip() if isinstance(reason, str) else "", found.ambiguous)
    else:
        lines = [line.strip().strip("*_`'\"").rstrip(".").strip() for line in strip_thinking(content).splitlines()]
        numbers = [m.group(1) for m in (_LABELLED_NUMBER.match(line) for line in lines if line) if m]
        last = next((line for line in reversed(lines) if line), "")
        final = _LABELLED_NUMBER.match(last)
        if final is not None:
            pick = Pick(int(final.group(1)), "", len({int(n) for n in numbers}) > 1)
        else:
            # promptfoo's prompt asks for a single integer; a sentence around it ("the best is 1.")
            # is read by its last integer, the one the judge concluded with.
            every = _FIRST_INTEGER.findall(strip_thinking(content))
            if not every:
                raise JudgeFailure(
                    "parse", f"The grader's reply holds no output number: {snippet(content)!r}", "bad_reply"
                )
            pick = Pick(int(every[-1]), "", len(set(every)) > 1)
    if not 0 <= pick.best < count:
        raise JudgeFailure(
            "parse", f"The grader chose output {pick.best}, but the outputs are numbered 0 to {count - 1}.", "bad_reply"
        )
    return pick


def promptfoo_reading(content: str) -> int | None:
    """The index promptfoo reads: the first run of digits anywhere in the trimmed reply."""
    match = _FIRST_INTEGER.search(content.strip())
    return int(match.group(0)) if match else None


async def grade_select_best(
    doc: Document, view: Any, numbers: list[int], responses: list[str], settings: Any
) -> tuple[list[dict[str, Any]], Usage]:
    """One ``select_best`` entry per test that has a select-best, and the judges' usage."""
    plan = _plan(view, numbers)
    if not plan:
        return [], Usage()
    run, judge_for = start_judges(settings, [(n, item) for n, item, _ in plan])
    # Credentials for every grader are checked before any call.
    judges: list[Any] = []
    for _, item, _ in plan:
        try:
            judges.append(judge_for(item))
        except JudgeFailure as failure:
            judges.append(failure)
    entries = await fan_out(
        _compare(doc, n, item, count, judge, responses) for (n, item, count), judge in zip(plan, judges, strict=True)
    )
    return entries, run.usage()


async def _compare(
    doc: Document, number: int, item: Any, count: int, judge: Any, responses: list[str]
) -> dict[str, Any]:
    """One test's select-best: the judge picks the best output, read as promptfoo reads it."""
    assertion = item.assertion
    node = assertion.ref_node or assertion.node
    entry: dict[str, Any] = {
        "test": number,
        "range": doc.range(node).to_json() if assertion.source.is_config else None,
        "criteria": item.value if isinstance(item.value, str) else None,
    }
    notes = _notes(item, count)
    if notes:
        entry["note"] = " ".join(notes)
    try:
        if not isinstance(item.value, str):
            raise JudgeFailure(
                "unknown",
                f"select-best needs a string value (the criterion); promptfoo stops the eval on {type(item.value).__name__} {snippet(repr(item.value))}.",
                "config",
            )
        if isinstance(judge, JudgeFailure):
            raise judge
        replies: list[str] = []

        def parse(content: str) -> Pick:
            replies.append(content)
            return parse_pick(content, len(responses))

        # Built inside the judge's prompt window (the prompt holds every output), not here; no JSON mode.
        pick, cached = await judge.ask(
            lambda: select_best_messages(item.rubric_prompt, item.value, responses, item.vars)[0], None, parse
        )
    except asyncio.CancelledError:
        raise
    except JudgeFailure as failure:
        return _failed(entry, failure, len(responses))
    entry.update(
        winner=pick.best,
        passed=[i == pick.best for i in range(len(responses))],
        scores=[1.0 if i == pick.best else 0.0 for i in range(len(responses))],
        reason=pick.reason,
    )
    if pick.ambiguous:
        entry["ambiguous"] = True
    if cached:
        entry["cached"] = True
    theirs = promptfoo_reading(replies[-1]) if replies else None
    if theirs != pick.best:
        entry["promptfoo_reads"] = theirs
    return entry


def _notes(item: Any, count: int) -> list[str]:
    notes = []
    if count > 1:
        notes.append("Only the first select-best of a test runs; promptfoo skips the others.")
    return notes


def _failed(entry: dict[str, Any], failure: JudgeFailure, count: int) -> dict[str, Any]:
    reason = (
        failure.message if failure.kind == "config" else f"Grader call failed ({failure.category}): {failure.message}"
    )
    entry.update(
        winner=None, passed=[False] * count, scores=[None] * count, reason=reason, error=failure.error or reason
    )
    return entry


async def select_best_entry(
    doc: Document, view: Any, number: int, responses: list[str], judge_for: Any, test_vars: dict[str, Any]
) -> dict[str, Any] | None:
    """Test ``number``'s select-best over ``responses`` (a results file's outputs of the test, in column order), run
    with ``test_vars`` and a judge of the run every row shares (``judge_for``); None when the test has none."""
    plan = _plan(view, [number], test_vars)
    if not plan:
        return None
    _, item, count = plan[0]
    try:
        judge = judge_for(item)
    except JudgeFailure as failure:
        judge = failure
    return await _compare(doc, number, item, count, judge, responses)


def _plan(view: Any, numbers: list[int], test_vars: dict[str, Any] | None = None) -> list[tuple[int, Any, int]]:
    """(test number, its first select-best's grading item, how many select-bests the test has)."""
    plan = []
    for number in numbers:
        test = view.test_number(number)
        chosen = [a for a in test.top_assertions if a.type == SELECT_BEST] if test is not None else []
        if not chosen:
            continue
        items = view.grading_plan(number, test_vars)
        item = next((i for i in items if i.assertion.node is chosen[0].node), None)
        if item is not None:
            plan.append((number, item, len(chosen)))
    return plan


def add_verdicts(reports: list[GradeReport], entries: list[dict[str, Any]]) -> None:
    """Each output's select-best result as one more verdict of its report (see the module docstring)."""
    for position, report in enumerate(reports):
        for entry in entries:
            name = f"test {entry['test']}: {SELECT_BEST}"
            subject = Subject(name, len(report.verdicts), entry["range"])
            ambiguous, cached = bool(entry.get("ambiguous")), bool(entry.get("cached"))
            if "error" in entry:
                verdict = subject.failure(
                    entry["reason"], entry["error"], FAILED_JUDGMENT, passed=False, ambiguous=ambiguous, cached=cached
                )
            else:
                won = entry["winner"] == position
                reason = (
                    f"Selected as the best: {entry['reason'] or entry['criteria']}"
                    if won
                    else f"Not selected (output {entry['winner'] + 1} was): {entry['criteria']}"
                )
                score = 1.0 if won else 0.0
                verdict = subject.judged(
                    "PASS" if won else "FAIL", reason, score=score, passed=won, ambiguous=ambiguous, cached=cached
                )
            report.verdicts.append(verdict)
            report.passed = verdict.passed and report.passed is not False
        if entries and report.score is None and report.error is None:
            # Nothing else was graded for this output: the select-best verdicts are its result.
            failed = [v for v in report.verdicts if v.failed]
            if len(failed) == len(report.verdicts):
                report.error = "Every grader call failed: " + (failed[0].error or "")
                report.passed = False
            else:
                report.score = report.raw_score = sum(v.score or 0.0 for v in report.verdicts) / len(report.verdicts)
