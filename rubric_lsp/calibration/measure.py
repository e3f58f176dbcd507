"""From graded passes of a labelled set to a calibration record, and the short table ``rubric calibrate`` prints."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rubric_lsp.calibration import record
from rubric_lsp.calibration.units import UnitSamples, figures, repeat_figures

DEFAULT_AGREEMENT = 0.8

# The judge settings that change a verdict (the rest: retries, timeouts, concurrency, change none); a
# format's grading options that do are each unit's own (UnitSamples.settings).
VERDICT_SETTINGS = ("temperature", "max_tokens")


def judge_of(settings: Any, prompt: str = "") -> record.JudgeDescription:
    """The judge a record names: ``settings`` are resolved judge settings."""
    chosen = {name: getattr(settings, name) for name in VERDICT_SETTINGS}
    return record.JudgeDescription(tuple(settings.judge_models()), prompt, chosen)


def build_record(
    passes: Sequence[Sequence[UnitSamples]],
    judge: record.JudgeDescription,
    *,
    tool_version: str,
    date: str,
    source: str,
    threshold: float = DEFAULT_AGREEMENT,
) -> dict[str, Any]:
    """The record of one labelled set graded ``len(passes)`` times (the first pass gives the figures
    against the labels; with several, every pass gives the judge's agreement with itself)."""
    units = []
    for position, unit in enumerate(passes[0]):
        entry: dict[str, Any] = {
            "id": unit.id,
            "title": unit.title,
            "kind": unit.kind,
            "text": unit.text,
            "prompt": unit.prompt,
            "settings": unit.settings,
            "figures": figures(unit),
        }
        if len(passes) > 1:
            same = [p[position] for p in passes if position < len(p) and p[position].id == unit.id]
            entry["self_agreement"] = repeat_figures(same, threshold)
        units.append(entry)
    return record.build(tool_version=tool_version, date=date, source=source, judge=judge, units=units)


def table_lines(data: Mapping[str, Any]) -> list[str]:
    """One line per unit: labels, accuracy, κ with its interval, sensitivity/specificity, abstentions, failures."""
    lines = []
    for unit in data["units"]:
        f = unit["figures"]
        kappa = f["kappa"]
        parts = [
            f"{unit['id']}: {f['labels']} labels",
            f"accuracy {_share(f['accuracy'])}",
            f"{'qwk' if kappa['statistic'] != 'cohen' else 'κ'} {_figure(kappa['value'])}{_interval(kappa['interval'])}",
        ]
        if "sensitivity" in f:
            parts.append(f"Se {_share(f['sensitivity'])} Sp {_share(f['specificity'])}")
        abstained = sum(f["abstained"].values())
        if abstained or f["failed"]:
            parts.append(f"abstained {abstained}, failed {f['failed']}")
        if (repeats := unit.get("self_agreement")) is not None:
            flag = " AMBIGUOUS" if repeats["ambiguous"] else ""
            parts.append(f"self-agreement {_share(repeats['unanimous'])} over {repeats['repeats']} asks{flag}")
        lines.append("  " + " · ".join(parts))
    return lines


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _interval(interval: Sequence[float] | None) -> str:
    return "" if not interval else f" [{interval[0]:.2f}, {interval[1]:.2f}]"


def _share(share: Mapping[str, Any]) -> str:
    return _figure(share["value"]) + _interval(share["interval"])
