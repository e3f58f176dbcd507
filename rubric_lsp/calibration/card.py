"""The judge card every ``rubric grade`` report carries: which judge and prompt, the scale, how abstentions
and ties are handled, how votes combine, what was covered, and each unit's calibration status — the
reporting checklist of the judge-evaluation literature, filled in from the grading (docs/grading.md).

The format supplies its own parts (scale, abstention, ties, aggregation: its vocabulary) as label/value
pairs; :func:`card_rows` turns the whole card into label/value rows that every face (text, HTML, JUnit
properties) renders the same way, so each figure shown is the JSON card's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rubric_lsp.calibration.gate import kappa_line
from rubric_lsp.calibration.record import DIGITS


def build(
    *,
    models: Sequence[str],
    prompt: str | None,
    parts: Sequence[tuple[str, str]],
    coverage: Mapping[str, int],
    record: str | None,
    units: Sequence[Mapping[str, Any]],
    record_error: str | None = None,
) -> dict[str, Any]:
    """The card (the ``judge_card`` of ``rubric grade --format json``; schemas/rubric-grade-output.schema.json)."""
    card: dict[str, Any] = {
        "models": list(models),
        "prompt": prompt,
        "format": [{"label": label, "value": value} for label, value in parts],
        "coverage": dict(coverage),
        "record": record,
        "units": [_unit(u) for u in units],
    }
    if record_error is not None:
        card["record_error"] = record_error
    return card


def _unit(status: Mapping[str, Any]) -> dict[str, Any]:
    figures = status.get("figures") or {}
    kappa = figures.get("kappa") if isinstance(figures.get("kappa"), dict) else None
    # The figures are those the record's evidence gives (status.statuses), never the record's own block.
    return {
        "id": status["id"],
        "status": status["status"],
        "calibrated": bool(status.get("calibrated")),
        "reasons": list(status.get("reasons") or []),
        "stale": list(status.get("stale") or []),
        "kappa": None
        if kappa is None
        else {
            "statistic": _typed(kappa.get("statistic"), str),
            "value": _rounded(_typed(kappa.get("value"), (int, float))),
            "interval": _interval_of(kappa.get("interval")),
            "n": _typed(kappa.get("n"), int),
        },
        "labels": _typed(figures.get("labels"), int),
        "date": status.get("date"),
        "ambiguous": list(status.get("ambiguous") or []),
    }


def _typed(value: Any, kind: Any) -> Any:
    return value if isinstance(value, kind) and not isinstance(value, bool) else None


def _rounded(value: Any) -> Any:
    """A figure as the record writes it (``record.DIGITS`` places), so the card and the record show one number."""
    return round(value, DIGITS) if isinstance(value, float) else value


def _interval_of(value: Any) -> list[float] | None:
    ok = isinstance(value, list) and len(value) == 2 and all(_typed(v, (int, float)) is not None for v in value)
    return [_rounded(v) for v in value] if ok else None


def card_rows(card: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The card as label/value rows, in the order every face shows them."""
    coverage = card["coverage"]
    rows = [
        ("judge", ", ".join(card["models"]) or "none (no judge call)"),
        ("prompt fingerprint", card["prompt"] or "n/a"),
        *((part["label"], part["value"]) for part in card["format"]),
        (
            "coverage",
            f"{coverage['groups']} item(s) · {coverage['graded']} of {coverage['units']} unit(s) graded · "
            f"{coverage['errors']} failed · {coverage['abstained']} abstained · {coverage['not_run']} not run",
        ),
        ("calibration record", card["record"] or "none"),
    ]
    if card.get("record_error"):
        rows.append(("calibration record error", card["record_error"]))
    rows.extend((f"calibration: {unit['id']}", unit_line(unit)) for unit in card["units"])
    return rows


def unit_line(unit: Mapping[str, Any]) -> str:
    """One unit's status and decision, in the words RL020 and ``--require-calibrated`` say it: "fresh · calibrated ·
    κ 0.82 [0.74, 0.89] over 412 labels · 2026-11-20", or "stale · not calibrated: stale: its text changed since
    2026-11-20 · κ …"."""
    reasons = unit.get("reasons") or []
    parts = [unit["status"], "calibrated" if unit.get("calibrated") else "not calibrated: " + "; ".join(reasons)]
    if unit.get("ambiguous") and unit.get("calibrated"):  # allowed (allow-ambiguous), still said
        parts.append("ambiguous: " + " and ".join(unit["ambiguous"]))
    kappa = unit.get("kappa")
    if kappa is not None:
        parts.append(kappa_line(kappa))
    if unit.get("date"):
        parts.append(str(unit["date"]))
    return " · ".join(parts)


def pass_rate_lines(rates: Sequence[Mapping[str, Any]]) -> list[str]:
    """The text output's pass rates: raw, and corrected for the judge's sensitivity/specificity where it can be."""
    lines = ["pass rates (raw → corrected for the judge's measured sensitivity and specificity, Rogan–Gladen):"]
    for rate in rates:
        raw = f"{number(rate['value'])}{interval(rate['interval'])} of {rate['n']}"
        if rate["corrected"] is not None:
            corrected = f"{number(rate['corrected'])}{interval(rate['corrected_interval'])}"
        else:
            why = "no correction: Se + Sp ≤ 1" if rate["calibration"] == "fresh" else f"record {rate['calibration']}"
            corrected = f"not corrected ({why})"
        lines.append(f"  {rate['unit']}: {raw} → {corrected}")
    return lines


def number(value: Any) -> str:
    """How the card prints a figure (tests compare the faces with the JSON through this)."""
    return "n/a" if not isinstance(value, (int, float)) else f"{value:.3f}"


def interval(bounds: Any) -> str:
    return f" [{number(bounds[0])}, {number(bounds[1])}]" if isinstance(bounds, list) and len(bounds) == 2 else ""


def with_card(data: Any, card: Mapping[str, Any] | None, rates: Sequence[Mapping[str, Any]] | None) -> Any:
    """``rubric grade --format json``'s output: the result's JSON with the card and the pass rates added
    (a result whose JSON is a list, a file's examples, is left as it is: its schema has no place for them)."""
    if card is None or not isinstance(data, dict):
        return data
    return {**data, "judge_card": card, **({} if rates is None else {"pass_rates": list(rates)})}


def card_lines(card: Mapping[str, Any] | None, rates: Sequence[Mapping[str, Any]] | None) -> list[str]:
    """The text output's card and pass rates, after the result's own lines."""
    if card is None:
        return []
    lines = ["", "judge card:", *(f"  {label}: {value}" for label, value in card_rows(card))]
    return lines + (pass_rate_lines(rates) if rates else [])
