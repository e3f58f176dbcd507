"""The run file: one grading's request, every judge reply as it lands, and its final figures, in SQLite.

``rubric grade DATASET --run run.sqlite`` creates it; ``--resume run.sqlite`` continues a stopped
run. While a run file is active (``activate``), ``Judge.ask`` looks each request up here before
calling the judge and records the reply right after it arrives, so a resumed run asks the judge
only what the stopped one never heard back, and replays the rest: the same replies, parsed the
same way, give the same verdicts and figures.

Durability: WAL mode; replies are committed by a writer thread (``sqlite_writer.RowWriter``),
all those that landed since its last commit in one transaction, so a process killed at any moment
(SIGKILL, Ctrl-C, a crash) loses the calls in flight and the replies that landed since the thread's
last commit began (at most ``RECORD_LINGER_SECONDS``, 50 ms, of them); no judge call is sent while
``--concurrency`` replies are waiting for the thread (``recorded``, which commits them at once rather
than wait out the linger), so a kill loses at most twice the concurrency, and a
resume asks exactly those again. ``synchronous=NORMAL`` keeps every commit across a process kill
(only a power loss can drop the last ones, which a resume then asks again). A transaction per
reply on the event loop cost ~0.25 ms of CPU per judge call (measured at 64 concurrent calls; its
WAL pages), and one per loop turn still ~10 % of the loop's time. A new run looks up only the
replies it recorded itself (a dataset asking the same thing twice), not every call. Each reply row also holds that call's usage (HTTP requests, retries, tokens, cost), which a
resume adds back, so the usage a finished run reports covers the whole run, not the last leg.

Only replies the judge actually gave are recorded (one that does not parse included: replaying
it fails the same way); a call that got no reply (timeout, rate limit, server error after every
retry) is not, and is asked again on resume. No API key is stored: replies are redacted before
they reach here, and the request holds only verdict-changing settings, never the environment.

Faults (issue 26; run_guard.py): one process at a time holds a run file (a lock beside it, naming
the holder); the first write that fails (a full disk, an I/O error) stops the grading before its
next judge call with one line saying what failed and how to resume (``RunFileError``), and what was
committed before it stays whole (SQLite's transactions); a resume checks the file first
(``PRAGMA quick_check``) and refuses a damaged one, copying what still reads into a salvaged file.

Batch mode (``--batch``, engine/sources/batch.py) also records each batch it submits (table ``batches``:
input file id, batch id, model, the request keys of its lines, status, resolved), so a resume
polls and downloads a batch already paid for instead of submitting its calls again.
"""

from __future__ import annotations

import contextvars
import dataclasses
import hashlib
import json
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rubric_lsp.engine.failures import GradingStopped
from rubric_lsp.engine.store.cache import KeyFilter, canonical_json
from rubric_lsp.engine.store.run_guard import RunInUse, RunLock, damage, read_request, salvage
from rubric_lsp.engine.store.sqlite_writer import RowWriter, connect

RUN_FILE_FORMAT = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY,
    content TEXT NOT NULL,
    usage TEXT NOT NULL,
    recorded_at REAL NOT NULL DEFAULT (julianday('now'))
);
CREATE TABLE IF NOT EXISTS batches (
    input_file_id TEXT PRIMARY KEY,
    batch_id TEXT,
    model TEXT NOT NULL,
    keys TEXT NOT NULL,
    status TEXT NOT NULL,
    resolved INTEGER NOT NULL DEFAULT 0,
    recorded_at REAL NOT NULL DEFAULT (julianday('now'))
);
"""


# How long a recorded reply waits for others before the writer thread commits them together (RowWriter's
# ``linger``). A commit per loop turn was ~730 commits per 5,000 calls at 64 in flight: the writer thread
# took ~0.3 s of CPU and handing rows over cost the loop more (bench/bench_scale.py, 1,000 x 5: 0.47 ->
# 0.39 ms of CPU per call, medians of 3). A kill loses at most this long's replies, and never more than
# ``recorded``'s bound: a caller held back by that bound has the rows committed at once.
RECORD_LINGER_SECONDS = 0.05
WRITTEN_KEYS = 500_000  # what a new run's filter of recorded keys is sized for (more only adds queries)


class RunFileError(GradingStopped):
    """The run file cannot be created, read, written or resumed; the message is one line saying why
    (and how to go on). Raised mid-grading, it stops the grading: never a judge failure."""


@dataclass(frozen=True)
class RecordedBatch:
    """One batch a run submitted (``--batch``): the uploaded input file, the provider's batch id (None
    when the process stopped between the upload and the batch's creation), the judge model and the
    request keys its lines hold."""

    input_file_id: str
    batch_id: str | None
    model: str
    keys: tuple[str, ...]
    status: str


@dataclass(frozen=True)
class Recorded:
    """One recorded reply: the judge's (redacted) text and the usage the call took."""

    content: str
    usage: Mapping[str, Any]


