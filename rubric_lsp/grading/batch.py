"""Batch mode (``rubric grade --batch``): the judge calls go through the provider's batch API.

How it fits the live path: ``Judge.ask`` does everything it does live (run-file replay, verdict
cache, redaction, recording the reply in the run file, parsing) and only the step that gets the
reply text changes: while a ``BatchMode`` is active in the context (``activate``, like
``run_file.activate``), ``ask`` hands the request to ``BatchMode.ask`` instead of
``Judge._complete``. So the same replies give the same verdicts and figures as live grading.

How calls become batches: each call is queued as a request line (``custom_id`` = the call's
verdict-cache key, so identical requests share one line) with a future. A collector task waits
for quiescence (no new call for ``quiet_seconds``): the grading has then asked everything it can
ask before it hears back. It submits the queued lines, one batch per judge (a provider batch
holds one model), split at the provider's limits (50,000 requests, 200 MB per file for OpenAI),
polls each batch every ``poll_seconds`` with a status line on stderr, downloads the output and
error files and resolves the futures. Graders with several rounds (later calls depending on
earlier replies) simply produce further batches. The lines are litellm's own parameter mapping
of the live request (``get_optional_params``: ``max_completion_tokens`` for reasoning models,
unsupported parameters dropped), written to a temporary file that the upload streams, and the
result files are parsed a line at a time, so batch mode adds little memory to the grading's own.
A status line (batch id, status, done/failed/total, elapsed) goes to stderr whenever the status
or the counts change, else every ``STATUS_EVERY_SECONDS``.

This needs every call of a round in flight at once: a grading that bounded the items it keeps in
flight would send a batch per window, one after the other (so such a bound must not apply while
a ``BatchMode`` is active).

Failures: a line in the error file, or an output line with a non-200 status, fails that call
(a ``JudgeFailure``: never a verdict). A batch that ends expired, failed or cancelled fails every
call it did not answer, naming the batch and its status. Polling errors are retried with
back-off; after ``MAX_POLL_ERRORS`` in a row the batch's calls fail with a message saying the
batch still runs at the provider and ``--resume`` picks it up.

The run file: every uploaded input file is recorded before its batch is created, then the
batch id and status (``RunFile.put_batch`` / ``update_batch``). A resumed run asks its calls
again; a call whose key is in a recorded, unresolved batch waits on that batch (polled and
downloaded, never uploaded or created again); calls already recorded replay as today. A batch
counts as resolved once every reply it holds was handed to the grading (and so recorded).
Ctrl-C or a crash cancels nothing at the provider: a submitted batch is paid for, and resuming
the run collects it. (Only the moment between the provider creating a batch and the run file
recording its id is unprotected: a resume then creates a second batch from the recorded file.)

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
import io
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import IO, TYPE_CHECKING, Any

from rubric_lsp.grading.failures import JudgeFailure, classify
from rubric_lsp.grading.run_file import RecordedBatch, RunFile
from rubric_lsp.grading.settings import provider_of

if TYPE_CHECKING:
    from rubric_lsp.grading.judge import Judge, Usage

ENDPOINT = "/v1/chat/completions"
MAX_REQUESTS = 50_000  # OpenAI's limit per batch
MAX_BYTES = 190 * 1024 * 1024  # OpenAI's file limit is 200 MB: keep a margin for the multipart framing
MAX_POLL_ERRORS = 10
STATUS_EVERY_SECONDS = 300.0
FINAL = ("completed", "expired", "failed", "cancelled")
# litellm prices a finished batch in its success logging by downloading the whole output file a
# second time (and leaves a coroutine unawaited doing so); this mode reads the file once itself.
_NO_COST_LOGGING = {"batch_ignore_default_logging": True}
_PROVIDERS = {"openai": "openai", "hosted_vllm": "openai", "azure": "azure"}


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


@dataclass
class _Call:
    key: str
    fields: dict[str, Any]  # as the judge asks live (the key is their hash)
    futures: list[asyncio.Future[tuple[str, Usage]]] = field(default_factory=list)


@dataclass
class _Group:
    judge: Judge
    calls: dict[str, _Call] = field(default_factory=dict)


class BatchMode:
    """The active batch mode of one grading; see the module docstring."""

    def __init__(
        self,
        run: RunFile | None,
        *,
        poll_seconds: float = 30.0,
        quiet_seconds: float = 1.0,
        status: Callable[[str], None] | None = None,
    ) -> None:
        self.run = run
        self.poll_seconds = poll_seconds
        self.quiet_seconds = quiet_seconds
        self._status = status or _stderr
        self._pending: dict[tuple[str, str | None, str | None], _Group] = {}
        self._last_added = 0.0
        self._collector: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        # Resume: unresolved batches of the run file, by request key; followed once a call needs one.
        self._recorded: dict[str, RecordedBatch] = {}
        self._waiting: dict[str, _Call] = {}
        self._followed: set[str] = set()
        for recorded in run.open_batches() if run is not None else []:
            for key in recorded.keys:
                self._recorded[key] = recorded

    # -- the judge's side --------------------------------------------------------------
    async def ask(self, judge: Judge, key: str, fields: dict[str, Any], usage: Usage) -> str:
        """The reply text for one call, from a batch; its usage is added to ``usage``. Raises JudgeFailure."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[tuple[str, Usage]] = loop.create_future()
        recorded = self._recorded.get(key)
        self._last_added = loop.time()
        if recorded is not None:
            self._waiting.setdefault(key, _Call(key, {})).futures.append(future)
            if recorded.input_file_id not in self._followed:
                self._followed.add(recorded.input_file_id)
                self._spawn(self._resume(judge, recorded))
        else:
            # One batch per model and endpoint: graders make a judge per item (to count usage apart).
            group = self._pending.setdefault((judge.model, judge.settings.api_base, judge._api_key), _Group(judge))
            call = group.calls.get(key)
            if call is None:
                call = group.calls[key] = _Call(key, fields)
            call.futures.append(future)
            if self._collector is None or self._collector.done():
                self._collector = asyncio.ensure_future(self._collect())
        content, line_usage = await future
        usage.merge(line_usage)
        return content

    # -- collecting and submitting -----------------------------------------------------------
    async def _collect(self) -> None:
        from rubric_lsp.grading.judge import load_litellm_async

        loop = asyncio.get_running_loop()
        await load_litellm_async()  # the lines' bodies are litellm's parameter mapping
        while self._pending:
            await asyncio.sleep(self.quiet_seconds)
            if loop.time() - self._last_added < self.quiet_seconds:
                continue  # calls still arriving
            groups, self._pending = list(self._pending.values()), {}
            for group in groups:
                for calls, file in _chunks(group.judge.model, group.calls.values()):
                    self._spawn(self._submit(group.judge, calls, file))

    def _spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _submit(self, judge: Judge, calls: list[_Call], file: IO[bytes]) -> None:
        from rubric_lsp.grading.judge import load_litellm_async

        litellm = await load_litellm_async()
        provider, target = _target(judge)
        keys = [call.key for call in calls]
        pending = {call.key: call for call in calls}
        try:
            with file:  # streamed from a temporary file: the lines are not held in memory
                uploaded = await litellm.acreate_file(
                    file=("rubric-batch.jsonl", file), purpose="batch", custom_llm_provider=provider, **target
                )
            if self.run is not None:
                self.run.put_batch(uploaded.id, judge.model, keys)
            batch = await litellm.acreate_batch(
                completion_window="24h",
                endpoint=ENDPOINT,
                input_file_id=uploaded.id,
                custom_llm_provider=provider,
                metadata={"created_by": "rubric-lsp"},
                **target,
            )
            if self.run is not None:
                self.run.update_batch(uploaded.id, batch_id=batch.id, status=str(batch.status))
        except Exception as exc:
            _fail_all(pending, _failure(judge, exc, "submitting a batch"))
            return
        self._status(f"batch {batch.id}: submitted {len(calls)} calls to {judge.model}")
        outcome = await self._follow(judge, uploaded.id, str(batch.id))
        self._settle(judge, uploaded.id, str(batch.id), outcome, pending)

    async def _resume(self, judge: Judge, recorded: RecordedBatch) -> None:
        """Follow a batch a stopped run submitted, for the calls this run asks again."""
        # Wait until the resumed grading has asked every call it can: a call asked after the batch
        # is settled would go into a new batch, paid for twice.
        loop = asyncio.get_running_loop()
        while loop.time() - self._last_added < self.quiet_seconds:
            await asyncio.sleep(self.quiet_seconds)
        if recorded.batch_id is None:
            # Stopped between the upload and the batch's creation: create it from the uploaded file.
            from rubric_lsp.grading.judge import load_litellm_async

            litellm = await load_litellm_async()
            provider, target = _target(judge)
            try:
                batch = await litellm.acreate_batch(
                    completion_window="24h",
                    endpoint=ENDPOINT,
                    input_file_id=recorded.input_file_id,
                    custom_llm_provider=provider,
                    metadata={"created_by": "rubric-lsp"},
                    **target,
                )
            except Exception as exc:
                self._settle(judge, recorded.input_file_id, "", _failure(judge, exc, "creating a batch"), {})
                return
            if self.run is not None:
                self.run.update_batch(recorded.input_file_id, batch_id=batch.id, status=str(batch.status))
            batch_id = str(batch.id)
        else:
            batch_id = recorded.batch_id
        self._status(f"batch {batch_id}: resumed ({len(recorded.keys)} calls, submitted by the stopped run)")
        outcome = await self._follow(judge, recorded.input_file_id, batch_id)
        self._settle(judge, recorded.input_file_id, batch_id, outcome, {})

    def _settle(
        self,
        judge: Judge,
        input_file_id: str,
        batch_id: str,
        outcome: tuple[str, list[bytes]] | JudgeFailure,
        pending: dict[str, _Call],
    ) -> None:
        """Hand a batch's outcome to its calls: those submitted here (``pending``) and those a resumed
        run asked that wait on it; later asks for its keys go to new batches."""
        for key in [key for key, recorded in self._recorded.items() if recorded.input_file_id == input_file_id]:
            del self._recorded[key]
            if key in self._waiting:
                pending[key] = self._waiting.pop(key)
        if isinstance(outcome, JudgeFailure):
            _fail_all(pending, outcome)
            return
        status, contents = outcome
        self._resolve(judge, batch_id, status, contents, pending)
        if self.run is not None:
            self.run.update_batch(input_file_id, resolved=True)

    # -- polling and collecting ---------------------------------------------------------------
    async def _follow(self, judge: Judge, input_file_id: str, batch_id: str) -> tuple[str, list[bytes]] | JudgeFailure:
        """Poll the batch until it ends; its final status and result lines, or why they cannot be had."""
        from rubric_lsp.grading.judge import load_litellm_async

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
            if self.run is not None:
                self.run.update_batch(input_file_id, status=status)
            if status in FINAL:
                break
            await asyncio.sleep(self.poll_seconds)
        try:
            contents = [
                await _download(litellm, file_id, provider, target)
                for file_id in (batch.output_file_id, batch.error_file_id)
                if file_id
            ]
        except Exception as exc:
            failure = _failure(judge, exc, f"downloading the results of batch {batch_id}")
            return JudgeFailure(failure.category, f"{failure.message} {_STILL_RUNS}", failure.kind)
        return status, contents

    def _resolve(
        self, judge: Judge, batch_id: str, status: str, contents: list[bytes], pending: dict[str, _Call]
    ) -> None:
        from rubric_lsp.grading.judge import Usage

        for line in _lines(contents):
            call = pending.pop(str(line.get("custom_id")), None)
            if call is None or not call.futures:
                continue
            try:
                usage = Usage(calls=1)
                content = judge._content(_response(line, judge), usage)
            except JudgeFailure as failure:
                named = f"{failure.message} (batch {batch_id}, {status})"
                _fail_all({call.key: call}, JudgeFailure(failure.category, named, failure.kind))
                continue
            first, *others = call.futures
            if not first.done():
                first.set_result((content, usage))
            for other in others:  # the same request asked twice: one line, its usage counted once
                if not other.done():
                    other.set_result((content, Usage()))
        if pending:
            reason = {
                "expired": "expired before the provider ran it (24 h completion window)",
                "failed": "failed at the provider (its input was rejected)",
                "cancelled": "was cancelled",
            }.get(status, "has no result for it")
            _fail_all(
                pending,
                JudgeFailure(
                    "infrastructure", f"Batch {batch_id} of judge '{judge.model}' {reason}.", f"batch_{status}"
                ),
            )


