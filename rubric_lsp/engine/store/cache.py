"""The verdict cache: every judge reply that parsed, keyed by its request, in one SQLite file.

Keyed by a hash of everything that can change a verdict (prompt version, model, API base,
temperature, max tokens, response format, and the messages — which hold the criterion,
guidelines, response and query). Only replies that parsed are stored, so a failure is never
cached. API keys are never part of a key or an entry (replies are redacted before they get here).

One file, ``verdicts.sqlite`` in the cache folder, in WAL mode: several editors and a CLI run
share it (readers never wait for a writer; writers take turns within SQLite's busy timeout), and
an entry is whole or absent. Earlier versions wrote one JSON file per entry
(``<folder>/<key[:2]>/<key>.json``); those are still read, so an upgrade keeps a warm cache.
Why not a file per entry any more: at dataset scale that is a file created per judge call, ~0.25 ms
of CPU each (measured with bench/bench_scale.py at 50,000 calls) and 50,000 files in a folder.

During a dataset grading (``deferred``) entries are committed by a writer thread, those of a tenth of a
second together (``DEFERRED_LINGER_SECONDS``), and a Bloom filter of the file's keys, built when the block
starts, answers most misses without a query: a lookup that misses cost ~70 µs of the event loop's
time per judge call at 64 calls in flight (the query, and the GIL handed to and back from the
writer threads), 0.85 s of a 45 s run of 50,000 calls (bench_scale). An entry another process
adds meanwhile is not seen by that grading (one judge call more), as with any cache.

A cache that cannot be opened or written (read-only folder, full disk) never fails a grading: it
is a cache miss, and nothing is stored. Nor does it slow one down: writes never run on the event loop
(a thread commits them: the writer thread of ``deferred``, else the loop's executor), and they wait
for another process's write lock at most ``WRITE_WAIT_SECONDS``, not SQLite's 5 s busy timeout. A
write that fails (locked, full, read-only) turns writing off for the rest of this cache's life, and a
warning says so once (the CLI's stderr, the editor's log). Before (issue 26), another process in
``BEGIN IMMEDIATE`` made each write wait the whole busy timeout on the event loop, one after another:
104 s instead of ~1 s for 20 criteria, and the server's pings stalled up to 20 s.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import logging
import os
import sqlite3
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from rubric_lsp.engine.store.sqlite_writer import RowWriter, connect

log = logging.getLogger("rubric_lsp.engine.store.cache")

CACHE_FORMAT = 1  # of the legacy entry files
# How long a write waits for another process's write lock before the cache stops writing: long enough
# for another grading's commit (a few ms), short of anything a person would notice.
WRITE_WAIT_SECONDS = 0.25
CACHE_FILE = "verdicts.sqlite"
_SCHEMA = "CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, content TEXT NOT NULL) WITHOUT ROWID"
_PUT = "INSERT OR REPLACE INTO verdicts (key, content) VALUES (?, ?)"
# One encoder for every key and run-file row: ``json.dumps`` with these options builds a new
# encoder per call, a sixth of a judge call's JSON time at dataset scale.
_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def canonical_json(value: Any) -> str:
    """``value`` as JSON with sorted keys and no spaces: the same text for the same value, always."""
    return _CANONICAL.encode(value)


# How long a ``deferred`` entry waits for others before the writer thread commits them together (sqlite_writer's
# ``linger``): a cache makes no promise about a kill, so it lingers longer than the run file
# (run_file.RECORD_LINGER_SECONDS); ~130 entries a commit instead of ~7 at 64 calls in flight.
DEFERRED_LINGER_SECONDS = 0.1
FILTER_MAX_KEYS = 1_000_000  # larger caches are looked up entry by entry (building would take ~1 s)
FILTER_ROOM = 100_000  # keys a grading may add before the filter's false positives grow


class KeyFilter:
    """A Bloom filter of cache keys: ``key in f`` is False only for a key never ``add``ed.

    Three positions per key, read from the key itself (a SHA-256 hex digest is uniform already),
    ten bits per key: about 1.7 % false positives, which cost a query, never a wrong answer."""

    def __init__(self, keys: int) -> None:
        self._size = max(1024, 10 * keys)
        self._bits = bytearray(self._size // 8 + 1)

    def _positions(self, key: str) -> tuple[int, int, int]:
        try:
            return int(key[0:12], 16) % self._size, int(key[12:24], 16) % self._size, int(key[24:36], 16) % self._size
        except ValueError:  # not a digest
            h = hash(key)
            return h % self._size, (h >> 20) % self._size, (h >> 40) % self._size

    def add(self, key: str) -> None:
        for at in self._positions(key):
            self._bits[at >> 3] |= 1 << (at & 7)

    def __contains__(self, key: str) -> bool:
        return all(self._bits[at >> 3] & (1 << (at & 7)) for at in self._positions(key))


# Entries put but not committed yet, per cache file (see VerdictCache._unwritten).
_UNWRITTEN: dict[str, dict[str, str]] = {}


class VerdictCache:
    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self._root = str(self.directory)
        self._path = os.path.join(self._root, CACHE_FILE)
        self._db: sqlite3.Connection | None = None  # reads, and writes outside ``deferred``
        self._unusable = False  # the file could not be opened: every get misses, every put is dropped
        self._lock = threading.Lock()  # the connection is shared by the threads that grade
        # Not a bound method: the writer would hold this cache, a reference cycle, and a cache (and its
        # SQLite files) that only the cyclic collector frees stays open for good once ``gc.freeze`` has
        # caught it (runtime/gc.py freezes at start-up, at litellm's import and for a dataset grading):
        # 3-6 descriptors per grading, past 1,023 over the test suite. Acyclic, it is freed when dropped,
        # and its connections are closed then (a sqlite3 connection is itself a cycle: its statement cache).
        self._writer = RowWriter(
            functools.partial(_connect_writer, self._root, self._path), _PUT, linger=DEFERRED_LINGER_SECONDS
        )
        self._writes_off = False  # a write failed: none is tried again (and a warning said so, once)
        # Handed to the executor, not committed yet (outside ``deferred``): shared by every VerdictCache of
        # this file in the process, so the next grading (the editor's, a test's) sees what the last one put.
        self._unwritten: dict[str, str] = _UNWRITTEN.setdefault(os.path.abspath(self._path), {})
        self._write_db: sqlite3.Connection | None = None  # the executor's (its own lock: reads never wait on it)
        self._write_lock = threading.Lock()
        self._deferred = 0
        self._filter: KeyFilter | None = None  # while ``deferred``: the keys the file may hold
        self._legacy: bool | None = None  # whether entry files of an older version are here
        self._opened: list[sqlite3.Connection] = []  # closed when this cache is freed (or at exit)
        weakref.finalize(self, _close_all, self._opened)

    @contextmanager
    def deferred(self) -> Iterator[None]:
        """Within the block, entries are committed by a writer thread, many per transaction; leaving it
        waits for every one. For dataset grading: one entry per judge call, which the event loop every
        other judge call waits on should not be committing itself. ``get`` sees entries not yet written."""
        self._deferred += 1
        if self._deferred == 1:
            self._filter = self._key_filter()
        try:
            yield
        finally:
            self._deferred -= 1
            if not self._deferred:
                self._filter = None
                try:
                    self._writer.close()  # waits at most WRITE_WAIT_SECONDS for another process's lock
                except (sqlite3.Error, OSError) as exc:
                    self._stop_writing(exc)

    def _key_filter(self) -> KeyFilter | None:
        count = len(self)
        if count > FILTER_MAX_KEYS:
            return None
        keys = KeyFilter(count + FILTER_ROOM)
        if count:
            db = self._connection()
            try:
                with self._lock:
                    for (key,) in db.execute("SELECT key FROM verdicts") if db is not None else ():
                        keys.add(key)
            except sqlite3.Error:
                return None
        return keys

    @staticmethod
    def key(request: dict[str, Any]) -> str:
        return hashlib.sha256(_CANONICAL.encode(request).encode("utf-8")).hexdigest()

    def get(self, key: str) -> str | None:
        pending = self._writer.pending(key)
        if pending is not None:
            return str(pending[1])
        unwritten = self._unwritten.get(key)
        if unwritten is not None:
            return unwritten
        if self._filter is not None and key not in self._filter:
            return self._legacy_get(key)
        row = self._read("SELECT content FROM verdicts WHERE key = ?", (key,))
        if row is not None:
            return str(row[0])
        return self._legacy_get(key)

    def put(self, key: str, content: str) -> None:
        """Store an entry, off the event loop: committed by a thread soon after (``get`` sees it now)."""
        if self._writes_off:
            return
        if self._filter is not None:
            self._filter.add(key)
        if self._deferred:
            try:
                self._writer.put(key, (key, content))
            except (sqlite3.Error, OSError) as exc:  # an earlier commit failed: these are not cached
                self._stop_writing(exc)
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a caller without an event loop has nothing to keep responsive
            self._write_now(key, content)
            return
        self._unwritten[key] = content
        loop.run_in_executor(None, self._write_now, key, content)

    def _write_now(self, key: str, content: str) -> None:
        """(On a thread.) One entry, in a transaction of its own."""
        try:
            with self._write_lock, self._writer.lock:
                if self._writes_off:  # (checked holding the lock: the writes queued behind a failed one)
                    return
                if self._write_db is None:
                    self._write_db = _connect_writer(self._root, self._path)
                    self._opened.append(self._write_db)
                self._write_db.execute(_PUT, (key, content))
        except (sqlite3.Error, OSError) as exc:
            self._stop_writing(exc)
        finally:
            if self._unwritten.get(key) is content:
                del self._unwritten[key]

    def _stop_writing(self, exc: BaseException) -> None:
        if self._writes_off:
            return
        self._writes_off = True
        log.warning(
            "rubric-lsp: the verdict cache %s cannot be written (%s); this grading goes on without storing "
            "its verdicts there (another process holding its write lock, or a full disk?)",
            self._path,
            exc,
        )

    def __len__(self) -> int:
        """How many entries the cache file holds (committed ones; entry files of older versions aside)."""
        if not os.path.exists(self._path):
            return 0
        row = self._read("SELECT count(*) FROM verdicts", ())
        return int(row[0]) if row is not None else 0

    def _read(self, sql: str, parameters: tuple[Any, ...]) -> tuple[Any, ...] | None:
        db = self._connection()
        if db is None:
            return None
        try:
            with self._lock:
                row: tuple[Any, ...] | None = db.execute(sql, parameters).fetchone()
                return row
        except sqlite3.Error:
            return None

    def _connection(self) -> sqlite3.Connection | None:
        if self._db is None and not self._unusable:
            try:
                # A read that has to wait (another process's lock while the WAL index is rebuilt) is a
                # miss after WRITE_WAIT_SECONDS, never SQLite's 5 s busy timeout on every lookup.
                self._db = _connect_writer(self._root, self._path)
                self._opened.append(self._db)
            except (OSError, sqlite3.Error):
                self._unusable = True
        return self._db

    def _legacy_get(self, key: str) -> str | None:
        if self._legacy is None:
            try:
                with os.scandir(self._root) as entries:
                    self._legacy = any(e.is_dir() and len(e.name) == 2 for e in entries)
            except OSError:
                self._legacy = False
        if not self._legacy:
            return None
        try:
            with open(os.path.join(self._root, key[:2], f"{key}.json"), "rb") as handle:
                data = json.loads(handle.read())
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT or not isinstance(data.get("content"), str):
            return None
        return data["content"]


def _connect_writer(root: str, path: str) -> sqlite3.Connection:
    """A connection to the cache file (made if need be) that, once open, waits for another process's
    write lock only briefly."""
    os.makedirs(root, exist_ok=True)
    db = connect(path)
    try:
        db.execute(_SCHEMA)
        db.execute(f"PRAGMA busy_timeout={int(WRITE_WAIT_SECONDS * 1000)}")
    except BaseException:
        db.close()
        raise
    return db


def _close_all(connections: list[sqlite3.Connection]) -> None:
    for db in connections:
        with suppress(sqlite3.Error):
            db.close()
