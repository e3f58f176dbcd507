"""Several judges' votes on one autorubric criterion, combined as autorubric's ensemble does.

Every judge votes on every criterion (``criterion_grader.py``). A failed call casts a stand-in
vote the way autorubric's does: an infrastructure/parse failure votes CANNOT_ASSESS (binary)
or the NA option (multi-choice), an unknown failure votes the worst case for the weight's
sign. Abstaining votes are left out unless every vote abstains. Binary votes combine by the
run's ``aggregation`` (majority — ties take the worst case — , unanimous, any); multi-choice
votes by the criterion's own ``aggregation``: ordinal mean (default) | weighted_mean | median
— snapped to the nearest non-NA option, near-ties (``math.isclose``) to the worst — | mode |
min | max, anything else (including the nominal-only names) falling back to mean; nominal
mode (default) | weighted_mode (judges weigh equally, so = mode) | unanimous (disagreement
abstains through the NA option). An unknown nominal aggregation crashes autorubric;
``unknown_aggregation`` names it so the engine refuses the rubric before any call.
Deliberate differences: when every judge failed on a criterion it stays a failed judgment,
and a result some failed votes influenced lists them in ``failed_votes``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from rubric_lsp.engine.failures import JudgeFailure
from rubric_lsp.formats.autorubric.fields import CriterionValues, OptionValues
from rubric_lsp.formats.autorubric.grading.prompt import effective_options
from rubric_lsp.formats.autorubric.score import worst_option_index

ORDINAL_AGGREGATIONS = ("mean", "median", "weighted_mean", "mode", "min", "max")
NOMINAL_AGGREGATIONS = ("mode", "weighted_mode", "unanimous")


@dataclass
class Judgment:
    """One judge's answer on one criterion: a binary verdict or an option (0-based, authored order)."""

    verdict: str | None = None  # binary
    option: int | None = None  # multi-choice, index into the effective options (NA appended last)
    reason: str = ""
    ambiguous: bool = False
    cached: bool = False
    failure: JudgeFailure | None = None
    judge: str = ""  # the judge model that gave it
    # An aggregated judgment some failed calls voted in: "<judge>: <category> (counted as X)".
    failed_votes: list[str] = field(default_factory=list)
    votes: int = 1  # how many judges' votes it combines


def worst_verdict(criterion: CriterionValues) -> str:
    """The binary verdict that scores worst for the weight's sign (MET for a penalty)."""
    return "MET" if criterion.weight < 0 else "UNMET"


def unknown_aggregation(criterion: CriterionValues) -> str | None:
    """The aggregation name autorubric crashes on (a nominal multi-choice criterion's unknown one), or None."""
    if criterion.options is None or criterion.scale_type != "nominal" or not criterion.aggregation:
        return None
    return None if criterion.aggregation in NOMINAL_AGGREGATIONS else criterion.aggregation


def na_index(criterion: CriterionValues) -> int:
    """The first NA option among the effective options (there always is one)."""
    return next(i for i, option in enumerate(effective_options(criterion)) if option.na)


def stand_in(criterion: CriterionValues, judgment: Judgment) -> Judgment:
    """A failed call's vote, as autorubric casts it: abstain (infrastructure/parse) or the worst case (unknown)."""
    failure = judgment.failure
    if failure is None:
        return judgment
    if criterion.options is None:
        verdict = worst_verdict(criterion) if failure.category == "unknown" else "CANNOT_ASSESS"
        return Judgment(verdict=verdict, judge=judgment.judge)
    option = worst_option_index(criterion) if failure.category == "unknown" else na_index(criterion)
    return Judgment(option=option, judge=judgment.judge)


def _vote_name(criterion: CriterionValues, vote: Judgment) -> str:
    if criterion.options is None:
        return vote.verdict or "CANNOT_ASSESS"
    return effective_options(criterion)[vote.option if vote.option is not None else na_index(criterion)].label


def all_failed(judgments: list[Judgment]) -> JudgeFailure:
    """One failure for a criterion every judge failed on, independent of judge order.

    Its category decides how it counts: unknown if any call failed that way (their worst-case
    votes are then the only ones autorubric would count), else an abstention.
    """
    categories = {j.failure.category for j in judgments if j.failure is not None}
    category = next((c for c in ("unknown", "infrastructure", "parse") if c in categories), "unknown")
    parts = sorted(f"{j.judge or 'judge'}: {j.failure.error}" for j in judgments if j.failure is not None)
    kind = judgments[0].failure.kind if len(judgments) == 1 and judgments[0].failure is not None else "other"
    return JudgeFailure(category, f"every judge failed — {'; '.join(parts)}", kind)


