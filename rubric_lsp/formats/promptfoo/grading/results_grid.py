"""A whole promptfoo eval graded in one run: ``rubric grade promptfooconfig.yaml --outputs results.json``.

Every row of promptfoo's results file (``results_file``) is graded as ``rubric grade --test N`` grades one
output, with the row's own output, vars and prompt sent (the prompt model-graded-closedqa, factuality and
g-eval read, as promptfoo hands them theirs): its test is promptfoo's test ``testIdx + 1``, numbered as
promptfoo numbers them (``cases``). Every row shares one run of judges (one concurrency limit, one verdict
cache). The result is a grid like promptfoo's viewer — tests as rows, columns as promptfoo's (one prompt of
one provider), each cell its test's result beside the verdict promptfoo recorded for that row, and whether
they differ (``Grid``, ``engine/result.py``). Re-grading with another judge (``--model``) shows where that
judge would have decided otherwise; with promptfoo's own judge, where rubric-lsp and promptfoo differ.

``select-best`` and ``max-score`` compare a test's outputs across its columns: they run once every row is graded,
and each row's result merges them as promptfoo merges them (``results_compare``), so a row promptfoo failed by
losing a comparison is compared with a row that lost it here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from rubric_lsp.document import Document
from rubric_lsp.engine.report import GradeReport, usage_line
from rubric_lsp.engine.request import GradeRequest
from rubric_lsp.engine.result import Case, Grid, GridCell, GridColumn, GridRow, Outcome, Unit
from rubric_lsp.engine.runner import Grading, GradingError, fan_out
from rubric_lsp.engine.usage import Usage
from rubric_lsp.formats.promptfoo.grading.judges import start_judges
from rubric_lsp.formats.promptfoo.grading.response import Ran, grade_promptfoo
from rubric_lsp.formats.promptfoo.grading.results_compare import Compared, compare_columns, merged
from rubric_lsp.formats.promptfoo.grading.results_file import SELECTORS, Recorded, ResultsFile, Row, read_results
from rubric_lsp.formats.promptfoo.grading.test_results import ERROR, FAIL, INCOMPLETE, PASS, json_safe
from rubric_lsp.formats.promptfoo.reading import read_config
from rubric_lsp.formats.promptfoo.validation import config_refusal
from rubric_lsp.redaction import report_redactor

RECORDED_BY = "promptfoo"
_OUTCOME = {PASS: Outcome.PASS, FAIL: Outcome.FAIL, ERROR: Outcome.ERROR, INCOMPLETE: Outcome.NOT_RUN}
NO_OUTPUT = "NO OUTPUT"


async def grade_results(doc: Document, request: GradeRequest, grading: Grading) -> GridResult:
    name = request.results_name or "the results file"
    results = read_results(request.results or "", name)
    if doc.root is None:
        raise GradingError("The file is empty.")
    view = read_config(doc.root, doc.path, doc)
    refused = config_refusal(view)
    if refused is not None:
        raise GradingError(refused)
    _check_numbering(view, results, name)
    graded_rows = [r for r in results.rows if r.output is not None]
    numbers = sorted({r.test for r in graded_rows})
    plan = [(n, item) for n in numbers for item in view.grading_plan(n)]
    judges = start_judges(grading.settings, plan) if plan else (None, None)
    grading.expect(len(graded_rows))

    async def one(row: Row) -> GradeReport:
        try:
            ran = Ran(view, row.vars, judges)
            return await grade_promptfoo(
                doc, row.output or "", row.prompt, grading.settings, test_index=row.test - 1, ran=ran
            )
        finally:
            grading.tick()

    reports = await fan_out(one(row) for row in graded_rows)
    by_row = {(r.test, r.column): report for r, report in zip(graded_rows, reports)}
    compared = await compare_columns(doc, view, results.rows, by_row, judges[1])
    run = judges[0]
    usage = run.usage() if run is not None else Usage()
    model = ", ".join(sorted({j.model for j in run.judges.values()})) if run is not None else None
    return GridResult(results, name, by_row, usage, model or None, _notes(view, results, reports), compared)


def _check_numbering(view: Any, results: ResultsFile, name: str) -> None:
    """Refuse a results file whose tests the config does not number (another config, or one edited since)."""
    count = view.test_count
    beyond = sorted({r.test for r in results.rows if r.test > count})
    if beyond:
        raise GradingError(
            f"{name} has test {beyond[0]}, but this config runs {count} test(s) as promptfoo numbers them: "
            "give the config that wrote it (or re-run promptfoo eval)."
        )


def _notes(view: Any, results: ResultsFile, reports: list[GradeReport]) -> list[str]:
    notes: dict[str, None] = {}
    for report in reports:
        notes.update(dict.fromkeys(report.notes))
    for row in results.rows:
        case = view.numbering.case(row.test)
        differing = sorted(k for k, v in case.vars.items() if k in row.vars and row.vars[k] != v) if case else []
        if differing:
            notes[
                f"test {row.test}: {name_list(differing)} in the results file differ from the config's; graded with the results file's"
            ] = None
    return list(notes)


def name_list(names: list[str]) -> str:
    shown = ", ".join(f"var '{n}'" for n in names[:3])
    return shown + (f" and {len(names) - 3} more" if len(names) > 3 else "")


@dataclass
class GridResult:
    """Every row of a results file graded: tests × columns (``kind`` grid)."""

    results: ResultsFile
    name: str
    reports: dict[tuple[int, int], GradeReport]  # (test, column) -> the row's grading
    usage: Usage = field(default_factory=Usage)
    model: str | None = None
    notes: list[str] = field(default_factory=list)
    compared: dict[tuple[int, int], list[Compared]] = field(default_factory=dict)  # (test, column) → comparisons
    kind = "grid"

    def __post_init__(self) -> None:
        self._cells = [self._cell(row) for row in self.results.rows]

    # -- the cells ------------------------------------------------------------------------------------
    def _cell(self, row: Row) -> dict[str, Any]:
        report = self.reports.get((row.test, row.column))
        recorded = _recorded_json(row.recorded)
        cell: dict[str, Any] = {"test": row.test, "column": row.column}
        if report is None:
            reason = f"the provider returned no output: {row.error or 'no reason given'}"
            cell.update(result=NO_OUTPUT, passed=None, score=None, reason=reason)
        else:
            test = report.tests[0]
            compared = self.compared.get((row.test, row.column), [])
            passed, score, reason = merged(test["passed"], test["score"], test["reason"], compared)
            cell.update(result=_word(passed, test["result"], compared), passed=passed, score=score, reason=reason)
            if score is None and "score_range" in test and not compared:
                cell["score_range"] = test["score_range"]
            _align(test, row.recorded, report)
            if compared:
                cell["comparisons"] = [_compared_json(c, row.recorded) for c in compared]
        cell["recorded"] = recorded
        cell["differs"] = (
            cell["result"] in (PASS, FAIL)
            and recorded["result"] in (PASS, FAIL, ERROR)
            and cell["result"] != recorded["result"]
        )
        cell["output"] = row.output
        if report is not None:
            cell["report"] = report.to_json()
        return cell

    def _columns(self) -> list[dict[str, Any]]:
        found = []
        for column in self.results.columns:
            mine = [c for c in self._cells if c["column"] == column.index]
            count = {word: sum(c["result"] == word for c in mine) for word in (PASS, FAIL, ERROR, INCOMPLETE)}
            recorded = sum(c["recorded"]["result"] == PASS for c in mine)
            found.append(
                {
                    "index": column.index,
                    "label": column.label,
                    "provider": column.provider,
                    "prompt": column.prompt,
                    "cells": len(mine),
                    "passed": count[PASS],
                    "failed": count[FAIL],
                    "errors": count[ERROR],
                    "incomplete": count[INCOMPLETE] + sum(c["result"] == NO_OUTPUT for c in mine),
                    "pass_rate": count[PASS] / len(mine) if mine else None,
                    "recorded_passed": recorded,
                    "recorded_pass_rate": recorded / len(mine) if mine else None,
                    "differences": sum(c["differs"] for c in mine),
                }
            )
        return found

    def _rows(self) -> list[dict[str, Any]]:
        redact = report_redactor().report
        rows: dict[int, dict[str, Any]] = {}
        for row in self.results.rows:
            entry = rows.setdefault(row.test, {"test": row.test})
            if row.description and "description" not in entry:
                entry["description"] = row.description
            entry.setdefault("vars", json_safe(row.vars, redact))
        return [rows[n] for n in sorted(rows)]

    # -- the result protocol --------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": "promptfoo",
            "results": self.name,
            "columns": self._columns(),
            "rows": self._rows(),
            "cells": self._cells,
            "differences": sum(c["differs"] for c in self._cells),
            "usage": self.usage.to_json(),
        }
        if self.results.version:
            data["recorded_by"] = f"{RECORDED_BY} {self.results.version}"
        if self.model:
            data["model"] = self.model
        if self.notes:
            data["notes"] = self.notes
        if (incomplete := self.incomplete) is not None:
            data["incomplete"] = incomplete
        return data

    def units(self) -> list[Unit]:
        found = []
        labels = {c.index: c.label for c in self.results.columns}
        for i, cell in enumerate(self._cells):
            report = self.reports.get((cell["test"], cell["column"]))
            if report is None:
                continue
            group = f"test {cell['test']} · {labels.get(cell['column'], cell['column'] + 1)}"
            recorded = _component_words(report)
            for j, unit in enumerate(report.units(group, ("cells", i, "report"))):
                extra = (("test", cell["test"]), ("column", cell["column"] + 1), (RECORDED_BY, recorded.get(j, "")))
                found.append(replace(unit, group=group, cells=unit.cells + extra))
            for k, compared in enumerate(cell.get("comparisons", [])):
                found.append(_comparison_unit(cell, compared, group, ("cells", i, "comparisons", k)))
        return found

    def cases(self) -> list[Case]:
        grid = self.grid()
        return [cell.case for cell in grid.cells]

    def grid(self) -> Grid:
        columns = self._columns()
        rows = self._rows()
        index = {row["test"]: position for position, row in enumerate(rows)}
        units = self.units()
        cells = []
        for i, cell in enumerate(self._cells):
            recorded = cell["recorded"]
            mine = tuple(u for u in units if u.path[:2] == ("cells", i))
            label = f"test {cell['test']}" + (f": {d}" if (d := rows[index[cell["test"]]].get("description")) else "")
            outcome = _OUTCOME.get(cell["result"], Outcome.NOT_RUN)
            case = Case(
                label,
                columns[_column_position(columns, cell["column"])]["label"],
                outcome,
                cell["result"],
                cell["score"],
                cell["reason"],
                mine,
            )
            cells.append(
                GridCell(
                    index[cell["test"]],
                    _column_position(columns, cell["column"]),
                    case,
                    _OUTCOME.get(recorded["result"]),
                    recorded["score"],
                    recorded["reason"],
                    cell["differs"],
                    ("cells", i),
                )
            )
        return Grid(
            tuple(
                GridRow(f"test {r['test']}", r.get("description", ""), _var_pairs(r.get("vars", {})), r["test"])
                for r in rows
            ),
            tuple(
                GridColumn(c["label"], c["prompt"], c["passed"], c["cells"], c["recorded_passed"], c["cells"])
                for c in columns
            ),
            tuple(cells),
            RECORDED_BY + (f" {self.results.version}" if self.results.version else ""),
        )

    @property
    def failed(self) -> bool:
        return any(c["result"] == FAIL for c in self._cells)

    @property
    def incomplete(self) -> str | None:
        """Outputs left undecided: a failed judge call (ERROR), what is not run here (INCOMPLETE), no output."""
        reasons = []
        for word, why in (
            (ERROR, "undecided: a judge call failed"),
            (INCOMPLETE, "undecided: they rest on what rubric grade does not run"),
            (NO_OUTPUT, "not graded: the provider returned no output"),
        ):
            cells = [c for c in self._cells if c["result"] == word]
            if cells:
                where = ", ".join(f"test {c['test']} column {c['column'] + 1}" for c in cells[:3])
                reasons.append(f"{len(cells)} output(s) {why} ({where}{', …' if len(cells) > 3 else ''})")
        return "; ".join(reasons) or None

    def text_lines(self) -> list[str]:
        columns = self._columns()
        recorded_by = RECORDED_BY + (f" {self.results.version}" if self.results.version else "")
        lines = [f"{self.name}: {len(self._rows())} test(s) × {len(columns)} column(s), recorded by {recorded_by}"]
        for column in columns:
            lines.append(
                f"column {column['index'] + 1} {column['label']}: {column['passed']}/{column['cells']} passed"
                f" ({_percent(column['pass_rate'])}); {RECORDED_BY} recorded {column['recorded_passed']}/{column['cells']}"
            )
        by_test: dict[int, list[dict[str, Any]]] = {}
        for cell in self._cells:
            by_test.setdefault(cell["test"], []).append(cell)
        for test, cells in by_test.items():
            shown = " | ".join(f"{c['result']}{'≠' if c['differs'] else ''}" for c in cells)
            lines.append(f"test {test}: {shown}")
        for cell in self._cells:
            if cell["result"] != PASS or cell["differs"]:
                score = "" if cell["score"] is None else f" score {cell['score']:.4g}"
                lines.append(
                    f"test {cell['test']} column {cell['column'] + 1}: {cell['result']}{score} — {cell['reason']}"
                )
                if cell["differs"]:
                    theirs = cell["recorded"]
                    lines.append(f"  differs from {RECORDED_BY}'s recorded {theirs['result']}: {theirs['reason']}")
        lines.append(f"differences from {recorded_by}'s verdicts: {sum(c['differs'] for c in self._cells)}")
        lines.extend(f"note: {note}" for note in self.notes)
        lines.append(usage_line(self.model, self.usage))
        return lines


def _comparison_unit(cell: dict[str, Any], compared: dict[str, Any], group: str, path: tuple[Any, ...]) -> Unit:
    """A row's select-best or max-score as the faces show it, beside promptfoo's recorded verdict on it."""
    passed = compared["passed"]
    if passed is None:
        outcome, word = (Outcome.ERROR, ERROR) if compared.get("error") else (Outcome.NOT_RUN, INCOMPLETE)
    else:
        outcome, word = (Outcome.PASS, PASS) if passed else (Outcome.FAIL, FAIL)
    theirs = compared.get("recorded", {}).get("passed")
    extra = (
        ("test", cell["test"]),
        ("column", cell["column"] + 1),
        (RECORDED_BY, {True: PASS, False: FAIL}.get(theirs, "")),
    )
    title = f"test {cell['test']}: {compared['type']}"
    return Unit(title, outcome, word, group, compared["reason"], path=path, score=compared["score"], cells=extra)


def _word(passed: bool | None, own: str, compared: list[Compared]) -> str:
    """The row's result once its comparisons are merged: decided, else ERROR when a judge call failed (its own or a
    comparison's), else INCOMPLETE."""
    if passed is not None:
        return PASS if passed else FAIL
    return ERROR if own == ERROR or any(c.error for c in compared) else INCOMPLETE


