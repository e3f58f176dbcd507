"""One response graded against a promptfoo config's tests: every assertion, each test's result.

Each test is run as promptfoo's ``runAssertions`` runs it (``aggregate``): the model-graded
assertions rubric grade runs ask the judge (``assertions``), the deterministic and JavaScript ones
are checked (``deterministic``; a runaway script is an ERROR), and every other one (``python``,
``webhook``, ``latency``, model-graded types not run yet, …) is a ``NOT_RUN`` verdict that leaves
the test undecided unless the others decide it. ``select-best`` and ``max-score`` are not part of a test's result (promptfoo
skips them there); they compare several outputs (``outputs``). A test carrying an assertion
promptfoo errors on is refused before any judge call (``refusals``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from rubric_lsp.document import Document
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.engine.failures import JudgeFailure
from rubric_lsp.engine.judge import Judge
from rubric_lsp.engine.report import GradeReport, Subject, Verdict
from rubric_lsp.engine.result import Outcome as UnitOutcome
from rubric_lsp.engine.runner import GradingError, fan_out
from rubric_lsp.engine.settings import JudgeSettings
from rubric_lsp.formats.promptfoo.grading.aggregate import Outcome, Part, aggregate, score_bounds
from rubric_lsp.formats.promptfoo.grading.assertions import (
    FAILED_JUDGMENT,
    GRADED_TYPES,
    NEEDS_OUTPUTS,
    SELECT_BEST,
    _Response,
    assertion_weight,
)
from rubric_lsp.formats.promptfoo.grading.calibration import graded_tests, unit_name
from rubric_lsp.formats.promptfoo.grading.checked import Declined, Errored, Refused
from rubric_lsp.formats.promptfoo.grading.deterministic import Extras, check
from rubric_lsp.formats.promptfoo.grading.judges import json_mode_for, promptfoo_version, start_judges
from rubric_lsp.formats.promptfoo.grading.prompts import UNDEFINED
from rubric_lsp.formats.promptfoo.grading.refusals import refusals
from rubric_lsp.formats.promptfoo.grading.test_results import NOT_RUN, test_json, test_threshold
from rubric_lsp.formats.promptfoo.grading.test_results import metric as metric_name
from rubric_lsp.formats.promptfoo.grading.test_results import weight as assertion_weight_or_1
from rubric_lsp.formats.promptfoo.grading.transforms import (
    Transformed,
    assertion_output,
    transform_code,
    transformed_output,
)
from rubric_lsp.formats.promptfoo.reading import read_config
from rubric_lsp.formats.promptfoo.validation import config_refusal

SELECTORS = ("max-score", SELECT_BEST)


@dataclass
class _Test:
    """One test's assertions as promptfoo runs them, and the verdict each gets here."""

    number: int
    info: Any
    assertions: list[Any]  # flattened, sets' children included, in order
    top: list[Any]  # sets as one entry
    vars: dict[str, Any] = field(default_factory=dict)  # as promptfoo renders values and metric names
    verdicts: dict[int, Verdict] = field(default_factory=dict)  # id(assertion) -> verdict
    sets: dict[int, Outcome] = field(default_factory=dict)  # id(assert-set) -> its own result (from outcome())

    def outcome(self) -> Outcome:
        if _scoring_function(self.info) is not None:
            return Outcome(None, None, "The test's assertScoringFunction (code, not run here) decides its result")
        # runAssertions skips select-* and max-score: they are no part of a test's result.
        return aggregate([self._part(a) for a in self.top if a.type not in SELECTORS], test_threshold(self.info))

    def _part(self, assertion: Any) -> Part:
        weight = assertion_weight_or_1(assertion)
        metric = metric_name(assertion, self.vars)
        if assertion.type == "assert-set":
            children = [a for a in self.assertions if a.set_node is assertion.node and a.type not in SELECTORS]
            threshold = to_plain(assertion.field("threshold"))
            self.sets[id(assertion)] = aggregate([self._part(c) for c in children], threshold)
            return self.sets[id(assertion)].as_part(weight, metric)
        verdict = self.verdicts.get(id(assertion))
        if verdict is None or verdict.failed or verdict.verdict == NOT_RUN:
            passed = True if weight == 0 else None  # runAssertion forces a weight-0 assertion to pass
            reason = verdict.reason if verdict else ""
            return Part(passed, None, weight, metric, reason, bounds=score_bounds(assertion.type))
        score = verdict.score if verdict.score is not None else float(bool(verdict.passed))
        return Part(True if weight == 0 else bool(verdict.passed), score, weight, metric, verdict.reason)


