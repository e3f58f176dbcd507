"""Where a labelling session's material comes from: the format's labelling hook, who labels by default, and the
sources ``--from`` names (a grading's JSON or finished run file, an owner's results, eval cases), each read once
and handed to the format (``LabellingHook.read_source``), which says whether it is one it reads."""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from rubric_lsp.document import Document
from rubric_lsp.document.files import read_regular
from rubric_lsp.formats.plugin import Format, load
from rubric_lsp.labelling.hook import LabellingHook, Sheet, SourceError

MAX_SOURCE_BYTES = 256 * 1024 * 1024  # an owner's results file of a large run
SQLITE = b"SQLite format 3\x00"  # a run file (rubric grade --run)


class LabellingError(ValueError):
    """A file, a source or an answer a labelling session refuses; one line saying why."""


_HOOKS: dict[str, LabellingHook] = {}


def default_labeller(folder: Path) -> str:
    """Who labels when nobody says: git's user.name where the file is, else the login name."""
    try:
        done = subprocess.run(
            ["git", "config", "user.name"], cwd=folder, capture_output=True, text=True, timeout=5, check=False
        )
        if done.stdout.strip():
            return done.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    for variable in ("USER", "USERNAME", "LOGNAME"):
        if os.environ.get(variable):
            return os.environ[variable]
    try:
        return getpass.getuser()
    except Exception:  # getpass raises whatever the platform's lookup raises
        return "anonymous"


def labelling_hook(fmt: Format) -> LabellingHook | None:
    """``fmt``'s labelling hook (None: it has none), checked against the protocol when first loaded (a
    third-party format is not type-checked here)."""
    if fmt.labelling is None:
        return None
    hook = _HOOKS.get(fmt.name)
    if hook is None:
        hook = load(fmt.labelling)
        if not isinstance(hook, LabellingHook):
            raise TypeError(
                f"format {fmt.name!r}: labelling={fmt.labelling!r} is no LabellingHook "
                "(sheet, write, read_source, item_for: rubric_lsp/labelling/hook.py)"
            )
        _HOOKS[fmt.name] = hook
    return hook


def read_source(hook: LabellingHook, doc: Document, path: Path, labelled: Path) -> Sheet:
    """What the source at ``path`` says of ``doc`` (the file at ``labelled``), read by its format's hook."""
    try:
        raw = read_regular(path, MAX_SOURCE_BYTES)
        data = _run_figures(path) if raw.startswith(SQLITE) else _json_or_lines(raw.decode("utf-8"))
    except OSError as exc:
        raise LabellingError(f"cannot read {path}: {exc.strerror or exc}") from None
    except LabellingError:
        raise
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise LabellingError(
            f"{path}: not JSON (a rubric grade --format json output, or the owner's results)"
        ) from None
    try:
        sheet = hook.read_source(doc, data, path)
    except SourceError as exc:
        raise LabellingError(str(exc)) from None
    if sheet is None:
        raise LabellingError(f"{path} is no grading or results of {labelled} that rubric label reads")
    return sheet


def _run_figures(path: Path) -> Any:
    """A finished ``rubric grade --run`` file's result: the JSON ``--format json`` prints, kept in its ``meta``
    table as ``figures`` (engine/store/run_file.py), read without taking the run's lock (read-only)."""
    try:
        with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            row = db.execute("SELECT value FROM meta WHERE name = 'figures'").fetchone()
    except sqlite3.Error as exc:
        raise LabellingError(f"{path}: not a rubric grade run file ({exc})") from None
    if row is None:
        raise LabellingError(f"{path}: the run has not finished (rubric grade --resume {path} finishes it)")
    return json.loads(row[0])


def _json_or_lines(text: str) -> Any:
    """A JSON document, else JSON Lines (a list of their values); ValueError when it is neither."""
    try:
        return json.loads(text)
    except ValueError:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) < 2:
            raise
        return [json.loads(line) for line in lines]
