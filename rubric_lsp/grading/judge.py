"""One judge call: the run's rate limiter (``rate_limit.py``), retries, timeout, verdict cache
(what a failed call means is decided in ``failures.py``), through litellm. A local
OpenAI-compatible server litellm has no price for is called over the direct route instead
(``direct.py``: same request, same failures, a tenth of the CPU), and then litellm is never imported.

litellm is imported lazily (first call), with ``LITELLM_LOCAL_MODEL_COST_MAP=True`` set
first so the import stays offline; nothing on the lint path imports this module's callers.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import os
import random
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from rubric_lsp.grading.batch import active as active_batch
from rubric_lsp.grading.cache import VerdictCache
from rubric_lsp.grading.direct import complete as direct_complete
from rubric_lsp.grading.direct import direct_model
from rubric_lsp.grading.failures import MAX_REPLY_CHARS, GradingStopped, JudgeFailure, classify, secret_values
from rubric_lsp.grading.rate_limit import RateLimiter
from rubric_lsp.grading.run_file import active as active_run_file
from rubric_lsp.grading.send_gate import send_gate
from rubric_lsp.grading.settings import JudgeSettings, api_key_for, provider_of
from rubric_lsp.redaction import Redactor, environment_secrets

if TYPE_CHECKING:
    from rubric_lsp.grading.meter import Meter

T = TypeVar("T")

# Bump when prompts or reply parsing change: cached verdicts from older prompts are ignored.
PROMPT_VERSION = "1"

MAX_RETRY_AFTER_SECONDS = 60.0
_litellm: Any = None


def load_litellm() -> Any:
    """Import litellm once, offline and quiet. Blocking (several seconds): call off the event loop."""
    global _litellm
    if _litellm is None:
        os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
        # Quiet before the import: litellm 1.85 warns while importing (no botocore for Bedrock's
        # and SageMaker's stream shapes), which reached every `rubric grade`'s standard error.
        for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm", "httpx"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        import litellm

        litellm.suppress_debug_info = True
        litellm.telemetry = False
        _litellm = litellm
        _freeze_long_lived_objects()
    return _litellm


_frozen_after_first_call = False


def _freeze_long_lived_objects() -> None:
    """Take what exists now (litellm's modules, its model map) out of the cyclic collector.

    litellm leaves hundreds of thousands of long-lived objects behind; every full collection
    walks them all, a pause of 0.2-0.3 s on the event loop (measured), about one judge
    round trip, landing in the middle of a grading run. Frozen objects are still freed
    when their reference count drops; only cycles among them would stay, and module-level
    objects live for the whole process anyway.
    """
    gc.freeze()


async def load_litellm_async() -> Any:
    if _litellm is not None:
        return _litellm
    return await asyncio.get_running_loop().run_in_executor(None, load_litellm)


@dataclass
class Usage:
    calls: int = 0  # HTTP requests made (retries included)
    retries: int = 0  # of those, repeats of a failed request
    cached: int = 0  # verdicts served from the cache
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None

    def add(self, usage: Mapping[str, Any] | None, cost: float | None) -> None:
        """Add one reply's reported usage; a count that is not a number fails the call (JudgeFailure)."""
        if usage:
            self.prompt_tokens += token_count(usage, "prompt_tokens")
            self.completion_tokens += token_count(usage, "completion_tokens")
        if cost is not None:
            self.cost_usd = (self.cost_usd or 0.0) + cost

    def merge(self, other: Usage) -> None:
        self.calls += other.calls
        self.retries += other.retries
        self.cached += other.cached
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        if other.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + other.cost_usd

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "retries": self.retries,
            "cached": self.cached,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 8),
        }


def token_count(usage: Mapping[str, Any], name: str) -> int:
    """``usage[name]`` as a count of tokens (absent: 0). A provider that reports something else
    (``"12k"``, a negative or fractional count) gave a reply that cannot be accounted for: that one
    call fails, never the grading (an ``int()`` of it once stopped a batch run and every resume)."""
    value = usage.get(name)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 2**53 or value % 1:
        raise JudgeFailure(
            "parse", f"The judge's reply reports {name} as {str(value)[:40]!r}, not a number of tokens.", "bad_reply"
        )
    return int(value)


