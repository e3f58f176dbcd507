"""``# rubric-lint: disable=CODE`` comments and ``# rubric-lint: disable-file=CODE``.

A comment on a line of its own covers the next line (and itself); a trailing comment
(``label: yes  # rubric-lint: disable=RL005``) covers its own line only. Codes may be
prefixes (``AR1``) or ``all``; text after the codes is an explanation and is ignored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from rubric_lsp.diagnostics import Diagnostic
from rubric_lsp.document import Document

_DIRECTIVE = re.compile(
    r"rubric-lint:\s*(disable-file|disable-next-line|disable)\s*=\s*"
    r"([A-Za-z]+[0-9]*(?:\s*,\s*[A-Za-z]+[0-9]*)*)",
    re.I,
)


_MENTIONED = re.compile("rubric-lint", re.I)
# What any match of _MENTIONED holds (neither 'c' nor 'l' has a case variant beyond ASCII's): 'c-l' in any case,
# where the case-blind regex crawls a 1 MB file in tens of milliseconds. Found from its '-' (a literal the regex
# engine finds at C speed, its neighbours checked there): 0.8 ms on the 1.3 MB red-team config, where a search
# for each of its four spellings took 3.3 ms, on every keystroke.
_MENTION_CORE = re.compile(r"-(?<=[cC]-)[lL]")


@dataclass
class Suppressions:
    by_line: dict[int, set[str]] = field(default_factory=dict)  # 0-based line → codes (or "ALL")
    file: set[str] = field(default_factory=set)

    def suppressed(self, diagnostic: Diagnostic) -> bool:
        code = diagnostic.code
        if _hit(code, self.file):
            return True
        return _hit(code, self.by_line.get(diagnostic.range.start.line, ()))


def _hit(code: str, codes: Iterable[str]) -> bool:
    return any(c == "ALL" or code.startswith(c) for c in codes)


def suppressions(doc: Document) -> Suppressions:
    found = Suppressions()
    text = doc.text
    if _MENTION_CORE.search(text) is None or not _MENTIONED.search(text):
        return found
    for line, comment in doc.comments():
        m = _DIRECTIVE.search(comment)
        if not m:
            continue
        codes = {c.strip().upper() for c in m.group(2).split(",") if c.strip()}
        kind = m.group(1).lower()
        if kind == "disable-file":
            found.file |= codes
        elif kind == "disable-next-line":
            found.by_line.setdefault(line + 1, set()).update(codes)
        else:
            found.by_line.setdefault(line, set()).update(codes)
            if not doc.comment_is_trailing(line):
                found.by_line.setdefault(line + 1, set()).update(codes)
    return found
