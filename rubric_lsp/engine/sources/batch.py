"""Batch mode (``rubric grade --batch``): the judge calls go through the provider's batch API.

The grading runs in rounds of *collect → batch → replay* (``grade_in_rounds``), each pass being the
whole grading run again with the run file active, so memory stays what a live graded run keeps
(flat in the number of items: the dataset's window stays on, engine/windowed.py):

1. A pass runs the grading. ``Judge.ask`` does what it does live (run-file replay, verdict cache,
   redaction, parsing) up to the step that gets the reply text; there, while a ``BatchMode`` is
   active in the context (``activate``, like ``run_file.activate``), it hands the call to
   ``BatchMode.ask``, which writes its request line to the round's batch input (a temporary file:
   ``custom_id`` = the call's verdict-cache key, so identical requests share one line) and raises
   ``Pending`` at once. A grader takes ``Pending`` for a judge failure, so the item finishes at once
   and the window moves on. ``Pending`` is counted (``BatchMode.pending``) and a pass that met one is
   discarded whole: nothing built from it is returned, shown, recorded in the run file or cached.
2. After the pass, ``settle_round`` uploads each input file and creates its batch (one per judge
   model and endpoint, split at the provider's limits: 50,000 requests, 200 MB per file for OpenAI),
   polls it every ``poll_seconds`` with a status line on stderr, downloads the output and error files
   (through litellm's streaming download into a temporary file, parsed from it a line at a time: never
   held whole) and records every reply in the run file's replies table, keyed and with
   its usage as a live call records it. A failed line is kept in memory as that call's JudgeFailure.
3. The next pass replays every recorded reply (no judge call) and raises the failures: a pass in
   which no call was pending is the result, the same verdicts and figures as live grading gives for
   the same replies. A grader whose later calls depend on earlier replies meets new calls in the
   replay pass: they make the next round's batch, until a pass asks nothing new (so a one-round
   grader costs one batch and two passes; a pass costs a few seconds of CPU for 50,000 calls).

The lines are litellm's own parameter mapping of the live request (``get_optional_params``:
``max_completion_tokens`` for reasoning models, unsupported parameters dropped). A status line
(batch id, status, done/failed/total, elapsed) goes to stderr whenever the status or the counts
change, else every ``STATUS_EVERY_SECONDS``.

Failures (result lines: batch_results.py): a line in the error file, an output line with a non-200
status or one that cannot be read (a ``usage`` that is not a number) fails that call only (a
``JudgeFailure``: never a verdict, never the run). A batch that ends expired, failed or cancelled fails every
call it did not answer, naming the batch and its status. Polling errors are retried with
back-off; after ``MAX_POLL_ERRORS`` in a row the batch's calls fail with a message saying the
batch still runs at the provider and ``--resume`` picks it up.

The run file (required): every uploaded input file is recorded before its batch is created, then
the batch id and status (``RunFile.put_batch`` / ``update_batch``). A resumed run's pass replays what
was recorded; a call whose key is in a recorded, unresolved batch is pending on that batch, which the
round then polls and downloads (never uploaded or created again). A batch counts as resolved once its
replies are recorded. A process stopped between passes loses nothing: the replies are in the run file
and the next run's first pass replays them. Ctrl-C or a crash cancels nothing at the provider: a
submitted batch is paid for, and resuming the run collects it. (Only the moment between the provider
creating a batch and the run file recording its id is unprotected: a resume then creates a second
batch from the recorded file.) Failed lines are not recorded: a resume asks them again.

Providers: litellm's files + batches API for OpenAI (and OpenAI-compatible servers at an
``api_base``: the same endpoints) and Azure OpenAI; the other providers' batch APIs need a
cloud bucket (Vertex, Bedrock) or another request format (Anthropic), so ``check_supported``
refuses them with one line. Usage comes from each output line's ``usage``; cost uses litellm's
batch prices (``input_cost_per_token_batches`` / ``output_cost_per_token_batches``) where its
model map has them, else half the live price (OpenAI's and Azure's batch discount), zero for a
model served at a local ``api_base`` that litellm does not know (as live grading counts it),
and unknown (None) otherwise.
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, Any, TypeVar

from rubric_lsp.engine.errors import within_deadline
from rubric_lsp.engine.failures import JudgeFailure, classify
from rubric_lsp.engine.settings import provider_of
from rubric_lsp.engine.sources.batch_results import ENDPOINT, Judge, answered_twice
from rubric_lsp.engine.sources.batch_results import PROVIDERS as _PROVIDERS
from rubric_lsp.engine.sources.batch_results import download as _download
from rubric_lsp.engine.sources.batch_results import line as _line
from rubric_lsp.engine.sources.batch_results import lines as _lines
from rubric_lsp.engine.sources.batch_results import response as _response
from rubric_lsp.engine.sources.batch_results import status_line as _status_line
from rubric_lsp.engine.store.run_file import RecordedBatch, RunFile
from rubric_lsp.engine.store.run_file import activate as activate_run_file
from rubric_lsp.engine.transports.via_litellm import load_litellm_async, loaded_litellm, reply_content
from rubric_lsp.engine.usage import Usage

T = TypeVar("T")

MAX_REQUESTS = 50_000  # OpenAI's limit per batch
MAX_BYTES = 190 * 1024 * 1024  # OpenAI's file limit is 200 MB: keep a margin for the multipart framing
MAX_POLL_ERRORS = 10
STATUS_EVERY_SECONDS = 300.0
FINAL = ("completed", "expired", "failed", "cancelled")
# litellm prices a finished batch in its success logging by downloading the whole output file a
# second time (and leaves a coroutine unawaited doing so); this mode reads the file once itself.
_NO_COST_LOGGING = {"batch_ignore_default_logging": True}


class BatchUnsupported(ValueError):
    """The judge's provider has no batch API this mode can use; the message is one line."""


