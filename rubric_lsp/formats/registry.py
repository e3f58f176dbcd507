"""The format registry: which kinds of file we know and how each is recognised.

Each format module registers a :class:`Format` on import. Detection tries, in order:
an explicit ``--kind``; a ``$schema`` key or yaml-language-server modeline naming a
known schema; the file name; then the content (highest score wins, 0 = not mine).
"""

from __future__ import annotations

import fnmatch
import importlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from rubric_lsp.document import Document

# Format modules, imported on first use (each registers its formats and checkers).
FORMAT_MODULES = (
    "rubric_lsp.formats.autorubric",
    "rubric_lsp.formats.promptfoo",
    "rubric_lsp.formats.northstar",
    "rubric_lsp.formats.rubrics_task",
)

Checker = Callable[[Any], None]  # (CheckContext) -> None; the rules layer sits above this one


@dataclass
class Format:
    name: str  # stable id, used by --kind and in settings
    title: str
    languages: tuple[str, ...]  # which document languages it can be written in
    schema_names: tuple[str, ...] = ()  # $schema/modeline endings that select it
    file_patterns: tuple[str, ...] = ()  # fnmatch patterns on the file name
    detect: Callable[[Document], int] = lambda doc: 0  # content score, 0 = not mine
    schema_file: str | None = None  # exported JSON Schema file name in schemas/
    json_schema: Callable[[], dict] | None = None  # builds the exported JSON Schema (lazily)
    checkers: list[Checker] = field(default_factory=list)
    # Modules holding this format's rules and checkers, imported the first time a file of
    # this format is checked (or the rule list is needed). Keeps start-up cheap: the
    # pydantic models behind one format's checks are not built to lint another's file.
    checker_modules: tuple[str, ...] = ()


_FORMATS: dict[str, Format] = {}
_loaded = False


def register(fmt: Format) -> Format:
    _FORMATS[fmt.name] = fmt
    return fmt


def checker(format_names: str | Iterable[str]) -> Callable[[Checker], Checker]:
    """Decorator: run this checker on documents of the given format(s) ("*" = all read)."""
    names = [format_names] if isinstance(format_names, str) else list(format_names)

    def wrap(fn: Checker) -> Checker:
        for name in names:
            _CHECKERS.setdefault(name, []).append(fn)
        return fn

    return wrap


_CHECKERS: dict[str, list[Checker]] = {}


def load_formats() -> None:
    """Import the format modules (registration and detection) and the any-file rules."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    importlib.import_module("rubric_lsp.rules.any_file")
    for module in FORMAT_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:  # a real import error inside the module
                raise


_checkers_loaded: set[str] = set()


def _load_checkers_of(fmt: Format) -> None:
    if fmt.name in _checkers_loaded:
        return
    _checkers_loaded.add(fmt.name)
    for module in fmt.checker_modules:
        importlib.import_module(module)


def load_all_checkers() -> None:
    """Every format and every rule (for rule listings, docs and schema export)."""
    load_formats()
    for fmt in list(_FORMATS.values()):
        _load_checkers_of(fmt)


def formats() -> list[Format]:
    load_formats()
    return list(_FORMATS.values())


def get_format(name: str) -> Format | None:
    load_formats()
    return _FORMATS.get(name)


def checkers_for(name: str | None) -> list[Checker]:
    load_formats()
    if name is not None and name in _FORMATS:
        _load_checkers_of(_FORMATS[name])
    found = list(_CHECKERS.get("*", []))
    if name is not None:
        found += _CHECKERS.get(name, [])
    return found


_MODELINE = re.compile(r"yaml-language-server:\s*\$schema=(\S+)")


def declared_schema(doc: Document) -> str | None:
    """The schema a document names: ``$schema`` at the top, or a yaml-language-server modeline."""
    if doc.language == "yaml":
        for line in doc.text.split("\n", 30)[:30]:
            if "yaml-language-server" in line:
                m = _MODELINE.search(line)
                if m:
                    return m.group(1)
    root = doc.root
    if root is not None and root.is_map:
        value = root.get("$schema")
        if value is not None and value.is_scalar and isinstance(value.value, str):
            return value.value
    return None


def detect(doc: Document, kind: str | None = None) -> Format | None:
    load_formats()
    if kind:
        return _FORMATS.get(kind)
    candidates = [f for f in _FORMATS.values() if doc.language in f.languages]
    schema = declared_schema(doc)
    if schema:
        for fmt in candidates:
            if any(schema.endswith(name) for name in fmt.schema_names):
                return fmt
    if doc.path:
        name = PurePath(doc.path).name
        for fmt in candidates:
            if any(fnmatch.fnmatch(name, pattern) for pattern in fmt.file_patterns):
                return fmt
    if doc.root is None:
        return None
    best, best_score = None, 0
    for fmt in candidates:
        try:
            score = fmt.detect(doc)
        except Exception:  # a detector must never take the linter down
            score = 0
        if score > best_score:
            best, best_score = fmt, score
    return best
