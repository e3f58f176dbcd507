"""A calibration unit (a criterion, an assertion, a grader) as the formats hand it over, and its figures.

A format turns its graded labelled set into :class:`UnitSamples` (``result.calibration_units(doc)``);
everything after that is format-neutral: :func:`figures` computes what the record keeps of one unit, and
:func:`repeat_figures` how the judge agreed with itself when asked several times, :func:`judges_figures`
how several judges agreed with one another.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rubric_lsp.calibration import stats
from rubric_lsp.calibration.record import OwnJudge

MAX_DISAGREEING_ITEMS = 5  # an ambiguous unit's disagreeing items kept in the record
MAX_REASON_CHARS = 300  # each reason, cut at this length


@dataclass(frozen=True)
class Family:
    """What a unit shares with others written at the same place, one per member: a promptfoo ``defaultTest``
    assertion is one unit per test. Their findings, when the same, are one (``check.for_members``)."""

    name: str  # the unit's name without its member: "defaultTest assertion 1"
    member: str  # the members' noun: "test"
    number: int  # this unit's member: its test's number


@dataclass(frozen=True)
class Labelled:
    """One labelled item of a unit, as its record's evidence keeps it (``evidence.py``): fingerprints, not texts."""

    item: str  # ``evidence.item_mark`` of what the judge reads of the item (its response, its question)
    label: str  # ``evidence.label_mark`` of the human label as written
    truth: Any  # the label's category (an abstention's too); None: a label that is no category
    key: str = ""  # a labels file's row key (``labels_evidence.row_key``); "": the unit's id


@dataclass
class UnitSamples:
    """One unit's judge verdicts against human labels, over one pass of the labelled set."""

    id: str  # stable within the file: a criterion's name, an assertion's path
    title: str
    kind: str  # binary | ordinal | nominal
    text: Any  # what the judge reads of the unit (JSON-able): its fingerprint makes a record stale
    prompt: str  # the fingerprint of the prompt and template the judge is sent for it
    categories: tuple[Any, ...]  # the scale's categories, in order (abstentions excluded)
    names: dict[Any, str]  # each category's name in the record
    positive: Any = None  # binary: the passing verdict (the correction's "positive")
    pairs: list[tuple[Any, Any]] = field(default_factory=list)  # (human, judge), neither abstained
    abstained: dict[str, int] = field(default_factory=dict)  # both / judge_only / truth_only
    failed: int = 0  # judge calls that failed: neither agreement nor disagreement
    judged: Mapping[int, Any] = field(default_factory=dict)  # item → the judge's category (None: failed)
    reasons: Mapping[int, str] = field(default_factory=dict)  # item → the judge's reason
    settings: dict[str, Any] = field(default_factory=dict)  # the format's grading options that change its verdict
    judge: OwnJudge | None = None  # the judge the file named for it, when that (not the grading's) graded it
    labelled: Mapping[int, Labelled] = field(default_factory=dict)  # item → its label, for the record's evidence


@dataclass(frozen=True)
class CurrentUnit:
    """A unit as the file holds it now, before any judge call: what a record's fingerprints are checked against
    (``rubric grade --require-calibrated``, the judge card). The fields mean what :class:`UnitSamples`' do."""

    id: str
    title: str
    text: Any
    prompt: str
    settings: dict[str, Any] = field(default_factory=dict)
    binary: bool = True  # a pass rate can be corrected (one passing verdict against the rest)
    judge: OwnJudge | None = None  # the judge the file names for it (graded by it unless a given judge replaces it)
    family: Family | None = None  # the units it is one of (None: alone): one refusal names them together


def figures(unit: UnitSamples, corrected_interval: bool = True) -> dict[str, Any]:
    """The record's figures for one unit (docs/calibration.md says how to read each). ``corrected_interval``:
    the pass rate's Monte Carlo interval too (a record's; checking a record needs none of it)."""
    pairs = unit.pairs
    n = len(pairs)
    truth_counts = {unit.names.get(c, str(c)): sum(t == c for t, _ in pairs) for c in unit.categories}
    weights = "quadratic" if unit.kind == "ordinal" else None
    data: dict[str, Any] = {
        "labels": n,
        "balance": truth_counts,
        "accuracy": stats.proportion(sum(t == j for t, j in pairs), n),
        "kappa": kappa_figure(pairs, weights, unit.categories),
        "abstained": dict(unit.abstained),
        "failed": unit.failed,
    }
    if unit.kind == "binary":
        data.update(_binary(unit, corrected_interval))
    else:
        # No single "pass": each category against the rest (docs/calibration.md).
        data["per_category"] = {unit.names.get(c, str(c)): stats.one_vs_rest(pairs, c) for c in unit.categories}
    return data


