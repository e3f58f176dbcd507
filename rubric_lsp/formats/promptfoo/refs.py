"""``file://`` references: parse, resolve relative to the referring file, expand globs.

Pure path logic with no rule codes (the rules in ``rubric_lsp/formats/promptfoo/rules/file_refs.py`` report
on it, ``resolve.py`` follows references to test files). Nothing referenced is ever
executed or imported: script references (.py/.js/...) are only checked for existence.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

PREFIX = "file://"
GLOB_CHARS = re.compile(r"[*?\[{]")
# Script references may name a function after the path: file://hooks.py:afterAll
_SCRIPT_FUNCTION = re.compile(
    r"^(?P<path>.+\.(?:py|js|cjs|mjs|ts|mts|cts|rb|go|sh))(?::(?P<function>[A-Za-z_$][\w$.]*))?$"
)
SCRIPT_SUFFIXES = (".py", ".js", ".cjs", ".mjs", ".ts", ".mts", ".cts", ".rb", ".go", ".sh")
DATA_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class FileRef:
    text: str  # the scalar's text, e.g. 'file://tests/*.yaml'
    path: str  # the path part, function suffix removed
    function: str | None = None

    @property
    def is_glob(self) -> bool:
        return bool(GLOB_CHARS.search(self.path))

    @property
    def suffix(self) -> str:
        return os.path.splitext(self.path)[1].lower()

    @property
    def is_script(self) -> bool:
        return self.suffix in SCRIPT_SUFFIXES

    @property
    def is_data(self) -> bool:
        return self.suffix in DATA_SUFFIXES


def parse_ref(text: object) -> FileRef | None:
    """The reference in ``text`` if it is a checkable ``file://`` path, else None.

    Templated paths ({{var}}, <placeholders>) and empty paths cannot be checked statically.
    """
    if not isinstance(text, str) or not text.startswith(PREFIX):
        return None
    rest = text[len(PREFIX) :].strip()
    if not rest or "{{" in rest or "{%" in rest or "<" in rest or "\n" in rest or "$" in rest.split(":")[0][:1]:
        return None
    match = _SCRIPT_FUNCTION.match(rest)
    if match:
        return FileRef(text, match.group("path"), match.group("function"))
    return FileRef(text, rest)


def resolve_path(ref: FileRef, base_dir: Path) -> Path:
    """The path promptfoo reads, as its ``path.resolve(basePath, path)`` gives it: normalized as text, so that
    ``link/..`` is the folder holding the link wherever the link points (the system, given the path as written,
    would go up from the link's target); no ``~`` expanded (file://~/x is <config folder>/~/x)."""
    path = Path(ref.path)
    return Path(os.path.normpath(path if path.is_absolute() else base_dir / path))


def expand(ref: FileRef, target: Path) -> list[Path]:
    """Existing files the reference names, ``target`` its ``resolve_path`` (a glob may name several, in the order
    promptfoo's glob returns them: ``glob_files``; none if missing)."""
    if ref.is_glob:
        return [Path(p) for p in glob_files(str(target))]
    return [target] if os.path.exists(target) else []  # False, not OSError, for a too-long name


def glob_files(pattern: str, root: Path | None = None) -> list[str]:
    """``globSync(pattern)`` as promptfoo 0.123.1 runs it (glob 13 on Node): brace alternatives first, each in
    the order written, then each pattern's matches in ``walk_order``; every path once. ``root``: the folder a
    relative pattern is matched from (its matches stay relative to it)."""
    found: dict[str, None] = {}
    for one in brace_patterns(pattern) if "{" in pattern else [pattern]:
        matches = glob.glob(one, root_dir=root, recursive=True)
        found.update((m.removeprefix("./"), None) for m in sorted(matches, key=walk_order))
    return list(found)


def walk_order(path: str) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """glob 13's order of one pattern's matches (read by running it on Node 20: libuv lists a folder sorted, the
    walk hands its entries back last first): in each folder its own matches first, then its subfolders', each
    group in reverse byte order of the names."""
    parts = path.removeprefix("./").split("/")
    # Each name negated byte by byte, then 0: a name sorts after the longer names it begins (b.txt after b.txt2).
    return tuple((0 if i == len(parts) - 1 else 1, (*(-b for b in part.encode()), 0)) for i, part in enumerate(parts))


def escapes(path: Path, roots: Sequence[Path]) -> bool:
    """True when ``path`` lies outside each of ``roots`` (resolved folders), after resolving .. and symlinks."""
    resolved = path.resolve()
    return all(not resolved.is_relative_to(root) for root in roots)


def static_prefix(path: Path) -> Path:
    """The part of a glob's path before its first wildcard segment (where matches would lie)."""
    parts = path.parts
    for index, part in enumerate(parts):
        if GLOB_CHARS.search(part):
            return Path(*parts[:index]) if index else path
    return path


def brace_patterns(pattern: str) -> list[str]:
    match = re.search(r"\{([^{}]*)\}", pattern)
    if not match:
        return [pattern]
    out = []
    for choice in match.group(1).split(","):
        out.extend(brace_patterns(pattern[: match.start()] + choice + pattern[match.end() :]))
    return out
