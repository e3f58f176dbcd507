"""What to label next, and what the labels so far say (docs/labelling.md, "What to label next").

**The order.** Once a grading's verdicts are known (``rubric label FILE --from GRADING.json``), the unlabelled
items come in the order of what a label on them would teach, each with why:

- the judges (or repeated asks) split on a unit: a label settles which side people are on;
- the verdict sits near its threshold (a score within a quarter of the scale of its pass mark);
- the judge's verdict is the class the unit has fewest labels of (a κ over labels of one class is undefined,
  and a sensitivity over three fails is anything): a label there balances the set.

Without verdicts the items keep the file's order.

**The figures.** Per unit: its labels and their balance; with verdicts, the agreement of judge and labels
(accuracy, Cohen's κ, quadratic-weighted on an ordinal scale, each with the interval ``rubric calibrate``
reports) and how many more labels would narrow κ's interval to ±``width`` (``sample_size.py``); with several
labellers, their agreement with one another: the ceiling a judge can reach.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from rubric_lsp.calibration import stats
from rubric_lsp.labelling import sample_size
from rubric_lsp.labelling.hook import ABSTAIN, JudgeSaid, LabelItem, LabelUnit, Sheet
from rubric_lsp.labelling.stores import Given, Key

TARGET_HALF_WIDTH = 0.15
NEAR_THRESHOLD = 0.25  # a score this close to its pass mark (on a 0–1 scale) is near it
SPLIT, NEAR, SHORT = 3.0, 2.0, 1.5  # how much each reason weighs in the order
STARTED = 1000.0  # a half-labelled item outweighs every reason


def order(pending: Sequence[LabelItem], sheet: Sheet, given: Mapping[Key, list[Given]]) -> list[dict[str, Any]]:
    """The items left to label, most telling first (file order among equals), each with why; an item half
    labelled comes before all (finish what was started: a second run resumes there)."""
    balance = _balances(sheet, given)
    ranked = []
    for position, item in enumerate(pending):
        weight, why = 0.0, []
        started = sum(bool(given.get((item.key, u.id))) for u in item.units)
        if started:
            weight += STARTED
            why.append(f"started: {started} of {len(item.units)} labelled")
        for unit in item.units:
            if given.get((item.key, unit.id)):
                continue
            said = sheet.judged.get((item.key, unit.id))
            if said is None:
                continue
            for gain, reason in _reasons(unit, said, balance.get(pooled(unit), Counter())):
                weight += gain
                why.append(reason)
        ranked.append((-weight, position, item, why))
    ranked.sort(key=lambda r: (r[0], r[1]))
    return [
        {"key": item.key, "number": item.number, "title": item.title, "why": why, "weight": round(-negative, 3)}
        for negative, _position, item, why in ranked
    ]


def _reasons(unit: LabelUnit, said: JudgeSaid, counts: Counter[str]) -> list[tuple[float, str]]:
    out = []
    votes = [v for v in said.votes if v]
    if len(set(votes)) > 1:
        tally = Counter(votes).most_common()
        share = tally[0][1] / len(votes)
        split = "–".join(str(c) for _w, c in tally)
        out.append((SPLIT * (1 - share) * 2, f"{unit.id}: the judges split {split}"))
    if said.score is not None and said.threshold is not None:
        distance = abs(said.score - said.threshold)
        if distance < NEAR_THRESHOLD:
            out.append(
                (
                    NEAR * (1 - distance / NEAR_THRESHOLD),
                    f"{unit.id}: score {said.score:g} near its pass mark {said.threshold:g}",
                )
            )
    classes = [c.word for c in unit.choices if c.meaning != ABSTAIN]
    if said.verdict in classes and len(classes) > 1:
        have = counts.get(said.verdict, 0)
        most = max((counts.get(c, 0) for c in classes), default=0)
        if have < most:
            out.append(
                (SHORT * (1 - have / most), f"{unit.id}: {have} {said.verdict!r} label(s) against {most} of another")
            )
    return out


def _balances(sheet: Sheet, given: Mapping[Key, list[Given]]) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {}
    for item in sheet.items:
        for unit in item.units:
            givens = given.get((item.key, unit.id))
            if givens:
                out.setdefault(pooled(unit), Counter())[givens[0].label.word] += 1
    return out


def pooled(unit: LabelUnit) -> str:
    """What the figures and the balance pool a unit under: its group (the same assertion over several tests),
    else itself."""
    return unit.group or unit.id


def figures(sheet: Sheet, given: Mapping[Key, list[Given]], width: float = TARGET_HALF_WIDTH) -> list[dict[str, Any]]:
    """Per unit (pooled across the items that hold it), what its labels say so far."""
    units: dict[str, LabelUnit] = {}
    pairs: dict[str, list[tuple[str, str]]] = {}
    labelled: dict[str, Counter[str]] = {}
    people: dict[str, dict[str, dict[str, str]]] = {}  # unit → labeller → item → word
    for item in sheet.items:
        for unit in item.units:
            name = pooled(unit)
            units.setdefault(name, unit)
            givens = given.get((item.key, unit.id), [])
            if not givens:
                continue
            reference = givens[0].label.word
            labelled.setdefault(name, Counter())[reference] += 1
            for g in givens:  # a label of unknown origin (given before any log) is nobody's in particular
                if g.label.labeller:
                    people.setdefault(name, {}).setdefault(g.label.labeller, {})[item.key + unit.id] = g.label.word
            said = sheet.judged.get((item.key, unit.id))
            scale = {c.word for c in unit.choices if c.meaning != ABSTAIN}
            if said is not None and said.verdict in scale and reference in scale:  # neither abstained nor failed
                pairs.setdefault(name, []).append((reference, said.verdict))
    return [
        _unit_figures(unit, labelled.get(uid, Counter()), pairs.get(uid, []), people.get(uid, {}), width)
        for uid, unit in units.items()
    ]


def _unit_figures(
    unit: LabelUnit, counts: Counter[str], pairs: list[tuple[str, str]], people: dict[str, dict[str, str]], width: float
) -> dict[str, Any]:
    scale = [c.word for c in unit.choices if c.meaning != ABSTAIN]
    name = pooled(unit)
    out: dict[str, Any] = {
        "unit": name,
        "labels": sum(counts.values()),
        "balance": {c.word: counts.get(c.word, 0) for c in unit.choices},
        "compared": len(pairs),
    }
    if pairs:
        out["agreement"] = _agreement(pairs, scale, unit.ordinal, width)
    raters = {who: items for who, items in people.items() if items}
    if len(raters) > 1:
        out["people"] = people_figures(raters, unit)
    out["text"] = _text(unit, out, width)
    return out


def _agreement(pairs: list[tuple[str, str]], scale: list[str], ordinal: bool, width: float) -> dict[str, Any]:
    weights = "quadratic" if ordinal else None
    position = {word: i for i, word in enumerate(scale)}
    coded = [(position[t], position[j]) for t, j in pairs]
    kappa = _kappa(coded, ordinal, len(scale))
    agreed = sum(t == j for t, j in pairs)
    matrix = [[sum(1 for t, j in coded if (t, j) == (a, b)) for b in range(len(scale))] for a in range(len(scale))]
    more = sample_size.more_for_kappa(matrix, weights, width) if kappa["value"] is not None else None
    return {"accuracy": stats.proportion(agreed, len(pairs)), "kappa": kappa, "more": more}


def _kappa(coded: list[tuple[int, int]], ordinal: bool, size: int) -> dict[str, Any]:
    """κ of pairs of positions on a scale of ``size`` and its interval: over the whole scale (an option nobody
    chose still weighs, calibration's way), quadratic-weighted on an ordinal one."""
    weights = "quadratic" if ordinal else None
    kappa = stats.cohen_kappa(coded, weights, range(size))
    interval = stats.kappa_interval(coded, weights, range(size)) if kappa is not None else None
    return {"statistic": "quadratic-weighted" if ordinal else "cohen", "value": kappa, "interval": interval}


def people_figures(raters: Mapping[str, Mapping[str, str]], unit: LabelUnit) -> dict[str, Any]:
    """How the labellers (``raters``: labeller → item → label of ``unit``) agree with one another, pair by pair,
    over the items both labelled with a category (an abstention on either side is left out, as it is between a
    judge and the labels): the share agreeing (Wilson interval) and κ with its interval, the statistic the
    judge's figures use (quadratic-weighted on an ordinal scale, over the whole scale)."""
    scale = [c.word for c in unit.choices if c.meaning != ABSTAIN]
    position = {word: i for i, word in enumerate(scale)}
    pairs = []
    for (a, first), (b, second) in itertools.combinations(sorted(raters.items()), 2):
        both = sorted(k for k in first.keys() & second.keys() if first[k] in position and second[k] in position)
        if not both:
            continue
        coded = [(position[first[k]], position[second[k]]) for k in both]
        agreed = stats.proportion(sum(x == y for x, y in coded), len(coded))
        pairs.append({"labellers": [a, b], "agreement": agreed, "kappa": _kappa(coded, unit.ordinal, len(scale))})
    return {"labellers": sorted(raters), "pairs": pairs}


def _text(unit: LabelUnit, figures: dict[str, Any], width: float) -> str:
    """One line: "politeness: κ 0.62 [0.31, 0.85] over 18 labels — about 40 more for ±0.15"."""
    name = figures["unit"]
    labels = figures["labels"]
    if not labels:
        return f"{name}: no labels yet"
    agreement = figures.get("agreement")
    if agreement is None:
        balance = ", ".join(f"{n} {w}" for w, n in figures["balance"].items() if n)
        return f"{name}: {labels} label(s) ({balance}); no verdicts of a grading to compare them with"
    kappa = agreement["kappa"]
    n = figures["compared"]
    if kappa["value"] is None:
        return f"{name}: κ undefined over {n} label(s): every label and verdict is one class; label the other"
    low, high = kappa["interval"] or (None, None)
    interval = f" [{low:.2f}, {high:.2f}]" if low is not None else ""
    more = agreement["more"]
    if more is None:
        tail = f" — more than {sample_size.MAX_LABELS:,} labels for ±{width:g}"
    elif more == 0:
        tail = f" — within ±{width:g}"
    else:
        tail = f" — about {more} more for ±{width:g}"
    return f"{name}: κ {kappa['value']:.2f}{interval} over {n} label(s){tail}"
