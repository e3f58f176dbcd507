"""``rubric-lint --format junit``: JUnit XML, as ruff writes it, valid against Jenkins' junit-10.xsd.

One ``<testsuite>`` per file checked, one failing ``<testcase>`` per finding (named after its
rule, classname the file, the position in the failure's text: junit-10.xsd has no line
attribute), one passing ``<testcase>`` for a file with none, so CI counts clean files too.
The findings are short strings: they are kept until ``close`` writes the totals first.
"""

from __future__ import annotations

import re
from typing import TextIO
from xml.sax.saxutils import escape, quoteattr

from rubric_lsp.diagnostics import Diagnostic
from rubric_lsp.lint import LintResult
from rubric_lsp.reporters.base import Reporter

# Characters XML 1.0 cannot hold at all (control characters, lone surrogates, U+FFFE/FFFF): a message
# quoting a file's bytes must not make the whole report unreadable, so they are written as \\xNN.
_NOT_XML = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """``text`` as XML character data: escaped, and characters XML cannot hold spelled out."""
    return escape(_NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text))


def xml_attribute(text: str) -> str:
    """``text`` as a quoted XML attribute value (newlines kept as character references)."""
    return quoteattr(
        _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text), {"\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}
    )


class JunitReporter(Reporter):
    def __init__(self, out: TextIO) -> None:
        super().__init__(out)
        self.suites: list[str] = []
        self.cases = 0
        self.failures = 0
        self.current: list[str] = []

    def add(self, result: LintResult) -> None:
        self.current = []
        super().add(result)
        if result.format is None and not result.diagnostics:
            return
        path = result.path or "-"
        failures = len(self.current)
        cases = self.current or [
            f"    <testcase name={xml_attribute('rubric-lint')} classname={xml_attribute(path)} />"
        ]
        self.cases += len(cases)
        self.failures += failures
        self.suites.append(
            f'  <testsuite name={xml_attribute(path)} tests="{len(cases)}" failures="{failures}" errors="0">\n'
            + "\n".join(cases)
            + "\n  </testsuite>"
        )

    def finding(self, result: LintResult, diag: Diagnostic) -> None:
        path = diag.path or result.path or "-"
        line, column = diag.range.start.line + 1, diag.range.start.character + 1
        message = self.redact(diag.message)
        self.current.append(
            f"    <testcase name={xml_attribute('rubric-lint.' + diag.code)} classname={xml_attribute(path)}>\n"
            f"      <failure message={xml_attribute(message)} type={xml_attribute(diag.severity.label)}>"
            f"{xml_text(f'{path}:{line}:{column}: {diag.code} {diag.severity.label} {message}')}</failure>\n"
            "    </testcase>"
        )

    def close(self, *, skipped: int = 0, fixed: int = 0) -> None:
        self.out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        self.out.write(f'<testsuites name="rubric-lint" tests="{self.cases}" failures="{self.failures}" errors="0">\n')
        for suite in self.suites:
            self.out.write(suite + "\n")
        self.out.write("</testsuites>\n")
