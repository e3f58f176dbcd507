"""The promptfoo config's grader (``Format.grader``): one response per test, or several outputs compared."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rubric_lsp.document import Document
from rubric_lsp.engine.report import GradeReport
from rubric_lsp.engine.request import GradeRequest, GradeResult, RequestKind
from rubric_lsp.engine.result import Case, Outcome, Unit
from rubric_lsp.engine.runner import Grader, Grading, GradingError, UnsupportedRequest
from rubric_lsp.formats.promptfoo.grading.calibration import graded_units, link_key
from rubric_lsp.formats.promptfoo.grading.labels import grade_labels
from rubric_lsp.formats.promptfoo.grading.outputs import graded_outputs
from rubric_lsp.formats.promptfoo.grading.response import grade_promptfoo
from rubric_lsp.formats.promptfoo.grading.results_grid import grade_results
from rubric_lsp.formats.promptfoo.grading.swap import swap_lines
from rubric_lsp.formats.promptfoo.options import PromptfooOptions
from rubric_lsp.formats.promptfoo.reading import read_config


async def grade(doc: Document, request: GradeRequest, grading: Grading) -> GradeResult:
    if request.kind is RequestKind.RESPONSE:
        if PromptfooOptions.of(request.options).swap:
            raise GradingError(
                "--swap reverses the outputs select-best compares: give at least 2 (--response once per output)."
            )
        return await grade_promptfoo(
            doc,
            request.response,
            request.query,
            grading.settings,
            test_index=request.test_index,
            on_progress=grading.tick,
        )
    if request.kind is RequestKind.OUTPUTS:
        result, reports = await graded_outputs(
            doc,
            list(request.responses),
            request.query,
            grading.settings,
            test_index=request.test_index,
            on_progress=grading.tick,
            swap=PromptfooOptions.of(request.options).swap,
        )
        return OutputsResult(result, reports, _unit_ids(doc, request.test_index))
    if request.kind is RequestKind.LABELS:
        return await grade_labels(doc, request.labels, grading)
    if request.kind is RequestKind.RESULTS:
        return await grade_results(doc, request, grading)
    raise UnsupportedRequest(
        request.kind, "a promptfoo config grades one response, several outputs compared, or a results file's outputs"
    )


@dataclass
class OutputsResult:
    """Several outputs of one prompt: each graded, then each test's max-score and select-best."""

    data: dict[str, Any]
    reports: list[GradeReport] = field(default_factory=list)  # each output's, as ``data["outputs"]`` holds them
    unit_ids: dict[tuple[int, int, int], str] = field(default_factory=dict)  # link_key → calibration unit
    kind = "outputs"

    def pass_counts(self) -> dict[str, tuple[int, int]]:
        """Each model-graded assertion's (calibration unit's) passes over the outputs, and how many were judged
        (a failed or not-run verdict is left out): what ``rubric grade`` corrects for the judge's measured
        sensitivity and specificity."""
        counts = dict.fromkeys(self.unit_ids.values(), (0, 0))
        for report in self.reports:
            for link, verdict in zip(report.links, report.verdicts):
                unit = self.unit_ids.get(link_key(*link))
                if unit is not None and not verdict.error and verdict.passed is not None:
                    passed, judged = counts[unit]
                    counts[unit] = (passed + bool(verdict.passed), judged + 1)
        return counts

    def units(self) -> list[Unit]:
        """Each output's verdicts, then each test's max-score and select-best (a group of their own)."""
        found = [u for i, r in enumerate(self.reports) for u in r.units(f"output {i + 1}", ("outputs", i))]
        for method, key in (("max-score", "max_score"), ("select-best", "select_best")):
            found += [_selection_unit(method, (key, i), s) for i, s in enumerate(self.data.get(key, []))]
        return found

    def cases(self) -> list[Case]:
        """Each output's tests, then each test's max-score and select-best (FAIL when it chose none)."""
        found = [c for i, r in enumerate(self.reports) for c in r.cases(f"output {i + 1}", ("outputs", i))]
        units = self.units()
        for unit in units:
            if unit.path[:1] != ("outputs",):
                word = {Outcome.PASS: "PASS", Outcome.FAIL: "FAIL", Outcome.ERROR: "ERROR"}.get(
                    unit.outcome, "INCOMPLETE"
                )
                found.append(
                    Case(
                        f"{unit.group}: {unit.title}",
                        "comparisons",
                        unit.outcome,
                        word,
                        None,
                        unit.reason or unit.error,
                        (unit,),
                    )
                )
        return found

    @property
    def failed(self) -> bool:
        """An output failed its test (as that output's own grading), or a selection chose no winner.

        promptfoo also fails a comparison's losers (evaluator's mergeSelectBestGradingResult /
        mergeMaxScoreGradingResult: ``success = pass && gradingResult.pass``); here a loser is not a failure (README)."""
        tests = [t for o in self.data["outputs"] for t in o.get("tests", [])]
        chose_none = any(
            s.get("winner") is None and "error" not in s and "undecided" not in s for s in self.data["max_score"]
        )
        return any(t["passed"] is False for t in tests) or chose_none

    @property
    def incomplete(self) -> str | None:
        reasons = [
            f"output {i + 1}: {o['incomplete']}" for i, o in enumerate(self.data["outputs"]) if o.get("incomplete")
        ]
        reasons += [
            f"test {s['test']} {name}: {s.get('error') or s['undecided']}"
            for name, key in (("max-score", "max_score"), ("select-best", "select_best"))
            for s in self.data.get(key, [])
            if "error" in s or "undecided" in s
        ]
        return "; ".join(reasons) or None

    def to_json(self) -> dict[str, Any]:
        incomplete = self.incomplete
        return self.data if incomplete is None else {**self.data, "incomplete": incomplete}

    def text_lines(self) -> list[str]:
        lines = []
        for position, output in enumerate(self.data["outputs"]):
            verdicts = ", ".join(f"{v['name']} {v['verdict']}" for v in output["verdicts"])
            lines.append(f"output {position + 1}: {verdicts}")
        for selection in self.data["max_score"]:
            lines.extend(_max_score_lines(selection))
        for comparison in self.data.get("select_best", []):
            lines.extend(_select_best_lines(comparison))
        if "swap" in self.data:
            lines.extend(swap_lines(self.data["swap"]))
        return lines


