"""autorubric's score formula (1.6.1), pure: no litellm, safe on the lint path.

One core serves the grading engine (live verdicts), ``rubric grade --verdicts`` (human
labels) and the language server's hover. It agrees with autorubric's ``score_reports`` /
``Rubric.compute_score`` across every CANNOT_ASSESS strategy × {binary, multi-choice} ×
{positive, zero, negative weight} (a property test checks it against the installed
autorubric).

An *abstained* criterion (CANNOT_ASSESS, or a multi-choice option with ``na: true``, or a
judge failure that abstains) is handled by the strategy:

- ``skip``    left out of numerator and denominator (autorubric's default);
- ``zero``    contributes 0 but keeps its weight in the denominator;
- ``partial`` contributes ``partial_credit * w`` for a positive weight, else 0;
- ``fail``    the worst realisable outcome for the weight's sign.

The score is ``None`` when nothing is left to score — never a made-up 0.0.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rubric_lsp.formats.autorubric.fields import CriterionValues
from rubric_lsp.formats.autorubric.options import CANNOT_ASSESS_STRATEGIES as CANNOT_ASSESS_STRATEGIES

DEFAULT_PARTIAL_CREDIT = 0.5
BINARY_VERDICTS = ("MET", "UNMET", "CANNOT_ASSESS")


@dataclass(frozen=True)
class Outcome:
    """What one criterion contributes: its weight, the value it earned, whether it abstained.

    ``fail_value`` is the value the ``fail`` strategy assigns when it abstained (binary:
    1.0 = MET for a penalty, 0.0 = UNMET otherwise; multi-choice: the worst non-NA option's
    value for the weight's sign).
    """

    weight: float
    value: float
    abstained: bool
    fail_value: float = 0.0
    binary: bool = False


def worst_option_index(criterion: CriterionValues) -> int:
    """The score-minimising non-NA option (highest value for a penalty); ties → lowest index."""
    options = criterion.options
    assert options is not None
    scored = [i for i, option in enumerate(options) if not option.na]
    if criterion.weight < 0:
        return max(scored, key=lambda i: (options[i].value, -i))
    return min(scored, key=lambda i: (options[i].value, i))


def fail_value(criterion: CriterionValues) -> float:
    if criterion.options is None:
        return 1.0 if criterion.weight < 0 else 0.0
    return criterion.options[worst_option_index(criterion)].value


def find_option(criterion: CriterionValues, label: str) -> int:
    """Option index for ``label`` the way autorubric matches ground truth: ``strip().lower()``, first match."""
    assert criterion.options is not None
    wanted = label.strip().lower()
    for index, option in enumerate(criterion.options):
        if option.label.strip().lower() == wanted:
            return index
    available = [option.label for option in criterion.options]
    raise ValueError(f"Label '{label}' not found. Available: {available}")  # autorubric's words (types.py)


def binary_outcome(criterion: CriterionValues, verdict: str) -> Outcome:
    if verdict not in BINARY_VERDICTS:
        raise ValueError(f"{verdict!r} is not a binary verdict; use MET, UNMET or CANNOT_ASSESS (case-sensitive)")
    return Outcome(
        criterion.weight,
        1.0 if verdict == "MET" else 0.0,
        verdict == "CANNOT_ASSESS",
        fail_value(criterion),
        binary=True,
    )


def option_outcome(criterion: CriterionValues, index: int | None) -> Outcome:
    """Outcome of picking option ``index`` (0-based); ``None`` = abstained without an option."""
    assert criterion.options is not None
    if index is None:
        return Outcome(criterion.weight, 0.0, True, fail_value(criterion))
    option = criterion.options[index]
    return Outcome(criterion.weight, option.value, option.na, fail_value(criterion))


def verdict_outcome(criterion: CriterionValues, verdict: str) -> Outcome:
    """A human or judge verdict as an Outcome: MET/UNMET/CANNOT_ASSESS, or an option label."""
    if criterion.options is None:
        return binary_outcome(criterion, verdict)
    return option_outcome(criterion, find_option(criterion, verdict))


def abstain_contribution(outcome: Outcome, strategy: str, partial_credit: float) -> float | None:
    if strategy == "skip":
        return None
    if strategy == "zero":
        return 0.0
    if strategy == "partial":
        return partial_credit * outcome.weight if outcome.weight > 0 else 0.0
    if strategy == "fail":
        if outcome.binary:  # autorubric: ``w if w < 0 else 0.0`` — a NaN weight contributes 0.0, not NaN
            return outcome.weight if outcome.weight < 0 else 0.0
        return outcome.fail_value * outcome.weight
    raise ValueError(f"unknown CANNOT_ASSESS strategy {strategy!r}; use one of {', '.join(CANNOT_ASSESS_STRATEGIES)}")


def compute_score(
    outcomes: Iterable[Outcome],
    strategy: str = "skip",
    partial_credit: float = DEFAULT_PARTIAL_CREDIT,
    normalize: bool = True,
) -> float | None:
    """The weighted score; ``normalize=False`` gives the raw weighted sum (``--raw``)."""
    if strategy not in CANNOT_ASSESS_STRATEGIES:
        raise ValueError(
            f"unknown CANNOT_ASSESS strategy {strategy!r}; use one of {', '.join(CANNOT_ASSESS_STRATEGIES)}"
        )
    weighted_sum = 0.0
    total_positive = 0.0
    total_negative = 0.0
    scored = 0
    for outcome in outcomes:
        weight = outcome.weight
        if outcome.abstained:
            contribution = abstain_contribution(outcome, strategy, partial_credit)
            if contribution is None:
                continue
            weighted_sum += contribution
        else:
            weighted_sum += outcome.value * weight
        scored += 1
        if weight > 0:
            total_positive += weight
        else:
            total_negative += abs(weight)
    if scored == 0:
        return None
    if not normalize:
        return weighted_sum
    if total_positive > 0:
        return max(0.0, min(1.0, weighted_sum / total_positive))
    if total_negative > 0:
        return max(0.0, min(1.0, 1.0 + weighted_sum / total_negative))
    return 0.0


def score_verdicts(
    criteria: Sequence[CriterionValues],
    verdicts: Sequence[str],
    strategy: str = "skip",
    partial_credit: float = DEFAULT_PARTIAL_CREDIT,
    normalize: bool = True,
) -> float | None:
    """Score a verdict list (one per criterion, in order), like autorubric's ``Rubric.compute_score``."""
    if len(verdicts) != len(criteria):
        raise ValueError(f"expected {len(criteria)} verdicts (one per criterion), got {len(verdicts)}")
    outcomes = [verdict_outcome(c, v) for c, v in zip(criteria, verdicts)]
    return compute_score(outcomes, strategy, partial_credit, normalize)
