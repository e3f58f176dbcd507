"""Finding the files to lint: folders recursed, .gitignore honoured, calibration records left out.

A calibration record (``<file>.calibration.json``, docs/calibration.md) is no file to lint: the lint reads a
record only for the file it describes (RL020, ``calibration/check.py``). So the walk decides from a file's name
and size alone, before anything reads it, that a record is not yielded (a folder of ten 8 MiB records cost 54 s
and 748 MB when each was parsed only to be skipped). A file with a record's name but over a record's size
(``settings.MAX_RECORD_BYTES``) is no record of ours, and is linted as any other file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pathspec

from rubric_lsp import globs
from rubric_lsp.calibration.settings import MAX_RECORD_BYTES, SUFFIX
from rubric_lsp.document.files import read_regular

LINTABLE_SUFFIXES = {".yaml", ".yml", ".json", ".jsonl"}
ALWAYS_SKIPPED = {
    ".git",
    ".hg",
    ".svn",
    "node_modules",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
}


def _gitignore(folder: Path) -> pathspec.PathSpec | None:
    path = folder / ".gitignore"
    if not path.is_file():
        return None
    try:
        return globs.spec(read_regular(path).decode("utf-8", errors="replace").splitlines())
    except (OSError, ValueError):
        return None


def _repo_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def iter_files(root: Path) -> Iterator[Path]:
    """Lintable files below ``root``, skipping what .gitignore files (up to the repo root) ignore.

    Paths are yielded as ``root`` was given (relative stays relative), so reports read
    ``samples/x.yaml`` rather than an absolute path.
    """
    given = root
    root = root.resolve()
    specs: list[tuple[Path, pathspec.PathSpec]] = []
    repo = _repo_root(root)
    if repo is not None and repo != root:
        folder = root.parent
        chain = []
        while True:
            chain.append(folder)
            if folder == repo or folder == folder.parent:
                break
            folder = folder.parent
        for folder in reversed(chain):
            spec = _gitignore(folder)
            if spec is not None:
                specs.append((folder, spec))
    for path in _walk(root, specs):
        yield given / path.relative_to(root)


def _ignored(path: Path, is_dir: bool, specs: list[tuple[Path, pathspec.PathSpec]]) -> bool:
    """Like git: the deepest .gitignore with a matching pattern decides (so '!keep' in a
    sub-folder re-includes what a parent folder's .gitignore excluded)."""
    for base, spec in reversed(specs):
        rel = path.relative_to(base).as_posix() + ("/" if is_dir else "")
        verdict = spec.check_file(rel).include
        if verdict is not None:
            return verdict
    return False


def _walk(folder: Path, specs: list[tuple[Path, pathspec.PathSpec]]) -> Iterator[Path]:
    spec = _gitignore(folder)
    if spec is not None:
        specs = [*specs, (folder, spec)]
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        path = Path(entry.path)
        if entry.is_dir(follow_symlinks=False):
            if entry.name in ALWAYS_SKIPPED or _ignored(path, True, specs):
                continue
            yield from _walk(path, specs)
        elif path.suffix.lower() in LINTABLE_SUFFIXES and not _ignored(path, False, specs) and not is_record(entry):
            # Not only regular files: a link loop, a dangling link or a FIFO with a lintable name is
            # yielded too, and reading it reports why it is not read (RL008) while the rest is linted.
            yield path


def is_record(entry: os.DirEntry[str]) -> bool:
    """Whether a folder entry is a calibration record, from its name and size only (never read)."""
    if not entry.name.lower().endswith(SUFFIX):
        return False
    try:
        return entry.is_file() and entry.stat().st_size <= MAX_RECORD_BYTES
    except OSError:
        return False
