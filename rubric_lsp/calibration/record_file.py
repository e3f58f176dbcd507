"""Writing a calibration record's file as carefully as SQLite writes its own (docs/calibration.md, "Record files").

A record is a file in a repository that people commit and tools read while it is being written, so:

- **only a record is replaced**: the target (a symlink's target: the link is written through, never replaced
  by a file) must be absent, or a regular file holding a record of ours (:func:`refusal`); a folder, a device, a
  FIFO, a README, the labelled set itself or any file the caller protects is refused before anything is written;
- **whole or not at all**: the text goes to a temporary file of a name no other writer uses (this process's
  id and a random part) in the target's own folder (so the rename stays on one file system), is flushed and
  ``fsync``-ed, renamed over the target (``os.replace``, atomic on POSIX), and the folder is ``fsync``-ed so the
  rename survives a crash. A reader opens the old record or the new one, never a part of either;
- **one writer at a time**: the writer holds an exclusive ``flock`` on the target's folder while it compares
  and writes (as ``engine/store/run_guard.py``'s run lock; a folder lock leaves no lock file behind in the
  repository), waiting up to :data:`LOCK_WAIT_SECONDS` for another writer's few milliseconds. Where the file
  system has no ``flock`` (some NFS mounts) or ``fcntl`` is missing (Windows) the write is unlocked, still
  atomic.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

LOCK_WAIT_SECONDS = 30.0
_NO_LOCKS = {errno.ENOLCK, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP)}


class RecordFileError(OSError):
    """A record that is not written, with the one-line reason (the target is not a record, in use, …)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.strerror = message  # what the faces print (``exc.strerror or exc``)


def target_of(path: Path) -> Path:
    """Where writing ``path`` writes: a symlink's target (followed to the end), else ``path`` made absolute."""
    return Path(os.path.realpath(path))


def _same_file(a: Path, b: Path) -> bool:
    if target_of(a) == target_of(b):
        return True
    try:
        return os.path.samefile(a, b)  # a hard link is the same file too
    except OSError:
        return False


def refusal(path: Path, is_record: Callable[[Path], str | None], protected: Iterable[Path] = ()) -> str | None:
    """Why a record must not be written to ``path``, or None. ``is_record(target)``: None when the regular file
    there holds a record of ours, else why not; ``protected``: files never replaced (the labelled set, …)."""
    target = target_of(path)
    for kept in protected:
        if _same_file(path, kept):
            return f"{path} is {kept}, which the record is made from: a record never replaces it; choose another -o"
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot look at {path}: {exc.strerror or exc}"
    if stat.S_ISDIR(mode):
        return f"{path} is a folder: name the record's file (<file>.calibration.json)"
    if not stat.S_ISREG(mode):
        return f"{path} is not a regular file (a device, a FIFO or a socket): a record is written to a file only"
    why = is_record(target)
    if why is not None:
        return (
            f"{path} exists and is not a calibration record ({why}): rubric calibrate replaces only its own "
            "records; remove it or choose another -o"
        )
    return None


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (through a symlink) whole or not at all (the module docstring says how)."""
    target = target_of(path)
    folder = target.parent
    data = text.encode("utf-8")
    temporary, fd = _create_temporary(target)
    try:
        with os.fdopen(fd, "wb") as handle:
            with contextlib.suppress(OSError):  # keep the replaced record's permissions
                os.fchmod(handle.fileno(), stat.S_IMODE(os.stat(target).st_mode))
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _fsync_folder(folder)


def _create_temporary(target: Path) -> tuple[Path, int]:
    """A new file beside ``target`` that no other writer names (created exclusively; the umask applies)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        temporary = target.with_name(f".{target.name}.{os.getpid()}.{os.urandom(6).hex()}.tmp")
        try:
            return temporary, os.open(temporary, flags, 0o666)
        except FileExistsError:
            continue
    raise RecordFileError(f"cannot create a temporary file beside {target}")  # pragma: no cover


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # pragma: no cover - a folder that cannot be opened (Windows): the rename is still atomic
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse fsync on a folder
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def writer_lock(path: Path, wait: float | None = None) -> Iterator[None]:
    """Hold the exclusive lock of the folder ``path`` (a symlink's target) is written in, for one writer's
    compare-and-write; RecordFileError when another writer holds it longer than ``wait`` seconds."""
    if fcntl is None:  # pragma: no cover
        yield
        return
    folder = target_of(path).parent
    wait = LOCK_WAIT_SECONDS if wait is None else wait
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise RecordFileError(f"cannot write a record in {folder}: {exc.strerror or exc}") from None
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise RecordFileError(
                        f"another process has been writing a calibration record in {folder} for over {wait:g} s"
                    ) from None
                time.sleep(0.005)
            except OSError as exc:
                if exc.errno in _NO_LOCKS:  # a file system without flock: write unlocked (still atomic)
                    break
                raise
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
