"""``rubric-lint --format``: one output format per module (text, json, sarif, github, junit, gitlab,
and ``--statistics``), each a :class:`~rubric_lsp.reporters.lint.base.Reporter`.

Every message, fix title and fix text passes through ``redaction.redact_report`` on its way
out: a fix may carry a key the user wrote into the file it edits, a report never prints it.
``tests/test_lint_reporters.py`` holds a snapshot of each format's output.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, TextIO

from rubric_lsp.reporters.lint.base import CountingReporter, Reporter
from rubric_lsp.reporters.lint.github import GithubReporter
from rubric_lsp.reporters.lint.text import TextReporter

if TYPE_CHECKING:
    from rubric_lsp.reporters.lint.statistics import StatisticsReporter

__all__ = ["FORMATS", "CountingReporter", "Reporter", "StatisticsReporter", "make_reporter"]

FORMATS = ("text", "json", "sarif", "github", "junit", "gitlab")


def __getattr__(name: str) -> Any:
    if name == "StatisticsReporter":  # --statistics only: it (and json) load when asked for
        return importlib.import_module("rubric_lsp.reporters.lint.statistics").StatisticsReporter
    raise AttributeError(name)


def make_reporter(fmt: str, out: TextIO, version: str, *, quiet: bool = False) -> Reporter:
    """The reporter of ``--format fmt``."""
    if fmt == "github":
        return GithubReporter(out)
    # The others are imported only when chosen: json and sarif load json (~3 ms), junit's XML escaping
    # (xml.sax.saxutils) pulls in urllib.request, http.client and ssl, gitlab hashlib: ~40 ms of CPU every
    # lint's start-up would pay
    if fmt == "json":
        reporter: Reporter = importlib.import_module("rubric_lsp.reporters.lint.json").JsonReporter(out)
        return reporter
    if fmt == "sarif":
        reporter = importlib.import_module("rubric_lsp.reporters.lint.sarif").SarifReporter(out, version)
        return reporter
    if fmt == "junit":
        reporter = importlib.import_module("rubric_lsp.reporters.lint.junit").JunitReporter(out)
        return reporter
    if fmt == "gitlab":
        reporter = importlib.import_module("rubric_lsp.reporters.lint.gitlab").GitlabReporter(out)
        return reporter
    return TextReporter(out, summary=not quiet)
