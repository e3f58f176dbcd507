"""One judge call: the run's rate limiter (``rate_limit.py``), retries, timeout, verdict cache
(what a failed call means is decided in ``failures.py``), through litellm. A local
OpenAI-compatible server litellm has no price for is called over the direct route instead
(``direct.py``: same request, same failures, a tenth of the CPU), and then litellm is never imported.

litellm is imported lazily (first call; ``transports.py``), with ``LITELLM_LOCAL_MODEL_COST_MAP=True``
set first so the import stays offline; nothing on the lint path imports this module's callers.
"""

from __future__ import annotations

import asyncio
import functools
import random
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from rubric_lsp.engine.failures import GradingStopped, JudgeFailure, classify, secret_values
from rubric_lsp.engine.limits.rate_limit import RateLimiter
from rubric_lsp.engine.limits.send_gate import send_gate
from rubric_lsp.engine.settings import JudgeSettings, api_key_for, provider_of
from rubric_lsp.engine.sources.batch import active as active_batch
from rubric_lsp.engine.store.cache import VerdictCache
from rubric_lsp.engine.store.run_file import active as active_run_file
from rubric_lsp.engine.transports.direct import complete as direct_complete
from rubric_lsp.engine.transports.direct import direct_model
from rubric_lsp.engine.transports.via_litellm import (
    after_first_call,
    litellm_route,
    load_litellm_async,
    loaded_litellm,
    register_local_model,
    reply_content,
)
from rubric_lsp.engine.usage import Usage, usage_from_json
from rubric_lsp.redaction import Redactor, environment_secrets

if TYPE_CHECKING:
    from rubric_lsp.engine.meter import Meter

T = TypeVar("T")
Messages = list[dict[str, Any]]  # a chat request's messages, as sent

# Bump when prompts or reply parsing change: cached verdicts from older prompts are ignored.
PROMPT_VERSION = "1"
# Which repetition of the same judgment this is (``rubric calibrate --repeat``): 0, the default, keys
# the verdict cache as always; each later one has keys of its own, so a repeat asks the judge again,
# and a re-run of the calibration replays the same samples from the cache.
REPEAT: ContextVar[int] = ContextVar("rubric_judge_repeat", default=0)

MAX_RETRY_AFTER_SECONDS = 60.0


@dataclass
class JudgeReply:
    content: str
    cached: bool = False