_STILL_RUNS = "The batch may still run at the provider: `rubric grade --resume RUN.sqlite` collects it."


def _status_line(batch_id: str, status: str, batch: Any, elapsed: float) -> str:
    counts = getattr(batch, "request_counts", None)
    done = getattr(counts, "completed", None) or 0
    failed = getattr(counts, "failed", None) or 0
    total = getattr(counts, "total", None) or 0
    minutes, seconds = divmod(int(elapsed), 60)
    return f"batch {batch_id}: {status}, {done}/{total} done, {failed} failed, {minutes}m{seconds:02d}s"


async def _download(litellm: Any, file_id: str, provider: str, target: dict[str, Any]) -> bytes:
    content = await litellm.afile_content(file_id=file_id, custom_llm_provider=provider, **target)
    raw = content.content if hasattr(content, "content") else content
    return raw if isinstance(raw, bytes) else str(raw).encode("utf-8")


def _lines(contents: list[bytes]) -> Iterator[dict[str, Any]]:
    """The result files' lines, parsed one at a time (50,000 parsed lines at once would be ~100 MB)."""
    for content in contents:
        for line in io.BytesIO(content):
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # an unreadable line leaves its call unanswered: it fails with the batch's message
            if isinstance(entry, dict):
                yield entry


def _response(line: dict[str, Any], judge: Judge) -> Any:
    """An output line as the object ``Judge._content`` reads (usage, choices[0].message, cost); a
    failed line raises the JudgeFailure it means."""
    response = _mapping(line.get("response"))
    error = line.get("error")
    status = response.get("status_code")
    body = _mapping(response.get("body"))
    if error or status != 200:
        detail = error if isinstance(error, dict) else (body.get("error") or {})
        message = detail.get("message") if isinstance(detail, dict) else None
        code = detail.get("code") if isinstance(detail, dict) else None
        if code == "batch_expired":
            message = "the batch expired before the provider ran it (24 h completion window)"
        what = f"HTTP {status}" if status else str(code or "an error")
        text = judge.redacted(str(message or "no message"))
        kind = (
            "rate_limit" if status == 429 else ("server" if isinstance(status, int) and status >= 500 else "batch_line")
        )
        raise JudgeFailure(
            "infrastructure", f"Judge model '{judge.model}' failed this call in a batch ({what}): {text}", kind
        )
    choices = [
        SimpleNamespace(message=SimpleNamespace(**choice["message"]))
        for choice in body.get("choices") or []
        if isinstance(choice, dict) and isinstance(choice.get("message"), dict)
    ]
    usage = _mapping(body.get("usage"))
    cost = _line_cost(judge.model, judge.settings.api_base, usage)
    return SimpleNamespace(usage=usage, choices=choices, _hidden_params={"response_cost": cost})


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _line_cost(model: str, api_base: str | None, usage: dict[str, Any]) -> float | None:
    from rubric_lsp.grading.judge import OPENAI_API_HOSTS, _litellm

    name = model.split("/", 1)[-1]
    prices = (_litellm.model_cost.get(model) or _litellm.model_cost.get(name)) if _litellm is not None else None
    if not prices:
        local = bool(api_base) and not any(host in (api_base or "") for host in OPENAI_API_HOSTS)
        return 0.0 if local else None
    prompt, completion = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
    price_in = prices.get("input_cost_per_token_batches")
    price_out = prices.get("output_cost_per_token_batches")
    if price_in is None or price_out is None:
        live_in, live_out = prices.get("input_cost_per_token"), prices.get("output_cost_per_token")
        if live_in is None or live_out is None:
            return None
        price_in, price_out = live_in / 2, live_out / 2
    return prompt * float(price_in) + completion * float(price_out)


