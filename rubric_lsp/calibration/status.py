"""Is a unit calibrated? Each graded unit's record found and checked (fresh, stale — naming what changed — or
missing), the refusal of ``rubric grade --require-calibrated``, and pass rates corrected for the judge's
measured sensitivity and specificity (docs/calibration.md). Format-neutral: a format hands over its units
as they are now (:class:`units.CurrentUnit`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rubric_lsp.calibration import record, stats
from rubric_lsp.calibration.check import ambiguity
from rubric_lsp.calibration.units import CurrentUnit

FRESH, STALE, MISSING = "fresh", "stale", "missing"


def find_record(source: Path | None, given: Path | None) -> tuple[Path | None, dict[str, Any] | None]:
    """The record to check against: ``given`` (``--calibration``, which must exist), else the one beside
    ``source`` if there is one. RecordError when the record named or found cannot be used."""
    if given is not None:
        return given, record.read(given)
    if source is None:
        return None, None
    beside = record.record_path(source)
    return (beside, record.read(beside)) if beside.exists() else (beside, None)


def record_unit(data: Mapping[str, Any], unit: CurrentUnit, judge: record.JudgeDescription) -> dict[str, Any] | None:
    """The record's entry for ``unit``: by id, else one whose text is the same (a record made from a dataset
    applies to any file holding the same unit text)."""
    found = record.find_unit(data, unit.id)
    if found is not None:
        return found
    text = record.fingerprints(unit.text, judge)["text"]
    return next((u for u in data["units"] if u["fingerprints"].get("text") == text), None)


def unit_judge(judge: record.JudgeDescription, unit: CurrentUnit) -> record.JudgeDescription:
    """The judge as a record of ``unit`` names it: its prompt and the format's settings that change its verdict."""
    return replace(judge, prompt=unit.prompt, settings={**judge.settings, **unit.settings})


def statuses(
    units: Sequence[CurrentUnit], data: Mapping[str, Any] | None, judge: record.JudgeDescription
) -> list[dict[str, Any]]:
    """Each unit's calibration status: ``{id, title, status, stale, figures, date, ambiguous}`` (``stale``: what
    changed; ``ambiguous``: why the record finds the unit ambiguous, as the hover says it)."""
    out = []
    date = data.get("date") if data is not None and isinstance(data.get("date"), str) else None
    for unit in units:
        judged_by = unit_judge(judge, unit)
        entry = None if data is None else record_unit(data, unit, judged_by)
        status: dict[str, Any] = {"id": unit.id, "title": unit.title, "status": MISSING, "stale": []}
        if entry is not None:
            stale = record.staleness(entry, unit.text, judged_by)
            figures = entry.get("figures") if isinstance(entry.get("figures"), dict) else {}
            status.update(status=STALE if stale else FRESH, stale=stale, figures=figures, date=date)
            status["ambiguous"] = [short for short, _ in ambiguity(entry)]
        out.append(status)
    return out


def refusal(found: Sequence[Mapping[str, Any]], where: Path | None) -> str | None:
    """Why ``--require-calibrated`` refuses (one line naming each unit without a fresh record), or None."""
    not_fresh = [s for s in found if s["status"] != FRESH]
    if not found:
        return "--require-calibrated: this file's format names no calibration units: it cannot be calibrated yet"
    if not not_fresh:
        return None
    named = "; ".join(f"{s['id']}: {_why(s, where)}" for s in not_fresh)
    return f"--require-calibrated: {len(not_fresh)} of {len(found)} unit(s) have no fresh calibration record: {named}"


def _why(status: Mapping[str, Any], where: Path | None) -> str:
    if status["status"] == STALE:
        return f"stale (its {', '.join(status['stale'])} changed since the record was made)"
    if where is None or not where.exists():
        return f"missing (no calibration record{f' at {where}' if where else ''}; run rubric calibrate)"
    return f"missing (no record of it in {where})"


def pass_rates(counts: Mapping[str, tuple[int, int]], found: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each unit's pass rate over the graded items, raw and, with a fresh record, corrected (Rogan–Gladen)
    for the judge's measured sensitivity and specificity, with an interval carrying both uncertainties."""
    by_id = {s["id"]: s for s in found}
    out = []
    for unit, (passed, n) in counts.items():
        status = by_id.get(unit, {"status": MISSING})
        rate: dict[str, Any] = {"unit": unit, **stats.proportion(passed, n), "calibration": status["status"]}
        rate["corrected"] = rate["corrected_interval"] = None
        figures = status.get("figures") or {}
        se, sp = figures.get("sensitivity"), figures.get("specificity")
        if (
            status["status"] == FRESH
            and n
            and isinstance(se, dict)
            and isinstance(sp, dict)
            and _share(se)
            and _share(sp)
        ):
            # From the counts, not the recorded shares: those are rounded to 4 places.
            rate["corrected"] = stats.rogan_gladen(passed / n, se["successes"] / se["n"], sp["successes"] / sp["n"])
            rate["corrected_interval"] = stats.corrected_rate_interval(
                passed, n, se["successes"], se["n"], sp["successes"], sp["n"]
            )
        out.append(rate)
    return out


def _share(value: Any) -> bool:
    """A recorded proportion the correction can use: ``{value, successes, n}`` with whole counts."""
    return (
        isinstance(value, dict)
        and all(isinstance(value.get(k), int) and value[k] >= 0 for k in ("successes", "n"))
        and value["n"] > 0
        and value["successes"] <= value["n"]
    )