@dataclass
class Judge:
    """Calls one judge model. Share one ``limit`` between judges of a run."""

    settings: JudgeSettings  # resolved
    model: str
    limit: RateLimiter
    cache: VerdictCache | None
    usage: Usage = field(default_factory=Usage)
    meter: Meter | None = None  # the grading's progress figures (tokens, cost), if someone reads them

    def __post_init__(self) -> None:
        env = self.settings.environ()
        self._api_key = api_key_for(self.model, self.settings.api_base, env)  # raises before any call
        # Every credential this judge could send or read: its key (a key a format's config names
        # lands in settings.env), the settings' environment and the process's.
        self._secrets = [self._api_key, *secret_values(env), *environment_secrets(env), *environment_secrets()]
        self._redactor = Redactor(self._secrets)  # compiled once: every reply crosses it

    @property
    def api_key(self) -> str | None:
        """The key this judge sends (None: its provider needs none); batch mode sends it to the files API."""
        return self._api_key

    @functools.cached_property
    def _direct_name(self) -> str | None:
        """A local server litellm has no price for goes over the direct route (direct.py), without
        litellm: the model name to send there, or None. Looked up once per judge, not per call."""
        return direct_model(self.model, self.settings.api_base, self._api_key)

    def redacted(self, content: str) -> str:
        """The judge's reply without any configured key: the one boundary every reply crosses
        before it is parsed (and so shown as a reason, logged or returned) or cached."""
        return self._redactor(content)

    def request_fields(self, messages: Messages, response_format: dict[str, Any] | None) -> dict[str, Any]:
        fields: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.settings.api_base:
            fields["api_base"] = self.settings.api_base
        if self.settings.temperature is not None:
            fields["temperature"] = self.settings.temperature
        if self.settings.max_tokens is not None:
            fields["max_tokens"] = self.settings.max_tokens
        if response_format is not None and self._supports_schema():
            fields["response_format"] = response_format
        return fields

    def _supports_schema(self) -> bool:
        provider = provider_of(self.model)
        return provider in (
            "openai",
            "azure",
            "openrouter",
            "gemini",
            "vertex_ai",
            "hosted_vllm",
            "ollama_chat",
            "ollama",
            "github",
            "xai",
            "groq",
            "fireworks_ai",
            "deepseek",
            "mistral",
            "together_ai",
            "anthropic",
            "bedrock",
        )

    async def ask(
        self,
        messages: Messages | Callable[[], Messages],
        response_format: dict[str, Any] | None,
        parse: Callable[[str], T],
    ) -> tuple[T, bool]:
        """Ask the judge and parse its reply; returns (parsed, from_cache). Raises JudgeFailure.

        ``messages`` is best given as a function that builds them: it is called once this call holds
        one of the run's prompt turns (``RateLimiter.prompts``), and what it built is dropped when
        the call is done, so a grading of many criteria holds a bounded number of prompts (each
        embeds the response) however many criteria wait. What the function raises (a prompt
        the format's owner would refuse: a JudgeFailure) is raised from here.

        A reply is cached only once it parsed: failures are never cached.
        """
        async with self.limit.prompts:
            try:
                return await self._ask(messages() if callable(messages) else messages, response_format, parse)
            except JudgeFailure as failure:
                # Graders keep a failure (a vote, a verdict's error) until the grading ends: its traceback,
                # and what it was raised while handling, would keep this call's frames and so its prompt
                # (300 failed criteria held 300 copies of the response). Raised again from here, bare.
                failure.__traceback__ = failure.__context__ = failure.__cause__ = None
                raise failure from None

    async def _ask(
        self, messages: Messages, response_format: dict[str, Any] | None, parse: Callable[[str], T]
    ) -> tuple[T, bool]:
        fields = self.request_fields(messages, response_format)
        keyed = {"prompt_version": PROMPT_VERSION, **fields}
        if repeat := REPEAT.get():
            keyed["repeat"] = repeat  # a repeated ask is a call of its own, never the first one's cached reply
        key = VerdictCache.key(keyed)
        run = active_run_file()
        if run is not None and (recorded := run.get(key)) is not None:
            # A resumed run: this call finished before the stop; replay its reply and its usage.
            replayed = usage_from_json(recorded.usage)
            self.usage.merge(replayed)
            if self.meter is not None:
                self.meter.add(replayed)
            value = parse(self.redacted(recorded.content))
            if self.cache is not None and (batch := active_batch()) is not None and batch.took_fresh(key):
                self.cache.put(key, recorded.content)  # a batch's reply, cached once it parsed (as live)
            return value, bool(recorded.usage.get("from_cache"))
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                hit = self.redacted(hit)  # an entry written before replies were redacted
                try:
                    parsed = parse(hit)
                except JudgeFailure:
                    parsed = None
                if parsed is not None:
                    self.usage.cached += 1
                    if run is not None:
                        run.put(key, hit, {**Usage(cached=1).to_json(), "from_cache": True})
                    return parsed, True
        batch = active_batch()
        if batch is not None:
            # Batch mode (engine/sources/batch.py): the call goes into the round's batch and this pass is
            # discarded (raises Pending), or its batch line failed (raises that failure).
            await batch.ask(self, key, fields)
        call_usage = Usage()
        try:
            content = self.redacted(await self._complete(fields, call_usage))
        finally:
            self.usage.merge(call_usage)
            if self.meter is not None:
                self.meter.add(call_usage)
        if run is not None:
            # Recorded before parsing: a reply that does not parse replays as the same failure.
            run.put(key, content, call_usage.to_json())
        parsed = parse(content)
        if self.cache is not None:
            self.cache.put(key, content)
        return parsed, False

    async def _complete(self, fields: dict[str, Any], usage: Usage) -> str:
        """The judge's reply text; every attempt's requests, tokens and cost are counted in ``usage``."""
        direct = self._direct_name
        litellm: Any = None if direct is not None else await load_litellm_async()
        attempts = max(0, self.settings.max_retries) + 1
        timeout = self.settings.timeout_seconds
        call: dict[str, Any] = {}
        if litellm is not None:
            route = litellm_route(litellm, self.model, self.settings.api_base)
            if self.settings.api_base:
                register_local_model(litellm, route)
            # The verdict cache keys on the user's model (``fields``); the route is how it is reached.
            call = dict(fields, model=route, timeout=timeout, num_retries=0, max_retries=0, drop_params=True)
            if self._api_key is not None:
                call["api_key"] = self._api_key
        last: JudgeFailure | None = None
        tokens = self.limit.estimate(fields["messages"], self.settings.max_tokens) if self.limit.counts_tokens else 0
        for attempt in range(attempts):
            retry_after: float | None = None
            slot = self.limit.slot(tokens)
            try:
                async with slot, self._send_turn(direct) as request_sent:
                    await slot.sending()  # a Retry-After pause that began while this call waited its turn
                    if (run := active_run_file()) is not None:
                        await run.recorded(self.settings.concurrency)  # what a kill can lose, bounded
                    usage.calls += 1
                    if direct is not None:
                        # http1.post's deadline covers connecting, sending and reading: no backstop
                        # task needed (wait_for's task and timer are a tenth of this route's CPU).
                        assert self.settings.api_base and self._api_key is not None
                        response = await direct_complete(
                            self.settings.api_base, direct, fields, self._api_key, timeout, self.model, self.redacted
                        )
                    else:
                        attempt_call = call if request_sent is None else dict(call, logger_fn=request_sent)
                        # litellm's own timeout covers the HTTP call; wait_for is the backstop.
                        response = await asyncio.wait_for(litellm.acompletion(**attempt_call), timeout + 5.0)
                if litellm is not None:
                    after_first_call()
                prompt, completion = usage.prompt_tokens, usage.completion_tokens
                try:
                    return reply_content(response, usage)
                finally:
                    slot.settle(usage.prompt_tokens - prompt, usage.completion_tokens - completion)
            except asyncio.CancelledError:
                raise
            except asyncio.TimeoutError:
                last = JudgeFailure(
                    "infrastructure", f"Judge model '{self.model}' timed out after {timeout:g} s.", "timeout"
                )
                retryable = True
            except (JudgeFailure, GradingStopped):  # (GradingStopped: the run file failed; never retried)
                raise
            except Exception as exc:
                # The environment (for redaction) only on a failure: merging it costs ~0.05 ms a call.
                last, retryable, retry_after = classify(exc, self.model, self.settings.environ(), loaded_litellm())
                # litellm keeps a failed call's exception in the call's logging object, which its own frames
                # (in that exception's traceback) hold: a cycle, and this frame is in its traceback, so it
                # held this judge and its verdict cache (open SQLite files) until a full collection, or for
                # good once a freeze caught it (runtime/gc.py; a long-lived server). Classified: dropped.
                exc.__traceback__ = None
                if last.kind == "rate_limit":
                    slot.rate_limited(retry_after)  # may pause the whole run and cut its concurrency
                if last.kind == "server" and not self.settings.retry_server_errors:
                    retryable = False  # the format said a 5xx is final (settings.retry_server_errors)
            if not retryable or attempt == attempts - 1:
                break
            usage.retries += 1
            delay = retry_after if retry_after is not None else min(0.5 * 2**attempt, 8.0) * random.uniform(0.5, 1.0)
            await asyncio.sleep(min(delay, MAX_RETRY_AFTER_SECONDS))
        assert last is not None
        raise last

    def _send_turn(self, direct: str | None) -> AbstractAsyncContextManager[Any]:
        """litellm's route waits for its turn at the send gate; the direct route builds and sends without
        suspending, so it has nothing to interleave (direct.py)."""
        return nullcontext(None) if direct is not None else send_gate().turn(self.model)
