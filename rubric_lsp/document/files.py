"""Reading a file a repository or a client names: only regular files, never more than a limit.

A repository can carry a FIFO (``open`` blocks forever), a symlink to ``/dev/zero`` (a read never
ends) or to ``/dev/stdin`` (in the server that is the LSP stream itself). Every file the product
reads because a document or a command names it — referenced prompts and tests, a response file,
a workspace file to grade — comes through :func:`read_regular`: the target is checked to be a
regular file before it is opened, opened without blocking, checked again on the open descriptor
(the name may have been swapped in between), and read up to the limit only.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import BinaryIO

from rubric_lsp.document.limits import DEFAULT_LIMITS


class UnreadableFile(OSError):
    """A named file that is not read, with the one-line reason (not a regular file, too large, …)."""


class TooLarge(UnreadableFile):
    """A regular file over the size limit (the linter still reports it, by its size alone)."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def special_kind(path: str | Path) -> str | None:
    """What ``path`` (symlinks followed) is when reading it would block or never end: a FIFO, a device or
    a socket; None for a regular file, a folder, or a path that does not exist."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    special = stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode)
    return _kind(mode) if special else None


def check_regular(path: str | Path, limit: int | None = None) -> int:
    """The size of ``path`` (symlinks followed) if it is a regular file within ``limit``; else UnreadableFile."""
    limit = DEFAULT_LIMITS.max_bytes if limit is None else limit
    info = os.stat(path)  # FileNotFoundError and PermissionError propagate as they are
    if not stat.S_ISREG(info.st_mode):
        raise UnreadableFile(f"{path} is {_kind(info.st_mode)}, not a regular file: not read")
    if info.st_size > limit:
        raise TooLarge(f"{path} is {info.st_size:,} bytes, over the {limit:,}-byte limit (max-file-size): not read")
    return info.st_size


def _open_checked(path: str | Path) -> int:
    """A descriptor of ``path``, opened without blocking and checked to be a regular file on the descriptor."""
    # O_NONBLOCK: should the name have become a FIFO since the check, open returns instead of waiting.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(f"{path} is {_kind(info.st_mode)}, not a regular file: not read")
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_regular(path: str | Path) -> BinaryIO:
    """``path`` opened for reading in binary when it is a regular file (symlinks followed), of any size: for a
    reader that streams it (a labels file of a million rows) and bounds what it holds itself."""
    check_regular(path, sys.maxsize)
    return os.fdopen(_open_checked(path), "rb")


def read_regular(path: str | Path, limit: int | None = None) -> bytes:
    """The bytes of ``path`` when it is a regular file of at most ``limit`` bytes (symlinks followed)."""
    limit = DEFAULT_LIMITS.max_bytes if limit is None else limit
    check_regular(path, limit)
    fd = _open_checked(path)
    try:
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # grew since the check
                raise TooLarge(f"{path} is over the {limit:,}-byte limit (max-file-size): not read")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_regular_text(path: str | Path, limit: int | None = None) -> str:
    """:func:`read_regular`, decoded as UTF-8 (a BOM dropped); UnicodeDecodeError propagates."""
    return read_regular(path, limit).decode("utf-8-sig")
