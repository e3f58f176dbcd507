"""Keyed rows committed to SQLite by a thread of their own, many per transaction.

Why a thread: at dataset scale every judge call writes one row to the run file and one to the
verdict cache. Committed on the event loop, those transactions were ~10 % of the loop's time
(measured with py-spy at 64 concurrent calls), and every millisecond the loop spends away from its
sockets is a millisecond added to the replies waiting there. Here ``put`` only hands the row over;
the thread commits whatever has piled up since its last commit in one transaction, and SQLite's
C code runs without the GIL, on the other core. A row is readable (``pending``) from the moment it
is put until it is committed, and then from the database.

Put from an event loop, the thread is woken once per loop turn, after the turn that put rows
(``call_soon``), not once per row: woken per row, it took the GIL from the loop twice per judge call
(``Condition.notify`` was 5 % of the loop's time). A process killed before the thread's next
commit loses the rows put in the current loop turn and since the thread's last commit began (the
time of one commit); ``settled(lag)`` lets a caller bound how many that can be.

``linger``: an owner lets rows wait that long for others before the thread is woken, so each commit
carries more of them: the verdict cache (which promises nothing about a kill: a lost entry is one
judge call asked again) and the run file (a kill loses at most a linger's worth, and a ``settled``
caller that must wait has the rows committed at once, so its bound never waits out a linger).
Commits, not rows, are what the thread's CPU goes on: WAL pages written, a transaction begun and
ended, the GIL taken back from the loop. At 64 calls in flight a loop turn holds ~7 replies: without
a linger, ~730 commits per 5,000 calls and ~0.3 s of the writer thread's CPU (bench/bench_scale.py);
a row costs ~2-3x less in a commit of 100 (issue 36).
"""

from __future__ import annotations

import asyncio
import copy
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any


def connect(path: str) -> sqlite3.Connection:
    """A connection as the run file and the verdict cache use theirs: autocommit (a transaction only
    where BEGIN says so), usable from the writer thread and the grading's (the CLI also closes it
    from another), WAL (readers never wait for the writer), ``synchronous=NORMAL`` (per connection;
    every commit kept across a process kill) and a busy timeout for other processes' writers."""
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        db.execute("PRAGMA busy_timeout=5000")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
    except BaseException:
        db.close()
        raise
    return db


