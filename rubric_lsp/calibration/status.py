"""Is a unit calibrated? Each graded unit's record found and decided (``gate.decide``: fresh, stale — naming what
changed —, damaged or missing, and the settings' rules), the refusal of ``rubric grade --require-calibrated``, and
pass rates corrected for the judge's sensitivity and specificity as the record's evidence gives them
(docs/calibration.md). Format-neutral: a format hands over its units as they are now (:class:`units.CurrentUnit`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rubric_lsp.calibration import check, gate, record, stats
from rubric_lsp.calibration.check import Records
from rubric_lsp.calibration.gate import DAMAGED as DAMAGED
from rubric_lsp.calibration.gate import FRESH, MISSING
from rubric_lsp.calibration.gate import STALE as STALE
from rubric_lsp.calibration.units import CurrentUnit, Family


def record_unit(
    records: Sequence[tuple[Path, Mapping[str, Any]]], unit: CurrentUnit, judge: record.JudgeDescription
) -> tuple[Path, Mapping[str, Any], Mapping[str, Any], list[str]] | None:
    """The record entry that applies to ``unit`` (``records``: in search order, ``check.records_for``'s) and what
    changed since it was made: a fresh entry first, as the lint matches; else the first of the same id, else the
    first of the same text (a record made from a dataset applies to any file holding the same unit text)."""
    now = record.fingerprints(unit.text, judge)
    by_id = by_text = None
    for where, data in records:
        for entry in data["units"]:
            marks = entry["fingerprints"]
            stale = [cause for cause in record.CAUSES if marks.get(cause) != now[cause]]
            if not stale:
                return where, data, entry, []
            if by_id is None and entry["id"] == unit.id:
                by_id = (where, data, entry, stale)
            if by_text is None and marks.get("text") == now["text"]:
                by_text = (where, data, entry, stale)
    return by_id or by_text


def unit_judge(judge: record.JudgeDescription, unit: CurrentUnit, given: bool = False) -> record.JudgeDescription:
    """The judge as a record of ``unit`` names it: the judge the file names for it, unless a judge ``given`` to the
    grading replaces it (else the grading's), its prompt and the format's settings that change its verdict."""
    graded_by = record.unit_judge(judge, unit.judge, given)
    return replace(graded_by, prompt=unit.prompt, settings={**graded_by.settings, **unit.settings})


def statuses(
    units: Sequence[CurrentUnit],
    records: Records,
    judge: record.JudgeDescription,
    given: bool = False,
    rules: gate.Rules | None = None,
) -> list[dict[str, Any]]:
    """Each unit's calibration status: ``{id, title, status, calibrated, reasons, stale, figures, date, ambiguous,
    record}`` (``status``: fresh, stale, damaged or missing; ``reasons``: why it is not calibrated, in the words
    the lint and the hover say them; ``figures``: those its evidence gives, never the record's own block).
    ``given``: the grading was given its judge (``--model``, ``$RUBRIC_JUDGE_MODEL``), which replaces a judge a
    file names only as its default."""
    rules = rules or gate.Rules()
    out = []
    for unit in units:
        graded_by = unit_judge(judge, unit, given)
        found = record_unit(records.found, unit, graded_by)
        status: dict[str, Any] = {"id": unit.id, "title": unit.title, "stale": []}
        if found is None:
            made = gate.decide(gate.Found(), rules)
        else:
            where, data, entry, stale = found
            change = gate.judge_change(data, entry, graded_by.models) if "judge" in stale else ""
            made = gate.decide(gate.Found(data, entry, where, tuple(stale), change), rules, records.labelled_now)
            date = data.get("date") if isinstance(data.get("date"), str) else None
            status.update(stale=stale, date=date, record=str(where))
        status.update(
            status=made.status,
            calibrated=made.calibrated,
            reasons=made.reasons,
            figures=made.figures,
            ambiguous=made.ambiguous,
        )
        out.append(status)
    return out


def refusal(found: Sequence[Mapping[str, Any]], records: Records, units: Sequence[CurrentUnit] = ()) -> str | None:
    """Why ``--require-calibrated`` refuses (one line naming each unit that is not calibrated and why), or None.
    Members of a family (``units``' ``family``: a promptfoo ``defaultTest`` assertion, one unit per test) that
    are not calibrated for the same reasons are named once, as the lint names them: "polite in tests 1–40: …"."""
    refused = [s for s in found if not s["calibrated"]]
    if not found:
        return "--require-calibrated: this file's format names no calibration units: it cannot be calibrated yet"
    if not refused:
        return None
    families = {unit.id: unit.family for unit in units if unit.family is not None}
    # (family name, or the unit's own id where it has none; why) → each unit's (id, family)
    groups: dict[tuple[str, str], list[tuple[str, Family | None]]] = {}
    for s in refused:
        family = families.get(s["id"])
        key = family.name if family is not None else "\0" + s["id"]  # "\0": never a family's name
        groups.setdefault((key, _why(s, records)), []).append((s["id"], family))
    named = []
    for (_, why), members in groups.items():
        family = members[0][1]
        if len(members) > 1 and family is not None:  # one family: every member has it
            named.append(f"{family.name} in {check.members(family, [f.number for _, f in members if f])}: {why}")
        else:
            named.extend(f"{unit}: {why}" for unit, _ in members)
    listed = "; ".join(named)
    return f"--require-calibrated: {len(refused)} of {len(found)} unit(s) are not calibrated: {listed}"


def _why(status: Mapping[str, Any], records: Records) -> str:
    if status["status"] != MISSING:
        return "; ".join(status["reasons"])
    if not records.found:
        searched = ", ".join(str(w) for w in records.watched)
        return f"missing: no calibration record{f' at {searched}' if searched else ''} (run rubric calibrate)"
    return f"missing: no record of it in {', '.join(str(w) for w, _ in records.found)}"


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
