"""Any grading result's JSON as flat rows: one per criterion, assertion, grader or dataset label.

The JUnit and CSV outputs (``grading/exports.py``) are both written from these rows, so they
say the same thing. Rows are read from ``result.to_json()`` (the shapes of
schemas/rubric-grade-output.schema.json), never from a format's own objects: whatever a
format grades, its result already has one of those shapes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

PASS, FAIL, ERROR, SKIPPED = "pass", "fail", "error", "skipped"
_FAILING = {"UNMET", "FAIL"}
_NOT_JUDGED = {"SKIPPED", "CANNOT_ASSESS", "NOT_RUN"}


@dataclass(frozen=True)
class Row:
    """One graded thing: ``suite`` groups rows (a response, an output, an example, a dataset item)."""

    suite: str
    name: str
    outcome: str  # pass | fail | error | skipped
    verdict: str = ""
    expected: str = ""  # a dataset item's human label
    score: float | None = None
    weight: float | None = None
    reason: str = ""
    error: str = ""
    cached: bool = False


def shape(data: Any) -> str:
    """Which request kind's JSON ``data`` is: response | outputs | examples | dataset | rescore."""
    if isinstance(data, list):
        return "examples"
    if "outputs" in data:
        return "outputs"
    if "items" in data and "agreement" in data:
        return "dataset"
    if "cannot_assess" in data:
        return "rescore"
    return "response"


def verdict_outcome(verdict: dict[str, Any]) -> str:
    """Whether one verdict passed: a judge failure is an error (never a pass); a penalty that applies fails."""
    if verdict.get("error") or verdict["verdict"] == "ERROR":
        return ERROR
    if verdict["verdict"] in _NOT_JUDGED:
        return SKIPPED
    if verdict.get("passed") is not None:
        return PASS if verdict["passed"] else FAIL
    weight = verdict.get("weight")
    if verdict["verdict"] in ("MET", "UNMET") and weight is not None and weight < 0:
        return FAIL if verdict["verdict"] == "MET" else PASS  # a penalty: MET is the loss
    return FAIL if verdict["verdict"] in _FAILING else PASS


def rows(data: Any) -> list[Row]:
    return list(_rows(data, shape(data)))


def _rows(data: Any, kind: str) -> Iterator[Row]:
    if kind == "response":
        yield from _report_rows(data, _report_suite(data, "response"))
    elif kind == "outputs":
        for position, output in enumerate(data["outputs"]):
            yield from _report_rows(output, _report_suite(output, f"output {position + 1}"))
        for method in ("max_score", "select_best"):
            for selection in data.get(method, []):
                yield _selection_row(method.replace("_", "-"), selection)
    elif kind == "examples":
        for example in data:
            report = example["report"]
            if report is not None:
                yield from _report_rows(report, example["name"])
            if example["met"] is not None:
                outcome = PASS if example["met"] else FAIL
                yield Row(example["name"], "expectations", outcome, reason="; ".join(example["failures"]))
    elif kind == "dataset":
        yield from _dataset_rows(data)
    else:
        outcome = ERROR if data.get("error") else PASS
        yield Row("rescore", "score", outcome, score=data["score"], error=data.get("error") or "")


def _report_suite(report: dict[str, Any], default: str) -> str:
    return f"{default} (test {report['test']})" if "test" in report else default


def _report_rows(report: dict[str, Any], suite: str) -> Iterator[Row]:
    if not report["verdicts"] and report.get("error"):
        yield Row(suite, "score", ERROR, error=report["error"])
    for v in report["verdicts"]:
        yield Row(
            suite,
            v["name"],
            verdict_outcome(v),
            verdict=v["verdict"],
            score=v.get("score"),
            weight=v.get("weight"),
            reason=v.get("reason") or "",
            error=v.get("error") or "",
            cached=bool(v.get("cached")),
        )


def _selection_row(method: str, selection: dict[str, Any]) -> Row:
    winner = selection.get("winner")
    reason = selection.get("reason") or ("no winner" if winner is None else f"winner: output {winner + 1}")
    outcome = ERROR if selection.get("error") else (PASS if winner is not None else FAIL)
    return Row(
        f"test {selection['test']}",
        method,
        outcome,
        verdict="" if winner is None else f"output {winner + 1}",
        reason=reason,
        error=selection.get("error") or "",
        cached=bool(selection.get("cached")),
    )


def same_label(a: Any, b: Any) -> bool:
    """A judged verdict and a human label name the same category (labels are matched case-blind)."""
    return isinstance(a, str) and isinstance(b, str) and a.strip().casefold() == b.strip().casefold()


def _dataset_rows(data: dict[str, Any]) -> Iterator[Row]:
    names = {c["index"]: c["name"] for c in data["agreement"]}
    for item in data["items"]:
        suite = f"item {item['index'] + 1}" + (f": {item['description']}" if item.get("description") else "")
        truth = item["ground_truth"] or []
        reasons = item.get("reasons") or []
        if item.get("error") and not item["verdicts"]:
            yield Row(suite, "score", ERROR, error=item["error"])
        for position, verdict in enumerate(item["verdicts"]):
            wanted = truth[position] if position < len(truth) else None
            if verdict == "ERROR":
                outcome = ERROR
            elif not isinstance(wanted, str):
                outcome = SKIPPED
            else:
                outcome = PASS if same_label(verdict, wanted) else FAIL
            reason = reasons[position] if position < len(reasons) else ""
            yield Row(
                suite,
                names.get(position) or f"criterion {position + 1}",
                outcome,
                verdict=verdict,
                expected=wanted if isinstance(wanted, str) else "",
                reason="" if outcome == ERROR else reason,
                error=(reason or item["error"] or "judgment failed") if outcome == ERROR else "",
            )