def kappa_figure(pairs: Sequence[tuple[Any, Any]], weights: str | None, scale: Sequence[Any]) -> dict[str, Any]:
    """κ (quadratic-weighted for an ordinal scale) over the scale's every category, its interval and the number of
    pairs it rests on (``n``: every figure shows its sample size)."""
    return {
        "statistic": "quadratic-weighted" if weights else "cohen",
        "value": stats.cohen_kappa(pairs, weights, scale),
        "interval": stats.kappa_interval(pairs, weights, scale),
        "n": len(pairs),
    }


def _binary(unit: UnitSamples, corrected_interval: bool = True) -> dict[str, Any]:
    pairs, positive = unit.pairs, unit.positive
    split = stats.one_vs_rest(pairs, positive)
    se, sp = split["sensitivity"], split["specificity"]
    judged_pass = sum(j == positive for _, j in pairs)
    human_pass = sum(t == positive for t, _ in pairs)
    n = len(pairs)
    corrected = (
        stats.rogan_gladen(judged_pass / n, se["value"], sp["value"])
        if n and se["value"] is not None and sp["value"] is not None
        else None
    )
    return {
        "sensitivity": se,
        "specificity": sp,
        # The labelled set's own pass rates, and the judge's corrected for its Se/Sp: a check that the
        # correction brings the judge's rate to the people's (it does exactly when Se and Sp are the set's).
        "pass_rate": {
            "judge": judged_pass / n if n else None,
            "human": human_pass / n if n else None,
            "corrected": corrected,
            "corrected_interval": None
            if corrected is None or not corrected_interval
            else stats.corrected_rate_interval(judged_pass, n, se["successes"], se["n"], sp["successes"], sp["n"]),
        },
    }


def repeat_figures(passes: Sequence[UnitSamples], threshold: float) -> dict[str, Any]:
    """How one unit's verdicts agreed across repeated passes (the same unit, one sample per pass).

    Failed calls are left out of an item's answers; abstentions count as answers. ``ambiguous``:
    the share of unanimous items is below ``threshold``."""
    return {"repeats": len(passes), **raters_agreement(passes, threshold)}


def judges_figures(models: Sequence[str], units: Sequence[UnitSamples], threshold: float) -> dict[str, Any]:
    """How several judges, each grading the unit alone (``units[i]``: ``models[i]``'s one pass), agreed with
    one another: over all of them as :func:`repeat_figures` over asks, and per pair of judges the share of
    items both answered where they agree (Wilson interval) and Cohen's κ between them (abstentions are
    answers, so an unweighted κ on every scale; its interval the seeded bootstrap of the figures')."""
    pairs = []
    for first, second in itertools.combinations(range(len(units)), 2):
        a, b = units[first].judged, units[second].judged
        both = [(a[item], b[item]) for item in sorted(a.keys() & b.keys()) if None not in (a[item], b[item])]
        pairs.append(
            {
                "judges": [models[first], models[second]],
                "agreement": stats.proportion(sum(x == y for x, y in both), len(both)),
                "kappa": kappa_figure(both, None, units[first].categories),
            }
        )
    return {"models": list(models), **raters_agreement(units, threshold), "pairs": pairs}


def raters_agreement(raters: Sequence[UnitSamples], threshold: float) -> dict[str, Any]:
    """The agreement of several answers per item (an ask's or a judge's each), the ambiguity it decides, and
    an ambiguous unit's first disagreeing items, every rater's verdict and reason side by side."""
    items = sorted({item for p in raters for item in p.judged})
    answers = {item: [p.judged[item] for p in raters if p.judged.get(item) is not None] for item in items}
    agreement = stats.self_agreement([answers[item] for item in items])
    share = agreement["unanimous"]["value"]
    ambiguous = share is not None and share < threshold
    data: dict[str, Any] = {**agreement, "threshold": threshold, "ambiguous": ambiguous}
    if ambiguous:
        names = raters[0].names
        data["disagreements"] = [
            {
                "item": item,
                "verdicts": [names.get(p.judged.get(item), _absent(p.judged.get(item))) for p in raters],
                "reasons": [_cut(p.reasons.get(item, "")) for p in raters],
            }
            for item in items
            if len(set(answers[item])) > 1
        ][:MAX_DISAGREEING_ITEMS]
    return data


def _absent(category: Any) -> str:
    return "failed" if category is None else str(category)


def _cut(reason: str) -> str:
    return reason if len(reason) <= MAX_REASON_CHARS else reason[: MAX_REASON_CHARS - 1] + "…"