def _scoring_function(test: Any) -> Any:
    own = test.get("assertScoringFunction")
    if own is None and test.default is not None and test.default is not test:
        return test.default.get("assertScoringFunction")
    return own


def _option(test: Any, key: str) -> Any:
    """``testCase.options`` as promptfoo merges them: defaultTest's under the test's, shallowly."""
    node = test.options_field(key)
    if node is None and test.default is not None and test.default is not test:
        node = test.default.options_field(key)
    return to_plain(node)


def _assertions(test: Any) -> tuple[list[Any], list[Any]]:
    """(flattened, top-level) assertions; defaultTest's first unless the test's own options.disableDefaultAsserts."""
    if to_plain(test.options_field("disableDefaultAsserts")) is True:
        return list(test.own_assertions), list(test.own_top)
    return list(test.assertions), list(test.top_assertions)


def _not_run_reason(assertion: Any) -> str:
    if assertion.grader_kind is not None:
        return (
            f"Not run here: rubric grade runs llm-rubric, model-graded-closedqa, factuality and g-eval (and their "
            f"not- forms), not '{assertion.type}' yet; promptfoo's result depends on it."
        )
    return f"Not run here: rubric grade does not run '{assertion.type}' assertions; promptfoo's result depends on it."


async def grade_promptfoo(
    doc: Document,
    response: str,
    query: str | None,
    settings: JudgeSettings,
    *,
    test_index: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    compared: bool = False,
    prompt_index: int = 0,
    ran: Ran | None = None,
) -> GradeReport:
    """Grade one response against the config's tests (or test ``test_index``, 0-based).

    ``compared``: part of a multi-output run that grades select-best and max-score itself.
    ``prompt_index``: which of the config's prompts produced the response (closedqa, factuality
    and g-eval grade it against that prompt when no ``query`` is given). ``ran``: how one row of a
    results file ran it (its vars, the config's view and the judges every row shares)."""

    if doc.root is None:
        raise GradingError("The file is empty.")
    view = ran.view if ran is not None else read_config(doc.root, doc.path, doc)
    refused = config_refusal(view)
    if refused is not None:  # promptfoo grades nothing in a config it refuses (PF107 says the same)
        raise GradingError(refused)
    numbers = graded_tests(view, test_index)
    tests = [_Test(n, view.test_number(n), *_assertions(view.test_number(n)), _vars_of(view, n, ran)) for n in numbers]
    problems = [line for t in tests for line in refusals(view, t.number, t.assertions, _known_vars(t, ran))]
    if problems:
        raise GradingError(
            "promptfoo errors on these assertions, so nothing is graded until they are fixed: " + "; ".join(problems)
        )
    report = GradeReport(format="promptfoo")
    report.test_index = test_index
    notes: set[str] = set()
    outputs: dict[int, str] = {}  # id(assertion) -> the transformed output it judges
    # Deterministic checks first: a refusal costs no call.
    entries = _entries(view, tests, response, compared, notes, outputs, recorded=ran is not None)
    if not entries and any(a.type == SELECT_BEST for t in tests for a in t.assertions):
        if not compared:
            raise GradingError(f"Nothing to grade with one output but select-best. {NEEDS_OUTPUTS}")
        return report  # only select-best: grade_promptfoo_outputs adds its verdicts, which are the result
    plan = [(t.number, item) for t, a, item in entries if item is not None]
    record: dict[int, dict[str, Any]] = {}  # id(assertion) -> what its judging sent (the report shows it)
    judged = await _judge(
        doc, view, response, query, settings, plan, prompt_index, notes, on_progress, report, record, ran, outputs
    )
    answers = iter(judged)
    for position, (test, assertion, item) in enumerate(entries):
        verdict = next(answers) if item is not None else test.verdicts[id(assertion)]
        verdict.index = position
        # The labels file's keys of the assertion (calibration.unit_name): a table row names it uniquely.
        verdict.cells = (("test", test.number), ("assertion", unit_name(test.info, assertion) or ""))
        test.verdicts[id(assertion)] = verdict
        report.verdicts.append(verdict)
        report.links.append((test.number, assertion.node))
    report.notes = in_test_order(notes)
    _score(report, tests, record)
    return report


