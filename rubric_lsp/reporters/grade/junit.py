"""``rubric grade --format junit``: a grading result for CI, one ``<testcase>`` per *case* — what the result
passes or fails by (``engine/result.py``: a numbered test, a response, an example, a results file's row,
a dataset item) — so its failures are the failed cases and never contradict the exit code: a test its
threshold rescues passes though one of its assertions failed; a dataset's disagreement with a label is a
measurement (exit 0), not a failure. The units of a case (criteria, assertions, labels) are listed in its
body, each with the verdict its format gave it. Valid against Jenkins' junit-10.xsd (as ``rubric-lint
--format junit``); a case undecided because a judgment failed is a ``<failure type="ERROR">`` (that schema
has no ``<error>`` in a testcase), never a pass; one that rests on what is not run here is ``<skipped>``.
Every text passes through the report redactor: no API key reaches the file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rubric_lsp.engine.result import Case, Outcome, Unit, cases_of
from rubric_lsp.redaction import report_redactor
from rubric_lsp.reporters.xml import xml_attribute, xml_text

_FAILED = (Outcome.FAIL, Outcome.LOSS, Outcome.ERROR)
_SKIPPED = (Outcome.ABSTAIN, Outcome.NOT_RUN)


def junit(result: Any, properties: Sequence[tuple[str, str]] = ()) -> str:
    """``properties``: the judge card's rows (``calibration.card.card_rows``), in every suite's ``<properties>``."""
    redact = report_redactor().report
    suites: dict[str, list[Case]] = {}
    for case in cases_of(result):
        suites.setdefault(case.suite, []).append(case)
    total = sum(len(group) for group in suites.values())
    failures = sum(c.outcome in _FAILED for group in suites.values() for c in group)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuites name="rubric-grade" tests="{total}" failures="{failures}" errors="0">',
    ]
    for name, group in suites.items():
        out.append(
            f'  <testsuite name={xml_attribute(redact(name))} tests="{len(group)}"'
            f' failures="{sum(c.outcome in _FAILED for c in group)}" errors="0"'
            f' skipped="{sum(c.outcome in _SKIPPED for c in group)}">'
        )
        out.extend(_properties(properties, redact))
        out.extend(_testcase(case, redact) for case in group)
        out.append("  </testsuite>")
    out.append("</testsuites>")
    return "\n".join(out) + "\n"


def _properties(properties: Sequence[tuple[str, str]], redact: Callable[[str], str]) -> list[str]:
    if not properties:
        return []
    found = [
        f"      <property name={xml_attribute(redact(name))} value={xml_attribute(redact(value))} />"
        for name, value in properties
    ]
    return ["    <properties>", *found, "    </properties>"]


def _testcase(case: Case, redact: Callable[[str], str]) -> str:
    head = f"    <testcase name={xml_attribute(redact(case.name))} classname={xml_attribute(redact(case.suite))}"
    detail = xml_text(redact(_detail(case)))
    if case.outcome in _FAILED:
        kind = "ERROR" if case.outcome is Outcome.ERROR else (case.verdict or "FAIL")
        message = redact(case.reason or _first_reason(case) or kind)
        return f"{head}>\n      <failure message={xml_attribute(message)} type={xml_attribute(kind)}>{detail}</failure>\n    </testcase>"
    if case.outcome in _SKIPPED:
        message = redact(case.reason or case.verdict or "not run")
        body = f"<skipped message={xml_attribute(message)} />"
        return f"{head}>\n      {body}\n      <system-out>{detail}</system-out>\n    </testcase>"
    if detail:
        return f"{head}>\n      <system-out>{detail}</system-out>\n    </testcase>"
    return f"{head} />"


def _first_reason(case: Case) -> str:
    return next((u.error or u.reason for u in case.units if u.outcome in _FAILED and (u.error or u.reason)), "")


def _detail(case: Case) -> str:
    """The case's result, then each of its units: verdict, name, score, reason or error."""
    head = [f"result: {case.verdict}" if case.verdict else ""]
    if case.score is not None:
        head.append(f"score: {case.score:.4g}")
    if case.reason:
        head.append(f"reason: {case.reason}")
    return "\n".join([p for p in head if p] + [_unit_line(u) for u in case.units])


def _unit_line(unit: Unit) -> str:
    """``title: VERDICT (outcome) · expected … · score … — reason``: the format's word and what it means."""
    parts = [f"{unit.title}: {unit.verdict or unit.outcome.value} ({unit.outcome.value})"]
    if unit.expected:
        parts.append(f"expected {unit.expected}")
    if unit.score is not None:
        parts.append(f"score {unit.score:.4g}")
    text = unit.error or unit.reason
    return " · ".join(parts) + (f" — {text}" if text else "")
