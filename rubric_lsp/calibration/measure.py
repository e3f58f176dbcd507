"""From graded passes of a labelled set to a calibration record, and the short table ``rubric calibrate`` prints."""

from __future__ import annotations

import datetime
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rubric_lsp.calibration import evidence, record
from rubric_lsp.calibration.settings import DEFAULT_AGREEMENT
from rubric_lsp.calibration.units import UnitSamples, figures, judges_figures, repeat_figures

# The judge settings that change a verdict (the rest: retries, timeouts, concurrency, change none); a
# format's grading options that do are each unit's own (UnitSamples.settings).
VERDICT_SETTINGS = ("temperature", "max_tokens")
# What the record keeps of each judge's own figures beside the panel's (docs/calibration.md, "Do the judges agree?").
PER_JUDGE_FIGURES = ("labels", "accuracy", "kappa", "sensitivity", "specificity", "per_category", "abstained", "failed")


def judge_of(settings: Any, prompt: str = "") -> record.JudgeDescription:
    """The judge a record names: ``settings`` are judge settings (their models as given; the settings that change
    a verdict are the same resolved or not)."""
    chosen = {name: getattr(settings, name) for name in VERDICT_SETTINGS}
    return record.JudgeDescription(tuple(settings.judge_models()), prompt, chosen)


def labelled_record(
    passes: Sequence[Sequence[UnitSamples]],
    judge: record.JudgeDescription,
    *,
    labelled: Path,
    output: Path,
    **figures_of: Any,
) -> dict[str, Any]:
    """The record of ``labelled`` graded, to be written to ``output``: :func:`build_record` with today's date,
    this tool's version and ``source`` the set's path from the record's folder. ``rubric calibrate`` and the
    editor's lens both build records here, so the same answers give the same bytes."""
    from rubric_lsp import __version__

    return build_record(
        passes,
        judge,
        tool_version=__version__,
        date=datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
        source=Path(os.path.relpath(labelled.resolve(), output.resolve().parent)).as_posix(),
        **figures_of,
    )


def build_record(
    passes: Sequence[Sequence[UnitSamples]],
    judge: record.JudgeDescription,
    *,
    tool_version: str,
    date: str,
    source: str,
    threshold: float = DEFAULT_AGREEMENT,
    judges: Sequence[Sequence[Sequence[UnitSamples]]] = (),
    models: Sequence[str] = (),
    limit: int | None = None,
) -> dict[str, Any]:
    """The record of one labelled set graded ``len(passes)`` times (the first pass gives the figures
    against the labels; with several, every pass gives the judge's agreement with itself).

    ``judges``: with several judge models, each model's own passes, graded alone (in ``models``' order,
    by default ``judge.models``'; a format that grades with one judge has the first alone as ``judge``):
    each one's figures against the labels, and how the judges agreed with one another."""
    models = tuple(models) or judge.models
    units = []
    for position, unit in enumerate(passes[0]):
        entry: dict[str, Any] = {
            "id": unit.id,
            "title": unit.title,
            "kind": unit.kind,
            "text": unit.text,
            "prompt": unit.prompt,
            "settings": unit.settings,
            "judge": unit.judge,
        }
        asks = _same_unit(passes, position, unit.id)
        alone = [_same_unit(model_passes, position, unit.id) for model_passes in judges] if len(judges) > 1 else []
        if unit.labelled:  # the figures are the evidence's: what the record is trusted for is what it keeps
            columns = [(evidence.column(r), u) for r, u in enumerate(asks, 1)]
            for model, own in zip(models, alone):
                columns += [(evidence.column(r, model), u) for r, u in enumerate(own, 1)]
            entry["evidence"] = evidence.build(columns)
            entry["figures"] = evidence.figures_of(entry["evidence"], unit.kind, None).figures
        else:
            entry["figures"] = figures(unit)
            entry["figures"]["failed"] = sum(u.failed for u in asks) + sum(u.failed for own in alone for u in own)
        if len(passes) > 1:
            entry["self_agreement"] = repeat_figures(asks, threshold)
        if alone and all(
            alone
        ):  # every judge graded the unit (the same file, so always; a guard against a format's drift)
            entry["per_judge"] = [_judge_entry(m, p, threshold) for m, p in zip(models, alone)]
            entry["judge_agreement"] = judges_figures(models, [p[0] for p in alone], threshold)
        units.append(entry)
    built = record.build(tool_version=tool_version, date=date, source=source, judge=judge, units=units)
    triples = [
        (entry["id"], item, label)
        for entry in units
        if "evidence" in entry
        for item, label in evidence.stored(entry["evidence"], entry["id"], evidence.rows_of(entry["evidence"]))[
            1
        ].items()
    ]
    if triples:
        built["labelled"] = {"fingerprint": evidence.set_fingerprint(triples), "items": len(triples)}
        if limit:
            built["labelled"]["limit"] = limit
    return built