# Settings that change how a run goes (speed, patience, where replies are cached), never what it
# finds; every other setting, including any added later, must match for a resume. ``env`` holds
# credentials and is never stored.
RUN_ONLY_SETTINGS = frozenset(
    {
        "concurrency",
        "rpm",
        "tpm",
        "timeout_seconds",
        "deadline_seconds",
        "cache_enabled",
        "cache_dir",
        "max_retries",
        "retry_server_errors",
        "env",
        "model_ids",  # how model ids are spelled; the model itself is stored, resolved
    }
)


def describe_request(text: str, kind: str, settings: Any, fields: Mapping[str, Any]) -> dict[str, Any]:
    """What a run is, as stored and compared on resume: the file's content hash, the request's kind,
    every verdict-changing field of ``settings`` (resolved ``JudgeSettings``) and the request's own
    ``fields`` (responses, limit, ...)."""
    chosen = {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings)}
    chosen = {name: value for name, value in chosen.items() if name not in RUN_ONLY_SETTINGS}
    if chosen.get("api_base"):  # a URL may carry a token: compared by its hash only
        chosen["api_base"] = hashlib.sha256(str(chosen["api_base"]).encode("utf-8")).hexdigest()
    return {
        "format": RUN_FILE_FORMAT,
        "file_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "kind": kind,
        **json.loads(canonical_json({**chosen, **fields})),
    }


