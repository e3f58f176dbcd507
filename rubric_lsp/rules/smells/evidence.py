"""Smells beside the evidence (docs/smells.md, "Smells and agreement"): which smells a calibration unit's words
have, for the hover and ``rubric calibrate``'s table, and whether the units with smells agree less with
people than the others in this workspace.

Format-neutral: a unit's smells are the smell rules' findings (RL301-RL309, with the settings' ignores) whose
words lie inside the unit's span; no format's words are read here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rubric_lsp.document.positions import Span
from rubric_lsp.rules.registry import registered_rule

# A criterion's smells (the rubric-level ones, RL310 overlap and RL311 no-penalties, are not one unit's).
CRITERION_SMELLS = {f"RL30{n}" for n in range(1, 10)}
# Fewer units than this on either side and the comparison says so instead of a difference.
FEW = 5


def smells_within(found: Iterable[Any], span: Span) -> list[str]:
    """The codes of the criterion smells among ``found`` (diagnostics) whose words lie inside ``span``, in order."""
    codes = {d.code for d in found if d.code in CRITERION_SMELLS and span.start <= d.span.start <= span.end}
    return sorted(codes)


def named(codes: Sequence[str]) -> str:
    """ "RL301 double-barreled, RL302 vague-wording"."""
    return ", ".join(f"{code} {rule.name}" if (rule := registered_rule(code)) else code for code in codes)


@dataclass(frozen=True)
class Side:
    units: int
    kappa: float | None  # the mean of the units' κ that have one
    kappas: int  # how many had one
    accuracy: float | None

    def describe(self) -> str:
        if not self.units:
            return "none"
        kappa = "n/a" if self.kappa is None else f"{self.kappa:.2f}"
        accuracy = "n/a" if self.accuracy is None else f"{self.accuracy:.2f}"
        return f"{self.units} unit(s), mean κ {kappa} (of {self.kappas}), mean accuracy {accuracy}"


def _side(units: Sequence[Mapping[str, Any]]) -> Side:
    kappas = [k for u in units if (k := _value(u, "kappa")) is not None]
    accuracies = [a for u in units if (a := _value(u, "accuracy")) is not None]
    return Side(
        len(units),
        sum(kappas) / len(kappas) if kappas else None,
        len(kappas),
        sum(accuracies) / len(accuracies) if accuracies else None,
    )


def _value(unit: Mapping[str, Any], figure: str) -> float | None:
    found = unit.get(figure)
    value = found.get("value") if isinstance(found, Mapping) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def comparison(units: Sequence[tuple[Mapping[str, Any], Sequence[str]]]) -> list[str]:
    """Whether the units with smells agree less with people: each side's mean κ and accuracy with its count, and
    the difference only when both sides have at least :data:`FEW` units with a κ (else "too few to tell").
    ``units``: each unit's record figures with its smells."""
    smelly = _side([figures for figures, smells in units if smells])
    clean = _side([figures for figures, smells in units if not smells])
    lines = [f"  with smells: {smelly.describe()}", f"  without: {clean.describe()}"]
    if smelly.kappas < FEW or clean.kappas < FEW or smelly.kappa is None or clean.kappa is None:
        lines.append(
            f"  too few to tell whether smelly criteria agree less here ({smelly.kappas} and {clean.kappas} units "
            f"with a κ; {FEW} a side are needed for a comparison worth reading)"
        )
    else:
        gap = clean.kappa - smelly.kappa
        told = f"their mean κ is {gap:.2f} lower" if gap > 0 else f"their mean κ is {-gap:.2f} higher, or the same"
        lines.append(
            f"  units with smells agree {'less' if gap > 0 else 'no less'} with people here: {told} (a difference "
            f"of means over {smelly.units + clean.units} units, not a test: read it as a hint)"
        )
    return lines


def smell_lines(found: Mapping[str, Sequence[str]], units: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each calibrated unit's smells next to its κ, and whether the units with smells agree less with people
    (docs/smells.md, "Smells and agreement"). ``found``: unit id -> its smells' codes; ``units``: a calibration
    record's units (``id`` and ``figures``)."""
    lines = ["smells (docs/smells.md):"]
    for unit in units:
        if codes := found.get(unit["id"], []):
            kappa = _value(unit["figures"], "kappa")
            lines.append(f"  {unit['id']}: κ {'n/a' if kappa is None else f'{kappa:.2f}'} · {named(codes)}")
    if len(lines) == 1:
        lines.append("  none found in the units' words")
    paired = [(unit["figures"], found.get(unit["id"], [])) for unit in units]
    return [*lines, "smelly units against the others:", *comparison(paired)]
