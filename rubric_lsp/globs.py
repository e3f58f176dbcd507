"""gitignore-style globs (pathspec's semantics) that cannot backtrack catastrophically.

pathspec translates each ``*`` inside a path segment to ``[^/]*``, so ``*a*a…*a*b`` (19 stars, in a
``.gitignore`` or the settings' ``kinds``) becomes a regex that backtracks through every way of
splitting a 30-character name: over a minute for one file (git's own wildmatch is instant).

Inside one segment, a ``*`` followed by a fixed-length piece and then another ``*`` only ever needs
the *earliest* place where that piece matches: the next ``*`` can skip whatever is left of the
segment, so a later place never matches where the earliest does not. Those stars are made atomic
(the lookahead-and-backreference form CPython's own ``fnmatch`` uses, since Python 3.10 has no
``(?>…)``); the last star of a segment stays as it is, anchored by what follows. Matching is then
polynomial, with the same answers as pathspec (tests/test_globs.py checks both on random patterns).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec

STAR = "[^/]*"
# A fixed-length piece of one segment as pathspec writes it: escaped characters and bracket classes
# (`[^/]` for `?`), but not the `[^/]` of the next star. Anything else (a group, `.*` from `**`, `/`)
# ends the piece.
_PIECE = re.compile(r"(?:\\.|\[(?:\\.|[^\]\\])+\](?!\*)|[^\\\[\]().*+?{}|^$/])+")


def make_safe(regex: str) -> str:
    """``regex`` (one of pathspec's) with each star that is followed by a piece and another star made atomic."""
    out: list[str] = []
    counter = itertools.count()
    index = 0
    while True:
        start = regex.find(STAR, index)
        if start < 0:
            out.append(regex[index:])
            return "".join(out)
        out.append(regex[index:start])
        after = start + len(STAR)
        piece = _PIECE.match(regex, after)
        if piece is not None and regex.startswith(STAR, piece.end()):
            name = f"rl_atomic{next(counter)}"
            out.append(f"(?=(?P<{name}>{STAR[:-1]}*?{piece.group(0)}))(?P={name})")
            index = piece.end()
        else:
            out.append(STAR)
            index = after


def spec(lines: Iterable[str]) -> pathspec.GitIgnoreSpec:
    """``pathspec.GitIgnoreSpec.from_lines(lines)``, each pattern's regex made safe."""
    import pathspec  # only when a .gitignore or a `kinds` table is read: most runs never need it

    found = pathspec.GitIgnoreSpec.from_lines(list(lines))
    changed = False
    for pattern in found.patterns:
        compiled = getattr(pattern, "regex", None)
        if compiled is None or STAR not in compiled.pattern:
            continue
        safe = make_safe(compiled.pattern)
        if safe != compiled.pattern:
            pattern.regex = re.compile(safe, compiled.flags)
            changed = True
    # pathspec 1.x compiles the patterns into a matcher when the spec is built: build it again.
    return type(found)(found.patterns) if changed else found
