"""promptfoo's grader providers as the judge settings rubric-lsp sends: provider ids (``openai:chat:gpt-4o``)
as litellm model ids, and a grader's ``config`` (temperature, token limits, its endpoint, its key).

Pure Python (no litellm): ``promptfoo_to_litellm`` is also the format's ``Format.model_ids``, so a
judge model given to any grading (``--model``, ``RUBRIC_JUDGE_MODEL``) may be a promptfoo provider id.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rubric_lsp.engine.settings import JudgeSettings, provider_of, with_api_key

# promptfoo provider prefixes -> litellm prefixes.
_PROMPTFOO_PREFIXES = {
    "openai": "openai",
    "anthropic": "anthropic",
    "azure": "azure",
    "azureopenai": "azure",
    "ollama": "ollama_chat",
    "openrouter": "openrouter",
    "vertex": "vertex_ai",
    "bedrock": "bedrock",
    "google": "gemini",
    "gemini": "gemini",
    "mistral": "mistral",
    "groq": "groq",
    "deepseek": "deepseek",
    "togetherai": "together_ai",
    "together": "together_ai",
    "fireworks": "fireworks_ai",
    "perplexity": "perplexity",
    "cohere": "cohere",
    "xai": "xai",
    "github": "github",
    "vllm": "hosted_vllm",
    "huggingface": "huggingface",
}
# promptfoo's API-kind segment (openai:chat:gpt-4o, anthropic:messages:claude-…, ollama:chat:llama3).
_API_KINDS = {"chat", "completion", "messages", "responses", "assistant", "embedding", "embeddings", "converse"}


# promptfoo OpenAI-compatible providers: ``apiHost`` means ``https://HOST/v1`` and wins over ``apiBaseUrl``.
_API_HOST_V1 = {
    "openai",
    "mistral",
    "groq",
    "deepseek",
    "together_ai",
    "fireworks_ai",
    "perplexity",
    "xai",
    "github",
    "openrouter",
}


def promptfoo_to_litellm(provider_id: str) -> str:
    """``openai:chat:gpt-4o`` → ``openai/gpt-4o``; ``anthropic:messages:claude-x`` → ``anthropic/claude-x``.

    Ids that are already litellm model strings (no ``:`` prefix we know) pass through.
    """
    prefix, sep, rest = provider_id.partition(":")
    if not sep or prefix.lower() not in _PROMPTFOO_PREFIXES:
        return provider_id
    provider = _PROMPTFOO_PREFIXES[prefix.lower()]
    kind, sep2, tail = rest.partition(":")
    kind = kind.lower() if sep2 else ""
    if kind in _API_KINDS:
        rest = tail
    if provider == "ollama_chat" and kind != "chat":
        # promptfoo: ollama:<model> and ollama:completion:<model> call /api/generate (litellm's
        # ``ollama/``); only ollama:chat:<model> calls /api/chat (``ollama_chat/``).
        provider = "ollama"
    if provider == "bedrock" and kind == "converse":
        return f"bedrock/converse/{rest}"  # litellm's Converse route prefix
    return f"{provider}/{rest}"


class GraderConfigError(ValueError):
    """A promptfoo grader ``config`` value rubric-lsp refuses to send (the message says which)."""


def _number_setting(config: Mapping[str, Any], key: str) -> float | None:
    value = config.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise GraderConfigError(f"The grader's config.{key} is {value!r}; it must be a number.")
    return float(value)


def _token_setting(config: Mapping[str, Any], key: str) -> int | None:
    number = _number_setting(config, key)
    if number is None:
        return None
    if not number.is_integer() or number < 1:
        raise GraderConfigError(f"The grader's config.{key} is {config[key]!r}; it must be a whole number of tokens.")
    return int(number)


def verdict_settings(config: Mapping[str, Any]) -> dict[str, Any]:
    """What a grader's ``config`` sets of the judge settings that change a verdict, as they are sent: its
    ``temperature`` and its token limit (``max_completion_tokens``, else ``max_tokens``, else ``maxTokens``; each
    checked). GraderConfigError for a value promptfoo would send but the API rejects (``temperature: true``)."""
    out: dict[str, Any] = {}
    temperature = _number_setting(config, "temperature")
    if temperature is not None:
        out["temperature"] = temperature
    limits = [_token_setting(config, name) for name in ("max_completion_tokens", "max_tokens", "maxTokens")]
    max_tokens = next((value for value in limits if value is not None), None)
    if max_tokens is not None:
        out["max_tokens"] = max_tokens
    return out


def grader_api_base(provider: str, config: Mapping[str, Any]) -> str | None:
    """The endpoint a promptfoo grader's ``apiBaseUrl`` / ``apiHost`` name, as that provider reads them.

    OpenAI and the OpenAI-compatible providers: ``apiHost`` wins and means ``https://HOST/v1``.
    Azure: ``apiBaseUrl`` wins; ``apiHost`` is the resource host, ``https://HOST``. Others: ``apiBaseUrl``.
    """
    base = config.get("apiBaseUrl")
    base = base.strip() if isinstance(base, str) and base.strip() else None
    host = config.get("apiHost")
    host = host.strip() if isinstance(host, str) and host.strip() else None
    if provider == "azure":
        if base:
            return base.rstrip("/")
        if host:
            bare = host.split("://", 1)[1] if host.startswith(("http://", "https://")) else host
            return f"https://{bare.rstrip('/')}"
        return None
    if provider in _API_HOST_V1 and host:
        return f"https://{host}/v1"
    return base


def settings_from_promptfoo(base: JudgeSettings, provider: Any) -> JudgeSettings:
    """Apply a promptfoo grader (id string or ``{id, config}``) to settings.

    The command line's ``--model`` still wins (like promptfoo's ``--grader``); ``base.api_base``
    wins over the grader's own. Config read: ``temperature``, ``max_tokens`` / ``maxTokens`` /
    ``max_completion_tokens`` (sent as litellm's ``max_tokens``, which litellm turns into
    ``max_completion_tokens`` for OpenAI's reasoning models), ``apiBaseUrl`` / ``apiHost``
    (``grader_api_base``), ``apiKey`` and ``apiKeyEnvar`` (``with_api_key``). Raises
    GraderConfigError for a value promptfoo would send but the API rejects (``temperature: true``).
    """
    if provider is None:
        return base
    provider_id: str | None = None
    config: Mapping[str, Any] = {}
    if isinstance(provider, str):
        provider_id = provider
    elif isinstance(provider, Mapping):
        provider_id = provider.get("id") if isinstance(provider.get("id"), str) else None
        given = provider.get("config")
        config = given if isinstance(given, Mapping) else {}
    updates: dict[str, Any] = {}
    if provider_id and not base.model:
        updates["model"] = promptfoo_to_litellm(provider_id)
    updates.update(verdict_settings(config))
    model = updates.get("model") or base.model or (promptfoo_to_litellm(provider_id) if provider_id else None)
    api_base = grader_api_base(provider_of(model) if model else "", config)
    if api_base and not base.api_base:
        updates["api_base"] = api_base
    result = replace(base, **updates) if updates else base
    written = config.get("apiKey")
    key: str | None = written if isinstance(written, str) and written else None
    if key is None:
        envar = config.get("apiKeyEnvar")
        key = result.environ().get(envar) if isinstance(envar, str) and envar else None
    if key and model:
        result = with_api_key(result, model, key)
    return result
