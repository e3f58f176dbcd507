"""``rubric-lint --format sarif``: SARIF 2.1.0, for code-scanning dashboards."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TextIO

from rubric_lsp.diagnostics import Diagnostic, Severity
from rubric_lsp.lint import LintResult
from rubric_lsp.redaction import report_redactor
from rubric_lsp.reporters.lint.base import Reporter
from rubric_lsp.rules.registry import registered_rule as get_rule


def sarif_uri(path: str) -> str:
    """A SARIF artifact URI: relative paths stay relative (percent-encoded), absolute ones become file:// URIs."""
    from pathlib import PurePath, PureWindowsPath
    from urllib.parse import quote

    posix = PureWindowsPath(path).as_posix() if "\\" in path else path
    if PurePath(posix).is_absolute():
        return "file://" + quote(posix)
    return quote(posix)


SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def sarif_rule(code: str) -> dict:
    found = get_rule(code)
    descriptor = {
        "id": code,
        "name": found.name if found else code,
        "shortDescription": {"text": found.summary if found else code},
        "fullDescription": {"text": found.rationale if found else code},
        "defaultConfiguration": {"level": SARIF_LEVEL[found.severity] if found else "warning"},
    }
    if found:
        descriptor["helpUri"] = found.docs_url
        descriptor["help"] = {"text": found.summary, "markdown": found.markdown()}
    return descriptor


def sarif_result(
    result: LintResult, d: Diagnostic, rule_index: int, redact: Callable[[str], str] | None = None
) -> dict:
    redact = redact or report_redactor().report
    entry = {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": SARIF_LEVEL[d.severity],
        "message": {"text": redact(d.message)},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": sarif_uri(d.path or result.path or "-")},
                    "region": {
                        "startLine": d.range.start.line + 1,
                        "startColumn": d.range.start.character + 1,
                        "endLine": d.range.end.line + 1,
                        "endColumn": d.range.end.character + 1,
                    },
                }
            }
        ],
    }
    if d.fix:
        lines = result.document.lines
        entry["fixes"] = [
            {
                "description": {"text": redact(d.fix.title)},
                "artifactChanges": [
                    {
                        "artifactLocation": {"uri": sarif_uri(d.path or result.path or "-")},
                        "replacements": [
                            {
                                "deletedRegion": {
                                    "startLine": lines.position(e.span.start).line + 1,
                                    "startColumn": lines.position(e.span.start).character + 1,
                                    "endLine": lines.position(e.span.end).line + 1,
                                    "endColumn": lines.position(e.span.end).character + 1,
                                },
                                "insertedContent": {"text": redact(e.new_text)},
                            }
                            for e in d.fix.edits
                        ],
                    }
                ],
            }
        ]
    return entry


class SarifReporter(Reporter):
    """SARIF 2.1.0, streamed: the run's ``results`` array is written as findings come and its
    ``tool`` (the rules used, in first-use order, which ``ruleIndex`` counts) after it; JSON
    objects are unordered, so only the rule codes are kept to the end."""

    def __init__(self, out: TextIO, version: str) -> None:
        super().__init__(out)
        self.version = version
        self.rule_index: dict[str, int] = {}
        self.first = True

    def finding(self, result: LintResult, d: Diagnostic) -> None:
        if self.first:
            self.out.write(
                '{\n  "$schema": "https://json.schemastore.org/sarif-2.1.0.json",\n  "version": "2.1.0",\n'
                '  "runs": [\n    {\n      "results": [\n        '
            )
        else:
            self.out.write(",\n        ")
        self.first = False
        index = self.rule_index.setdefault(d.code, len(self.rule_index))
        self.out.write(json.dumps(sarif_result(result, d, index, self.redact), ensure_ascii=False))

    def close(self, *, skipped: int = 0, fixed: int = 0) -> None:
        if self.first:
            self.out.write(
                '{\n  "$schema": "https://json.schemastore.org/sarif-2.1.0.json",\n  "version": "2.1.0",\n'
                '  "runs": [\n    {\n      "results": ['
            )
        tool = {
            "driver": {
                "name": "rubric-lint",
                "version": self.version,
                "informationUri": "https://github.com/rubric-lsp/rubric-lsp",
                "rules": [sarif_rule(code) for code in self.rule_index],
            }
        }
        self.out.write(("]" if self.first else "\n      ]") + ',\n      "tool": ')
        self.out.write(json.dumps(tool, ensure_ascii=False))
        self.out.write("\n    }\n  ]\n}\n")
