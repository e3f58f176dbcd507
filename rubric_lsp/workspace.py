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
from pathlib import Path


def repository_root(path: str | Path | None) -> Path | None:
    """The nearest folder at or above ``path`` that holds ``.git`` (a folder or a file), or None."""
    if path is None:
        return None
    start = Path(os.path.abspath(path))
    folder = start if start.is_dir() else start.parent
    # Not cached: a few stat calls per lint, and a long-running server must see a `git init`.
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


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
    here = Path.cwd()
    absolute = Path(os.path.abspath(path))
    return here if absolute.is_relative_to(here) else absolute.parent
