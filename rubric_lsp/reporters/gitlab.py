"""``rubric-lint --format gitlab``: a GitLab code quality report (``artifacts:reports:codequality``).

A JSON array of issues: ``description``, ``check_name``, ``fingerprint``, ``severity`` and
``location`` (``path`` relative to the repository, ``lines`` begin/end, 1-based), the shape GitLab
documents. The fingerprint identifies a finding across runs:
it hashes the path, the code, the message and how many equal findings came before it in the
file, not the line, so an unrelated edit above it does not make it a new issue.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any, TextIO

from rubric_lsp.diagnostics import Diagnostic, Severity
from rubric_lsp.lint import LintResult
from rubric_lsp.reporters.base import Reporter

_LINE_NUMBER = re.compile(r"\bline \d+")

# GitLab's levels: info, minor, major, critical, blocker.
GITLAB_SEVERITY = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}


def gitlab_path(path: str) -> str:
    """``path`` relative to the project (``$CI_PROJECT_DIR`` in a GitLab job, else the working folder)."""
    if path == "-":
        return path
    base = Path(os.environ.get("CI_PROJECT_DIR") or os.getcwd()).resolve()
    try:
        return Path(path).resolve().relative_to(base).as_posix()
    except (ValueError, OSError):
        return Path(path).as_posix()


class GitlabReporter(Reporter):
    def __init__(self, out: TextIO) -> None:
        super().__init__(out)
        self.first = True
        self.seen: Counter[tuple[str, str, str]] = Counter()

    def add(self, result: LintResult) -> None:
        self.seen.clear()  # occurrences count per file
        super().add(result)

    def issue(self, result: LintResult, diag: Diagnostic) -> dict[str, Any]:
        path = gitlab_path(diag.path or result.path or "-")
        message = self.redact(diag.message)
        # A message may name another line ("replaces the grader on line 13"): that moves with edits too.
        key = (path, diag.code, _LINE_NUMBER.sub("line #", message))
        self.seen[key] += 1
        fingerprint = hashlib.sha256("\0".join((*key, str(self.seen[key]))).encode("utf-8", "surrogatepass"))
        return {
            "description": f"{diag.code} {message}",
            "check_name": diag.code,
            "fingerprint": fingerprint.hexdigest(),
            "severity": GITLAB_SEVERITY[diag.severity],
            "location": {
                "path": path,
                # `lines`, not `positions`: every GitLab version's merge-request widget reads lines.begin.
                "lines": {"begin": diag.range.start.line + 1, "end": diag.range.end.line + 1},
            },
        }

    def finding(self, result: LintResult, diag: Diagnostic) -> None:
        self.out.write(("[\n  " if self.first else ",\n  ") + json.dumps(self.issue(result, diag), ensure_ascii=False))
        self.first = False

    def close(self, *, skipped: int = 0, fixed: int = 0) -> None:
        self.out.write("[]\n" if self.first else "\n]\n")
