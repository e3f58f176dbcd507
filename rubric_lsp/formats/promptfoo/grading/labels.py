"""A labels file's rows graded against a promptfoo config's model-graded assertions (``rubric calibrate
LABELS.csv --config promptfooconfig.yaml``; docs/calibration.md, "Labels files").

A row names its ``test`` (1-based, as promptfoo and ``rubric grade --test`` number them: a vars list is one test per value, ``cases.py``) and its ``assertion``: a
1-based position in that test's own ``assert`` list, or a ``metric`` name (which finds defaultTest's
assertions too). The assertion must be an llm-rubric, g-eval, model-graded-closedqa or factuality (or
their ``not-`` forms). Each distinct (test, output) is graded as ``rubric grade --test N`` grades it, so
a verdict here is exactly that grading's; the labelled assertion's verdict is compared with the label. A
unit is an assertion; a human ``score`` passes at the assertion's own ``threshold`` (g-eval's default
0.7), else at 0.5.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rubric_lsp.calibration.labels import Judged, LabelledUnit, LabelRow, LabelsError, LabelsResult, index_or_name
from rubric_lsp.calibration.record import grading_own
from rubric_lsp.document import Document
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.engine.runner import Grading, GradingError
from rubric_lsp.formats.promptfoo.grading.assertions import GRADED_TYPES, compared_threshold
from rubric_lsp.formats.promptfoo.grading.calibration import AssertionUnit, assertion_unit, link_key
from rubric_lsp.formats.promptfoo.grading.model_graded import GEVAL_DEFAULT_THRESHOLD
from rubric_lsp.formats.promptfoo.grading.response import grade_promptfoo
from rubric_lsp.formats.promptfoo.reading import read_config

DEFAULT_PASS_MARK = 0.5
KINDS = "llm-rubric, g-eval, model-graded-closedqa or factuality"


@dataclass
class _Unit:
    unit: AssertionUnit  # its id, text and prompt fingerprint: what the record keeps (calibration.py)
    rows: list[LabelRow]

    @property
    def test(self) -> int:
        return self.unit.test

    @property
    def assertion(self) -> Any:
        return self.unit.assertion


def _pass_mark(assertion: Any) -> float:
    raw = to_plain(assertion.field("threshold"))
    default = GEVAL_DEFAULT_THRESHOLD if (assertion.type or "").endswith("g-eval") else DEFAULT_PASS_MARK
    threshold = compared_threshold(raw, default)
    return default if threshold is None or threshold != threshold else threshold


def _find(view: Any, row: LabelRow) -> tuple[int, Any]:
    test_text = row.fields.get("test", "")
    if not test_text.isdigit() or not 1 <= int(test_text) <= view.test_count:
        raise row.refuse(f"'test' must be a test number from 1 to {view.test_count}, got {test_text!r}")
    number = int(test_text)
    test = view.test_number(number)
    chosen = index_or_name(row, "assertion")
    if chosen is None:
        raise row.refuse("no 'assertion' (its 1-based position in the test's assert list, or its metric)")
    if isinstance(chosen, int):
        own = test.own_top
        if chosen > len(own):
            raise row.refuse(f"test {number} has {len(own)} assertion(s), not {chosen}")
        assertion = own[chosen - 1]
    else:
        found = [a for a in test.top_assertions if to_plain(a.field("metric")) == chosen]
        if not found:
            raise row.refuse(f"test {number} has no assertion with metric {chosen!r}")
        assertion = found[0]
    if assertion.type not in GRADED_TYPES:
        raise row.refuse(f"test {number}'s assertion {chosen} is a {assertion.type!r}, not an {KINDS}")
    return number, assertion


async def grade_labels(doc: Document, rows: tuple[LabelRow, ...], grading: Grading) -> LabelsResult:
    """Grade each distinct (test, output) once and read each row's assertion off that grading."""
    if doc.root is None:
        raise GradingError("The file is empty.")
    if not rows:
        raise GradingError("No labelled rows to grade.")
    view = read_config(doc.root, doc.path, doc)
    if not view.test_count:
        raise GradingError("This promptfoo config has no tests to label.")
    units: dict[tuple[int, int], _Unit] = {}
    try:
        for row in rows:
            number, assertion = _find(view, row)
            place = (number, id(assertion.node))
            if place not in units:
                units[place] = _Unit(assertion_unit(view, number, assertion), [])
            units[place].rows.append(row)
    except LabelsError as exc:
        raise GradingError(str(exc)) from None
    reports: dict[tuple[int, str], Any] = {}
    grading.expect(len({(u.test, r.output) for u in units.values() for r in u.rows}))
    for unit in units.values():
        for row in unit.rows:
            key = (unit.test, row.output)
            if key not in reports:
                reports[key] = await grade_promptfoo(
                    doc, row.output, row.query, grading.settings, test_index=unit.test - 1
                )
                grading.tick()
    given = bool(grading.settings.given_model())
    labelled = []
    for unit in units.values():
        judged = []
        for row in unit.rows:
            report = reports[(unit.test, row.output)]
            wanted = link_key(unit.test, unit.assertion.node)
            verdict = next((v for link, v in zip(report.links, report.verdicts) if link_key(*link) == wanted), None)
            judge = None if verdict is None or verdict.error or verdict.passed is None else bool(verdict.passed)
            reason = "" if verdict is None else (verdict.error or verdict.reason or "")
            judged.append(Judged(row, row.human_pass(_pass_mark(unit.assertion)), judge, reason))
        u = unit.unit
        own = grading_own(u.judge, given)  # the judge that graded it
        labelled.append(LabelledUnit(u.id, u.title, u.text, u.prompt, u.settings, judged, own))
    return LabelsResult(labelled)
