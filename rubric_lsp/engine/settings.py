"""Which judge to call and how: the model, its endpoint, limits and timeouts, credential checks.

Every format's grader reads these; what one format alone reads is its own (``Format.grade_options``,
passed in ``GradeRequest.options``), and how an owner tool spells a model is the format's
(``Format.model_ids``). Pure Python (no litellm): the language server builds settings on its event loop.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from rubric_lsp.runtime.user_cache import user_cache_dir

ENV_MODEL = "RUBRIC_JUDGE_MODEL"
ENV_API_BASE = "RUBRIC_JUDGE_API_BASE"
ENV_CACHE_DIR = "RUBRIC_CACHE_DIR"

# The judge when none is configured: the first provider whose credential is set, in the order
# the test-config tool's default grader takes them (seed 000). Codex/ChatGPT logins have no
# litellm equivalent.
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
    return user_cache_dir() / "verdicts"


@dataclass
class JudgeSettings:
    """How to call the judge. ``None`` fields are filled from the environment by :meth:`resolved`.

    ``model``: a litellm model string (``openai/gpt-4o-mini``) or an id in an owner tool's spelling
    that ``model_ids`` turns into one; several judges: ``models``.
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
    seed: int = 0  # where a grader shuffles (the order of a criterion's options), its random seed
    env: Mapping[str, str] | None = None  # defaults to os.environ (tests pass their own)
    # (owner tool, release) to grade as, like the lint settings' `versions`; a tool not named:
    # its environment variable or settings file, else the latest tracked.
    versions: tuple[tuple[str, str], ...] = ()
    # Retry HTTP 5xx replies (a format's grader turns this off where its owner tool does not retry them).
    retry_server_errors: bool = True
    # A model id as an owner tool spells it → litellm's id (``resolved`` applies it to ``model`` and
    # ``models``); the runner sets it from the formats' ``Format.model_ids``. None: ids as given.
    model_ids: Callable[[str], str] | None = None

    def environ(self) -> Mapping[str, str]:
        return self.env if self.env is not None else os.environ

    def given_model(self) -> str | None:
        """The judge model given to the grading (``model``, else ``$RUBRIC_JUDGE_MODEL``), before any default: a
        format whose files name a default judge of their own lets a given one replace it."""
        return self.model or self.environ().get(ENV_MODEL) or None

    def resolved(self) -> JudgeSettings:
        env = self.environ()
        model = self.given_model()
        api_base = self.api_base or env.get(ENV_API_BASE) or None
        if model is None:
            model = default_model(env, api_base)
        spell = self.model_ids or _as_given
        cache_dir = self.cache_dir or default_cache_dir()
        return replace(
            self, model=spell(model), api_base=api_base, cache_dir=cache_dir, models=[spell(m) for m in self.models]
        )

    def judge_models(self) -> list[str]:
        """``model`` then ``models``, each model once, in order."""
        return list(dict.fromkeys(([self.model] if self.model else []) + [m for m in self.models if m]))


def _as_given(model: str) -> str:
    return model


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