def _target(judge: Judge) -> tuple[str, dict[str, Any]]:
    """litellm's provider for the files / batches calls and where they go (api_base, the judge's key)."""
    provider = _PROVIDERS.get(provider_of(judge.model), "openai")
    target: dict[str, Any] = {}
    if judge.settings.api_base:
        target["api_base"] = judge.settings.api_base
    if judge._api_key is not None:
        target["api_key"] = judge._api_key
    return provider, target


def _body(model: str, fields: dict[str, Any]) -> dict[str, Any]:
    """A batch line's request body: the chat-completions request live grading sends, addressed to the
    provider's own model name (the deployment on Azure), its parameters mapped by litellm as for a live
    call (``max_completion_tokens`` and no ``temperature`` for OpenAI's reasoning models, unsupported
    ones dropped); never a credential."""
    name = model.split("/", 1)[1] if "/" in model else model
    given = {p: fields[p] for p in ("temperature", "max_tokens", "response_format") if p in fields}
    try:
        from litellm.utils import get_optional_params

        mapped = get_optional_params(
            model=name, custom_llm_provider=_PROVIDERS.get(provider_of(model), "openai"), drop_params=True, **given
        )
        params = {p: v for p, v in mapped.items() if p not in ("stream", "extra_body") and v is not None}
    except Exception:  # a mapping litellm cannot make: send the parameters as given
        params = given
    return {"model": name, "messages": fields["messages"], **params}


