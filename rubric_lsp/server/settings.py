"""Editor settings (section ``rubric``) and the lint settings of each document.

Settings come from ``initializationOptions`` and ``workspace/configuration``; the lint
settings of a file come from the workspace's settings file that applies to it, found as
rubric-lint finds it (``.rubric-lint.toml``, ``rubric-lint.toml`` or a ``pyproject.toml`` with
``[tool.rubric-lint]``, re-read when its modification time changes; its ``kinds`` globs too),
narrowed by ``lint.select``/``lint.ignore``. A format's grading options that name an editor
setting (``GradeOption.setting``, e.g. ``grading.cannotAssess``) are read here by their
declarations, whatever the format.
API keys never come from here: the grading engine reads them from the environment.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from rubric_lsp.calibration.settings import DEFAULT_AGREEMENT
from rubric_lsp.formats.options import GradeOption, distinct
from rubric_lsp.formats.registry import formats
from rubric_lsp.settings import Settings, SettingsError, settings_for

log = logging.getLogger(__name__)

SECTION = "rubric"
MAX_REPEATS = 20  # as rubric calibrate --repeat


@dataclass(frozen=True)
class ServerSettings:
    judge_model: str | None = None
    judge_models: tuple[str, ...] = ()  # further judges: with judge_model, a panel (rubric grade's several --model)
    judge_api_base: str | None = None
    judge_concurrency: int | None = None
    judge_timeout_seconds: float | None = None
    judge_deadline_seconds: float | None = None  # the whole grading's deadline (None: the engine's default)
    grade_on_save: bool = False
    cache_enabled: bool = True
    lint_select: tuple[str, ...] = ()
    lint_ignore: tuple[str, ...] = ()
    calibration_repeat: int = 1  # the Calibrate command's asks per item (rubric calibrate --repeat)
    # Below this share of unanimous items a unit is ambiguous (rubric calibrate --agreement-threshold).
    calibration_agreement_threshold: float = DEFAULT_AGREEMENT
    labelling_labeller: str | None = None  # who labels on the page (None: git's user.name, else the login name)
    # The formats' grading options the editor sets, (option name, value), in settings order.
    grade_options: tuple[tuple[str, Any], ...] = ()
    # Not a user setting: how long to wait for more typing before linting (push mode).
    debounce_seconds: float = 0.005
    problems: tuple[str, ...] = field(default=(), compare=False)

    def merged(self, data: Any) -> ServerSettings:
        """These settings updated from a ``rubric`` settings object (nested or dotted keys)."""
        declared = option_settings()
        flat = _flatten(_unwrap(data), whole=set(_KEYS) | set(declared))
        changes: dict[str, Any] = {}
        problems: list[str] = []
        options = dict(self.grade_options)
        for key, value in flat.items():
            spec = _KEYS.get(key)
            if key in declared:
                _merge_option(declared[key], key, value, options, problems)
                continue
            if spec is None:
                if "key" in key.lower().rsplit(".", 1)[-1] and value:
                    problems.append(
                        f"setting rubric.{key} is ignored: API keys are read from the environment only "
                        "(e.g. OPENAI_API_KEY), never from settings"
                    )
                continue
            attr, kind, what = spec
            if value is None:
                changes[attr] = _DEFAULTS[attr]
                continue
            try:
                changes[attr] = kind(value)
            except (TypeError, ValueError):
                problems.append(f"setting rubric.{key} = {value!r} is ignored: it must be {what}")
        for problem in problems:
            log.warning(problem)
        return replace(self, **changes, grade_options=tuple(options.items()), problems=tuple(problems))

    def lint_settings(self, path: str | None) -> Settings:
        base = Settings()
        if path:
            try:
                base = settings_for(Path(path))
            except SettingsError as exc:
                log.warning("%s; using the default rules", exc)
            except OSError as exc:
                log.warning("cannot read settings for %s: %s", path, exc)
        if self.lint_select or self.lint_ignore:
            base = base.with_overrides(list(self.lint_select), list(self.lint_ignore))
        return base


def is_settings_file(uri: str) -> bool:
    """Whether ``uri`` is a file rubric-lint reads its settings from (its change re-lints every document)."""
    return uri.endswith(("/pyproject.toml", "rubric-lint.toml"))  # ".rubric-lint.toml" ends the same way


# What the server asks the client to watch for settings changes.
SETTINGS_GLOB = "**/{pyproject.toml,rubric-lint.toml,.rubric-lint.toml}"


def _codes(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, (list, tuple)):
        raise TypeError("expected a list of rule codes")
    return tuple(str(v).strip().upper() for v in value if str(v).strip())


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
        return value.lower() in ("true", "1")
    raise TypeError("expected true or false")


def _positive_int(value: Any) -> int:
    number = int(value)
    if number < 1 or isinstance(value, bool):
        raise ValueError("expected a positive integer")
    return number


def _positive_float(value: Any) -> float:
    number = float(value)
    if not number > 0 or isinstance(value, bool):
        raise ValueError("expected a positive number")
    return number


def _repeats(value: Any) -> int:
    number = _positive_int(value)
    if number > MAX_REPEATS or float(value) != number:
        raise ValueError(f"expected a whole number from 1 to {MAX_REPEATS}")
    return number


def _models(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise TypeError("expected a list of model names")
    return tuple(dict.fromkeys(v.strip() for v in value if v.strip()))


def _share(value: Any) -> float:
    number = float(value)
    if isinstance(value, bool) or not 0.0 <= number <= 1.0:
        raise ValueError("expected a number from 0 to 1")
    return number


def _text(value: Any) -> str | None:
    if not isinstance(value, str):
        raise TypeError("expected a string")
    return value.strip() or None


_KEYS: dict[str, tuple[str, Any, str]] = {
    "judge.model": ("judge_model", _text, "a model name such as openai/gpt-4o-mini"),
    "judge.models": (
        "judge_models",
        _models,
        "a list of model names: further judges, a panel with judge.model",
    ),
    "judge.apiBase": ("judge_api_base", _text, "a URL"),
    "judge.concurrency": ("judge_concurrency", _positive_int, "a positive whole number"),
    "judge.timeoutSeconds": ("judge_timeout_seconds", _positive_float, "a positive number of seconds"),
    "judge.deadlineSeconds": ("judge_deadline_seconds", _positive_float, "a positive number of seconds"),
    "gradeOnSave": ("grade_on_save", _bool, "true or false"),
    "cache.enabled": ("cache_enabled", _bool, "true or false"),
    "lint.select": ("lint_select", _codes, "a list of rule codes or prefixes"),
    "lint.ignore": ("lint_ignore", _codes, "a list of rule codes or prefixes"),
    "calibration.repeat": ("calibration_repeat", _repeats, f"a whole number from 1 to {MAX_REPEATS}"),
    "calibration.agreementThreshold": ("calibration_agreement_threshold", _share, "a number from 0 to 1"),
    "debounceSeconds": ("debounce_seconds", float, "a number of seconds"),
    "labelling.labeller": ("labelling_labeller", _text, "a name: who labels on the labelling page"),
}
_DEFAULTS = {f.name: f.default for f in fields(ServerSettings)}


def grade_option_declarations() -> list[GradeOption]:
    """Every format's grading options, each once (``Format.grade_options``)."""
    return distinct(option for fmt in formats() for option in fmt.grade_options)


def option_settings() -> dict[str, GradeOption]:
    """The formats' grading options that are editor settings, by their key under ``rubric``."""
    return {option.setting: option for option in grade_option_declarations() if option.setting}


def _merge_option(option: GradeOption, key: str, value: Any, options: dict[str, Any], problems: list[str]) -> None:
    """A grading option's setting into ``options``; null or empty text: back to the format's default."""
    if value is None or (isinstance(value, str) and not value.strip()):
        options.pop(option.name, None)
        return
    try:
        options[option.name] = option.value(value)
    except ValueError:
        problems.append(f"setting rubric.{key} = {value!r} is ignored: it must be {option.expected}")


def _unwrap(data: Any) -> dict:
    """Accept ``{"rubric": {...}}`` as well as the section's own object."""
    if not isinstance(data, dict):
        return {}
    inner = data.get(SECTION)
    if isinstance(inner, dict):
        return inner
    return data


def _flatten(data: dict, prefix: str = "", whole: set[str] | frozenset[str] = frozenset()) -> dict[str, Any]:
    """Dotted keys of nested objects (a key in ``whole`` keeps its value, even an object)."""
    flat: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and name not in whole:
            flat.update(_flatten(value, name + ".", whole))
        else:
            flat[name] = value
    return flat
