"""What ``--diff`` and ``--show-fixes`` print: the fixes as a unified diff, and an enumeration of them."""

from __future__ import annotations

from collections import Counter
from typing import TextIO

from rubric_lsp.redaction import report_redactor


def unified_diff(name: str, before: str, after: str) -> str:
    """The change ``--fix`` would make to ``name``, as ``diff -u`` (and ruff's ``--diff``) show it.

    A report like every other: an API key written in the file is masked on the lines shown.
    """
    import difflib  # --diff only

    redact = report_redactor().report
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), fromfile=name, tofile=name
    )
    out = []
    for line in lines:
        text = redact(line)
        out.append(text if text.endswith("\n") else text + "\n\\ No newline at end of file\n")
    return "".join(out)


class FixLog:
    """The fixes applied (or, under --diff, that would be), per file and rule, for ``--show-fixes``."""

    def __init__(self) -> None:
        self.files: dict[str, Counter[str]] = {}

    def add(self, name: str, codes: list[str]) -> None:
        if codes:
            self.files.setdefault(name, Counter()).update(codes)

    @property
    def total(self) -> int:
        return sum(sum(c.values()) for c in self.files.values())

    def write(self, out: TextIO, *, would: bool = False) -> None:
        """``Fixed 3 problem(s):`` then ``- path:`` and ``    2 × CODE (name)`` lines, as ruff's --show-fixes."""
        from rubric_lsp.reporters.lint.base import rule_name

        if not self.files:
            out.write("No problems would be fixed.\n" if would else "No problems fixed.\n")
            return
        out.write(f"{'Would fix' if would else 'Fixed'} {self.total} problem(s):\n")
        for name, codes in self.files.items():
            out.write(f"- {name}:\n")
            for code, count in sorted(codes.items()):
                rule = rule_name(code)
                out.write(f"    {count} × {code}" + (f" ({rule})" if rule else "") + "\n")