def check_supported(model: str) -> None:
    """Raise BatchUnsupported when ``model``'s provider cannot be graded through a batch."""
    provider = provider_of(model)
    if provider not in _PROVIDERS:
        raise BatchUnsupported(
            f"--batch sends judge calls through OpenAI's or Azure OpenAI's batch API; the judge model "
            f"'{model}' is served by {provider or 'an unknown provider'}: grade it live (without --batch)"
        )


class Pending(JudgeFailure):
    """A call of a collect pass whose reply is not known yet: it is now a line of the round's batch
    (or waits on a batch a stopped run submitted). The pass that met it is discarded."""

    def __init__(self) -> None:
        super().__init__("infrastructure", "The reply to this call comes from a batch still to be sent.", "pending")


@dataclass
class _Chunk:
    """One batch input file being written: its lines go to a temporary file as they are collected."""

    file: IO[bytes] = field(default_factory=tempfile.TemporaryFile)  # closed by settle_round
    keys: list[str] = field(default_factory=list)
    size: int = 0


@dataclass
class _Group:
    """The lines of one round for one model and endpoint (a provider batch holds one model)."""

    judge: Judge
    chunks: list[_Chunk] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)  # identical requests share one line

    def add(self, key: str, fields: dict[str, Any]) -> None:
        if key in self.seen:
            return
        self.seen.add(key)
        line = _line(self.judge.model, key, fields)
        chunk = self.chunks[-1] if self.chunks else None
        if chunk is None or len(chunk.keys) >= MAX_REQUESTS or chunk.size + len(line) > MAX_BYTES:
            chunk = _Chunk()
            self.chunks.append(chunk)
        chunk.file.write(line)
        chunk.keys.append(key)
        chunk.size += len(line)


