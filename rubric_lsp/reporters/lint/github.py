"""``rubric-lint --format github``: GitHub Actions workflow commands, one annotation per finding."""

from __future__ import annotations

from rubric_lsp.diagnostics import Diagnostic, Severity
from rubric_lsp.lint import LintResult
from rubric_lsp.reporters.lint.base import Reporter, rule_name


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
        title = escape_github_property(f"{d.code} {rule_name(d.code)}".strip())
        self.out.write(
            f"::{GITHUB_LEVEL[d.severity]} file={path},line={d.range.start.line + 1},"
            f"col={d.range.start.character + 1},endLine={d.range.end.line + 1},"
            f"endColumn={d.range.end.character + 1},title={title}::"
            f"{escape_github_data(d.code + ' ' + self.redact(d.message))}\n"
        )