def _line(model: str, call: _Call) -> bytes:
    entry = {"custom_id": call.key, "method": "POST", "url": ENDPOINT, "body": _body(model, call.fields)}
    return (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def _chunks(model: str, calls: Iterable[_Call]) -> Iterator[tuple[list[_Call], IO[bytes]]]:
    """The calls as batch input files within the provider's limits: each chunk's calls and its JSONL,
    written to a temporary file (rewound) so that a 50,000-line upload is not held in memory."""
    chunk: list[_Call] = []
    file: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - each file goes to _submit, which closes it
    size = 0
    for call in calls:
        line = _line(model, call)
        if chunk and (len(chunk) >= MAX_REQUESTS or size + len(line) > MAX_BYTES):
            file.seek(0)
            yield chunk, file
            chunk, file, size = [], tempfile.TemporaryFile(), 0  # noqa: SIM115 - as above
        file.write(line)
        chunk.append(call)
        size += len(line)
    file.seek(0)
    if chunk:
        yield chunk, file
    else:
        file.close()


def _failure(judge: Judge, exc: Exception, doing: str) -> JudgeFailure:
    from rubric_lsp.grading.judge import _litellm

    failure, _, _ = classify(exc, judge.model, judge.settings.environ(), _litellm)
    return JudgeFailure(failure.category, f"{failure.message} (while {doing})", failure.kind)


def _fail_all(calls: dict[str, _Call], failure: JudgeFailure) -> None:
    for call in calls.values():
        for future in call.futures:
            if not future.done():
                future.set_exception(failure)


def _stderr(line: str) -> None:
    print(f"rubric grade: {line}", file=sys.stderr, flush=True)


_active: contextvars.ContextVar[BatchMode | None] = contextvars.ContextVar("rubric_batch_mode", default=None)


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