def _same_unit(passes: Sequence[Sequence[UnitSamples]], position: int, unit_id: str) -> list[UnitSamples]:
    """The unit at ``position`` in each pass that holds it there (the same file graded again: all of them)."""
    return [p[position] for p in passes if position < len(p) and p[position].id == unit_id]


def _judge_entry(model: str, passes: Sequence[UnitSamples], threshold: float) -> dict[str, Any]:
    """One judge's own figures against the labels (its first pass), and its agreement with itself (all)."""
    measured = figures(passes[0])
    entry: dict[str, Any] = {"model": model, "figures": {k: measured[k] for k in PER_JUDGE_FIGURES if k in measured}}
    if len(passes) > 1:
        entry["self_agreement"] = repeat_figures(passes, threshold)
    return entry


def table_lines(data: Mapping[str, Any]) -> list[str]:
    """One line per unit: labels, accuracy, κ with its interval, sensitivity/specificity, abstentions, failures,
    the agreement with itself and among several judges; with several judges, one line more for each."""
    lines = []
    for unit in data["units"]:
        f = unit["figures"]
        parts = [f"{unit['id']}: {f['labels']} labels", *_against_labels(f)]
        abstained = sum(f["abstained"].values())
        if abstained or f["failed"]:
            parts.append(f"abstained {abstained}, failed {f['failed']}")
        if (repeats := unit.get("self_agreement")) is not None:
            flag = " AMBIGUOUS" if repeats["ambiguous"] else ""
            parts.append(f"self-agreement {_share(repeats['unanimous'])} over {repeats['repeats']} asks{flag}")
        if (together := unit.get("judge_agreement")) is not None:
            flag = " AMBIGUOUS" if together["ambiguous"] else ""
            pairs = together["pairs"]
            kappa = f" (κ {_figure(pairs[0]['kappa']['value'])})" if len(pairs) == 1 else ""
            parts.append(
                f"judges agree {_share(together['unanimous'])}{kappa} over {len(together['models'])} judges{flag}"
            )
        lines.append("  " + " · ".join(parts))
        lines += [f"    {j['model']}: " + " · ".join(_against_labels(j["figures"])) for j in unit.get("per_judge", ())]
        for pair in (unit.get("people_agreement") or {}).get("pairs", ()):  # the ceiling a judge can reach
            lines.append(
                f"    people: {' and '.join(pair['labellers'])} agree {_share(pair['agreement'])}"
                f" · {_kappa(pair['kappa'])}"
            )
    return lines


def _kappa(kappa: Mapping[str, Any]) -> str:
    return f"{'qwk' if kappa['statistic'] != 'cohen' else 'κ'} {_figure(kappa['value'])}{_interval(kappa['interval'])}"


def _against_labels(f: Mapping[str, Any]) -> list[str]:
    parts = [f"accuracy {_share(f['accuracy'])}", _kappa(f["kappa"])]
    if "sensitivity" in f:
        parts.append(f"Se {_share(f['sensitivity'])} Sp {_share(f['specificity'])}")
    return parts


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _interval(interval: Sequence[float] | None) -> str:
    return "" if not interval else f" [{interval[0]:.2f}, {interval[1]:.2f}]"


def _share(share: Mapping[str, Any]) -> str:
    return _figure(share["value"]) + _interval(share["interval"])