def _compared_json(compared: Compared, recorded: Recorded) -> dict[str, Any]:
    """A comparison's result beside the one promptfoo recorded for the row (``differs`` when both decided)."""
    data = compared.to_json()
    theirs = next((c for c in recorded.components if c.type == compared.type), None)
    if theirs is not None:
        data["recorded"] = {"passed": theirs.passed, "score": theirs.score, "reason": theirs.reason}
        data["differs"] = compared.passed is not None and theirs.passed is not None and compared.passed != theirs.passed
    return data


def _column_position(columns: list[dict[str, Any]], index: int) -> int:
    return next(i for i, c in enumerate(columns) if c["index"] == index)


def _var_pairs(values: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple((k, v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)) for k, v in values.items())


def _percent(rate: float | None) -> str:
    return "n/a" if rate is None else f"{rate * 100:.0f} %"


def _recorded_json(recorded: Recorded) -> dict[str, Any]:
    """promptfoo's verdict on a row, in the words a cell shows."""
    word = ERROR if recorded.error else {True: PASS, False: FAIL}.get(recorded.passed, INCOMPLETE)  # type: ignore[arg-type]
    return {"result": word, "passed": recorded.passed, "score": recorded.score, "reason": recorded.reason}


def _align(test: dict[str, Any], recorded: Recorded, report: GradeReport) -> None:
    """Each assertion's recorded result beside its own (``recorded`` in the test's ``assertions``, ``differs`` when
    both decided and disagree), when promptfoo's ``componentResults`` run in the same order (an assert-set's
    children after it, the selectors left out)."""
    theirs = [c for c in recorded.components if c.type not in SELECTORS]
    entries = test.get("assertions", [])
    if len(theirs) != len(entries) or any(c.type != e["type"] for c, e in zip(theirs, entries)):
        return
    for entry, component in zip(entries, theirs):
        if "set" in entry:
            ours = entry["set"]["passed"]
        else:
            verdict = report.verdicts[entry["verdict"]]
            ours = verdict.passed if verdict.outcome in (Outcome.PASS, Outcome.FAIL) else None
        differs = ours is not None and component.passed is not None and ours != component.passed
        entry["recorded"] = {
            "passed": component.passed,
            "score": component.score,
            "reason": component.reason,
            "differs": differs,
        }


def _component_words(report: GradeReport) -> dict[int, str]:
    """Verdict index → promptfoo's recorded PASS / FAIL for that assertion (where aligned)."""
    found = {}
    for test in report.tests:
        for entry in test.get("assertions", []):
            if isinstance(entry.get("verdict"), int) and "recorded" in entry:
                found[entry["verdict"]] = {True: PASS, False: FAIL}.get(entry["recorded"]["passed"], "")
    return found
