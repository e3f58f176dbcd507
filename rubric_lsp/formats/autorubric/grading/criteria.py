"""Grading against an autorubric rubric: one judge call per criterion (and per judge).

Faithful to autorubric 1.6.1's semantics (semantics.md §1): the reply contracts and option
shuffling (``prompt.py``), several judges' votes combined as its ensemble does
(``votes.py``), penalties, the score formula with its CANNOT_ASSESS strategies, the failure
categories and their effect, and "every criterion failed" → no score. Deliberate difference:
a verdict some failed votes influenced says so in its ``reason`` and ``votes``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rubric_lsp.engine.failures import GradingStopped, JudgeFailure
from rubric_lsp.engine.judge import Judge
from rubric_lsp.engine.report import GradeReport, Subject, Verdict
from rubric_lsp.engine.runner import fan_out
from rubric_lsp.formats.autorubric.fields import CriterionValues
from rubric_lsp.formats.autorubric.grading.prompt import (
    BINARY_FORMAT,
    CHOICE_FORMAT,
    NA_OPTION,
    binary_messages,
    choice_messages,
    effective_options,
    parse_binary,
    parse_choice,
    shuffle_order,
)
from rubric_lsp.formats.autorubric.grading.reading import CREDIT, binary_reading, option_reading
from rubric_lsp.formats.autorubric.grading.votes import Judgment, aggregate, vote_label, worst_verdict
from rubric_lsp.formats.autorubric.score import (
    Outcome,
    binary_outcome,
    compute_score,
    fail_value,
    option_outcome,
    worst_option_index,
)


@dataclass
class CriterionInput:
    index: int
    criterion: CriterionValues
    name: str
    range: dict[str, Any] | None = None


async def judge_criterion(
    judge: Judge,
    item: CriterionInput,
    response: str,
    query: str | None,
    guidelines: str | None,
    *,
    shuffle: bool,
    seed: int,
) -> Judgment:
    criterion = item.criterion
    try:
        # The messages (each holds the response) are built inside the judge's prompt window, not here.
        if criterion.options is None:
            (status, reason, ambiguous), cached = await judge.ask(
                lambda: binary_messages(criterion, response, query, guidelines), BINARY_FORMAT, parse_binary
            )
            return Judgment(verdict=status, reason=reason, ambiguous=ambiguous, cached=cached, judge=judge.model)
        options = effective_options(criterion)
        order = (
            shuffle_order(len(options), response, item.index, judge.model, seed)
            if shuffle
            else list(range(len(options)))
        )
        shown = [options[i] for i in order]
        (position, reason, ambiguous), cached = await judge.ask(
            lambda: choice_messages(criterion, shown, response, query, guidelines),
            CHOICE_FORMAT,
            lambda c: parse_choice(c, len(shown)),
        )
        return Judgment(option=order[position], reason=reason, ambiguous=ambiguous, cached=cached, judge=judge.model)
    except asyncio.CancelledError:
        raise
    except JudgeFailure as failure:
        if failure.kind == "no_content":
            # autorubric's json.loads(None) / choices[0] raise TypeError / IndexError: "unknown", the worst case.
            failure = JudgeFailure(
                "unknown",
                f"{failure.message} autorubric counts a reply without content as the worst case.",
                "no_content",
            )
        return Judgment(failure=failure, judge=judge.model)
    except GradingStopped:  # the grading's own fault (its run file): stops it, never a verdict
        raise
    except Exception as exc:
        return Judgment(failure=JudgeFailure("unknown", f"{type(exc).__name__}: {exc}"), judge=judge.model)


def failure_outcome(criterion: CriterionValues, failure: JudgeFailure) -> tuple[Outcome, str]:
    """How a failed judgment counts: infrastructure/parse abstain; unknown takes the worst case."""
    if failure.category == "unknown":
        if criterion.options is None:
            worst = worst_verdict(criterion)
            return binary_outcome(criterion, worst), worst
        index = worst_option_index(criterion)
        return option_outcome(criterion, index), criterion.options[index].label
    outcome = Outcome(criterion.weight, 0.0, True, fail_value(criterion), binary=criterion.options is None)
    return outcome, "CANNOT_ASSESS" if criterion.options is None else "abstained (NA)"


def judgment_outcome(criterion: CriterionValues, judgment: Judgment) -> Outcome:
    if criterion.options is None:
        return binary_outcome(criterion, judgment.verdict or "CANNOT_ASSESS")
    option = judgment.option
    options = effective_options(criterion)
    chosen = options[option] if option is not None else NA_OPTION
    return Outcome(criterion.weight, chosen.value, chosen.na, fail_value(criterion))


async def grade_criteria(
    judges: list[Judge],
    items: list[CriterionInput],
    response: str,
    query: str | None,
    guidelines: str | None,
    *,
    strategy: str = "skip",
    partial_credit: float = 0.5,
    normalize: bool = True,
    shuffle: bool = True,
    seed: int = 0,
    aggregation: str = "majority",
    on_progress: Callable[[int, int], None] | None = None,
) -> GradeReport:
    total = len(items) * len(judges)
    done = 0

    async def one(judge: Judge, item: CriterionInput) -> Judgment:
        nonlocal done
        result = await judge_criterion(judge, item, response, query, guidelines, shuffle=shuffle, seed=seed)
        done += 1
        if on_progress is not None:
            on_progress(done, total)
        return result

    flat = await fan_out(one(judge, item) for item in items for judge in judges)
    width = len(judges)
    results = [flat[k * width : (k + 1) * width] for k in range(len(items))]
    # autorubric gives a score, never a pass/fail of its own.
    report = GradeReport(format="autorubric", model=", ".join(j.model for j in judges), has_pass=False)
    for judge in judges:
        report.usage.merge(judge.usage)
    outcomes: list[Outcome] = []
    for item, judgments in zip(items, results):
        judgment = aggregate(item.criterion, judgments, aggregation) if len(judgments) > 1 else judgments[0]
        verdict = to_verdict(item, judgment)
        if len(judgments) > 1:
            verdict.votes = [vote_label(item.criterion, j) for j in judgments]
            verdict.failed_votes = len(judgment.failed_votes)
        report.verdicts.append(verdict)
        if judgment.failure is not None:
            outcomes.append(failure_outcome(item.criterion, judgment.failure)[0])
        else:
            outcomes.append(judgment_outcome(item.criterion, judgment))
    finish_score(report, outcomes, strategy, partial_credit, normalize)
    return report


def finish_score(
    report: GradeReport, outcomes: list[Outcome], strategy: str, partial_credit: float, normalize: bool
) -> None:
    if report.verdicts and all(v.failed for v in report.verdicts):
        report.error = "Every criterion's judgment failed, so there is no score: " + (report.verdicts[0].error or "")
        return
    report.raw_score = compute_score(outcomes, strategy, partial_credit, normalize=False)
    report.score = (
        compute_score(outcomes, strategy, partial_credit, normalize=normalize) if normalize else report.raw_score
    )


def _with_failures(judgment: Judgment, reason: str) -> str:
    if not judgment.failed_votes:
        return reason
    count = len(judgment.failed_votes)
    said = f"{count} of {judgment.votes} judges failed and voted a stand-in ({'; '.join(judgment.failed_votes)})."
    return f"{said} {reason}" if reason else said


def to_verdict(item: CriterionInput, judgment: Judgment) -> Verdict:
    criterion = item.criterion
    subject = Subject(item.name, item.index, item.range, criterion.weight)
    if judgment.failure is not None:
        _, counted = failure_outcome(criterion, judgment.failure)
        reason = f"Judge call failed ({judgment.failure.category}): {judgment.failure.message}"
        return subject.failure(reason, judgment.failure.error, counted)
    if criterion.options is None:
        verdict = judgment.verdict or "CANNOT_ASSESS"
        return subject.judged(
            verdict,
            _with_failures(judgment, judgment.reason),
            ambiguous=judgment.ambiguous,
            cached=judgment.cached,
            score=CREDIT.get(verdict),
            outcome=binary_reading(verdict, criterion.weight),
        )
    options = effective_options(criterion)
    option = judgment.option
    chosen = options[option] if option is not None else NA_OPTION
    # An appended NA option has no authored index; report it by label only.
    authored = option if option is not None and option < len(criterion.options) else None
    return subject.judged(
        chosen.label,
        _with_failures(judgment, judgment.reason),
        option=authored,
        ambiguous=judgment.ambiguous,
        cached=judgment.cached,
        score=None if chosen.na else chosen.value,
        outcome=option_reading(None if chosen.na else chosen.value, criterion.weight),
    )
