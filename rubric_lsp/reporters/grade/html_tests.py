"""The HTML report's view of a result's numbered tests (``tests`` in its JSON): one section per test.

Each test shows what its JSON says — number, description, vars, the result the format's aggregate
decided (``passed``), its score and threshold — and each of its assertions joined with its verdict
(``assertions[].verdict`` is the verdict's index). Nothing is recomputed: the one thing added is
why an undecided test is undecided, read from its verdicts' outcomes (the units the format gave them,
``result.Unit``): a failed judge call (ERROR) or what was not run (INCOMPLETE; the text output's UNDECIDED).
"""

from __future__ import annotations

import json
from typing import Any

from rubric_lsp.engine.result import Outcome, Unit

RESULTS = ("PASS", "FAIL", "ERROR", "INCOMPLETE")
# The page's colour of each outcome: a loss as a failure (its share shows below 0), an abstention as a unit not run.
OUTCOME_CLASS = {
    Outcome.PASS: "pass",
    Outcome.FAIL: "fail",
    Outcome.LOSS: "fail",
    Outcome.ERROR: "error",
    Outcome.ABSTAIN: "skip",
    Outcome.NOT_RUN: "skip",
}
_RESULT_CLASS = {"PASS": "pass", "FAIL": "fail", "ERROR": "error", "INCOMPLETE": "skip"}


def tests_view(report: dict[str, Any], defaults: dict[str, Any], units: list[Unit]) -> dict[str, Any] | None:
    """The sections of ``report``'s tests and how many ended each way; None when it has no tests.

    ``units``: the report's verdicts as units, in the same order."""
    tests = report.get("tests")
    if not tests:
        return None
    verdicts = report["verdicts"]
    sections = [_section(test, verdicts, units, defaults) for test in tests]
    counts = {label: sum(s["result"] == label for s in sections) for label in RESULTS}
    return {"sections": sections, "counts": counts, "total": len(sections)}


def _section(
    test: dict[str, Any], verdicts: list[dict[str, Any]], units: list[Unit], defaults: dict[str, Any]
) -> dict[str, Any]:
    rows = [
        _set_row(entry, defaults)
        if "set" in entry
        else _row(entry, verdicts[entry["verdict"]], units[entry["verdict"]], defaults)
        for entry in test.get("assertions", [])
        if "set" in entry or isinstance(entry.get("verdict"), int)
    ]
    word = test.get("result")
    result = word if isinstance(word, str) and word in RESULTS else _result(test["passed"], rows)
    variables = [(name, _text(value)) for name, value in (test.get("vars") or {}).items()]
    searched = [str(test["test"]), test.get("description") or "", result, test["reason"]]
    searched += [f"{name} {value}" for name, value in variables]
    searched += [f"{r['type']} {r['value_text']} {r['verdict']} {r['reason']} {r['error'] or ''}" for r in rows]
    searched += [str(test.get("result") or "")]
    return {
        **test,
        "result": result,
        "result_class": _RESULT_CLASS[result],
        "variables": variables,
        "rows": rows,
        "columns": {
            "score": any(r["score"] is not None for r in rows),
            "metric": any(r.get("metric") for r in rows),
            "recorded": any("recorded" in r for r in rows),
        },
        "search": " ".join(searched).casefold(),
    }


def _result(passed: bool | None, rows: list[dict[str, Any]]) -> str:
    """The aggregate's pass/fail; undecided is ERROR when a judge call failed, else INCOMPLETE (not run here)."""
    if passed is not None:
        return "PASS" if passed else "FAIL"
    return "ERROR" if any(r["outcome"] is Outcome.ERROR for r in rows) else "INCOMPLETE"


def _row(entry: dict[str, Any], verdict: dict[str, Any], unit: Unit, defaults: dict[str, Any]) -> dict[str, Any]:
    value = entry.get("value")
    return {
        **defaults,
        **verdict,
        **entry,
        "verdict": verdict["verdict"],  # the entry's ``verdict`` is the index; the row shows the verdict itself
        "index": entry["verdict"],
        "outcome": unit.outcome,
        "value_text": "" if value is None else _text(value),
        "sent": [_messages(call) for call in entry.get("sent", [])],
    }


def _set_row(entry: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """An assert-set's own result (its children's aggregate against its threshold), as a row of its own."""
    own = entry["set"]
    word = {True: "PASS", False: "FAIL"}.get(own["passed"], "INCOMPLETE")
    outcome = {True: Outcome.PASS, False: Outcome.FAIL}.get(own["passed"], Outcome.NOT_RUN)
    return {
        **defaults,
        **entry,
        "verdict": word,
        "index": None,
        "outcome": outcome,
        "score": own["score"],
        "threshold": own.get("threshold"),
        "reason": own["reason"],
        "value_text": "",
        "sent": [],
        "is_set": True,
    }


def _messages(call: list[Any]) -> list[tuple[str, str]]:
    """(role, text) of each message one judge call sent."""
    shown = []
    for message in call:
        content = message.get("content") if isinstance(message, dict) else message
        role = message.get("role", "") if isinstance(message, dict) else ""
        shown.append((str(role), content if isinstance(content, str) else _text(content)))
    return shown


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=None)
