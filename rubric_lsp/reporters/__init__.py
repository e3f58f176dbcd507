"""Output formats for ``rubric-lint``: text, json, sarif, github."""

from __future__ import annotations

import json
from typing import TextIO

from rubric_lsp.diagnostics import Diagnostic, Severity
from rubric_lsp.lint import LintResult
from rubric_lsp.rules.registry import registered_rule as get_rule

FORMATS = ("text", "json", "sarif", "github")


def diagnostic_json(result: LintResult, diag: Diagnostic) -> dict:
    return {
        "path": diag.path or result.path or "-",
        "code": diag.code,
        "severity": diag.severity.label,
        "message": diag.message,
        "range": diag.range.to_json(),
        "fix": diag.fix.to_json(result.document.lines) if diag.fix else None,
    }


def write_text(
    results: list[LintResult],
    out: TextIO,
    *,
    skipped: list[str],
    show_fixes: bool = True,
    fixed: int = 0,
    summary: bool = True,
) -> None:
    counts = {s: 0 for s in Severity}
    fixable = 0
    files_with = 0
    for result in results:
        if result.diagnostics:
            files_with += 1
        for diag in result.diagnostics:
            counts[diag.severity] += 1
            fixable += diag.fix is not None and diag.fix.safe
            path = diag.path or result.path or "-"
            out.write(
                f"{path}:{diag.range.start.line + 1}:{diag.range.start.character + 1}: "
                f"{diag.code} {diag.severity.label} {diag.message}"
                + (" [*]" if show_fixes and diag.fix and diag.fix.safe else "")
                + "\n"
            )
    if not summary:
        return
    total = sum(counts.values())
    checked = sum(1 for r in results if r.format is not None or r.diagnostics)
    parts = [
        f"{counts[Severity.ERROR]} error(s)",
        f"{counts[Severity.WARNING]} warning(s)",
        f"{counts[Severity.INFO]} info",
    ]
    line = f"Found {total} problem(s) in {files_with} of {checked} file(s) checked: " + ", ".join(parts)
    if skipped:
        line += f"; {len(skipped)} file(s) of no known kind skipped"
    out.write(line + ".\n")
    if fixable:
        out.write(f"[*] {fixable} fixable with --fix.\n")
    if fixed:
        out.write(f"Fixed {fixed} problem(s).\n")


def write_json(results: list[LintResult], out: TextIO) -> None:
    rows = [diagnostic_json(r, d) for r in results for d in r.diagnostics]
    json.dump(rows, out, indent=2, ensure_ascii=False)
    out.write("\n")


def escape_github_data(text: str) -> str:
    """Escape a workflow command's message (the part after ``::``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_github_property(text: str) -> str:
    """Escape a workflow command property value (``file=``, ``title=``)."""
    return escape_github_data(text).replace(":", "%3A").replace(",", "%2C")


def write_github(results: list[LintResult], out: TextIO) -> None:
    """GitHub Actions workflow commands: one annotation per finding."""
    level = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
    for result in results:
        for d in result.diagnostics:
            path = escape_github_property(d.path or result.path or "-")
            title = escape_github_property(f"{d.code} {_rule_name(d.code)}".strip())
            out.write(
                f"::{level[d.severity]} file={path},line={d.range.start.line + 1},"
                f"col={d.range.start.character + 1},endLine={d.range.end.line + 1},"
                f"endColumn={d.range.end.character + 1},title={title}::"
                f"{escape_github_data(d.code + ' ' + d.message)}\n"
            )


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


def write_sarif(results: list[LintResult], out: TextIO, version: str) -> None:
    level = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
    used = sorted({d.code for r in results for d in r.diagnostics})
    rules = []
    for code in used:
        found = get_rule(code)
        descriptor = {
            "id": code,
            "name": found.name if found else code,
            "shortDescription": {"text": found.summary if found else code},
            "fullDescription": {"text": found.rationale if found else code},
            "defaultConfiguration": {"level": level[found.severity] if found else "warning"},
        }
        if found:
            descriptor["helpUri"] = found.docs_url
            descriptor["help"] = {"text": found.summary, "markdown": found.markdown()}
        rules.append(descriptor)
    index = {code: i for i, code in enumerate(used)}
    sarif_results = []
    for result in results:
        for d in result.diagnostics:
            entry = {
                "ruleId": d.code,
                "ruleIndex": index[d.code],
                "level": level[d.severity],
                "message": {"text": d.message},
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
                        "description": {"text": d.fix.title},
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
                                        "insertedContent": {"text": e.new_text},
                                    }
                                    for e in d.fix.edits
                                ],
                            }
                        ],
                    }
                ]
            sarif_results.append(entry)
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "rubric-lint",
                        "version": version,
                        "informationUri": "https://github.com/rubric-lsp/rubric-lsp",
                        "rules": rules,
                    }
                },
                "results": sarif_results,
            }
        ],
    }
    json.dump(doc, out, indent=2, ensure_ascii=False)
    out.write("\n")
