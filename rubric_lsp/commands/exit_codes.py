"""What each command's exit status means, as ``--help`` prints it (the README's "Exit codes" table says the same)."""

from __future__ import annotations

import argparse
import os
import sys

LINT = """\
exit codes:
  0    nothing at or above --fail-level (default: warning)
  1    findings at or above --fail-level (--exit-zero: 0 instead)
  2    usage, settings, an unreadable file or an internal error
  130  interrupted (Ctrl-C)"""

GRADE = """\
exit codes (every request: a response, outputs, --examples, a dataset, --verdicts):
  0    graded, and everything passed (or, with no pass mark, was measured)
  1    graded, and something failed: a test, a pass mark, an example's expectation
  2    refused (usage, an unreadable file or one its own tool refuses, no judge or key,
       --require-calibrated without a fresh record) or incomplete (a judge call failed, a script
       ran past its time or memory bound, or a result rests on what is not run here); the
       reason: one line on standard error
  130  interrupted (Ctrl-C)"""

CALIBRATE = """\
exit codes:
  0    the record was written, and every judge call answered
  2    refused (usage, an unreadable file, no labels, no judge or key) or incomplete (a judge
       call failed: the record is written, the failures counted apart in it)
  130  interrupted (Ctrl-C)"""


def _columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size().columns`` finds it ($COLUMNS, then stdout's, else 80)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class Terminal(argparse.HelpFormatter):
    """argparse's formatter, as wide as argparse makes it, without importing shutil (bz2, lzma and fnmatch with
    it): argparse makes a formatter for each argument added, so every command's start-up would load it."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        super().__init__(prog, indent_increment, max_help_position, _columns() - 2 if width is None else width)


class Formatter(Terminal):
    """argparse's formatter, printing an exit-code table as it is written (the description is still wrapped)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("exit codes"):
            return "\n".join(indent + line for line in text.splitlines())
        return super()._fill_text(text, width, indent)
