"""Which judge to call and how: model resolution, provider-id mapping, credential checks.

Pure Python (no litellm): the language server builds settings on its event loop.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

# How abstentions count (the score's own rule, shared by every face that sets it).
from rubric_lsp.formats.autorubric.score import CANNOT_ASSESS_STRATEGIES as CANNOT_ASSESS_STRATEGIES

ENV_MODEL = "RUBRIC_JUDGE_MODEL"
ENV_API_BASE = "RUBRIC_JUDGE_API_BASE"
ENV_CACHE_DIR = "RUBRIC_CACHE_DIR"

# promptfoo's default grader, in its order of credentials (seed 000); the first whose
# environment variable is set wins. Codex/ChatGPT logins have no litellm equivalent.
DEFAULT_JUDGES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("OPENAI_API_KEY",), "openai/gpt-5"),
    (("ANTHROPIC_API_KEY",), "anthropic/claude-sonnet-4-5-20250929"),
    (("GEMINI_API_KEY", "GOOGLE_API_KEY", "PALM_API_KEY"), "gemini/gemini-2.5-pro"),
    (("GOOGLE_APPLICATION_CREDENTIALS",), "vertex_ai/gemini-2.5-pro"),
    (("MISTRAL_API_KEY",), "mistral/mistral-large-latest"),
    (("GITHUB_TOKEN",), "github/gpt-5"),
)

# litellm provider prefix -> environment variables, any one of which authenticates it.
PROVIDER_KEYS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "azure": ("AZURE_API_KEY", "AZURE_OPENAI_API_KEY"),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "vertex_ai": ("GOOGLE_APPLICATION_CREDENTIALS",),
    "groq": ("GROQ_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "cohere": ("COHERE_API_KEY",),
    "together_ai": ("TOGETHER_API_KEY", "TOGETHERAI_API_KEY"),
    "replicate": ("REPLICATE_API_KEY",),
    "perplexity": ("PERPLEXITY_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "fireworks_ai": ("FIREWORKS_API_KEY", "FIREWORKS_AI_API_KEY"),
    "huggingface": ("HUGGINGFACE_API_KEY",),
    "github": ("GITHUB_TOKEN", "GITHUB_API_KEY"),
    "bedrock": ("AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_BEARER_TOKEN_BEDROCK"),
    "xai": ("XAI_API_KEY",),
}
NO_KEY_PROVIDERS = {"ollama", "ollama_chat", "hosted_vllm", "lm_studio", "llamafile"}

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
# Providers whose credentials need not be environment variables (gcloud application-default
# credentials, IAM instance roles, AWS profiles/SSO): never refused before the call; litellm's
# authentication error is classified afterwards.
AMBIENT_CREDENTIAL_PROVIDERS = {"vertex_ai", "bedrock"}
# Unprefixed model names litellm routes by name (its model lists), first match wins.
_UNPREFIXED = (
    (("gpt-", "o1", "o3", "o4", "chatgpt", "text-embedding"), "openai"),
    (("claude",), "anthropic"),
    (("gemini",), "gemini"),
    (("command",), "cohere"),
    (("mistral", "mixtral", "codestral"), "mistral"),
)
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


class MissingCredentials(Exception):
    """No API key for the judge; raised before any call. Its message names the variable to set.

    ``kind``: "no-model" (no judge model and no key to pick one by) or "no-key" (``model``
    needs one of ``variables``); the editor words its own message from these.
    """

    def __init__(
        self, message: str, kind: str = "no-model", model: str | None = None, variables: tuple[str, ...] = ()
    ) -> None:
        super().__init__(message)
        self.kind, self.model, self.variables = kind, model, variables


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


def provider_of(model: str) -> str:
    """The litellm provider of ``model``; ``""`` for an unprefixed name litellm would not place
    by its name (no credential pre-check then: litellm reports what it needs)."""
    if "/" in model:
        return model.split("/", 1)[0].lower()
    lowered = model.lower()
    for prefixes, provider in _UNPREFIXED:
        if lowered.startswith(prefixes):
            return provider
    return ""


def default_cache_dir() -> Path:
    configured = os.environ.get(ENV_CACHE_DIR)
    if configured:
        return Path(configured).expanduser()
    if os.name == "nt":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif os.uname().sysname == "Darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "rubric-lsp" / "verdicts"


@dataclass
class JudgeSettings:
    """How to call the judge. ``None`` fields are filled from the environment by :meth:`resolved`.

    ``model``: a litellm model string (``openai/gpt-4o-mini``) or a promptfoo provider id
    (``openai:chat:gpt-4o-mini``); several judges: ``models`` (with ``aggregation``).
    ``api_base``: an OpenAI-compatible server (vLLM, Ollama, llama.cpp).
    """

    model: str | None = None
    api_base: str | None = None
    concurrency: int = 16  # the most calls in flight; 429 bursts lower it for a while (rate_limit.py)
    # Optional ceilings: requests / tokens per minute (None: only the provider's 429s slow the run).
    rpm: int | None = None
    tpm: int | None = None
    timeout_seconds: float = 60.0
    # Total wall-clock budget of one grading (every call, retry and back-off included); None = no limit.
    # A judge that accepts connections and never answers would otherwise hold a criterion for
    # timeout × retries (~5 minutes with the defaults).
    deadline_seconds: float | None = 600.0
    cache_enabled: bool = True
    cache_dir: Path | None = None
    temperature: float | None = 0.0
    max_tokens: int | None = None
    max_retries: int = 4
    models: list[str] = field(default_factory=list)  # extra judges for an ensemble
    aggregation: str = "majority"  # majority | weighted | unanimous | any (binary votes)
    cannot_assess: str = "skip"
    partial_credit: float = 0.5
    normalize: bool = True
    shuffle_options: bool = True
    seed: int = 0
    env: Mapping[str, str] | None = None  # defaults to os.environ (tests pass their own)
    # (owner tool, release) to grade as, like the lint settings' `versions` (e.g. ("promptfoo",
    # "0.121.9")); a tool not named: its environment variable or settings file, else the latest tracked.
    versions: tuple[tuple[str, str], ...] = ()
    # Retry HTTP 5xx replies. promptfoo retries them only with PROMPTFOO_RETRY_5XX set; its
    # grader turns this off unless that variable is set.
    retry_server_errors: bool = True

    def environ(self) -> Mapping[str, str]:
        return self.env if self.env is not None else os.environ

    def resolved(self) -> JudgeSettings:
        env = self.environ()
        model = self.model or env.get(ENV_MODEL) or None
        api_base = self.api_base or env.get(ENV_API_BASE) or None
        if model is None:
            model = default_model(env, api_base)
        model = promptfoo_to_litellm(model)
        cache_dir = self.cache_dir or default_cache_dir()
        return replace(
            self,
            model=model,
            api_base=api_base,
            cache_dir=cache_dir,
            models=[promptfoo_to_litellm(m) for m in self.models],
        )

    def judge_models(self) -> list[str]:
        """``model`` then ``models``, each model once, in order."""
        return list(dict.fromkeys(([self.model] if self.model else []) + [m for m in self.models if m]))


def default_model(env: Mapping[str, str], api_base: str | None = None) -> str:
    for variables, model in DEFAULT_JUDGES:
        if any(env.get(v) for v in variables):
            return model
    if env.get("AZURE_API_KEY") or env.get("AZURE_OPENAI_API_KEY"):
        deployment = env.get("AZURE_DEPLOYMENT_NAME") or env.get("AZURE_OPENAI_DEPLOYMENT")
        if deployment:
            return f"azure/{deployment}"
    if api_base:  # a local OpenAI-compatible server needs no key; the name is a placeholder
        return "openai/judge"
    names = ", ".join(v for variables, _ in DEFAULT_JUDGES for v in variables)
    raise MissingCredentials(
        f"No judge model is configured and no API key was found. Set {ENV_MODEL} (or pass --model) "
        f"and that provider's API key, or set one of: {names}."
    )


def api_key_for(model: str, api_base: str | None, env: Mapping[str, str]) -> str | None:
    """The API key to pass, or None to let litellm read its own variables.

    Raises MissingCredentials (before any call) when the provider needs a key that is not set.
    """
    provider = provider_of(model)
    if provider in NO_KEY_PROVIDERS:
        return None
    variables = PROVIDER_KEYS.get(provider)
    if variables is None:
        return None  # a provider we do not know: litellm reports its own requirements
    for variable in variables:
        if env.get(variable):
            # Passed explicitly so settings.env (tests, the editor's environment) is honoured;
            # credentials that are not keys (a credentials file, an AWS profile) litellm reads itself.
            return env[variable] if variable.endswith(("_KEY", "_TOKEN")) else None
    if provider in AMBIENT_CREDENTIAL_PROVIDERS:
        return None  # application-default credentials / instance roles: let the call go
    if api_base and provider in ("openai", "hosted_vllm"):
        # OpenAI-compatible local servers (vLLM, llama.cpp, Ollama's /v1) usually ignore the key.
        return "no-key-needed"
    raise MissingCredentials(
        f"Judge model '{model}' needs an API key: set {' or '.join(variables)}"
        + (
            " (or point --api-base / RUBRIC_JUDGE_API_BASE at an OpenAI-compatible server)."
            if provider == "openai"
            else "."
        ),
        kind="no-key",
        model=model,
        variables=tuple(variables),
    )


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


def with_api_key(settings: JudgeSettings, model: str, key: str) -> JudgeSettings:
    """Settings whose environment gives ``key`` as ``model``'s provider key (the one the judge sends).

    The key lives only in ``settings.env`` under the provider's own variable, so the judge passes
    it and failure messages redact it like any key read from the environment."""
    variables = [v for v in PROVIDER_KEYS.get(provider_of(model), ()) if v.endswith(("_KEY", "_TOKEN"))]
    if not variables:
        return settings
    env = {
        name: value
        for name, value in settings.environ().items()
        if name not in PROVIDER_KEYS.get(provider_of(model), ())
    }
    env[variables[0]] = key
    return replace(settings, env=env)


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
    temperature = _number_setting(config, "temperature")
    if temperature is not None:
        updates["temperature"] = temperature
    max_tokens = None
    for name in ("max_completion_tokens", "max_tokens", "maxTokens"):
        value = _token_setting(config, name)
        if max_tokens is None and value is not None:
            max_tokens = value
    if max_tokens is not None:
        updates["max_tokens"] = max_tokens
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
