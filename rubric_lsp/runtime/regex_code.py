"""Regular expressions' compiled code, cached across processes as Python caches a module's bytecode.

``re.compile`` parses a pattern and compiles it to the regex engine's code in pure Python: ~120 patterns, the
rules' and PyYAML's, are the largest part of a lint's start (~0.3 ms each, several ms for one with a large
character class; issue 36: start-up at most 3x ``python -c 'import yaml'``). :func:`install`, called by the
command line's entry points, answers that step from a marshal file in the user's cache folder
(``runtime/start_cache.py``), keyed by the pattern and its flags: the engine's code, group count and group
names, exactly what ``re``'s compiler hands the engine (``_sre.compile``), which checks the code as it takes it.
A pattern the file lacks is compiled as ``re`` does and added when the process ends; the file is per
interpreter (the cache tag in its name, the Python version and the engine's magic number in its header).

What it replaces is ``re``'s private ``_compiler.compile`` (``sre_compile.compile`` on Python 3.10), whose body
has been the same since 3.7; where its parts are not all there it installs nothing. Patterns with the DEBUG
flag, and anything but a ``str`` or ``bytes`` pattern, go to ``re``'s own compiler.
"""

from __future__ import annotations

import sys
from typing import Any

from rubric_lsp.runtime.start_cache import StartCache, cache_file

_NEEDED = ("compile", "_code", "isstring", "SRE_FLAG_DEBUG")


def _compiler_modules() -> tuple[Any, Any, Any] | None:
    """``re``'s compiler and parser modules and ``_sre``, if they are the ones this module knows."""
    try:
        import _sre

        if sys.version_info >= (3, 11):
            from re import _compiler, _parser
        else:
            import sre_compile as _compiler
            import sre_parse as _parser
    except ImportError:
        return None
    if not all(hasattr(_compiler, name) for name in _NEEDED) or not hasattr(_parser, "parse"):
        return None
    if not hasattr(_sre, "compile") or not hasattr(_sre, "MAGIC"):
        return None
    return _compiler, _parser, _sre


class _Cache(StartCache):
    def __init__(self, compiler: Any, parser: Any, sre: Any, command: str) -> None:
        header = f"rubric-lsp regex code 1\n{sys.version}\n{sre.MAGIC}\n".encode()
        super().__init__(cache_file(f"regex-{command}"), header)
        self.compiler, self.parser, self.sre = compiler, parser, sre
        self.original = compiler.compile

    def compile(self, p: Any, flags: int = 0) -> Any:
        plain = type(p) in (str, bytes) and type(flags) is int and not flags & self.compiler.SRE_FLAG_DEBUG
        return self.kept(p, flags) if plain and written_in_code(p) else self.original(p, flags)

    def kept(self, p: str | bytes, flags: int) -> Any:
        """``p`` compiled from the code the cache keeps for it, or compiled and kept."""
        key = (p, flags)
        known = self.get(key)
        if known is not None:
            try:
                return self.sre.compile(p, *known)
            except (RuntimeError, TypeError, ValueError, OverflowError):  # a damaged entry: the engine refused it
                self.used.pop(key, None)
        # re's compiler, step by step, keeping what it hands the engine (re/_compiler.py: compile).
        parsed = self.parser.parse(p, flags)
        code = [int(op) for op in self.compiler._code(parsed, flags)]  # (opcodes are an int subclass)
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        made = (int(flags | parsed.state.flags), code, int(parsed.state.groups - 1), groupindex, tuple(indexgroup))
        compiled = self.sre.compile(p, *made)
        self.add(key, made)
        return compiled


_RE_MODULES = frozenset(("re", "sre_compile", "sre_parse"))


def written_in_code(pattern: str | bytes) -> bool:
    """Whether ``pattern`` is written in the code compiling it: any pattern a module's top-level code compiles (as
    the module is imported), or a literal of the calling function. Patterns made from data as the program runs
    (a user's glob, the values redaction masks) are never kept."""
    frame = sys._getframe(1)
    while frame.f_back is not None and (
        (name := str(frame.f_globals.get("__name__", ""))) == __name__ or name.partition(".")[0] in _RE_MODULES
    ):
        frame = frame.f_back
    code = frame.f_code
    return code.co_name == "<module>" or pattern in code.co_consts


_installed: _Cache | None = None


def install(command: str) -> None:
    """From now on, the patterns this process compiles from its code take their engine code from the cache
    ``command``'s processes share."""
    global _installed
    if _installed is not None:
        return
    modules = _compiler_modules()
    if modules is None or getattr(modules[0].compile, "__module__", None) != modules[0].__name__:
        return  # parts missing, or someone else's replacement in place: left alone
    _installed = _Cache(*modules, command)
    modules[0].compile = _installed.compile
    _installed.save_at_exit()
