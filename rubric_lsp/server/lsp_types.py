"""lsprotocol's types, imported with the bytecode of their attrs methods cached, as Python caches a module's.

``lsprotocol.types`` defines ~560 attrs classes, and attrs writes each one's methods (``__init__``, ``__repr__``,
``__eq__``...) as source and compiles it on every import: about half of that import's CPU, and the largest single
part of the server's start before its first diagnostics (issue 36). :func:`import_types` imports the module with
attrs' compile step answered from a marshal file in the user's cache folder (``bytecode/`` beside the judge's
verdicts), keyed by the exact source and file name attrs gives each class's methods: what attrs then runs is the
code it would have compiled itself, and a changed attrs or lsprotocol misses and compiles anew (the file is
rewritten with what this import used). The file is per bytecode format (``sys.implementation.cache_tag`` in its
name, the interpreter's magic number in its header); an unreadable, foreign or damaged file counts as empty and
a folder that cannot be written only costs the time saved. An attrs whose compile step is not the one this
module knows is left alone: the types are imported as usual.
"""

from __future__ import annotations

import logging
import sys
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

from rubric_lsp.runtime import start_cache

log = logging.getLogger("rubric_lsp.server")

_HEADER = b"rubric-lsp attrs bytecode 1\n" + MAGIC_NUMBER
# attrs' step that turns a method's source into the class's functions (attr/_make.py), by its parameters.
_COMPILE_AND_EVAL_PARAMETERS = ("script", "globs", "locs", "filename")

Key = tuple[str, str]  # (the file name attrs gives the methods, their source)


def cache_path() -> Path:
    return start_cache.cache_file("lsprotocol-types")


def import_types() -> ModuleType:
    """``lsprotocol.types``, imported (once per process) with attrs' compiled methods from the cache."""
    if "lsprotocol.types" in sys.modules:
        return sys.modules["lsprotocol.types"]
    from attr import _make

    compile_and_eval: Any = getattr(_make, "_compile_and_eval", None)
    code = getattr(compile_and_eval, "__code__", None)
    if code is None or code.co_varnames[: code.co_argcount] != _COMPILE_AND_EVAL_PARAMETERS:
        from lsprotocol import types

        return types
    path = cache_path()
    known = start_cache.read(path, _HEADER)
    used: dict[Key, CodeType] = {}
    flags = _attrs_compile_flags(compile_and_eval)

    def cached_compile_and_eval(
        script: str, globs: dict[str, Any] | None, locs: Any = None, filename: str = ""
    ) -> None:
        key = (filename, script)
        compiled = known.get(key)
        if not isinstance(compiled, CodeType):
            compiled = compile(script, filename, "exec", flags=flags, dont_inherit=True)
        used[key] = compiled
        eval(compiled, globs, locs)

    _make._compile_and_eval = cached_compile_and_eval
    try:
        from lsprotocol import types
    finally:
        _make._compile_and_eval = compile_and_eval
    if used.keys() != known.keys() and (error := start_cache.write(path, _HEADER, used)) is not None:
        log.debug("protocol bytecode not cached in %s: %s", path.parent, error)
    return types


def _attrs_compile_flags(compile_and_eval: Any) -> int:
    """The ``__future__`` flags attrs' own compile applies (what ``compile`` inherits differs between Pythons)."""
    probe: dict[str, Any] = {}
    compile_and_eval("def probe(): pass", {}, probe, "<rubric-lsp probe of attrs' compile>")
    return probe["probe"].__code__.co_flags & start_cache.FUTURE_FLAGS
