"""``rubric grade --format junit``: a grading result for CI, written from ``rows.py``'s rows of the
result's units (``engine/result.py``). One ``<testsuite>`` per response / output / example / dataset
item, one ``<testcase>`` per unit in it (valid against Jenkins' junit-10.xsd, as ``rubric-lint
--format junit``); a failed judgment is a ``<failure type="ERROR">`` (that schema has no ``<error>``
in a testcase), never a pass; an abstention or a unit that did not run is ``<skipped>``. Every text
passes through the report redactor: no API key reaches the file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rubric_lsp.redaction import report_redactor
from rubric_lsp.reporters.grade.rows import ERROR, FAIL, SKIPPED, Row, rows
from rubric_lsp.reporters.xml import xml_attribute, xml_text


def junit(result: Any, properties: Sequence[tuple[str, str]] = ()) -> str:
    """``properties``: the judge card's rows (``calibration.card.card_rows``), in every suite's ``<properties>``."""
    redact = report_redactor().report
    suites: dict[str, list[Row]] = {}
    for row in rows(result):
        suites.setdefault(row.suite, []).append(row)
    total = sum(len(r) for r in suites.values())
    failures = sum(r.outcome in (FAIL, ERROR) for group in suites.values() for r in group)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuites name="rubric-grade" tests="{total}" failures="{failures}" errors="0">',
    ]
    for name, group in suites.items():
        out.append(
            f'  <testsuite name={xml_attribute(redact(name))} tests="{len(group)}"'
            f' failures="{sum(r.outcome in (FAIL, ERROR) for r in group)}" errors="0"'
            f' skipped="{sum(r.outcome == SKIPPED for r in group)}">'
        )
        out.extend(_properties(properties, redact))
        out.extend(_testcase(row, redact) for row in group)
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


def _testcase(row: Row, redact: Callable[[str], str]) -> str:
    head = f"    <testcase name={xml_attribute(redact(row.name))} classname={xml_attribute(redact(row.suite))}"
    detail = redact(_detail(row))
    if row.outcome == FAIL:
        message = redact(row.reason or row.verdict)
        body = f"<failure message={xml_attribute(message)} type={xml_attribute(row.verdict or 'FAIL')}>"
        return f"{head}>\n      {body}{xml_text(detail)}</failure>\n    </testcase>"
    if row.outcome == ERROR:  # junit-10.xsd has no <error> in a testcase: a failure typed ERROR
        body = f'<failure message={xml_attribute(redact(row.error))} type="ERROR">'
        return f"{head}>\n      {body}{xml_text(detail)}</failure>\n    </testcase>"
    if row.outcome == SKIPPED:
        return f"{head}>\n      <skipped message={xml_attribute(redact(row.reason or row.verdict))} />\n    </testcase>"
    if detail:
        return f"{head}>\n      <system-out>{xml_text(detail)}</system-out>\n    </testcase>"
    return f"{head} />"


def _detail(row: Row) -> str:
    parts = [f"verdict: {row.verdict}" if row.verdict else ""]
    if row.expected:
        parts.append(f"expected: {row.expected}")
    if row.score is not None:
        parts.append(f"score: {row.score:.4g}")
    if row.reason:
        parts.append(f"reason: {row.reason}")
    if row.error:
        parts.append(f"error: {row.error}")
    return "\n".join(p for p in parts if p)


# A cell a spreadsheet would read as a formula (OWASP, CSV injection): =HYPERLINK(…) in a judge's reason.
