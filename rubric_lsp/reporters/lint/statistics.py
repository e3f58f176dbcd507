"""``rubric-lint --statistics``: one line per rule found, with its count, instead of each finding (as ruff)."""

from __future__ import annotations

import json
from collections import Counter
from typing import TextIO

from rubric_lsp.diagnostics import Diagnostic
from rubric_lsp.lint import LintResult
from rubric_lsp.reporters.lint.base import Reporter, rule_name


class StatisticsReporter(Reporter):
    """``count<TAB>code<TAB>[*] name`` (``[*]``: a safe fix is on offer), most frequent first; or, in JSON,
    ``[{"code", "name", "count", "fixable"}]``."""

    def __init__(self, out: TextIO, *, as_json: bool = False) -> None:
        super().__init__(out)
        self.as_json = as_json
        self.by_code: Counter[str] = Counter()
        self.fixable_codes: set[str] = set()

    def finding(self, result: LintResult, diag: Diagnostic) -> None:
        self.by_code[diag.code] += 1
        if diag.fix is not None and diag.fix.safe:
            self.fixable_codes.add(diag.code)

    def rows(self) -> list[dict[str, object]]:
        ordered = sorted(self.by_code.items(), key=lambda item: (-item[1], item[0]))
        return [
            {"code": code, "name": rule_name(code), "count": count, "fixable": code in self.fixable_codes}
            for code, count in ordered
        ]

    def close(self, *, skipped: int = 0, fixed: int = 0) -> None:
        rows = self.rows()
        if self.as_json:
            self.out.write(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
            return
        count_width = max((len(str(r["count"])) for r in rows), default=1)
        code_width = max((len(str(r["code"])) for r in rows), default=1)
        any_fixable = bool(self.fixable_codes)
        for row in rows:
            marker = ("[*] " if row["fixable"] else "[ ] ") if any_fixable else ""
            self.out.write(f"{row['count']:>{count_width}}\t{row['code']:<{code_width}}\t{marker}{row['name']}\n")
