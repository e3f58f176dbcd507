"""The format registry: which kinds of file we know and how each is recognised.

A format is one :class:`~rubric_lsp.formats.plugin.Format` value. The registry loads them on
first use from the entry-point group ``rubric_lsp.formats`` (``formats/discovery.py``: the
built-ins are declared there too, so a format published as its own package works once
installed); a test may add one with ``register(Format(...))``.
Detection tries, in order:
an explicit ``--kind``; a ``$schema`` key or yaml-language-server modeline naming a
known schema; the file name; then the content (highest score wins, 0 = not mine).
"""

from __future__ import annotations

import _thread
import fnmatch
import importlib
import re
from pathlib import PurePath

from rubric_lsp.document import Document
from rubric_lsp.document.js_yaml import read_as_js_yaml
from rubric_lsp.formats import discovery
from rubric_lsp.formats.plugin import Format
from rubric_lsp.rules.registry import (
    Checker,
    Rule,
    checker,
    forget_checkers,
    registered_checkers,
    registered_rule,
    registered_rules,
)
from rubric_lsp.runtime.log import logger

# ``checker`` is the rules' decorator (rules/registry.py), re-exported: a format's author finds
# register, Format and checker in one place.
__all__ = [
    "Checker",
    "Format",
    "all_rules",
    "checker",
    "checkers_for",
    "detect",
    "formats",
    "get_format",
    "get_rule",
    "register",
    "unregister",
]


_FORMATS: dict[str, Format] = {}
_loaded = False  # every source loaded (set once the loading is over: another thread never sees half of it)
_loading = False  # this thread is loading them (a nested call returns, as it always did)
# The server reads and lints on threads (the lint's, the smells', the event loop's): one loads the formats or a
# format's rules while the others wait for them whole. An RLock: loading may come back here on the same thread.
_LOCK = _thread.RLock()
_checkers_loaded: set[str] = set()
# name -> (0, source index, sequence) for a format from discovery.sources(), (1, 0, sequence) for
# one given to register(): formats are kept in this order whatever was loaded first.
_RANK: dict[str, tuple[int, int, int]] = {}
_BROKEN: list[str] = []  # why each format source that failed to load was skipped
_BUILTIN: set[str] = set()  # the formats of rubric-lsp's own sources: a failure of theirs is a bug, raised


def register(fmt: Format) -> Format:
    """Make ``fmt`` known to every face (a later registration under the same name replaces it).

    Formats are kept in a fixed order (detection breaks ties by it, docs list rules by it):
    those of the installed sources in ``discovery.sources()`` order, then the ones given here
    in the order they came.
    """
    return _add(fmt, (1, 0))


def _add(fmt: Format, rank: tuple[int, int]) -> Format:
    _RANK[fmt.name] = (*rank, len(_RANK))
    _FORMATS[fmt.name] = fmt
    ordered = sorted(_FORMATS.values(), key=lambda f: _RANK[f.name])
    _FORMATS.clear()
    _FORMATS.update((f.name, f) for f in ordered)
    _checkers_loaded.discard(fmt.name)
    return fmt


def unregister(name: str) -> None:
    """Forget a format and the checkers registered for it (tests that register their own)."""
    _FORMATS.pop(name, None)
    _RANK.pop(name, None)
    forget_checkers(name)
    _checkers_loaded.discard(name)


def load_formats() -> None:
    """Load every format source (registration and detection) and the any-file rules.

    A third party's source that fails to load is skipped with a warning naming it (``broken()``
    keeps the messages): the other formats still work. A built-in one that fails is a bug, raised.
    """
    global _loaded, _loading
    if _loaded:
        return
    with _LOCK:
        if _loaded or _loading:
            return
        _loading = True
        try:
            _load_sources()
        finally:
            _loaded, _loading = True, False


def _load_sources() -> None:
    importlib.import_module("rubric_lsp.rules.any_file")
    importlib.import_module("rubric_lsp.rules.calibration")
    for index, source in enumerate(discovery.sources()):
        try:
            found = source.formats()
        except discovery.PluginError as exc:
            if source.builtin:
                raise
            _BROKEN.append(f"rubric-lsp: {exc}; its files are not checked")
            logger(__name__).warning("%s", _BROKEN[-1])
            continue
        for fmt in found:
            _add(fmt, (0, index))
            if source.builtin:
                _BUILTIN.add(fmt.name)


def broken() -> list[str]:
    """Why each format source that could not be loaded was skipped (empty when all loaded)."""
    load_formats()
    return list(_BROKEN)


def _load_checkers_of(fmt: Format) -> None:
    with _LOCK:  # the name is marked before its modules are imported: only the lock says they are done
        if fmt.name not in _checkers_loaded:
            _checkers_loaded.add(fmt.name)
            _import_checkers(fmt)


def _import_checkers(fmt: Format) -> None:
    for module in fmt.checker_modules:
        try:
            importlib.import_module(module)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # a plugin's rules that fail to import, sys.exit included
            if _is_builtin(fmt):
                raise
            _broken(fmt, f"its rules ({module}) failed to load: {discovery.failure(exc)}")
            return


def _is_builtin(fmt: Format) -> bool:
    return fmt.name in _BUILTIN


def _broken(fmt: Format, why: str) -> None:
    """Skip a third party's format whose hook failed, saying so once, as a plugin that failed to load is."""
    _BROKEN.append(f"rubric-lsp: format {fmt.name!r} {why}; its files are not checked")
    logger(__name__).warning("%s", _BROKEN[-1])
    _FORMATS.pop(fmt.name, None)
    forget_checkers(fmt.name)


def load_all_checkers() -> None:
    """Every format and every rule (for rule listings, docs and schema export)."""
    load_formats()
    importlib.import_module("rubric_lsp.rules.smells.rules")  # read only when selected: listed always
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
    found = registered_checkers("*")
    if name is not None:
        found += registered_checkers(name)
    return found


def all_rules() -> list[Rule]:
    """Every rule of every format, by code (importing the checkers registers their rules)."""
    load_all_checkers()
    return registered_rules()


def get_rule(code: str) -> Rule | None:
    """The rule with this code, whichever format defines it (a finding's rule is registered by the check
    that reported it: every format's rules are imported only for a code not registered yet)."""
    found = registered_rule(code)
    if found is None:
        load_all_checkers()
        found = registered_rule(code)
    return found


_MODELINE = re.compile(r"yaml-language-server:\s*\$schema=(\S+)")


def _first_lines(text: str, count: int) -> list[str]:
    """``text.split("\\n", count)[:count]``, without the copy of the rest of the text that split makes."""
    end = -1
    for _ in range(count):
        end = text.find("\n", end + 1)
        if end == -1:
            return text.split("\n")
    return text[:end].split("\n")


def declared_schema(doc: Document) -> str | None:
    """The schema a document names: ``$schema`` at the top, or a yaml-language-server modeline."""
    if doc.language == "yaml":
        for line in _first_lines(doc.text, 30):
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
    """The format of ``doc``; its plain scalars are then read as that format's owner reads them
    (promptfoo's js-yaml: YAML 1.2 core schema, see document/js_yaml.py)."""
    fmt = _detect(doc, kind)
    if fmt is not None and fmt.loader == "js-yaml":
        read_as_js_yaml(doc)
    return fmt


def _detect(doc: Document, kind: str | None) -> Format | None:
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
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # a detector must never take the linter down, sys.exit included
            if not _is_builtin(fmt):
                _broken(fmt, f"failed to detect a file: {discovery.failure(exc)}")
            score = 0
        if score > best_score:
            best, best_score = fmt, score
    return best
