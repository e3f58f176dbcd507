"""Which judge to call and how: model resolution, provider-id mapping, credential checks.

Pure Python (no litellm): the language server builds settings on its event loop.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

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
    "openai": "openai", "anthropic": "anthropic", "azure": "azure", "azureopenai": "azure",
    "ollama": "ollama_chat", "openrouter": "openrouter", "vertex": "vertex_ai",
    "bedrock": "bedrock", "google": "gemini", "gemini": "gemini", "mistral": "mistral",
    "groq": "groq", "deepseek": "deepseek", "togetherai": "together_ai", "together": "together_ai",
    "fireworks": "fireworks_ai", "perplexity": "perplexity", "cohere": "cohere",
    "xai": "xai", "github": "github", "vllm": "hosted_vllm", "huggingface": "huggingface",
}
# promptfoo's API-kind segment (openai:chat:gpt-4o, anthropic:messages:claude-…, ollama:chat:llama3).
_API_KINDS = {"chat", "completion", "messages", "responses", "assistant", "embedding", "embeddings"}


class MissingCredentials(Exception):
    """No API key for the judge; raised before any call. Its message names the variable to set."""


def promptfoo_to_litellm(provider_id: str) -> str:
    """``openai:chat:gpt-4o`` → ``openai/gpt-4o``; ``anthropic:messages:claude-x`` → ``anthropic/claude-x``.

    Ids that are already litellm model strings (no ``:`` prefix we know) pass through.
    """
    prefix, sep, rest = provider_id.partition(":")
    if not sep or prefix.lower() not in _PROMPTFOO_PREFIXES:
        return provider_id
    provider = _PROMPTFOO_PREFIXES[prefix.lower()]
    kind, sep2, tail = rest.partition(":")
    if sep2 and kind.lower() in _API_KINDS:
        rest = tail
    if provider == "openrouter" or provider == "bedrock" or provider == "vertex_ai":
        return f"{provider}/{rest}"
    return f"{provider}/{rest}"


def provider_of(model: str) -> str:
    if "/" in model:
        return model.split("/", 1)[0].lower()
    lowered = model.lower()
    if lowered.startswith("claude"):
        return "anthropic"
    if lowered.startswith("gemini"):
        return "gemini"
    return "openai"


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
    concurrency: int = 16
    timeout_seconds: float = 60.0
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

    def environ(self) -> Mapping[str, str]:
        return self.env if self.env is not None else os.environ

    def resolved(self) -> "JudgeSettings":
        env = self.environ()
        model = self.model or env.get(ENV_MODEL) or None
        api_base = self.api_base or env.get(ENV_API_BASE) or None
        if model is None:
            model = default_model(env, api_base)
        model = promptfoo_to_litellm(model)
        cache_dir = self.cache_dir or default_cache_dir()
        return replace(self, model=model, api_base=api_base, cache_dir=cache_dir, models=[promptfoo_to_litellm(m) for m in self.models])

    def judge_models(self) -> list[str]:
        first = [self.model] if self.model else []
        return first + [m for m in self.models if m not in first]


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
    if api_base and provider in ("openai", "hosted_vllm"):
        # OpenAI-compatible local servers (vLLM, llama.cpp, Ollama's /v1) usually ignore the key.
        return "no-key-needed"
    raise MissingCredentials(
        f"Judge model '{model}' needs an API key: set {' or '.join(variables)}"
        + (" (or point --api-base / RUBRIC_JUDGE_API_BASE at an OpenAI-compatible server)." if provider == "openai" else ".")
    )


def settings_from_promptfoo(base: JudgeSettings, provider: Any) -> JudgeSettings:
    """Apply a promptfoo grader (id string or ``{id, config}``) to settings.

    The command line's ``--model`` still wins (like promptfoo's ``--grader``).
    """
    if provider is None:
        return base
    provider_id: str | None = None
    config: Mapping[str, Any] = {}
    if isinstance(provider, str):
        provider_id = provider
    elif isinstance(provider, Mapping):
        provider_id = provider.get("id") if isinstance(provider.get("id"), str) else None
        config = provider.get("config") if isinstance(provider.get("config"), Mapping) else {}
    updates: dict[str, Any] = {}
    if provider_id and not base.model:
        updates["model"] = promptfoo_to_litellm(provider_id)
    if isinstance(config.get("temperature"), (int, float)):
        updates["temperature"] = float(config["temperature"])
    max_tokens = config.get("max_tokens", config.get("maxTokens"))
    if isinstance(max_tokens, int):
        updates["max_tokens"] = max_tokens
    api_base = config.get("apiBaseUrl") or config.get("apiHost")
    if isinstance(api_base, str) and not base.api_base:
        updates["api_base"] = api_base
    return replace(base, **updates) if updates else base
