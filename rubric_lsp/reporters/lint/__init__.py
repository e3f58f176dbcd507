"""``rubric-lint --format``: one output format per module (text, json, sarif, github, junit, gitlab,
and ``--statistics``), each a :class:`~rubric_lsp.reporters.lint.base.Reporter`.

Every message, fix title and fix text passes through ``redaction.redact_report`` on its way
out: a fix may carry a key the user wrote into the file it edits, a report never prints it.
``tests/test_lint_reporters.py`` holds a snapshot of each format's output.
"""

from __future__ import annotations

from typing import TextIO

from rubric_lsp.reporters.lint.base import Reporter

FORMATS = ("text", "json", "sarif", "github", "junit", "gitlab")


def make_reporter(fmt: str, out: TextIO, version: str, *, quiet: bool = False) -> Reporter:
    """The reporter of ``--format fmt`` (its module imported only when chosen)."""
    if fmt == "json":
        from rubric_lsp.reporters.lint.json import JsonReporter

        return JsonReporter(out)
    if fmt == "sarif":
        from rubric_lsp.reporters.lint.sarif import SarifReporter

        return SarifReporter(out, version)
    if fmt == "github":
        from rubric_lsp.reporters.lint.github import GithubReporter

        return GithubReporter(out)
    if fmt == "junit":
        from rubric_lsp.reporters.lint.junit import JunitReporter

        return JunitReporter(out)
    if fmt == "gitlab":
        from rubric_lsp.reporters.lint.gitlab import GitlabReporter

        return GitlabReporter(out)
    from rubric_lsp.reporters.lint.text import TextReporter

    return TextReporter(out, summary=not quiet)
