"""What keeps a run file whole against a second process and a damaged disk (issue 26).

``RunLock``: one process at a time per run file. Two ``--resume`` of one file both asked every
missing call (paid twice); two ``--run`` to one new path raced on the ``meta`` row. The lock is an
``flock`` on ``RUN.sqlite.lock`` beside the file, held for the run's life, holding the holder's pid,
host and start time so a second process is refused at once naming the first. ``flock`` and not
``fcntl``/``lockf`` on the database itself: those are the locks SQLite takes, and closing any
descriptor of a file drops every such lock the process holds on it. Taking it costs one system
call per run; nothing on the judge calls' path touches it. A lock a killed process held is released
by the kernel with its descriptors: a resume after ``kill -9`` is never refused. (Where ``fcntl``
is missing, Windows, or the file system has no ``flock``, some NFS mounts, the run is not locked.)
The holder writes its record just after it takes the lock, so a process refused in that instant
reads the record of a killed earlier holder, or none: it names a holder only once the record names
a process that is running (or one on another host), looking again for up to ``HOLDER_WAIT_SECONDS``
(two resumes started together named the killed process, or nobody, in 4 of 80 races measured).

``check``: a resume first asks SQLite's ``PRAGMA quick_check`` (the b-trees' structure, every
page; O(file size), a fraction of a second for 50,000 replies) and reads the recorded request; a
damaged file is refused before any judge call. ``salvage`` then copies what still reads (the request,
each reply row, each batch row) into a new file beside it, which a resume can continue.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import sqlite3
import time
from pathlib import Path
from typing import Any

from rubric_lsp.engine.store.cache import canonical_json

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


# How long a refused process looks again for the holder's record (it writes it right after locking).
HOLDER_WAIT_SECONDS = 1.0
_NO_LOCKS = {errno.ENOLCK, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP)}


class RunInUse(Exception):
    """Another process holds the run file; the message is one line naming it."""


class RunLock:
    """An exclusive, non-blocking lock on ``RUN.sqlite.lock``; ``release`` when the run ends."""

    def __init__(self, path: Path) -> None:
        self.path = path.with_name(path.name + ".lock")
        self._fd: int | None = None

    def acquire(self, run: Path) -> None:
        if fcntl is None:  # pragma: no cover
            return
        deadline = time.monotonic() + HOLDER_WAIT_SECONDS
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno in _NO_LOCKS:  # a file system without flock (some NFS mounts): run unlocked
                    os.close(fd)
                    return
                if not isinstance(exc, BlockingIOError):
                    os.close(fd)
                    raise
                holder = _read_holder(fd)
                os.close(fd)
                if holder is None and time.monotonic() < deadline:
                    time.sleep(0.01)  # the holder is between its lock and its record (or ends meanwhile)
                    continue
                raise RunInUse(
                    f"{run} is in use by another rubric grade ({holder or 'its pid is not recorded yet'}): "
                    f"wait for it to end, or stop it and then --resume {run}"
                ) from None
            try:  # the holder we waited on removed the file on release: lock the one now there
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except OSError:
                same = False
            if same:
                break
            os.close(fd)
        me = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()}
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps(me).encode("utf-8"))
        self._fd = fd

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.unlink(self.path)  # still locked: a process that opened it meanwhile sees it gone
        except OSError:
            pass
        os.close(fd)


def _read_holder(fd: int) -> str | None:
    """Who the lock file says holds it; None when it names nobody, or a process not running on this host."""
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
        pid, host = int(data["pid"]), str(data["host"])
        started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(float(data["started"])))
    except (OSError, ValueError, KeyError, TypeError, OverflowError):
        return None
    if host == socket.gethostname() and not _running(pid):
        return None  # a killed holder's record: the live holder has not written its own yet
    return f"pid {pid} on {host}, started {started}"


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists on this host and is not a zombie (a killed process not yet reaped)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (PermissionError: another user's process)
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[:1] != [b"Z"]
    except OSError:  # no /proc (macOS): a process os.kill reaches
        return True


def damage(db: sqlite3.Connection) -> str | None:
    """What SQLite's ``quick_check`` finds wrong with the file (its first finding), or None when whole."""
    try:
        rows = db.execute("PRAGMA quick_check(5)").fetchall()
    except sqlite3.DatabaseError as exc:
        return str(exc)
    findings = [str(row[0]) for row in rows]
    if findings == ["ok"]:
        return None
    more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
    return f"{findings[0]}{more}"


def read_request(db: sqlite3.Connection) -> dict[str, Any] | None:
    """The recorded request: None when absent; ValueError when it is not a JSON object."""
    row = db.execute("SELECT value FROM meta WHERE name = 'request'").fetchone()
    if row is None:
        return None
    value = row[0]
    if not isinstance(value, str):
        raise ValueError(f"its request is stored as {type(value).__name__}, not text")
    request = json.loads(value)
    if not isinstance(request, dict):
        raise ValueError(f"its request is a JSON {type(request).__name__}, not an object")
    return request


def salvage(db: sqlite3.Connection, source: Path, schema: str) -> tuple[Path, int] | None:
    """Copy what reads cleanly from the damaged ``db`` into a new run file beside ``source``: its path
    and how many replies it holds, or None when not even the request reads (nothing to resume)."""
    try:
        request = read_request(db)
    except (sqlite3.DatabaseError, ValueError):
        request = None
    if request is None:
        return None
    replies = _rows(db, "replies", "key, content, usage, recorded_at")
    batches = _rows(db, "batches", "input_file_id, batch_id, model, keys, status, resolved, recorded_at")
    target = _free_name(source)
    copy = sqlite3.connect(target, isolation_level=None)
    try:
        copy.executescript(schema)
        with copy:
            copy.execute("BEGIN")
            copy.execute("INSERT INTO meta VALUES ('request', ?)", (canonical_json(request),))
            good = [r for r in replies if isinstance(r[0], str) and isinstance(r[1], str)]
            copy.executemany("INSERT OR IGNORE INTO replies VALUES (?, ?, ?, ?)", good)
            copy.executemany("INSERT OR IGNORE INTO batches VALUES (?, ?, ?, ?, ?, ?, ?)", batches)
    finally:
        copy.close()
    return target, len(good)


def _rows(db: sqlite3.Connection, table: str, columns: str) -> list[tuple[Any, ...]]:
    """Every row of ``table`` that reads: forward through its b-tree up to a damaged page, backward up
    to it from the other end, then row by row for the rowids its primary-key index still names."""
    found: dict[int, tuple[Any, ...]] = {}
    for order in ("ASC", "DESC"):
        try:
            for row in db.execute(f"SELECT rowid, {columns} FROM {table} NOT INDEXED ORDER BY rowid {order}"):
                found[row[0]] = row[1:]
        except sqlite3.DatabaseError:
            pass
    try:
        named = [row[0] for row in db.execute(f"SELECT rowid FROM {table} INDEXED BY sqlite_autoindex_{table}_1")]
    except sqlite3.DatabaseError:
        named = []
    for rowid in named:
        if rowid not in found:
            try:
                row = db.execute(f"SELECT {columns} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
            except sqlite3.DatabaseError:
                continue
            if row is not None:
                found[rowid] = row
    return [found[rowid] for rowid in sorted(found)]


def _free_name(source: Path) -> Path:
    stem = source.name[: -len(source.suffix)] if source.suffix else source.name
    for n in range(1, 1000):
        name = f"{stem}.salvaged{'' if n == 1 else f'-{n}'}{source.suffix}"
        target = source.with_name(name)
        if not target.exists():
            return target
    raise OSError(f"no free name for a salvaged copy of {source}")
