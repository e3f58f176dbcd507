"""The judges of a promptfoo grading: which grader each assertion gets (promptfoo's precedence, its
default grader for the keys at hand, the CLI's ``--model`` where promptfoo's ``--grader`` applies),
whether promptfoo's JSON mode applies, its 5xx retry switch, and the promptfoo release graded as."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from rubric_lsp.engine.failures import JudgeFailure
from rubric_lsp.engine.judge import Judge
from rubric_lsp.engine.runner import Run
from rubric_lsp.engine.settings import JudgeSettings, MissingCredentials
from rubric_lsp.formats.promptfoo.grading.defaults import default_grader
from rubric_lsp.formats.promptfoo.grading.providers import (
    GraderConfigError,
    promptfoo_to_litellm,
    settings_from_promptfoo,
)
from rubric_lsp.formats.promptfoo.versions import ENV_VERSION
from rubric_lsp.settings import SettingsError, settings_for


def start_judges(settings: JudgeSettings, plan: list[tuple[int, Any]]) -> tuple[Any, Callable[[Any], Judge]]:
    """A grading run and ``judge_for(item)``: the judge of one grading-plan item (its grader, as
    promptfoo's precedence chose it, with its config; ``--model`` only where the CLI grader applies).

    Raises MissingCredentials when no judge is configured and no assertion names its grader;
    ``judge_for`` raises JudgeFailure (kind ``config``) for a grader rubric-lsp cannot run."""
    explicit = settings.given_model()
    owner_default = None if explicit else default_grader(settings.environ())
    # promptfoo retries a 5xx only when PROMPTFOO_RETRY_5XX is set (its fetchWithRetries).
    settings = replace(settings, retry_server_errors=env_bool(settings.environ().get("PROMPTFOO_RETRY_5XX")))
    if owner_default is not None:
        settings = replace(settings, model=owner_default.model)  # promptfoo's default grader for these keys
    try:
        run = Run.start(settings)
        default_model: str | None = run.settings.model
    except MissingCredentials:
        # Fine as long as every assertion names its grader; otherwise re-raised by judge_for.
        if _first_provider(plan) is None:
            raise
        run = Run.start(replace(settings, model=_first_provider(plan)))
        default_model = None

    def judge_for(item: Any) -> Judge:
        grader = item.grader
        if grader.problem:
            raise JudgeFailure("unknown", f"The grader provider is invalid: {grader.problem}", "config")
        if not grader.grades(bool(explicit)):
            # The CLI judge (or promptfoo's default) replaces the slot whole, like promptfoo's
            # --grader: the replaced provider's config (apiBaseUrl, temperature, ...) goes with it.
            if default_model is None:
                raise MissingCredentials(
                    f"Test assertion '{item.type}' uses promptfoo's default grader, and no judge is configured: set RUBRIC_JUDGE_MODEL or pass --model, with that provider's API key."
                )
            return run.judge(run.settings, model=default_model)
        if grader.provider_id.startswith(("file://", "exec:", "python:", "http:", "https:", "webhook:", "echo")):
            raise JudgeFailure(
                "unknown",
                f"Grader {grader.provider_id!r} is a custom provider that rubric-lsp cannot run; set a model with --model.",
                "config",
            )
        model = promptfoo_to_litellm(grader.provider_id)
        try:
            # The grader's own apiBaseUrl/apiHost wins; the global --api-base fills in when it has none.
            own = settings_from_promptfoo(
                replace(run.settings, model=None, api_base=None),
                {"id": grader.provider_id, "config": grader.config or {}},
            )
        except GraderConfigError as error:
            raise JudgeFailure("unknown", f"Grader {grader.provider_id!r}: {error}", "config") from None
        judge_settings = replace(own, model=model, api_base=own.api_base or run.settings.api_base)
        return run.judge(judge_settings, model=model)

    return run, judge_for


def json_mode_for(settings: JudgeSettings) -> Callable[[Any], bool]:
    """Whether an llm-rubric item is graded by promptfoo's default *JSON* grader (no grader named
    by the config or the CLI, and a default with JSON mode for the keys at hand)."""
    explicit = settings.given_model()
    owner_default = None if explicit else default_grader(settings.environ())
    json_default = owner_default is not None and owner_default.json_mode

    def applies(item: Any) -> bool:
        return json_default and not item.grader.provider_id and not item.grader.problem

    return applies


def env_bool(value: str | None) -> bool:
    """promptfoo's ``getEnvBool``: 1, true, yes, yup or yeppers (any case)."""
    return (value or "").lower() in ("1", "true", "yes", "yup", "yeppers")


def promptfoo_version(settings: JudgeSettings, path: str | None = None) -> str | None:
    """The promptfoo release graded as: the judge settings' ``versions``, else ``RUBRIC_PROMPTFOO_VERSION``, else the
    ``versions`` entry of the settings file that applies to ``path`` (as lint reads it), else the latest tracked."""
    chosen = dict(settings.versions).get("promptfoo") or settings.environ().get(ENV_VERSION)
    if chosen or not path or path == "-":
        return chosen or None
    from pathlib import Path

    try:
        return dict(settings_for(Path(path)).versions).get("promptfoo")
    except (SettingsError, OSError):
        return None


def _first_provider(plan: list[Any]) -> str | None:
    for _, item in plan:
        if item.grader.provider_id and not item.grader.problem:
            return promptfoo_to_litellm(item.grader.provider_id)
    return None
