"""The bytecode of the methods ``@dataclass`` writes, cached across processes as Python caches a module's.

``dataclasses`` writes each class's ``__init__``, ``__repr__`` and ``__eq__`` (a frozen class's ``__setattr__``,
``__delattr__`` and ``__hash__`` too) as source and compiles it whenever the class is defined, so on every start:
~0.75 ms of CPU a class, ~1.35 ms a frozen one, ~35 ms of the ~250 ms a lint of one small promptfoo config takes
(45 classes; issue 36: start-up at most 3x ``python -c 'import yaml'``). :func:`install`, called by the command
line's entry points before they import anything that defines one, answers that compile step from a marshal file
in the user's cache folder (``bytecode/`` beside ``server/lsp_types.py``'s), keyed by the exact source
``dataclasses`` generated: what it then runs is the code it would have compiled itself, and any other source
(another Python, a changed class) compiles as usual and is added when the process ends. The file is per bytecode
format (``sys.implementation.cache_tag`` in its name, the interpreter's magic number in its header); an
unreadable, foreign or damaged file counts as empty and a folder that cannot be written only costs the time.

The one place ``dataclasses`` compiles (``_create_fn`` up to Python 3.12, ``_FuncBuilder`` from 3.13) calls the
builtin ``exec`` by its global name: the module gets a global ``exec`` of its own. Nothing else changes.
"""

from __future__ import annotations
import __future__

import atexit
import contextlib
import functools
import marshal
import operator
import os
import sys
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from types import CodeType
from typing import Any

from rubric_lsp.runtime.user_cache import user_cache_dir

_HEADER = b"rubric-lsp dataclass bytecode 1\n" + MAGIC_NUMBER
# Past this many sources (classes changed many times over), the file keeps only what the last process used.
MAX_ENTRIES = 4000
_FUTURE_FLAGS = functools.reduce(
    operator.or_, (getattr(__future__, name).compiler_flag for name in __future__.all_feature_names)
)


def cache_path() -> Path:
    return user_cache_dir() / "bytecode" / f"dataclasses.{sys.implementation.cache_tag}.marshal"


class _Cache:
    def __init__(self, path: Path, flags: int) -> None:
        self.path = path
        self.flags = flags
        self.known: dict[str, CodeType] | None = None  # read at the first class, not at install
        self.used: dict[str, CodeType] = {}
        self.compiled = 0

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /, **kwargs: Any) -> None:
        if not isinstance(source, str) or kwargs:
            exec(source, globals, locals, **kwargs)
            return
        if self.known is None:
            self.known = _read(self.path)
        code = self.known.get(source)
        if not isinstance(code, CodeType):
            # What ``exec(source)`` compiles in dataclasses' own frame: its future flags, file name "<string>".
            code = compile(source, "<string>", "exec", flags=self.flags, dont_inherit=True)
            self.compiled += 1
        self.used[source] = code
        exec(code, globals, locals)

    def save(self) -> None:
        """Write what this process compiled, with what the file held (unless that grew past MAX_ENTRIES)."""
        if not self.compiled:
            return
        known = self.known or {}
        merged = {**known, **self.used} if len(known) + len(self.used) <= MAX_ENTRIES else dict(self.used)
        partial = self.path.with_name(f"{self.path.name}.{os.getpid()}.partial")  # processes ending together
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial.write_bytes(_HEADER + marshal.dumps(merged))
            os.replace(partial, self.path)
        except (OSError, ValueError):  # (ValueError: marshal meeting an object it cannot write)
            with contextlib.suppress(OSError):
                partial.unlink(missing_ok=True)


_installed: _Cache | None = None


def install() -> None:
    """From now on, classes ``@dataclass`` builds in this process take their methods' bytecode from the cache."""
    global _installed
    import dataclasses

    if _installed is not None or "exec" in vars(dataclasses):
        return  # once per process; never over someone else's replacement
    _installed = _Cache(cache_path(), dataclasses.dataclass.__code__.co_flags & _FUTURE_FLAGS)
    dataclasses.exec = _installed.exec  # type: ignore[attr-defined]
    atexit.register(_installed.save)


def _read(path: Path) -> dict[str, CodeType]:
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    if not data.startswith(_HEADER):
        return {}
    try:
        known = marshal.loads(data[len(_HEADER) :])
    except (ValueError, EOFError, TypeError):
        return {}
    return known if isinstance(known, dict) else {}