@dataclass
class Ran:
    """How one row of a results file ran its test: with these vars, graded with the judges every row shares."""

    view: Any
    vars: dict[str, Any]
    judges: tuple[Any, Any]  # (the run, judge_for) as ``judges.start_judges`` makes them; (None, None): no judge


def _known_vars(test: _Test, ran: Ran | None) -> dict[str, Any] | None:
    """The vars test ``test`` runs with, when all are known (a results file's row, or vars written in the config:
    not from CSV files, scripts or transformVars); None otherwise."""
    info = test.info
    default = info.default
    written = info.own_vars_complete and (default is None or default is info or default.own_vars_complete)
    return test.vars if ran is not None or written else None


def _vars_of(view: Any, number: int, ran: Ran | None) -> dict[str, Any]:
    return view.test_vars(number) if ran is None else ran.vars


def in_test_order(notes: set[str]) -> list[str]:
    """Notes by the test they name ("test 5: …" before "test 10: …"), then as text."""

    def key(note: str) -> tuple[int, str]:
        head = note.split(":", 1)[0].split(" ")
        number = head[1] if len(head) > 1 and head[0] == "test" else ""
        return (int(number) if number.isdigit() else 0, note)

    return sorted(notes, key=key)


def _entries(
    view: Any,
    tests: list[_Test],
    response: str,
    compared: bool,
    notes: set[str],
    outputs: dict[int, str],
    *,
    recorded: bool,
) -> list[tuple[_Test, Any, Any]]:
    """(test, assertion, grading-plan item or None) for every assertion that counts, in order.

    Deterministic and not-run verdicts are made here; judged ones are the plan items, each judging the output its
    transforms make (``outputs``). ``recorded``: ``response`` is a results file's, already the test's transform's."""
    entries = []
    for test in tests:
        plan = {id(item.assertion): item for item in view.grading_plan(test.number, test.vars)}
        code = transform_code(partial(_option, test.info))
        out = transformed_output(code, response, test.vars, recorded)
        for a in test.assertions:
            if a.type in (None, "assert-set"):
                continue
            if a.type in SELECTORS:
                if a.type == SELECT_BEST and not compared:
                    notes.add(f"test {test.number}: 'select-best' is not part of a test's result; {NEEDS_OUTPUTS}")
                continue
            node = a.ref_node or a.node
            rng = a.source.document.range(node).to_json() if a.source.is_config and a.source.document else None
            subject = Subject(f"test {test.number}: {a.type}", 0, rng, assertion_weight(a))
            if a.type in GRADED_TYPES and id(a) in plan:
                try:
                    outputs[id(a)] = assertion_output(a, out, test.vars)
                except Declined as declined:
                    test.verdicts[id(a)] = _not_run(
                        subject, f"Not run here: {declined}; promptfoo's result depends on it."
                    )
                except Errored as errored:
                    test.verdicts[id(a)] = subject.failure(str(errored), f"script: {errored}", FAILED_JUDGMENT)
                else:
                    entries.append((test, a, plan[id(a)]))
                    continue
                entries.append((test, a, None))
                continue
            test.verdicts[id(a)] = _checked(subject, a, out, test.vars, test.number)
            entries.append((test, a, None))
    return entries


def _checked(subject: Subject, a: Any, out: Transformed, test_vars: dict[str, Any], number: int) -> Verdict:
    if out.errored is not None:
        return subject.failure(out.errored, f"script: {out.errored}", FAILED_JUDGMENT)
    if out.text is None:
        return _not_run(subject, f"Not run here: {out.declined}; promptfoo's result depends on it.")
    value = UNDEFINED if a.field("value") is None else a.value
    extras = Extras(
        threshold=_plain_field(a, "threshold"),
        config=_plain_field(a, "config"),
        transform=_plain_field(a, "transform"),
        object_output=not out.is_text,
    )
    try:
        result = check(a.type, value, out.text, test_vars, extras)
    except Refused as refused:
        raise GradingError(
            f"promptfoo errors test {number}: its {a.type} fails with 'Invariant failed: {refused}'; nothing is graded until it is fixed."
        ) from None
    except Declined as declined:
        return _not_run(subject, f"Not run here: {declined}; promptfoo's result depends on it.")
    except Errored as errored:
        return subject.failure(str(errored), f"script: {errored}", FAILED_JUDGMENT)
    if result is None:
        return _not_run(subject, _not_run_reason(a))
    return subject.judged("PASS" if result.passed else "FAIL", result.reason, score=result.score, passed=result.passed)