class BatchMode:
    """The active batch mode of one grading; see the module docstring."""

    def __init__(
        self,
        run: RunFile,
        *,
        poll_seconds: float = 30.0,
        status: Callable[[str], None] | None = None,
        deadline_seconds: float | None = None,
    ) -> None:
        self.run = run
        self.poll_seconds = poll_seconds
        self.deadline_seconds = deadline_seconds  # bounds the whole grading: every pass and every wait
        self.waiting: dict[str, str] = {}  # batch id -> its last status, while followed
        self._status = status or _stderr
        self.pending = 0  # calls of the current pass answered ``Pending``
        self._groups: dict[tuple[str, str | None, str | None], _Group] = {}
        self._failed: dict[str, JudgeFailure] = {}  # calls a batch answered with a failure (never recorded)
        self._fresh: set[str] = set()  # replies recorded from a batch, not yet put in the verdict cache
        # Resume: unresolved batches of the run file, by request key; followed once a pass needs one.
        self._recorded: dict[str, RecordedBatch] = {}
        self._needed: dict[str, tuple[Judge, RecordedBatch]] = {}
        for recorded in run.open_batches():
            for key in recorded.keys:
                self._recorded[key] = recorded

    # -- the judge's side --------------------------------------------------------------
    async def ask(self, judge: Judge, key: str, fields: dict[str, Any]) -> None:
        """A call the run file has no reply for: raises the JudgeFailure a batch gave it, else ``Pending``
        (after writing its line to the round's batch input, or noting the recorded batch it waits on)."""
        failure = self._failed.get(key)
        if failure is not None:  # a copy: raising one object again would chain its tracebacks
            raise JudgeFailure(failure.category, failure.message, failure.kind)
        self.pending += 1
        recorded = self._recorded.get(key)
        if recorded is not None:
            self._needed.setdefault(recorded.input_file_id, (judge, recorded))
            raise Pending()
        if loaded_litellm() is None:
            await load_litellm_async()  # the lines' bodies are litellm's parameter mapping
        # One batch per model and endpoint: graders make a judge per item (to count usage apart).
        group_key = (judge.model, judge.settings.api_base, judge.api_key)
        group = self._groups.get(group_key)
        if group is None:
            group = self._groups[group_key] = _Group(judge)
        group.add(key, fields)
        raise Pending()

    def took_fresh(self, key: str) -> bool:
        """Whether ``key``'s reply came from a batch of this process (and so still goes to the verdict
        cache once it parses, as a live reply does); true once per key."""
        if key in self._fresh:
            self._fresh.discard(key)
            return True
        return False

    # -- a round: submit what the pass collected, follow, record --------------------------------
    async def settle_round(self) -> None:
        """Submit the lines the pass collected and follow the recorded batches it waits on, until every
        pending call has a recorded reply or a failure."""
        groups, self._groups = list(self._groups.values()), {}
        needed, self._needed = list(self._needed.values()), {}
        work = [self._submit(group.judge, chunk) for group in groups for chunk in group.chunks]
        work += [self._resume(judge, recorded) for judge, recorded in needed]
        if not work:  # cannot happen (every Pending adds a line or a batch), but must never loop
            raise RuntimeError("a batch-mode pass was pending on nothing")
        try:
            await asyncio.gather(*work)
        finally:
            for group in groups:
                for chunk in group.chunks:
                    chunk.file.close()

    async def _submit(self, judge: Judge, chunk: _Chunk) -> None:
        litellm = await load_litellm_async()
        provider, target = _target(judge)
        keys = chunk.keys
        try:
            chunk.file.seek(0)  # streamed from the temporary file: the lines are not held in memory
            uploaded = await litellm.acreate_file(
                file=("rubric-batch.jsonl", chunk.file), purpose="batch", custom_llm_provider=provider, **target
            )
            chunk.file.close()
            self.run.put_batch(uploaded.id, judge.model, keys)
            batch = await _create_batch(litellm, uploaded.id, provider, target)
            self.run.update_batch(uploaded.id, batch_id=batch.id, status=str(batch.status))
        except Exception as exc:
            self._fail(keys, _failure(judge, exc, "submitting a batch"))
            return
        self._status(f"batch {batch.id}: submitted {len(keys)} calls to {judge.model}")
        outcome = await self._follow(judge, uploaded.id, str(batch.id), str(batch.status))
        self._settle(judge, uploaded.id, str(batch.id), outcome, keys)

    async def _resume(self, judge: Judge, recorded: RecordedBatch) -> None:
        """Follow a batch a stopped run submitted (never uploaded or created again)."""
        if recorded.batch_id is None:
            # Stopped between the upload and the batch's creation: create it from the uploaded file.
            litellm = await load_litellm_async()
            provider, target = _target(judge)
            try:
                batch = await _create_batch(litellm, recorded.input_file_id, provider, target)
            except Exception as exc:
                failure = _failure(judge, exc, "creating a batch")
                self._settle(judge, recorded.input_file_id, "", failure, list(recorded.keys))
                return
            self.run.update_batch(recorded.input_file_id, batch_id=batch.id, status=str(batch.status))
            batch_id, status = str(batch.id), str(batch.status)
        else:
            batch_id, status = recorded.batch_id, recorded.status
        self._status(f"batch {batch_id}: resumed ({len(recorded.keys)} calls, submitted by the stopped run)")
        outcome = await self._follow(judge, recorded.input_file_id, batch_id, status)
        self._settle(judge, recorded.input_file_id, batch_id, outcome, list(recorded.keys))

    def _settle(
        self,
        judge: Judge,
        input_file_id: str,
        batch_id: str,
        outcome: tuple[str, IO[bytes]] | JudgeFailure,
        keys: list[str],
    ) -> None:
        """Record a batch's outcome for its calls: each reply in the run file (keyed as live, with its
        usage), each failure in memory for the passes to come; later asks for its keys replay them."""
        for key in keys:
            self._recorded.pop(key, None)
        if isinstance(outcome, JudgeFailure):
            self._fail(keys, outcome)
            return
        status, results = outcome
        with results:
            self._record(judge, batch_id, status, results, set(keys))
        self.run.update_batch(input_file_id, resolved=True)

    # -- polling and collecting ---------------------------------------------------------------
    async def _follow(
        self, judge: Judge, input_file_id: str, batch_id: str, status: str
    ) -> tuple[str, IO[bytes]] | JudgeFailure:
        """Poll the batch (last seen with ``status``) until it ends; its final status and its result
        lines (in a temporary file the caller closes), or why they cannot be had."""
        # Waited for from now on, not from the first poll's answer: a deadline that lands during
        # that poll (seconds on a loaded machine) names the batch, not "preparing its batches".
        self.waiting[batch_id] = status
        litellm = await load_litellm_async()
        provider, target = _target(judge)
        started = time.monotonic()
        errors = 0
        shown, shown_at = "", 0.0
        while True:
            try:
                batch = await litellm.aretrieve_batch(
                    batch_id=batch_id, custom_llm_provider=provider, litellm_metadata=_NO_COST_LOGGING, **target
                )
                errors = 0
            except Exception as exc:
                errors += 1
                if errors >= MAX_POLL_ERRORS:
                    self.waiting.pop(batch_id, None)  # no longer followed (it may still run: _STILL_RUNS)
                    failure = _failure(judge, exc, f"polling batch {batch_id}")
                    return JudgeFailure(failure.category, f"{failure.message} {_STILL_RUNS}", failure.kind)
                await asyncio.sleep(min(self.poll_seconds * errors, 300.0))
                continue
            status = str(batch.status)
            line = _status_line(batch_id, status, batch, time.monotonic() - started)
            counts = line.split(": ", 1)[1].rsplit(",", 1)[0]  # the line without its elapsed time
            # A line when the status or the counts change, else every few minutes: a batch may take 24 h.
            if counts != shown or time.monotonic() - shown_at >= STATUS_EVERY_SECONDS:
                self._status(line)
                shown, shown_at = counts, time.monotonic()
            self.run.update_batch(input_file_id, status=status)
            self.waiting[batch_id] = status
            if status in FINAL:
                self.waiting.pop(batch_id, None)
                break
            await asyncio.sleep(self.poll_seconds)
        # The result files go to a temporary file as they arrive and are parsed from it a line at a time:
        # held whole, 50,000 lines (~25 MB) cost ~3x that at once, in memory the replay pass never got back.
        results = tempfile.TemporaryFile()  # noqa: SIM115 - handed to the caller, which closes it
        try:
            for file_id in (batch.output_file_id, batch.error_file_id):
                if file_id:
                    await _download(litellm, file_id, provider, target, results)
        except Exception as exc:
            results.close()
            failure = _failure(judge, exc, f"downloading the results of batch {batch_id}")
            return JudgeFailure(failure.category, f"{failure.message} {_STILL_RUNS}", failure.kind)
        results.seek(0)
        return status, results

    def _record(self, judge: Judge, batch_id: str, status: str, results: IO[bytes], expected: set[str]) -> None:
        recorded = 0
        twice = answered_twice(results)
        for key in twice & expected:  # which of two replies is the right one cannot be told: the call fails
            expected.discard(key)
            self._failed[key] = JudgeFailure(
                "parse",
                f"Judge model '{judge.model}' answered this call twice in batch {batch_id} (custom_id {key[:40]}): "
                "neither reply is taken.",
                "bad_reply",
            )
        for line in _lines(results):
            key = str(line.get("custom_id"))
            if key not in expected:
                continue
            expected.discard(key)
            usage = Usage(calls=1)
            try:
                content = judge.redacted(reply_content(_response(line, judge), usage))
            except JudgeFailure as failure:
                named = f"{failure.message} (batch {batch_id}, {status})"
                self._failed[key] = JudgeFailure(failure.category, named, failure.kind)
                continue
            except Exception as exc:  # a line of a shape no provider should write: that call fails, not the run
                self._failed[key] = JudgeFailure(
                    "parse",
                    f"Judge model '{judge.model}' answered this call with a result line that cannot be read "
                    f"({type(exc).__name__}: {str(exc)[:200]}) (batch {batch_id}, {status}).",
                    "bad_reply",
                )
                continue
            self.run.put(key, content, usage.to_json())
            if judge.cache is not None:  # (50,000 keys held for nothing under --no-cache: 7 MB)
                self._fresh.add(key)
            recorded += 1
            if recorded % 1000 == 0:
                self.run.flush()  # committed as they come: not 50,000 rows held for one transaction
        self.run.flush()
        if expected:
            reason = {
                "expired": "expired before the provider ran it (24 h completion window)",
                "failed": "failed at the provider (its input was rejected)",
                "cancelled": "was cancelled",
            }.get(status, "has no result for it")
            self._fail(
                expected,
                JudgeFailure(
                    "infrastructure", f"Batch {batch_id} of judge '{judge.model}' {reason}.", f"batch_{status}"
                ),
            )

    def _fail(self, keys: Iterable[str], failure: JudgeFailure) -> None:
        for key in keys:
            self._failed[key] = failure


