"""Output formats for ``rubric-lint``: text, json, sarif, github (here), junit, gitlab (their own modules).

Every message, fix title and fix text passes through ``redaction.redact_report`` on its way
out: a fix may carry a key the user wrote into the file it edits, a report never prints it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from rubric_lsp.diagnostics import Diagnostic, Severity
from rubric_lsp.lint import LintResult
from rubric_lsp.redaction import report_redactor
from rubric_lsp.reporters.base import Reporter
from rubric_lsp.reporters.gitlab import GitlabReporter
from rubric_lsp.reporters.junit import JunitReporter
from rubric_lsp.rules.registry import registered_rule as get_rule

FORMATS = ("text", "json", "sarif", "github", "junit", "gitlab")


def diagnostic_json(result: LintResult, diag: Diagnostic, redact: Callable[[str], str] | None = None) -> dict:
    redact = redact or report_redactor().report
    return {
        "path": diag.path or result.path or "-",
        "code": diag.code,
        "severity": diag.severity.label,
        "message": redact(diag.message),
        "range": diag.range.to_json(),
        "fix": _redacted(diag.fix.to_json(result.document.lines), redact) if diag.fix else None,
    }


def _redacted(value: Any, redact: Callable[[str], str]) -> Any:
    """``value`` (JSON data) with every string passed through ``redact``."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _redacted(v, redact) for k, v in value.items()}
    if isinstance(value, list):
        return [_redacted(v, redact) for v in value]
    return value


class TextReporter(Reporter):
    def __init__(self, out: TextIO, *, show_fixes: bool = True, summary: bool = True) -> None:
        super().__init__(out)
        self.show_fixes = show_fixes
        self.summary = summary

    def finding(self, result: LintResult, diag: Diagnostic) -> None:
        path = diag.path or result.path or "-"
        self.out.write(
            f"{path}:{diag.range.start.line + 1}:{diag.range.start.character + 1}: "
            f"{diag.code} {diag.severity.label} {self.redact(diag.message)}"
            + (" [*]" if self.show_fixes and diag.fix and diag.fix.safe else "")
            + "\n"
        )

    def close(self, *, skipped: int = 0, fixed: int = 0) -> None:
        if not self.summary:
            return
        counts = self.counts
        total = sum(counts.values())
        parts = [
            f"{counts[Severity.ERROR]} error(s)",
            f"{counts[Severity.WARNING]} warning(s)",
            f"{counts[Severity.INFO]} info",
        ]
        line = f"Found {total} problem(s) in {self.files_with} of {self.checked} file(s) checked: " + ", ".join(parts)
        if skipped:
            line += f"; {skipped} file(s) of no known kind skipped"
        self.out.write(line + ".\n")
        if self.fixable:
            self.out.write(f"[*] {self.fixable} fixable with --fix.\n")
        if fixed:
            self.out.write(f"Fixed {fixed} problem(s).\n")


class JsonReporter(Reporter):
    """A JSON array, one finding per line: written as found, and json's C encoder (indent= is pure Python)."""

    def __init__(self, out: TextIO) -> None:
        super().__init__(out)
        self.first = True

    def finding(self, result: LintResult, diag: Diagnostic) -> None:
        self.out.write(
            ("[\n  " if self.first else ",\n  ")
            + json.dumps(diagnostic_json(result, diag, self.redact), ensure_ascii=False)
        )
        self.first = False

    def close(self, *, skipped: int = 0, fixed: int = 0) -> None:
        self.out.write("[]\n" if self.first else "\n]\n")


def _write_all(reporter: Reporter, results: Iterable[LintResult], **close) -> None:
    for result in results:
        reporter.add(result)
    reporter.close(**close)


def write_text(
    results: list[LintResult],
    out: TextIO,
    *,
    skipped: list[str],
    show_fixes: bool = True,
    fixed: int = 0,
    summary: bool = True,
) -> None:
    _write_all(TextReporter(out, show_fixes=show_fixes, summary=summary), results, skipped=len(skipped), fixed=fixed)


def write_json(results: list[LintResult], out: TextIO) -> None:
    _write_all(JsonReporter(out), results)


def escape_github_data(text: str) -> str:
    """Escape a workflow command's message (the part after ``::``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_github_property(text: str) -> str:
    """Escape a workflow command property value (``file=``, ``title=``)."""
    return escape_github_data(text).replace(":", "%3A").replace(",", "%2C")


GITHUB_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


class GithubReporter(Reporter):
    """GitHub Actions workflow commands: one annotation per finding."""

    def finding(self, result: LintResult, d: Diagnostic) -> None:
        path = escape_github_property(d.path or result.path or "-")
        title = escape_github_property(f"{d.code} {_rule_name(d.code)}".strip())
        self.out.write(
            f"::{GITHUB_LEVEL[d.severity]} file={path},line={d.range.start.line + 1},"
            f"col={d.range.start.character + 1},endLine={d.range.end.line + 1},"
            f"endColumn={d.range.end.character + 1},title={title}::"
            f"{escape_github_data(d.code + ' ' + self.redact(d.message))}\n"
        )


def write_github(results: list[LintResult], out: TextIO) -> None:
    _write_all(GithubReporter(out), results)


def _rule_name(code: str) -> str:
    found = get_rule(code)
    return found.name if found else ""


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


def write_sarif(results: list[LintResult], out: TextIO, version: str) -> None:
    _write_all(SarifReporter(out, version), results)


def make_reporter(fmt: str, out: TextIO, version: str, *, quiet: bool = False) -> Reporter:
    if fmt == "junit":
        return JunitReporter(out)
    if fmt == "gitlab":
        return GitlabReporter(out)
    if fmt == "json":
        return JsonReporter(out)
    if fmt == "sarif":
        return SarifReporter(out, version)
    if fmt == "github":
        return GithubReporter(out)
    return TextReporter(out, summary=not quiet)