def _unit_ids(doc: Document, test_index: int | None) -> dict[tuple[int, int, int], str]:
    """Each graded test's model-graded assertions, by where a grading's verdict links them, to their unit ids."""
    if doc.root is None:
        return {}
    view = read_config(doc.root, doc.path, doc)
    numbers = None if test_index is None else [test_index + 1]
    return {link_key(u.test, u.assertion.node): u.id for u in graded_units(view, numbers)}


def _selection_unit(method: str, path: tuple[Any, ...], selection: dict[str, Any]) -> Unit:
    """A test's comparison of the outputs: it passes when it chose a winner."""
    winner = selection.get("winner")
    reason = (
        selection.get("reason")
        or selection.get("undecided")
        or ("no winner" if winner is None else f"winner: output {winner + 1}")
    )
    if selection.get("error"):
        outcome = Outcome.ERROR
    elif selection.get("undecided"):
        outcome = Outcome.NOT_RUN
    else:
        outcome = Outcome.PASS if winner is not None else Outcome.FAIL
    scores = tuple(selection.get("scores") or ()) if method == "max-score" else ()
    return Unit(
        method,
        outcome,
        "" if winner is None else f"output {winner + 1}",
        f"test {selection['test']}",
        reason,
        selection.get("error") or "",
        path=path,
        scores=scores,
        choice=winner,
        cached=bool(selection.get("cached")),
    )


def _max_score_lines(selection: dict[str, Any]) -> list[str]:
    if "error" in selection:
        return [f"test {selection['test']} max-score: {selection['error']}"]
    ranges = selection.get("ranges") or [[s, s] for s in selection["scores"]]
    scores = ", ".join(_range_text(s, r) for s, r in zip(selection["scores"], ranges))
    winner = (
        f"undecided: {selection['undecided']}"
        if "undecided" in selection
        else "none"
        if selection["winner"] is None
        else f"output {selection['winner'] + 1}"
    )
    lines = [f"test {selection['test']} max-score ({selection['method']}): scores {scores} → {winner}"]
    if selection.get("left_out"):
        lines.append(f"  not known here: {', '.join(selection['left_out'])}")
    return lines


def _range_text(score: float | None, bounds: list[float | None]) -> str:
    """A max-score as the text output words it: ``0.4``, ``0.2 to 0.6`` or ``not known``."""
    if score is not None:
        return f"{score:.3g}"
    low, high = bounds
    return "not known" if low is None or high is None else f"{low:.3g} to {high:.3g}"


def _select_best_lines(comparison: dict[str, Any]) -> list[str]:
    lines = []
    if "error" in comparison:
        lines.append(f"test {comparison['test']} select-best: no winner, every output fails — {comparison['error']}")
    else:
        flags = [flag for flag in ("ambiguous", "cached") if comparison.get(flag)]
        names = {"ambiguous": "ambiguous reply", "cached": "cached"}
        extra = f" [{', '.join(names[f] for f in flags)}]" if flags else ""
        lines.append(f"test {comparison['test']} select-best: → output {comparison['winner'] + 1}{extra}")
        if comparison["reason"]:
            lines.append(f"  {comparison['reason']}")
        if "promptfoo_reads" in comparison:
            theirs = comparison["promptfoo_reads"]
            outcome = (
                "every output fails"
                if theirs is None or theirs >= len(comparison["passed"])
                else f"output {theirs + 1} wins"
            )
            reading = "no number" if theirs is None else f"index {theirs}"
            lines.append(f"  promptfoo reads this reply as {reading}: {outcome}")
    if comparison.get("note"):
        lines.append(f"  note: {comparison['note']}")
    return lines


# What Format.grader names: annotated, so that mypy checks ``grade`` against the engine's protocol.
GRADER: Grader = grade