async def grade_in_rounds(mode: BatchMode, grade_once: Callable[[], Awaitable[T]]) -> T:
    """Grade through ``mode`` in rounds of collect → batch → replay (see the module docstring).

    ``grade_once`` runs the whole grading once (a new awaitable each time). A pass in which any call
    was pending is discarded and the round's batches are settled; the first pass in which every call
    replayed (or failed for good) is the result. The passes run with ``mode`` and its run file active
    (the replay needs both). ``mode.deadline_seconds`` bounds the whole: the passes and the waits
    for the provider alike (bounding each pass only, a batch that never finished was polled forever)."""

    def waiting() -> str:
        batches = ", ".join(f"batch {b} {status}" for b, status in mode.waiting.items())
        return f"waiting for {batches}" if batches else "preparing its batches"

    return await within_deadline(_rounds(mode, grade_once), mode.deadline_seconds, waiting)


async def _rounds(mode: BatchMode, grade_once: Callable[[], Awaitable[T]]) -> T:
    while True:
        mode.pending = 0
        with activate_run_file(mode.run), activate(mode):
            result = await grade_once()
        if mode.pending == 0:
            return result
        del result  # holds Pending outcomes: never returned, shown, recorded or cached
        await mode.settle_round()


_STILL_RUNS = "The batch may still run at the provider: `rubric grade --resume RUN.sqlite` collects it."