class RowWriter:
    """Writes ``statement`` (an ``INSERT OR REPLACE`` of one keyed row) through ``connect()``'s connection.

    ``lock`` is held during each of the thread's transactions; the owner holds it for any other write
    it makes in this process, so its writes never meet the thread's in SQLite's busy handler.
    A commit that fails is kept and raised by every later ``put``, ``flush`` and ``check``.
    """

    def __init__(self, connect: Callable[[], sqlite3.Connection], statement: str, linger: float = 0.0) -> None:
        self._connect = connect
        self._statement = statement
        self._linger = linger  # seconds a row put from an event loop waits for others (see the module)
        self.lock = threading.Lock()
        self._changed = threading.Condition()
        self._pending: dict[str, tuple[Any, ...]] = {}  # put, not yet committed
        self._committing = False
        self._closing = False
        self._wake_scheduled: object = None  # the loop a wake is scheduled on
        self._failed: sqlite3.Error | OSError | None = None
        self._thread: threading.Thread | None = None
        self._put_count = 0  # rows put so far
        self._settled_count = 0  # of those, how many are committed (or failed)
        self._waiters: list[tuple[int, asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    def put(self, key: str, row: tuple[Any, ...]) -> None:
        """Hand ``row`` (the statement's parameters; ``key`` identifies it) to the thread."""
        self.check()
        with self._changed:
            self._pending[key] = row
            self._put_count += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="sqlite-writer", daemon=True)
                self._thread.start()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._wake()
            return
        if self._wake_scheduled is not loop:  # (a loop closed before its wake ran leaves its own)
            self._wake_scheduled = loop
            if self._linger > 0:
                loop.call_later(self._linger, self._wake)
            else:
                loop.call_soon(self._wake)

    def _wake(self) -> None:
        self._wake_scheduled = None
        with self._changed:
            self._changed.notify()

    async def settled(self, lag: int = 0) -> None:
        """Wait until at most ``lag`` of the rows put so far are not committed yet (a failed commit
        counts as settled: ``check`` raises it).

        Back-pressure for a caller that must bound what a kill can lose: the grading sends no new
        judge call while ``--concurrency`` or more landed replies are only in memory. Returns at
        once when the thread keeps up, the usual case. (Waiting for every row before each call,
        ``lag=0``, cost +15 % wall time at 64 calls in flight: nearly every call waited a commit.)"""
        with self._changed:
            target = self._put_count - lag
            if self._settled_count >= target or self._thread is None:
                return
            future = asyncio.get_running_loop().create_future()
            self._waiters.append((target, asyncio.get_running_loop(), future))
            self._changed.notify()  # a caller waits: its rows are committed now, not after the linger
        await future

    def pending(self, key: str) -> tuple[Any, ...] | None:
        """The row put under ``key`` that is not committed yet (None: none, or committed)."""
        return self._pending.get(key)

    def flush(self) -> None:
        """Wait until every row put so far is committed; raise a failed commit."""
        with self._changed:
            self._changed.notify()  # rows whose loop turn has not ended yet
            while self._thread is not None and (self._pending or self._committing) and self._failed is None:
                self._changed.wait()
        self.check()

    def close(self) -> None:
        """Commit what is pending and stop the thread."""
        try:
            self.flush()
        finally:
            with self._changed:
                self._closing = True
                self._changed.notify_all()
                thread = self._thread
            if thread is not None:
                thread.join()
            self._closing = False

    def _release_waiters(self) -> None:
        """(Holding ``_changed``.) Wake the ``settled`` callers whose rows are all settled, one callback per loop."""
        ready: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
        waiting = []
        for target, loop, future in self._waiters:
            if target <= self._settled_count:
                ready.setdefault(loop, []).append(future)
            else:
                waiting.append((target, loop, future))
        self._waiters = waiting
        for loop, futures in ready.items():
            try:
                loop.call_soon_threadsafe(_resolve, futures)
            except RuntimeError:  # that loop is closed: nobody is waiting any more
                pass

    def check(self) -> None:
        """Raise the first commit that failed (again at every call: its rows are lost, and an owner that
        goes on must know; the run file stops its grading, the verdict cache stops writing)."""
        if self._failed is not None:
            # A copy, without the stored one's traceback: raised again and again, the stored exception
            # gathered every raise's frames (the owner's among them), a cycle through the owner that only
            # the cyclic collector frees, and never once ``gc.freeze`` has caught it: a verdict cache kept
            # its SQLite files open after a locked write, 5 per grading.
            raise copy.copy(self._failed)

    @contextmanager
    def _transaction(self, db: sqlite3.Connection) -> Iterator[None]:
        with self.lock:
            db.execute("BEGIN")
            try:
                yield
                db.execute("COMMIT")
            except BaseException:
                # A COMMIT that failed (SQLITE_FULL, an I/O error, SQLITE_BUSY) may leave the transaction
                # open, and with it the file's write lock: end it, whatever SQLite already did.
                if db.in_transaction:
                    with suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                raise

    def _run(self) -> None:
        db: sqlite3.Connection | None = None
        try:
            db = self._connect()
            while True:
                with self._changed:
                    while not self._pending and not self._closing:
                        self._changed.wait()
                    if not self._pending:
                        return
                    rows = dict(self._pending)
                    settling = self._put_count
                    self._committing = True
                try:
                    with self._transaction(db):
                        db.executemany(self._statement, rows.values())
                except sqlite3.Error as exc:
                    self._failed = self._failed or exc.with_traceback(None)
                finally:
                    with self._changed:
                        for key, row in rows.items():
                            if self._pending.get(key) is row:  # not put again meanwhile
                                del self._pending[key]
                        self._committing = False
                        self._settled_count = settling
                        self._release_waiters()
                        self._changed.notify_all()
        except (sqlite3.Error, OSError) as exc:  # the connection itself: the next put starts another thread
            with self._changed:
                self._failed = self._failed or exc.with_traceback(None)
                self._pending.clear()
                self._settled_count = self._put_count
                self._release_waiters()
        finally:
            if db is not None:
                db.close()
            with self._changed:
                self._thread = None
                self._settled_count = max(self._settled_count, self._put_count - len(self._pending))
                self._release_waiters()
                self._changed.notify_all()


def _resolve(futures: list[asyncio.Future[None]]) -> None:
    for future in futures:
        if not future.done():  # (a cancelled waiter)
            future.set_result(None)
