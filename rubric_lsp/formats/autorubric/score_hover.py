"""What a criterion's verdict does to the score, for the hover on a criterion (see editor.py).

The numbers come from the grading engine's pure score formula
(``rubric_lsp.formats.autorubric.score``): the hover asks it "every other criterion
MET, and this one MET / UNMET / CANNOT_ASSESS: what is the score?".
"""

from __future__ import annotations

import math
from typing import cast

VERDICTS = ("MET", "UNMET", "CANNOT_ASSESS")
DEFAULT_STRATEGY = "skip"


def _score(view, picks: dict[int, object], strategy: str) -> float | None:
    """Score of the rubric when criterion i gets ``picks[i]`` (a verdict, an option index, or None = abstain)."""
    from rubric_lsp.formats.autorubric import score as formula

    outcomes = []
    for entry in view.entries:
        criterion = entry.criterion
        if criterion is None:
            continue
        pick = picks[entry.index]
        # _picks and _best give a binary criterion verdicts, an option criterion option indexes (or None).
        if criterion.is_binary:
            outcomes.append(formula.binary_outcome(criterion, cast(str, pick)))
        else:
            outcomes.append(
                formula.option_outcome(criterion, None if pick == "CANNOT_ASSESS" else cast("int | None", pick))
            )
    return formula.compute_score(outcomes, strategy)


def _fmt(value: float | None) -> str:
    if value is None:
        return "no score"
    return f"{value:.2f}"


def describe(view, entry, strategy: str | None) -> str:
    strategy = strategy or DEFAULT_STRATEGY
    criterion = entry.criterion
    weight = criterion.weight
    positive = sum(c.weight for c in view.criteria if math.isfinite(c.weight) and c.weight > 0)
    name = entry.label
    lines = [f"**Criterion {entry.index + 1}: {name}** (weight {weight:g})", ""]
    if math.isfinite(weight) and weight > 0 and positive > 0:
        lines.append(
            f"Carries **{weight / positive:.0%}** of the maximum score ({weight:g} of {positive:g} positive weight)."
        )
    elif math.isfinite(weight) and weight < 0:
        lines.append(
            f"A penalty: MET means the response *does* this, and takes up to {abs(weight):g} off"
            + (f" ({abs(weight) / positive:.0%} of the maximum score)." if positive > 0 else ".")
        )
    elif weight == 0:
        lines.append("Weight 0: its verdict never changes the score.")
    else:
        lines.append(f"Weight {weight} is not a finite number; the score cannot be computed.")
    others = {e.index: _best(e) for e in view.entries if e.criterion is not None and e.index != entry.index}
    rows = []
    try:
        picks = _picks(entry)
        for label, pick in picks:
            rows.append((label, _score(view, {**others, entry.index: pick}, strategy)))
    except Exception:  # the engine is not there yet or rejects the rubric: say what we can
        rows = []
    if rows:
        lines += [
            "",
            f"With every other criterion at its best, under the CANNOT_ASSESS strategy `{strategy}`:",
            "",
            "| verdict | score |",
            "|---|---|",
        ]
        lines += [f"| {label} | {_fmt(value)} |" for label, value in rows]
        if strategy == "skip":
            lines += [
                "",
                "`skip` leaves an abstention out of both the numerator and the denominator, "
                "so CANNOT_ASSESS scores like MET when the other criteria are met.",
            ]
    return "\n".join(lines)


def _best(entry):
    criterion = entry.criterion
    if criterion.is_binary:
        return "UNMET" if criterion.weight < 0 else "MET"
    scored = [(o.value, i) for i, o in enumerate(criterion.options) if not o.na]
    pick = max(scored) if criterion.weight >= 0 else min(scored)
    return pick[1]


def _picks(entry) -> list[tuple[str, object]]:
    criterion = entry.criterion
    if criterion.is_binary:
        return [(v, v) for v in VERDICTS]
    picks: list[tuple[str, object]] = [
        (f"{o.label} ({'NA' if o.na else o.value:})", i) for i, o in enumerate(criterion.options)
    ]
    if not any(o.na for o in criterion.options):
        picks.append(("CANNOT_ASSESS", "CANNOT_ASSESS"))
    return picks
