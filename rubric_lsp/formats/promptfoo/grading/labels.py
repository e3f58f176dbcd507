"""A labels file's rows graded against a promptfoo config's model-graded assertions (``rubric calibrate
LABELS.csv --config promptfooconfig.yaml``; docs/calibration.md, "Labels files").

A row names its ``test`` (1-based, as promptfoo and ``rubric grade --test`` number them: a vars list is one test
per value, ``cases.py``) and its ``assertion``: a 1-based position in that test's own ``assert`` list, a ``metric``
name (which finds defaultTest's assertions too), or the name ``rubric grade --format csv`` gives it in its
``assertion`` column (``assertion 2``, ``defaultTest assertion 1``). The assertion must be an llm-rubric, g-eval,
model-graded-closedqa or factuality (or their ``not-`` forms). Each distinct (test, output) is graded once, as
``rubric grade --test N`` grades it, so a verdict here is exactly that grading's; the labelled assertion's verdict
is compared with the label. A unit is an assertion; a human ``score`` passes at the assertion's own ``threshold``
(g-eval's default 0.7), else at 0.5. The rows are streamed (``calibration/labelled.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rubric_lsp.calibration.labelled import Answer, LabelledUnit, LabelsResult, RowGrading, grade_rows
from rubric_lsp.calibration.labels import LabelRow, LabelsError, index_or_name
from rubric_lsp.calibration.record import grading_own
from rubric_lsp.document import Document
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.engine.runner import Grading, GradingError
from rubric_lsp.formats.promptfoo.grading.assertions import GRADED_TYPES, compared_threshold
from rubric_lsp.formats.promptfoo.grading.calibration import AssertionUnit, assertion_unit, link_key, unit_name
from rubric_lsp.formats.promptfoo.grading.model_graded import GEVAL_DEFAULT_THRESHOLD
from rubric_lsp.formats.promptfoo.grading.response import grade_promptfoo
from rubric_lsp.formats.promptfoo.reading import read_config

DEFAULT_PASS_MARK = 0.5
KINDS = "llm-rubric, g-eval, model-graded-closedqa or factuality"
Place = tuple[int, int, int]  # a unit: where a grading's verdict links it (calibration.link_key)


def _pass_mark(assertion: Any) -> float:
    raw = to_plain(assertion.field("threshold"))
    default = GEVAL_DEFAULT_THRESHOLD if (assertion.type or "").endswith("g-eval") else DEFAULT_PASS_MARK
    threshold = compared_threshold(raw, default)
    return default if threshold is None or threshold != threshold else threshold


def _find(view: Any, row: LabelRow) -> tuple[int, Any]:
    test_text = row.fields.get("test", "")
    count = view.test_count
    if not (test_text.isascii() and test_text.isdigit()) or not 1 <= int(test_text[:9]) <= count:
        raise row.refuse(f"'test' must be a test number from 1 to {count}, got {test_text[:100]!r}")
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
        if not found:  # the name rubric grade --format csv gives it ("assertion 2", "defaultTest assertion 1")
            found = [a for a in test.top_assertions if unit_name(test, a) == chosen]
        if not found:
            raise row.refuse(f"test {number} has no assertion with metric {chosen[:100]!r}")
        assertion = found[0]
    if assertion.type not in GRADED_TYPES:
        raise row.refuse(f"test {number}'s assertion {chosen} is a {assertion.type!r}, not an {KINDS}")
    return number, assertion


async def grade_labels(doc: Document, rows: Iterable[LabelRow], grading: Grading) -> LabelsResult:
    """Grade each distinct (test, output) once and read each row's assertion off that grading."""
    if doc.root is None:
        raise GradingError("The file is empty.")
    view = read_config(doc.root, doc.path, doc)
    if not view.test_count:
        raise GradingError("This promptfoo config has no tests to label.")
    found: dict[tuple[str, str], Place] = {}  # each (test, assertion) the rows name, found once
    units: dict[Place, AssertionUnit] = {}

    def unit_of(row: LabelRow) -> Place:
        named = (row.fields.get("test", ""), row.fields.get("assertion", ""))
        place = found.get(named)
        if place is None:
            number, assertion = _find(view, row)
            place = found[named] = link_key(number, assertion.node)
            units.setdefault(place, assertion_unit(view, number, assertion))
        return place

    async def ask(place: Place, row: LabelRow) -> Mapping[Place, Answer]:
        number = place[0]
        report = await grade_promptfoo(doc, row.output, row.query, grading.settings, test_index=number - 1)
        answers: dict[Place, Answer] = {}
        for link, verdict in zip(report.links, report.verdicts):
            judge = None if verdict.error or verdict.passed is None else bool(verdict.passed)
            answers[link_key(*link)] = (judge, verdict.error or verdict.reason or "")
        return answers

    how = RowGrading(
        unit_of,
        lambda place, row: (place[0], row.output, row.query),
        ask,
        lambda place: _pass_mark(units[place].assertion),
        concurrency=max(1, grading.settings.concurrency),
        expect=grading.expect,
        tick=grading.tick,
    )
    try:
        tallies = await grade_rows(rows, how)
    except LabelsError as exc:
        raise GradingError(str(exc)) from None
    if not tallies:
        raise GradingError("No labelled rows to grade.")
    given = bool(grading.settings.given_model())
    labelled = []
    for place, tally in tallies.items():
        u = units[place]
        own = grading_own(u.judge, given)  # the judge that graded it
        labelled.append(LabelledUnit(u.id, u.title, u.text, u.prompt, u.settings, tally, own))
    return LabelsResult(labelled)