class RunFile:
    """An open run file. Use ``create`` or ``resume``; ``close`` when done."""

    def __init__(self, path: Path, connection: sqlite3.Connection, lock: RunLock | None = None) -> None:
        self.path = path
        self._lock = lock
        self._stopped: RunFileError | None = None  # the first failed write, raised from then on
        self._db = connection  # reads, and the few writes other than replies (under the writer's lock)
        self._writer = RowWriter(
            lambda: connect(str(path)),
            "INSERT OR REPLACE INTO replies (key, content, usage) VALUES (?, ?, ?)",
            linger=RECORD_LINGER_SECONDS,
        )
        # A new run: the keys it recorded (nothing else is in it), as a Bloom filter (a set of 50,000
        # keys held 7 MB); a false positive costs one query.
        self._written: KeyFilter | None = None

    # -- opening ----------------------------------------------------------------------
    @classmethod
    def create(cls, path: Path, request: Mapping[str, Any]) -> RunFile:
        """A new run file for ``request``; refuses a path that already holds a run."""
        lock = _locked(path)
        try:
            if path.exists() and path.stat().st_size > 0:
                raise RunFileError(f"{path} already holds a run: continue it with --resume {path}, or remove it first")
            run = cls._open(path, lock)
        except BaseException:
            lock.release()
            raise
        try:
            with run._writer.lock, run._db:
                run._db.execute("INSERT INTO meta VALUES ('request', ?)", (canonical_json(request),))
        except sqlite3.Error as exc:
            run.close()
            raise RunFileError(f"cannot write the run file {path}: {exc}") from None
        run._written = KeyFilter(WRITTEN_KEYS)
        return run

    @classmethod
    def resume(cls, path: Path, request: Mapping[str, Any], defaults: Mapping[str, Any] | None = None) -> RunFile:
        """The run in ``path``, when it was started for this same ``request``; RunFileError otherwise.

        ``defaults``: fields a newer release added (a format's new grading option) and the value they
        had before it: a run file without such a field holds that value, so it still resumes."""
        if not path.is_file():
            raise RunFileError(f"no run file at {path}: start one with --run {path}")
        lock = _locked(path)
        try:
            run = cls._open(path, lock)
        except BaseException:
            lock.release()
            raise
        try:
            stored = run._checked_request()
            if stored is None:
                raise RunFileError(f"{path} holds no run request: start a new run with --run")
            differs = _differing(stored, request, json.loads(canonical_json(dict(defaults or {}))))
            if differs:
                raise RunFileError(
                    f"{path} was started for a different grading ({_differences(differs)} changed): "
                    "resume with the same file and flags, or start a new run with --run"
                )
        except BaseException:
            run.close()
            raise
        return run

    @classmethod
    def _open(cls, path: Path, lock: RunLock) -> RunFile:
        try:
            db = connect(str(path))
        except sqlite3.DatabaseError as exc:
            raise RunFileError(f"cannot open the run file {path}: {exc}") from None
        try:
            db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            db.close()
            raise RunFileError(f"cannot open the run file {path}: {exc}") from None
        return cls(path, db, lock)

    def _checked_request(self) -> dict[str, Any] | None:
        """The recorded request of a file SQLite finds whole; RunFileError (one line) for a damaged
        one, after copying what still reads into a salvaged file beside it when the request reads."""
        found = damage(self._db)
        if found is None:
            try:
                return read_request(self._db)
            except (sqlite3.DatabaseError, ValueError) as exc:
                found = str(exc)
                if not isinstance(exc, sqlite3.DatabaseError):  # a whole file whose request is wrong
                    raise RunFileError(
                        f"{self.path} does not hold a run request this version can read ({found}): "
                        "start a new run with --run"
                    ) from None
        try:
            saved = salvage(self._db, self.path, _SCHEMA)
        except (sqlite3.Error, OSError):
            saved = None
        damaged = f"{self.path} is damaged (SQLite's quick_check: {found})"
        if saved is None:
            raise RunFileError(
                f"{damaged} and its request cannot be read: nothing in it can be resumed; start a new run with --run"
            )
        target, replies = saved
        raise RunFileError(
            f"{damaged}; the {replies} replies and the request that read cleanly are copied to {target}: "
            f"continue with --resume {target}"
        )

    def close(self) -> None:
        """Commit what is pending and close; a failed write already reported is not raised again."""
        try:
            try:
                self._writer.close()
            except (sqlite3.Error, OSError) as exc:
                if self._stopped is None:
                    raise self._failed(exc) from None
        finally:
            self._db.close()
            if self._lock is not None:
                self._lock.release()

    def _failed(self, exc: BaseException, doing: str = "write to") -> RunFileError:
        """The ``RunFileError`` a failed write or read of the run file means; the first one is kept and
        raised again by every later use, so no judge call goes out once the record is broken."""
        if self._stopped is None:
            try:
                kept = f"{self._count_replies()} replies are recorded"
            except sqlite3.Error:
                kept = "what was recorded before it is kept"
            self._stopped = RunFileError(
                f"cannot {doing} the run file {self.path}: {exc}; the grading stopped before its next judge call "
                f"({kept}): free some space or fix the cause, then continue with --resume {self.path}"
            )
        return self._stopped

    def _check(self) -> None:
        if self._stopped is not None:
            raise self._stopped
        try:
            self._writer.check()
        except (sqlite3.Error, OSError) as exc:
            raise self._failed(exc) from None

    # -- contents -----------------------------------------------------------------------
    def request(self) -> dict[str, Any] | None:
        return self._meta("request")

    def figures(self) -> Any:
        """The final figures of a finished run (its JSON result), or None while unfinished."""
        return self._meta("figures")

    def get(self, key: str) -> Recorded | None:
        self._check()
        pending = self._writer.pending(key)
        if pending is not None:
            row: tuple[str, str] | None = pending[1:]
        elif self._written is not None and key not in self._written:
            row = None  # a new run holds only what it recorded
        else:
            try:
                row = self._db.execute("SELECT content, usage FROM replies WHERE key = ?", (key,)).fetchone()
            except sqlite3.DatabaseError as exc:
                raise self._failed(exc, "read") from None
        if row is None or not isinstance(row[0], str):  # (a row of another type is asked again)
            return None
        try:
            usage = json.loads(row[1])
        except (TypeError, ValueError):
            usage = {}
        return Recorded(row[0], usage if isinstance(usage, dict) else {})

    def put(self, key: str, content: str, usage: Mapping[str, Any]) -> None:
        """Record one reply: committed by the writer thread, with whatever else landed meanwhile."""
        self._check()
        self._writer.put(key, (key, content, canonical_json(usage)))
        if self._written is not None:
            self._written.add(key)

    def flush(self) -> None:
        """Wait until every recorded reply is committed."""
        self._check()
        try:
            self._writer.flush()
        except (sqlite3.Error, OSError) as exc:
            raise self._failed(exc) from None

    async def recorded(self, lag: int) -> None:
        """Until at most ``lag`` recorded replies are not committed yet: the grading awaits this
        before each judge call with its concurrency as ``lag``, so a kill loses at most the calls in
        flight and as many landed replies (``RowWriter.settled``)."""
        self._check()
        await self._writer.settled(lag)
        self._check()

    # -- batches (batch mode: engine/sources/batch.py) -------------------------------------------
    def put_batch(self, input_file_id: str, model: str, keys: list[str], status: str = "uploaded") -> None:
        """Record an uploaded batch input file before its batch is created (durable once this returns)."""
        self._write(
            "INSERT OR REPLACE INTO batches (input_file_id, model, keys, status) VALUES (?, ?, ?, ?)",
            (input_file_id, model, canonical_json(keys), status),
        )

    def update_batch(
        self, input_file_id: str, *, batch_id: str | None = None, status: str | None = None, resolved: bool = False
    ) -> None:
        self._write(
            "UPDATE batches SET batch_id = coalesce(?, batch_id), status = coalesce(?, status),"
            " resolved = max(resolved, ?) WHERE input_file_id = ?",
            (batch_id, status, int(resolved), input_file_id),
        )

    def _write(self, sql: str, parameters: tuple[Any, ...]) -> None:
        """One write besides the replies (batches, figures), in a transaction of its own."""
        self._check()
        try:
            with self._writer.lock, self._db:
                self._db.execute(sql, parameters)
        except sqlite3.Error as exc:
            raise self._failed(exc) from None

    def open_batches(self) -> list[RecordedBatch]:
        """Batches submitted but not yet resolved (their replies not all handed to the grading)."""
        rows = self._db.execute(
            "SELECT input_file_id, batch_id, model, keys, status FROM batches WHERE resolved = 0 ORDER BY rowid"
        ).fetchall()
        found = []
        for r in rows:
            try:
                keys = json.loads(r[3])
            except (TypeError, ValueError):
                keys = None
            if isinstance(r[0], str) and isinstance(keys, list):  # (an unreadable row: its calls are asked again)
                found.append(RecordedBatch(r[0], r[1], str(r[2]), tuple(str(k) for k in keys), str(r[4])))
        return found

    def replies(self) -> int:
        self.flush()
        return self._count_replies()

    def _count_replies(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM replies").fetchone()[0])

    def finish(self, figures: Any) -> None:
        self.flush()
        self._write("INSERT OR REPLACE INTO meta VALUES ('figures', ?)", (canonical_json(figures),))

    def _meta(self, name: str) -> Any:
        row = self._db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        try:
            return None if row is None else json.loads(row[0])
        except (TypeError, ValueError):
            return None


_active: contextvars.ContextVar[RunFile | None] = contextvars.ContextVar("rubric_run_file", default=None)


def active() -> RunFile | None:
    """The run file of the grading running in this context (None: no run file)."""
    return _active.get()


@contextmanager
def activate(run: RunFile) -> Iterator[RunFile]:
    """Make ``run`` the run file of every judge call made in this context (and tasks started from it)."""
    token = _active.set(run)
    try:
        yield run
    finally:
        _active.reset(token)


def _locked(path: Path) -> RunLock:
    """The run's lock, taken (RunFileError naming the holder when another process has it)."""
    lock = RunLock(path)
    try:
        lock.acquire(path)
    except RunInUse as exc:
        raise RunFileError(str(exc)) from None
    except OSError as exc:
        raise RunFileError(f"cannot lock the run file {path} ({lock.path}: {exc.strerror or exc})") from None
    return lock


def _differing(stored: Mapping[str, Any], request: Mapping[str, Any], defaults: Mapping[str, Any]) -> list[str]:
    """The fields whose values differ, a field missing on one side reading as its default (if it has one)."""
    missing = object()

    def value(side: Mapping[str, Any], name: str) -> Any:
        return side.get(name, defaults.get(name, missing))

    return [name for name in sorted(set(stored) | set(request)) if value(stored, name) != value(request, name)]


def _differences(names: list[str]) -> str:
    labels = {"file_sha256": "the file's content", "kind": "what is graded"}
    return ", ".join(labels.get(name, name) for name in names)