def usage_from_json(data: Mapping[str, Any]) -> Usage:
    """A ``Usage`` from its ``to_json`` form (a run file's record of one call)."""

    def count(name: str) -> int:
        value = data.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    cost = data.get("cost_usd")
    return Usage(
        calls=count("calls"),
        retries=count("retries"),
        cached=count("cached"),
        prompt_tokens=count("prompt_tokens"),
        completion_tokens=count("completion_tokens"),
        cost_usd=float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else None,
    )


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
        # Every credential this judge could send or read: its key (a promptfoo grader's apiKey /
        # apiKeyEnvar lands in settings.env), the settings' environment and the process's.
        self._secrets = [self._api_key, *secret_values(env), *environment_secrets(env), *environment_secrets()]
        self._redactor = Redactor(self._secrets)  # compiled once: every reply crosses it

    @functools.cached_property
    def _direct_name(self) -> str | None:
        """A local server litellm has no price for goes over the direct route (direct.py), without
        litellm: the model name to send there, or None. Looked up once per judge, not per call."""
        return direct_model(self.model, self.settings.api_base, self._api_key)

    def redacted(self, content: str) -> str:
        """The judge's reply without any configured key: the one boundary every reply crosses
        before it is parsed (and so shown as a reason, logged or returned) or cached."""
        return self._redactor(content)

    def request_fields(self, messages: list[dict[str, str]], response_format: dict[str, Any] | None) -> dict[str, Any]:
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
        self, messages: list[dict[str, str]], response_format: dict[str, Any] | None, parse: Callable[[str], T]
    ) -> tuple[T, bool]:
        """Ask the judge and parse its reply; returns (parsed, from_cache). Raises JudgeFailure.

        A reply is cached only once it parsed: failures are never cached.
        """
        fields = self.request_fields(messages, response_format)
        key = VerdictCache.key({"prompt_version": PROMPT_VERSION, **fields})
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
            # Batch mode (grading/batch.py): the call goes into the round's batch and this pass is
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
                _register_local_model(litellm, route)
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
                        # aiohttp's total timeout covers connecting, sending and reading: no backstop
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
                    _after_first_call()
                prompt, completion = usage.prompt_tokens, usage.completion_tokens
                try:
                    return self._content(response, usage)
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
                last, retryable, retry_after = classify(exc, self.model, self.settings.environ(), _litellm)
                if last.kind == "rate_limit":
                    slot.rate_limited(retry_after)  # may pause the whole run and cut its concurrency
                if last.kind == "server" and not self.settings.retry_server_errors:
                    retryable = False  # promptfoo's graders: a 5xx is final unless PROMPTFOO_RETRY_5XX
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

    def _content(self, response: Any, usage: Usage) -> str:
        try:
            reported: Any = getattr(response, "usage", None)  # litellm's Usage (a pydantic model), a dict or None
            usage_map = reported.model_dump() if hasattr(reported, "model_dump") else dict(reported or {})
        except Exception:
            usage_map = {}
        hidden = getattr(response, "_hidden_params", None) or {}
        cost = hidden.get("response_cost") if isinstance(hidden, dict) else None
        cost = float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else None
        usage.add(usage_map, cost)
        # kind "no_content": no message at all, or ``content: null`` (a refusal, a content
        # filter). Formats whose owner tells that apart from an unreadable text (autorubric:
        # an "unknown" failure) read the kind.
        try:
            message = response.choices[0].message
        except (AttributeError, IndexError, TypeError):
            raise JudgeFailure("parse", "The judge's reply has no message.", "no_content") from None
        content = getattr(message, "content", None)
        if content is None:
            raise JudgeFailure("parse", "The judge replied with an empty message (content: null).", "no_content")
        if not isinstance(content, str) or not content.strip():
            raise JudgeFailure("parse", "The judge replied with an empty message.", "bad_reply")
        if len(content) > MAX_REPLY_CHARS:  # a verdict and its reason fit in far less; never kept or printed whole
            raise JudgeFailure(
                "parse",
                f"The judge's reply is {len(content):,} characters, over the {MAX_REPLY_CHARS:,} limit.",
                "bad_reply",
            )
        return content


def _after_first_call() -> None:
    # litellm imports its provider modules on the first call; freeze those too, once.
    global _frozen_after_first_call
    if not _frozen_after_first_call:
        _frozen_after_first_call = True
        _freeze_long_lived_objects()


OPENAI_API_HOSTS = ("api.openai.com",)


def litellm_route(litellm: Any, model: str, api_base: str | None) -> str:
    """The model string litellm is called with for the user's ``model`` at ``api_base``.

    ``openai/<name>`` at an OpenAI-compatible server (vLLM, Ollama's /v1, llama.cpp, a
    gateway) goes through litellm's ``hosted_vllm`` route when ``<name>`` is not one of
    OpenAI's own models. Both routes send the same chat-completions request (hosted_vllm's
    parameter rules are OpenAI's GPT rules, the ones litellm applies to any model name it
    does not know); hosted_vllm sends it with litellm's own HTTP client instead of the
    OpenAI SDK, which costs about 40 % less CPU per call (measured: 2.9 vs 4.2-4.4 ms). At
    32 concurrent calls that CPU, serialised on one event loop, is what separates a grading
    run from the judge's latency. A known OpenAI model name (gpt-5-mini behind a proxy)
    keeps the openai route: litellm rewrites its parameters (max_completion_tokens, no
    temperature for reasoning models) only there.
    """
    if not api_base or not model.startswith("openai/"):
        return model
    name = model.split("/", 1)[1]
    if not name or any(host in api_base for host in OPENAI_API_HOSTS):
        return model
    try:
        known = litellm.model_cost.get(name) or litellm.model_cost.get(model)
    except Exception:
        return model
    if known is not None and known.get("litellm_provider") in ("openai", "text-completion-openai"):
        return model
    return f"hosted_vllm/{name}"


_registered: set[str] = set()


def _register_local_model(litellm: Any, model: str) -> None:
    """Give a model served from a local OpenAI-compatible server a zero price in litellm's map.

    litellm looks every response's price up; for a name it does not know, that search costs
    several milliseconds of CPU per call (measured), which at 32 concurrent calls costs more
    than the judge's latency. A local server's calls are free, so the price is truthfully 0.
    """
    if model in _registered:
        return
    _registered.add(model)
    try:
        if model in litellm.model_cost or model.split("/", 1)[-1] in litellm.model_cost:
            return
        provider = provider_of(model)
        litellm.register_model(
            {
                model: {
                    "input_cost_per_token": 0.0,
                    "output_cost_per_token": 0.0,
                    "litellm_provider": provider,
                    "mode": "chat",
                }
            }
        )
    except Exception:  # noqa: S110 - a zero-cost entry is a nicety: without it litellm only warns about pricing
        pass
