"""A promptfoo config's labelling (``Format.labelling``, docs/labelling.md): its model-graded assertions labelled
pass or fail on the outputs of an eval, each label a row of a labels file (docs/calibration.md's columns:
``config``, ``test``, ``assertion``, ``output``, ``query``, ``verdict``, with ``labeller`` and ``note``).

The outputs come from promptfoo's own results file (``promptfoo eval -o results.json``, read by
``results_file.results_of`` as ``rubric grade CONFIG --outputs`` reads it): each row (a test in one of
promptfoo's columns) is an item, labelled on its test's top-level llm-rubric, g-eval, model-graded-closedqa and
factuality assertions (their ``not-`` forms too), each named in the labels file as ``rubric calibrate`` finds it
(its ``metric``, else its place in the test's own ``assert`` list; a defaultTest assertion without a metric
cannot be named, and is left out with a note). What promptfoo's judge recorded for each (``componentResults``:
pass, score, reason) is the grading's verdict the page shows once the person answered.

**Ratings given in promptfoo's viewer are labels already.** promptfoo 0.123.1's viewer records a thumb as one
more component of the row, ``{pass, score, reason: "Manual result (overrides all other grading results)",
comment, assertion: {type: "human"}}`` (``dist/src/app/assets/index-*.js``; ``tests/data/promptfoo-recorded/
ratings`` holds one recorded through the viewer's API). A thumb rates the whole output, so it labels the row's
assertion when its test has exactly one model-graded assertion (its comment the label's note); a thumb on a
test with several is not taken (which assertion failed is not said), with a note naming the rows.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rubric_lsp.document import Document
from rubric_lsp.document.issues import TextEdit
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.engine.runner import GradingError
from rubric_lsp.formats.promptfoo.grading.assertions import GRADED_TYPES
from rubric_lsp.formats.promptfoo.grading.calibration import assertion_unit
from rubric_lsp.formats.promptfoo.grading.labels import _pass_mark
from rubric_lsp.formats.promptfoo.grading.results_file import Component, Row, results_of
from rubric_lsp.formats.promptfoo.reading import read_config
from rubric_lsp.labelling.hook import (
    FAIL,
    PASS,
    Choice,
    JudgeSaid,
    Label,
    LabelItem,
    Labelling,
    LabellingHook,
    LabelUnit,
    Part,
    Sheet,
    SourceError,
    item_keys,
)

PASS_WORD, FAIL_WORD = "pass", "fail"  # a labels file's verdicts (calibration/labels.py reads them)
HUMAN = "human"  # the assertion type of a rating given in promptfoo's viewer


def _choices(kind: str | None) -> tuple[Choice, ...]:
    negated = (kind or "").startswith("not-")
    return (
        Choice(PASS_WORD, PASS, "the output should pass it" + (" (it does not meet the rubric)" if negated else "")),
        Choice(FAIL_WORD, FAIL, "the output should fail it" + (" (it meets the rubric)" if negated else "")),
    )


def _column(name: str) -> str | None:
    """The labels file's ``assertion`` cell naming a unit (its metric, or its place in the test's own list)."""
    if name.startswith("defaultTest assertion "):
        return None
    return name.removeprefix("assertion ") if name.startswith("assertion ") else name


def _units(doc: Document, view: Any, number: int, notes: list[str]) -> list[tuple[LabelUnit, Any]]:
    test = view.test_number(number)
    if test is None:
        return []
    out = []
    for assertion in test.top_assertions:
        if assertion.type not in GRADED_TYPES:
            continue
        unit = assertion_unit(view, number, assertion)
        column = _column(unit.name)
        if column is None:
            note = f"test {number}: its defaultTest {assertion.type} has no metric, so no labels file can name it"
            if note not in notes:
                notes.append(note)
            continue
        value = assertion.value if isinstance(assertion.value, str) else json.dumps(assertion.value)
        here = assertion.source.is_config  # else in a tests file the config names (file://)
        label = LabelUnit(
            id=unit.id,
            title=f"{assertion.type}: {value}",
            choices=_choices(assertion.type),
            noun="assertion",
            where=assertion.node.span if here else None,
            path=None if here else str(assertion.source.path),
            fields={"assertion": column},
            group=_group(test, assertion, unit.name),
        )
        out.append((label, assertion))
    return out


def _group(test: Any, assertion: Any, name: str) -> str | None:
    """What the page's figures pool a unit with: the same assertion judged on other tests (a unit is one test's,
    as its vars are part of what the judge reads), named by its metric, else its type and words."""
    metric = to_plain(assertion.field("metric"))
    if isinstance(metric, str) and metric:
        return metric
    value = assertion.value if isinstance(assertion.value, str) else json.dumps(assertion.value)
    return f"{assertion.type} '{value[:40]}'"


def _item(
    doc: Document, view: Any, number: int, output: str, query: str | None, key: str, title: str, notes: list[str]
) -> LabelItem:
    vars_ = view.test_vars(number)
    inputs = [Part("prompt", query)] if query else []
    inputs += [
        Part(f"vars.{k}", v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)) for k, v in vars_.items()
    ]
    fields = {"test": str(number), "output": output, **({"query": query} if query else {})}
    units = [unit for unit, _assertion in _units(doc, view, number, notes)]
    return LabelItem(key, 0, title, inputs, output, units, fields=fields)


def sheet(doc: Document) -> Sheet:
    return Sheet([], in_file=False)  # a config holds no outputs: they come from an eval's results (--from)


def write(doc: Document, item: LabelItem, labels: Mapping[str, Label]) -> list[TextEdit]:
    return []  # labels go to a labels file (labelling/table.py), never into the config


def read_source(doc: Document, data: Any, path: Path) -> Sheet | None:
    """promptfoo's results file: each row with an output an item, promptfoo's judge's verdicts, the viewer's ratings."""
    if not _is_results(data):
        return None
    try:
        results = results_of(data, str(path))
    except GradingError as exc:
        raise SourceError(str(exc)) from None
    if doc.root is None:
        return None
    view = read_config(doc.root, doc.path, doc)
    found = Sheet([], in_file=False)
    rows = [r for r in results.rows if r.output is not None and 1 <= r.test <= view.test_count]
    beyond = sorted({r.test for r in results.rows if r.test > view.test_count})
    if beyond:
        found.notes.append(f"{path}: test {beyond[0]} is not one of this config's {view.test_count}: another config's?")
    columns = {c.index: c.label for c in results.columns}
    keys = item_keys([{"test": r.test, "output": r.output, "query": r.prompt} for r in rows])
    ambiguous = []
    for number, (row, key) in enumerate(zip(rows, keys), 1):
        title = _title(view, row, columns if len(columns) > 1 else {})
        item = _item(doc, view, row.test, row.output or "", row.prompt, key, title, found.notes)
        item.number = number
        found.items.append(item)
        assertions = dict(zip([u.id for u in item.units], [a for _u, a in _units(doc, view, row.test, [])]))
        for unit in item.units:
            said = _said(row, view.test_number(row.test), assertions[unit.id])
            if said is not None:
                found.judged[(key, unit.id)] = said
        thumb = next((c for c in row.recorded.components if c.type == HUMAN and c.passed is not None), None)
        if thumb is not None:
            if len(item.units) == 1:
                word = PASS_WORD if thumb.passed else FAIL_WORD
                found.found[(key, item.units[0].id)] = Label(word, " ".join(thumb.comment.split()))
            elif item.units:
                ambiguous.append(f"test {row.test}" + (f" column {row.column + 1}" if len(columns) > 1 else ""))
    if ambiguous:
        found.notes.append(
            f"{path}: the rating of {', '.join(ambiguous)} is not taken: its test has several model-graded "
            "assertions and a thumb rates the whole output; label each on the page"
        )
    return found


def _is_results(data: Any) -> bool:
    if isinstance(data, dict):
        return isinstance(data.get("results"), dict) and isinstance(data["results"].get("results"), list)
    return isinstance(data, list) and bool(data) and all(isinstance(r, dict) and "testIdx" in r for r in data)


def _title(view: Any, row: Row, columns: dict[int, str]) -> str:
    test = view.test_number(row.test)
    description = row.description or (to_plain(test.get("description")) if test is not None else None)
    title = f"test {row.test}" + (f" ({description})" if description else "")
    return title + (f" · {columns[row.column]}" if row.column in columns else "")


def _said(row: Row, test: Any, assertion: Any) -> JudgeSaid | None:
    """What promptfoo's judge recorded for ``assertion`` on this row: its component, found by its place among the
    test's top-level assertions (promptfoo runs defaultTest's first, as ``top_assertions`` lists them)."""
    components = [c for c in row.recorded.components if c.type != HUMAN]
    top = list(test.top_assertions) if test is not None else []
    component: Component | None = None
    if len(components) == len(top) and assertion in top:
        candidate = components[top.index(assertion)]
        component = candidate if candidate.type == assertion.type else None
    if component is None:  # another shape: the first component of the same type and value
        component = next(
            (c for c in components if c.type == assertion.type and (c.assertion or {}).get("value") == assertion.value),
            None,
        )
    if component is None:
        return None
    verdict = None if component.passed is None else PASS_WORD if component.passed else FAIL_WORD
    scored = to_plain(assertion.field("threshold")) is not None or (assertion.type or "").endswith("g-eval")
    threshold = _pass_mark(assertion) if scored else None
    return JudgeSaid(verdict, component.reason, score=component.score, threshold=threshold)


def item_for(doc: Document, fields: Mapping[str, str], number: int) -> LabelItem | None:
    """The item a labels file's row names: its test's units on its output (a row typed by hand)."""
    test_text, output = fields.get("test", ""), fields.get("output", "")
    if doc.root is None or not test_text.isdigit() or not output:
        return None
    view = read_config(doc.root, doc.path, doc)
    test = int(test_text)
    if not 1 <= test <= view.test_count:
        return None
    query = fields.get("query") or None
    key = item_keys([{"test": test, "output": output, "query": query}])[0]
    item = _item(doc, view, test, output, query, key, f"test {test} (from the labels file)", [])
    item.number = number
    return item


LABELLING: LabellingHook = Labelling(sheet, write, read_source, item_for)
