"""The workspace a linted file belongs to: the folder its references may reach without a warning.

What the user opened: the editor's workspace folder (the server passes it), else — on the
command line — the repository holding the file (the nearest folder with a ``.git`` folder, or a
``.git`` file as in a worktree or submodule checkout), else the folder of the settings file that
applies, else the current directory (when the file lies inside it; else the file's own folder).

A config commonly reads files elsewhere in its repository (``file://../shared/rubric.md``), so
the config's own folder is never the boundary.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

# What one command-line run has learnt of its folders (see one_run); None: nothing is remembered.
_memo: dict[tuple[str, str | Path], Any] | None = None


@contextmanager
def one_run() -> Iterator[None]:
    """Within it, what is looked up per folder (the repository root, the settings file, a folder resolved)
    is looked up once: a run over a corpus asks it for every file, and the walk up to ``/`` of each file's
    folder repeats its siblings'. Not in the server: a long-running process must see a `git init`."""
    global _memo
    outer = _memo
    if outer is None:
        _memo = {}
    try:
        yield
    finally:
        _memo = outer


def _once(what: str, of: str | Path, compute: Callable[[], T]) -> T:
    """``compute()``, once per ``what`` and ``of`` within :func:`one_run` (outside a run: every time)."""
    memo = _memo
    if memo is None:
        return compute()
    key = (what, of)
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def resolved(folder: Path) -> Path:
    """``folder.resolve()``, once per folder within :func:`one_run`."""
    return _once("resolved", folder, folder.resolve)


def nearest_above(folder: Path, what: str, probe: Callable[[Path], T | None]) -> T | None:
    """The first answer ``probe`` gives, asked of ``folder`` then of each folder above it (None: none);
    within :func:`one_run`, each folder's answer is remembered under ``what``."""
    memo = _memo if _memo is not None else {}  # outside a run: remembered for this walk alone
    asked: list[Path] = []
    found = None
    candidate = folder
    while True:  # (each parent built only when asked: a folder's answer is most often remembered)
        key = (what, candidate)
        if key in memo:
            found = memo[key]
            break
        asked.append(candidate)
        found = probe(candidate)
        parent = candidate.parent
        if found is not None or parent == candidate:
            break
        candidate = parent
    for candidate in asked:  # each folder asked lies below the answer, so it is theirs too
        memo[(what, candidate)] = found
    return found


def repository_root(path: str | Path | None) -> Path | None:
    """The nearest folder at or above ``path`` that holds ``.git`` (a folder or a file), or None."""
    if path is None:
        return None
    # (A file's lint asks it of the file more than once: its workspace, its references' bounds.)
    return _once("repository of", path, lambda: _repository_root(path))


def _repository_root(path: str | Path) -> Path | None:
    start = os.path.abspath(path)
    folder = start if os.path.isdir(start) else os.path.dirname(start)
    return nearest_above(Path(folder), "git", _holds_git)


def _holds_git(folder: Path) -> Path | None:
    return folder if (folder / ".git").exists() else None


def default_root(path: str | None, settings_root: Path | None = None) -> Path | None:
    """The workspace of ``path`` when no editor folder is given (see the module docstring);
    ``settings_root``: the folder of the settings file that applies (``Settings.root``)."""
    if path is None or path == "-":
        return None
    found = repository_root(path)
    if found is not None:
        return found
    if settings_root is not None:
        return settings_root
    here = os.getcwd()
    absolute = os.path.abspath(path)
    inside = absolute == here or absolute.startswith(os.path.join(here, ""))  # (as Path.is_relative_to, on strings)
    return Path(here) if inside else Path(os.path.dirname(absolute))