def _target(judge: Judge) -> tuple[str, dict[str, Any]]:
    """litellm's provider for the files / batches calls and where they go (api_base, the judge's key)."""
    provider = _PROVIDERS.get(provider_of(judge.model), "openai")
    target: dict[str, Any] = {}
    if judge.settings.api_base:
        target["api_base"] = judge.settings.api_base
    if judge.api_key is not None:
        target["api_key"] = judge.api_key
    return provider, target


def _failure(judge: Judge, exc: Exception, doing: str) -> JudgeFailure:
    failure, _, _ = classify(exc, judge.model, judge.settings.environ(), loaded_litellm())
    return JudgeFailure(failure.category, f"{failure.message} (while {doing})", failure.kind)


def _stderr(line: str) -> None:
    print(f"rubric grade: {line}", file=sys.stderr, flush=True)


_active: contextvars.ContextVar[BatchMode | None] = contextvars.ContextVar("rubric_batch_mode", default=None)


async def _create_batch(litellm: Any, input_file_id: str, provider: str, target: dict[str, Any]) -> Any:
    """Create the provider's batch over an uploaded input file (a new run's, or a stopped run's)."""
    return await litellm.acreate_batch(
        completion_window="24h",
        endpoint=ENDPOINT,
        input_file_id=input_file_id,
        custom_llm_provider=provider,
        metadata={"created_by": "rubric-lsp"},
        **target,
    )


def active() -> BatchMode | None:
    """The batch mode of the grading running in this context (None: judge calls go live)."""
    return _active.get()


@contextmanager
def activate(mode: BatchMode) -> Iterator[BatchMode]:
    """Send every judge call made in this context (and tasks started from it) through ``mode``."""
    token = _active.set(mode)
    try:
        yield mode
    finally:
        _active.reset(token)
