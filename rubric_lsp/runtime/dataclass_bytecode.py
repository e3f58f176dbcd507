"""The bytecode of the methods ``@dataclass`` writes, cached across processes as Python caches a module's.

``dataclasses`` writes each class's ``__init__``, ``__repr__`` and ``__eq__`` (a frozen class's ``__setattr__``,
``__delattr__`` and ``__hash__`` too) as source and compiles it whenever the class is defined, so on every start:
~0.75 ms of CPU a class, ~1.35 ms a frozen one, ~30 ms of the ~250 ms a lint of one small promptfoo config took
(45 classes; issue 36: start-up at most 3x ``python -c 'import yaml'``). :func:`install`, called by the command
line's entry points before they import anything that defines one, answers that compile step from a marshal file
in the user's cache folder (``runtime/start_cache.py``), keyed by the exact source ``dataclasses`` generated:
what it then runs is the code it would have compiled itself, and any other source (another Python, a changed
class) compiles as usual and is added when the process ends.

The one place ``dataclasses`` compiles (``_create_fn`` up to Python 3.12, ``_FuncBuilder`` from 3.13) calls the
builtin ``exec`` by its global name: the module gets a global ``exec`` of its own. Nothing else changes.
"""

from __future__ import annotations

from importlib.util import MAGIC_NUMBER
from types import CodeType
from typing import Any

from rubric_lsp.runtime.start_cache import FUTURE_FLAGS, StartCache, cache_file

HEADER = b"rubric-lsp dataclass bytecode 1\n" + MAGIC_NUMBER
OWN = "rubric_lsp."  # the classes kept: rubric-lsp's own (its modules' names start so)


class _Cache(StartCache):
    def __init__(self, flags: int, command: str) -> None:
        super().__init__(cache_file(f"dataclasses-{command}"), HEADER)
        self.flags = flags

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /, **kwargs: Any) -> None:
        # Only rubric-lsp's own classes are kept (``globals`` is the defining module's).
        if not isinstance(source, str) or kwargs or not str((globals or {}).get("__name__", "")).startswith(OWN):
            exec(source, globals, locals, **kwargs)
            return
        code = self.get(source)
        if not isinstance(code, CodeType):
            # What ``exec(source)`` compiles in dataclasses' own frame: its future flags, file name "<string>".
            code = self.add(source, compile(source, "<string>", "exec", flags=self.flags, dont_inherit=True))
        exec(code, globals, locals)


_installed: _Cache | None = None


def install(command: str) -> None:
    """From now on, rubric-lsp's classes ``@dataclass`` builds in this process take their methods' bytecode from
    the cache ``command``'s processes share."""
    global _installed
    import dataclasses

    if _installed is not None or "exec" in vars(dataclasses):
        return  # once per process; never over someone else's replacement
    _installed = _Cache(dataclasses.dataclass.__code__.co_flags & FUTURE_FLAGS, command)
    dataclasses.exec = _installed.exec  # type: ignore[attr-defined]
    _installed.save_at_exit()