def aggregate(criterion: CriterionValues, judgments: list[Judgment], strategy: str) -> Judgment:
    """Several judges' answers on one criterion → one, the way autorubric's ensemble combines them.

    Failed calls vote their stand-in (``stand_in``); when every call failed the result is a
    failed judgment. A result some failed votes influenced lists them in ``failed_votes``.
    """
    if all(j.failure is not None for j in judgments):
        return Judgment(failure=all_failed(judgments), votes=len(judgments))
    votes = [stand_in(criterion, j) for j in judgments]
    good = [j for j in judgments if j.failure is None]
    failed_votes = sorted(
        f"{j.judge or 'judge'}: {j.failure.category} failure (counted as {_vote_name(criterion, v)})"
        for j, v in zip(judgments, votes)
        if j.failure is not None
    )
    reason = " | ".join(j.reason for j in good)
    combined = Judgment(
        reason=reason,
        cached=all(j.cached for j in good),
        ambiguous=any(j.ambiguous for j in good),
        failed_votes=failed_votes,
        votes=len(judgments),
    )
    if criterion.options is None:
        verdict = aggregate_binary(criterion, [v.verdict or "CANNOT_ASSESS" for v in votes], strategy)
        return replace(combined, verdict=verdict)
    picks = [v.option if v.option is not None else na_index(criterion) for v in votes]
    return replace(combined, option=aggregate_options(criterion, picks))


def aggregate_binary(criterion: CriterionValues, verdicts: list[str], strategy: str) -> str:
    """autorubric's ``_aggregate_votes`` with equal judge weights."""
    met = sum(1 for v in verdicts if v == "MET")
    unmet = sum(1 for v in verdicts if v == "UNMET")
    if met == 0 and unmet == 0:
        return "CANNOT_ASSESS"
    if strategy == "unanimous":
        return "MET" if unmet == 0 else "UNMET"  # any UNMET vote decides
    if strategy == "any":
        return "MET" if met > 0 else "UNMET"
    if met != unmet:  # majority, weighted (equal weights) and anything else
        return "MET" if met > unmet else "UNMET"
    return worst_verdict(criterion)  # a tie takes the worst case for the weight's sign


def aggregate_options(criterion: CriterionValues, picks: list[int]) -> int:
    """autorubric's ``_aggregate_multi_choice_votes`` with equal judge weights; picks index the effective options."""
    options = effective_options(criterion)
    scored = [p for p in picks if not options[p].na]
    if not scored:  # every vote abstained: the first NA pick, in judge order
        return picks[0]
    how = criterion.aggregation or None
    if criterion.scale_type == "nominal":
        how = how or "mode"
        if how in ("mode", "weighted_mode"):
            return _mode(criterion, options, scored)
        if how == "unanimous":
            return scored[0] if len(set(scored)) == 1 else na_index(criterion)
        raise ValueError(
            f"autorubric cannot combine votes with the nominal aggregation {how!r}; use one of {', '.join(NOMINAL_AGGREGATIONS)}"
        )
    how = how or "mean"
    if how == "mode":
        return _mode(criterion, options, scored)
    if how == "min":
        return min(scored, key=lambda i: (options[i].value, i))
    if how == "max":
        return max(scored, key=lambda i: (options[i].value, -i))
    values = sorted(options[p].value for p in scored)
    if how == "median":
        n = len(values)
        target = values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2
    else:  # mean, weighted_mean (equal weights), and any other name: autorubric falls back to mean
        target = sum(options[p].value for p in scored) / len(scored)
    distances = [(abs(option.value - target), i) for i, option in enumerate(options) if not option.na]
    nearest = min(d for d, _ in distances)
    return _worst_among(criterion, options, [i for d, i in distances if math.isclose(d, nearest, abs_tol=1e-9)])


def _mode(criterion: CriterionValues, options: list[OptionValues], picks: list[int]) -> int:
    counts: dict[int, int] = {}
    for pick in picks:
        counts[pick] = counts.get(pick, 0) + 1
    top = max(counts.values())
    return _worst_among(criterion, options, [i for i, c in counts.items() if c == top])


def _worst_among(criterion: CriterionValues, options: list[OptionValues], candidates: list[int]) -> int:
    if criterion.weight < 0:
        return max(candidates, key=lambda i: (options[i].value, -i))
    return min(candidates, key=lambda i: (options[i].value, i))


def vote_label(criterion: CriterionValues, judgment: Judgment) -> str:
    """One judge's vote as ``votes`` lists it; a failed call shows what it was counted as."""
    if judgment.failure is None:
        return _vote_name(criterion, judgment)
    return f"ERROR ({judgment.failure.category}; counted as {_vote_name(criterion, stand_in(criterion, judgment))})"