def _plain_field(assertion: Any, key: str) -> Any:
    node = assertion.field(key)
    return UNDEFINED if node is None else to_plain(node)


def _not_run(subject: Subject, reason: str) -> Verdict:
    return Verdict(subject.name, 0, NOT_RUN, reason, subject.range, weight=subject.weight, outcome=UnitOutcome.NOT_RUN)


async def _judge(
    doc: Document,
    view: Any,
    response: str,
    query: str | None,
    settings: JudgeSettings,
    plan: list[tuple[int, Any]],
    prompt_index: int,
    notes: set[str],
    on_progress: Callable[[int, int], None] | None,
    report: GradeReport,
    record: dict[int, dict[str, Any]],
    ran: Ran | None,
    outputs: dict[int, str],
) -> list[Verdict]:
    """The judged verdicts of ``plan``, in its order (no judge is started when it is empty)."""
    if not plan:
        return []
    run, judge_for = start_judges(settings, plan) if ran is None else ran.judges
    judges: list[Judge | JudgeFailure] = []
    for _, item in plan:  # credentials for every grader are checked before any call
        try:
            judges.append(judge_for(item))
        except JudgeFailure as failure:
            judges.append(failure)
    first_prompt = view.prompt(prompt_index) if query is None else None
    graded = _Response(
        doc,
        view,
        response,
        query,
        first_prompt,
        notes,
        promptfoo_version(settings, doc.path),
        json_mode_for(settings),
        record,
        outputs,
    )
    done = 0

    async def one(number: int, item: Any, judge: Judge | JudgeFailure) -> Verdict:
        nonlocal done
        try:
            return await graded.item(0, number, item, judge)
        finally:
            done += 1
            if on_progress:
                on_progress(done, len(plan))

    verdicts = await fan_out(one(n, item, judge) for (n, item), judge in zip(plan, judges))
    for judge in run.judges.values() if ran is None else ():  # shared judges: the whole run's usage is counted once
        report.usage.merge(judge.usage)
    report.model = ", ".join(sorted({j.model for j in run.judges.values()})) or None
    return verdicts


def _score(report: GradeReport, tests: list[_Test], record: dict[int, dict[str, Any]]) -> None:
    """Each test's result as promptfoo makes it; the report passes when every test does."""
    outcomes = [(t, t.outcome()) for t in tests]
    report.tests = [test_json(t, o, t.sets, record) for t, o in outcomes]
    if any(o.passed is False for _, o in outcomes):
        report.passed = False
    elif all(o.passed for _, o in outcomes):
        report.passed = True
    else:
        report.passed = None
    scores = [o.score for _, o in outcomes]
    report.score = None if any(s is None for s in scores) else sum(s for s in scores if s is not None) / len(scores)
    report.raw_score = report.score
    ranges = [(o.score, o.score) if o.score is not None else o.bounds for _, o in outcomes]
    if report.score is None and outcomes and all(r is not None for r in ranges):
        lows, highs = zip(*(r for r in ranges if r is not None))
        report.score_range = (sum(lows) / len(ranges), sum(highs) / len(ranges))
    # Undecided for want of a judgment is the failed calls' to say (GradeReport.incomplete); here,
    # what is not run at all.
    not_run = {
        id(t): sorted({v.name.split(": ", 1)[1] for v in t.verdicts.values() if v.verdict == NOT_RUN}) for t in tests
    }
    undecided = [
        f"test {t.number} ({', '.join(not_run[id(t)]) or 'its assertScoringFunction'})"
        for t, o in outcomes
        if o.passed is None and (not_run[id(t)] or _scoring_function(t.info) is not None)
    ]
    if undecided:
        report.undecided = (
            f"the result of {', '.join(undecided)} rests on what rubric grade does not run; run promptfoo for it"
        )
    # Every failed judgment or script is counted as unknown and leaves its test ERROR, which the tests' lines and
    # ``incomplete`` say in the one wording; the report's ``error`` is kept for a grading that made no verdict.
