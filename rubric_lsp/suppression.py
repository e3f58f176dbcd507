"""``# rubric-lint: disable=CODE`` comments (same or previous line) and ``disable-file=``."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rubric_lsp.diagnostics import Diagnostic
from rubric_lsp.document import Document

_DIRECTIVE = re.compile(r"rubric-lint:\s*(disable|disable-file|disable-next-line)\s*=\s*([A-Za-z0-9_, ]+|all)", re.I)


@dataclass
class Suppressions:
    by_line: dict[int, set[str]] = field(default_factory=dict)  # line → codes (or "ALL")
    file: set[str] = field(default_factory=set)

    def suppressed(self, diagnostic: Diagnostic) -> bool:
        code = diagnostic.code
        if _hit(code, self.file):
            return True
        line = diagnostic.range.start.line
        return _hit(code, self.by_line.get(line, ())) or _hit(code, self.by_line.get(line - 1, ()))


def _hit(code: str, codes) -> bool:
    return any(code.startswith(c) or c == "ALL" for c in codes)


def suppressions(doc: Document) -> Suppressions:
    found = Suppressions()
    if "rubric-lint" not in doc.text:
        return found
    for line, comment in doc.comments():
        m = _DIRECTIVE.search(comment)
        if not m:
            continue
        codes = {c.strip().upper() for c in m.group(2).split(",") if c.strip()}
        kind = m.group(1).lower()
        if kind == "disable-file":
            found.file |= codes
        else:
            # "disable" covers its own line and, from the line above, the next one.
            found.by_line.setdefault(line, set()).update(codes)
    return found
