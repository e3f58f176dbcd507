"""The litellm transport: importing litellm (once, offline, quiet), the route a model is called
through, a local model's zero price, and reading a reply's text and usage.

Shared by the live judge call (``judge.py``) and batch mode (``batch.py``, ``batch_results.py``),
which reads its result lines as the responses a live call gets. The other transport, for a local
OpenAI-compatible server litellm has no price for, is ``direct.py``.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import weakref
from collections.abc import AsyncGenerator
from typing import Any

from rubric_lsp.engine.failures import MAX_REPLY_CHARS, JudgeFailure
from rubric_lsp.engine.settings import provider_of
from rubric_lsp.engine.usage import Usage
from rubric_lsp.runtime import gc as collector

log = logging.getLogger("rubric_lsp.engine.transports.via_litellm")

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
    collector.freeze_for_good()


async def load_litellm_async() -> Any:
    """``load_litellm`` on a worker thread (the event loop goes on meanwhile); the HTTP clients litellm
    makes on this loop are closed when the loop ends (``_close_with_loop``)."""
    loop = asyncio.get_running_loop()
    litellm = _litellm if _litellm is not None else await loop.run_in_executor(None, load_litellm)
    if loop not in _loop_closers:
        closer = _close_with_loop(litellm)
        await closer.__anext__()  # registered with the loop: asyncio.run's shutdown_asyncgens runs its end
        _loop_closers[loop] = closer
    return litellm


# litellm caches an HTTP client per event loop (its cache key ends with the loop's id) and never
# closes one when its loop ends: each asyncio.run that called a judge left a pooled connection open
# for the process's life (``rubric calibrate --repeat``, a program calling ``grade`` in asyncio.run,
# the test suite: two descriptors per test against its in-process judge, past 1,023 over the suite).
_loop_closers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncGenerator[None, None]] = (
    weakref.WeakKeyDictionary()
)


async def _close_with_loop(litellm: Any) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        await _close_loop_clients(litellm)


async def _close_loop_clients(litellm: Any) -> None:
    """Close and forget the clients litellm cached for the running loop (litellm 1.85 to 1.110 key them
    ``KEY-<loop>``; ``update_cache_key_with_event_loop`` spells the suffix). Never raises: a cleanup."""
    try:
        cache = litellm.in_memory_llm_clients_cache
        suffix = cache.update_cache_key_with_event_loop("")
        keys = [key for key in list(cache.cache_dict) if suffix and str(key).endswith(suffix)]
    except AttributeError:  # a litellm that caches otherwise: nothing known to close
        return
    for key in keys:
        client = cache.cache_dict.pop(key, None)
        getattr(cache, "ttl_dict", {}).pop(key, None)
        close = getattr(client, "aclose", None) or getattr(client, "close", None)
        try:
            closed = close() if callable(close) else None
            if inspect.isawaitable(closed):
                await closed
        except Exception as exc:  # a client that fails to close is left to the process's end
            log.debug("could not close litellm's client %s: %s", key, exc)


def loaded_litellm() -> Any:
    """litellm if this process imported it already, else None (reading its price map or its
    exception types then costs nothing)."""
    return _litellm


def reply_content(response: Any, usage: Usage) -> str:
    """The reply text of a chat-completions response (litellm's, or a batch result line read as one);
    its tokens and cost are added to ``usage``. Raises JudgeFailure when it holds no usable text."""
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
    # filter). Formats whose owner tells that apart from an unreadable text (as an
    # "unknown" failure) read the kind.
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


def after_first_call() -> None:
    """litellm imports its provider modules on the first call: freeze those too, once."""
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


def register_local_model(litellm: Any, model: str) -> None:
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
