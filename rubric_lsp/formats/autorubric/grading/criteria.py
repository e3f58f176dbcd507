"""Grading against an autorubric rubric: one judge call per criterion (and per judge).

Faithful to autorubric 1.6.1's semantics (semantics.md §1): binary and multi-choice reply
contracts, an automatic "cannot assess" option appended to multi-choice criteria without
one, deterministic option shuffling mapped back to the authored order, penalties, the score
formula with its CANNOT_ASSESS strategies, the failure categories and their effect, and
"every criterion failed" → no score. The prompts are our own.

Several judges (autorubric's ensemble, ``criterion_grader.py``): every judge votes on every
criterion. A failed call casts a stand-in vote the way autorubric's does: an
infrastructure/parse failure votes CANNOT_ASSESS (binary) or the NA option (multi-choice),
an unknown failure votes the worst case for the weight's sign. A reply without content
(``content: null``, ``"choices": []``) is unknown there (``json.loads(None)``, ``choices[0]``);
two verdict objects or a JSON array are parse failures (``json.loads`` / its reply model). Abstaining votes are left out
unless every vote abstains. Binary votes combine by the run's ``aggregation`` (majority —
ties take the worst case — , unanimous, any); multi-choice votes by the criterion's own
``aggregation``: ordinal mean (default) | weighted_mean | median — snapped to the nearest
non-NA option, near-ties (``math.isclose``) to the worst — | mode | min | max, anything else
(including the nominal-only names) falling back to mean; nominal mode (default) |
weighted_mode (judges weigh equally, so = mode) | unanimous (disagreement abstains through
the NA option). An unknown nominal aggregation crashes autorubric; ``unknown_aggregation``
names it so the engine refuses the rubric before any call. Deliberate differences: when
every judge failed on a criterion it stays a failed judgment (``ERROR``), and a verdict some
failed votes influenced says so in its ``reason`` and ``votes``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import TypeAdapter, ValidationError

from rubric_lsp.engine.failures import GradingStopped, JudgeFailure
from rubric_lsp.engine.judge import Judge
from rubric_lsp.engine.replies import Extracted, extract, snippet, strip_thinking
from rubric_lsp.engine.report import GradeReport, Subject, Verdict
from rubric_lsp.engine.runner import fan_out
from rubric_lsp.formats.autorubric.grading.reading import CREDIT, binary_reading, option_reading
from rubric_lsp.formats.autorubric.model import Criterion, CriterionOption
from rubric_lsp.formats.autorubric.score import (
    Outcome,
    binary_outcome,
    compute_score,
    fail_value,
    option_outcome,
    worst_option_index,
)

NA_OPTION = CriterionOption(label="Cannot assess / not applicable", value=0.0, na=True)
ORDINAL_AGGREGATIONS = ("mean", "median", "weighted_mean", "mode", "min", "max")
NOMINAL_AGGREGATIONS = ("mode", "weighted_mode", "unanimous")
NA_TAG = "(choose this when the response gives no way to judge the criterion, or it does not apply)"
BINARY = ("MET", "UNMET", "CANNOT_ASSESS")

BINARY_SYSTEM = (
    "You are an impartial evaluator. You check one criterion of a grading rubric against a "
    "response and decide whether the response satisfies it.\n"
    "- MET: the response clearly satisfies the criterion.\n"
    "- UNMET: it does not.\n"
    "- CANNOT_ASSESS: the response gives you no way to tell (for example the criterion does not apply).\n"
    "Judge only this criterion. Some criteria describe a flaw; for those, MET means the response has the flaw.\n"
    'Answer with one JSON object and nothing else: {"criterion_status": "MET" | "UNMET" | "CANNOT_ASSESS", '
    '"explanation": "<one or two sentences citing the response>"}'
)
CHOICE_SYSTEM = (
    "You are an impartial evaluator. You rate a response on one criterion of a grading rubric "
    "by choosing exactly one of the numbered options.\n"
    "Judge only this criterion. Choose the 'cannot assess' option only when the response gives you no way to tell.\n"
    'Answer with one JSON object and nothing else: {"selected_option": <the option number>, '
    '"explanation": "<one or two sentences citing the response>"}'
)

BINARY_FORMAT = {
    "type": "json_schema",
    "json_schema": {
        "name": "criterion_judgment",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {
                "criterion_status": {"type": "string", "enum": list(BINARY)},
                "explanation": {"type": "string"},
            },
            "required": ["criterion_status", "explanation"],
            "additionalProperties": False,
        },
    },
}
CHOICE_FORMAT = {
    "type": "json_schema",
    "json_schema": {
        "name": "multi_choice_judgment",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {"selected_option": {"type": "integer"}, "explanation": {"type": "string"}},
            "required": ["selected_option", "explanation"],
            "additionalProperties": False,
        },
    },
}


@dataclass
class CriterionInput:
    index: int
    criterion: Criterion
    name: str
    range: dict[str, Any] | None = None


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


def effective_options(criterion: Criterion) -> list[CriterionOption]:
    """The options the judge is shown: authored ones, plus the NA option appended last if none is NA."""
    assert criterion.options is not None
    options = list(criterion.options)
    if not any(o.na for o in options):
        options.append(NA_OPTION)
    return options


def shuffle_order(count: int, response: str, criterion_index: int, judge_id: str, seed: int) -> list[int]:
    """Deterministic permutation: order[shown position] = effective option index."""
    item_key = hashlib.sha256(response.encode()).hexdigest()[:16]
    key = f"{seed}:{item_key}:{criterion_index}:{judge_id}"
    rng = random.Random(int(hashlib.sha256(key.encode()).hexdigest()[:16], 16) % (2**31))
    order = list(range(count))
    rng.shuffle(order)
    return order


def _context(response: str, query: str | None, guidelines: str | None) -> str:
    parts = []
    if guidelines:
        parts.append(f"<guidelines>\n{guidelines}\n</guidelines>")
    if query:
        parts.append(f"<query>\n{query}\n</query>")
    parts.append(f"<response>\n{response}\n</response>")
    return "\n\n".join(parts)


def binary_messages(
    criterion: Criterion, response: str, query: str | None, guidelines: str | None
) -> list[dict[str, str]]:
    flaw = "\n(This criterion describes a flaw: MET means the response has it.)" if criterion.weight < 0 else ""
    user = f"{_context(response, query, guidelines)}\n\n<criterion>\n{criterion.requirement}{flaw}\n</criterion>"
    return [{"role": "system", "content": BINARY_SYSTEM}, {"role": "user", "content": user}]


def label_signals_na(label: str) -> bool:
    low = label.lower()
    return any(token in low for token in ("n/a", "not applicable", "cannot assess"))


def option_line(number: int, option: CriterionOption) -> str:
    """One numbered option; an NA option whose label does not say so is tagged as the abstain choice."""
    if option.na and not label_signals_na(option.label):
        return f"{number}. {option.label} {NA_TAG}"
    return f"{number}. {option.label}"


def choice_messages(
    criterion: Criterion, shown: Sequence[CriterionOption], response: str, query: str | None, guidelines: str | None
) -> list[dict[str, str]]:
    lines = "\n".join(option_line(n, option) for n, option in enumerate(shown, 1))
    user = f"{_context(response, query, guidelines)}\n\n<criterion>\n{criterion.requirement}\n</criterion>\n\n<options>\n{lines}\n</options>"
    return [{"role": "system", "content": CHOICE_SYSTEM}, {"role": "user", "content": user}]


_FENCE = re.compile(r"^```[A-Za-z]*\s*\n?(.*?)\n?```$", re.DOTALL)


def refuse_ambiguous(content: str, found: Extracted | None) -> None:
    """autorubric reads the whole reply as one JSON object (``json.loads``, then its reply model):
    a JSON array, or several objects, is a parse failure there, so it abstains — never a verdict.
    (Fenced or prose-wrapped single objects are read here: a documented difference.)"""
    visible = strip_thinking(content).strip()
    fenced = _FENCE.match(visible)
    if fenced is not None:
        visible = fenced.group(1).strip()
    if visible.startswith("["):
        try:
            is_array = isinstance(json.loads(visible), list)
        except ValueError:
            is_array = False
        if is_array:
            raise JudgeFailure(
                "parse", f"The judge replied with a JSON array, not one object: {snippet(content)!r}", "bad_reply"
            )
    if found is not None and found.candidates > 1:
        raise JudgeFailure(
            "parse",
            f"The judge's reply holds {found.candidates} verdict objects, not one; autorubric reads it as "
            f"unparseable and abstains: {snippet(content)!r}",
            "bad_reply",
        )


def parse_binary(content: str) -> tuple[str, str, bool]:
    found = extract(content, lambda o: "criterion_status" in o, lambda o: o.get("criterion_status"))
    refuse_ambiguous(content, found)
    if found is None:
        raise JudgeFailure(
            "parse",
            f'The judge\'s reply has no {{"criterion_status", "explanation"}} object: {snippet(content)!r}',
            "bad_reply",
        )
    status = found.value.get("criterion_status")
    if status not in BINARY:
        raise JudgeFailure(
            "parse",
            f"The judge answered criterion_status {status!r}; expected MET, UNMET or CANNOT_ASSESS.",
            "bad_reply",
        )
    explanation = found.value.get("explanation")
    if not isinstance(explanation, str):
        raise JudgeFailure("parse", "The judge's reply has no explanation.", "bad_reply")
    return status, explanation, found.ambiguous


_INT = TypeAdapter(int)


def lax_int(value: Any) -> int | None:
    """``value`` as autorubric's pydantic model reads an ``int`` field (lax mode), or None.

    Accepted: ints, integral floats (2.0), numeric strings of an integer ("2", " 2 ", "2.0"),
    and bools (True = 1), exactly as pydantic does; rejected: 2.5, "two", None, ...
    """
    try:
        return _INT.validate_python(value)
    except ValidationError:
        return None


def parse_choice(content: str, shown_count: int) -> tuple[int, str, bool]:
    """(0-based shown position, explanation, ambiguous)."""
    found = extract(content, lambda o: "selected_option" in o, lambda o: o.get("selected_option"))
    refuse_ambiguous(content, found)
    if found is None:
        raise JudgeFailure(
            "parse",
            f'The judge\'s reply has no {{"selected_option", "explanation"}} object: {snippet(content)!r}',
            "bad_reply",
        )
    selected = lax_int(found.value.get("selected_option"))
    if selected is None:
        raise JudgeFailure(
            "parse",
            f"The judge answered selected_option {found.value.get('selected_option')!r}; expected an option number.",
            "bad_reply",
        )
    if not 1 <= selected <= shown_count:
        raise JudgeFailure("parse", f"The judge chose option {selected}, outside 1–{shown_count}.", "bad_reply")
    explanation = found.value.get("explanation")
    if not isinstance(explanation, str):
        raise JudgeFailure("parse", "The judge's reply has no explanation.", "bad_reply")
    return selected - 1, explanation, found.ambiguous


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


def _verdict_name(criterion: Criterion, option: int) -> str:
    return effective_options(criterion)[option].label


def worst_verdict(criterion: Criterion) -> str:
    """The binary verdict that scores worst for the weight's sign (MET for a penalty)."""
    return "MET" if criterion.weight < 0 else "UNMET"


def failure_outcome(criterion: Criterion, failure: JudgeFailure) -> tuple[Outcome, str]:
    """How a failed judgment counts: infrastructure/parse abstain; unknown takes the worst case."""
    if failure.category == "unknown":
        if criterion.options is None:
            worst = worst_verdict(criterion)
            return binary_outcome(criterion, worst), worst
        index = worst_option_index(criterion)
        return option_outcome(criterion, index), criterion.options[index].label
    outcome = Outcome(criterion.weight, 0.0, True, fail_value(criterion), binary=criterion.options is None)
    return outcome, "CANNOT_ASSESS" if criterion.options is None else "abstained (NA)"


def judgment_outcome(criterion: Criterion, judgment: Judgment) -> Outcome:
    if criterion.options is None:
        return binary_outcome(criterion, judgment.verdict or "CANNOT_ASSESS")
    option = judgment.option
    options = effective_options(criterion)
    chosen = options[option] if option is not None else NA_OPTION
    return Outcome(criterion.weight, chosen.value, chosen.na, fail_value(criterion))


def unknown_aggregation(criterion: Criterion) -> str | None:
    """The aggregation name autorubric crashes on (a nominal multi-choice criterion's unknown one), or None."""
    if criterion.options is None or criterion.scale_type != "nominal" or not criterion.aggregation:
        return None
    return None if criterion.aggregation in NOMINAL_AGGREGATIONS else criterion.aggregation


def effective_option_index(criterion: Criterion, label: str) -> int | None:
    """The effective option (the automatic NA one included) ``label`` names, matched as autorubric
    matches labels (``strip().lower()``, first match), or None."""
    wanted = label.strip().lower()
    return next(
        (i for i, option in enumerate(effective_options(criterion)) if option.label.strip().lower() == wanted), None
    )


def na_index(criterion: Criterion) -> int:
    """The first NA option among the effective options (there always is one)."""
    return next(i for i, option in enumerate(effective_options(criterion)) if option.na)


def stand_in(criterion: Criterion, judgment: Judgment) -> Judgment:
    """A failed call's vote, as autorubric casts it: abstain (infrastructure/parse) or the worst case (unknown)."""
    failure = judgment.failure
    if failure is None:
        return judgment
    if criterion.options is None:
        verdict = worst_verdict(criterion) if failure.category == "unknown" else "CANNOT_ASSESS"
        return Judgment(verdict=verdict, judge=judgment.judge)
    option = worst_option_index(criterion) if failure.category == "unknown" else na_index(criterion)
    return Judgment(option=option, judge=judgment.judge)


def _vote_name(criterion: Criterion, vote: Judgment) -> str:
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


def aggregate(criterion: Criterion, judgments: list[Judgment], strategy: str) -> Judgment:
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


def aggregate_binary(criterion: Criterion, verdicts: list[str], strategy: str) -> str:
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


def aggregate_options(criterion: Criterion, picks: list[int]) -> int:
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


def _mode(criterion: Criterion, options: list[CriterionOption], picks: list[int]) -> int:
    counts: dict[int, int] = {}
    for pick in picks:
        counts[pick] = counts.get(pick, 0) + 1
    top = max(counts.values())
    return _worst_among(criterion, options, [i for i, c in counts.items() if c == top])


def _worst_among(criterion: Criterion, options: list[CriterionOption], candidates: list[int]) -> int:
    if criterion.weight < 0:
        return max(candidates, key=lambda i: (options[i].value, -i))
    return min(candidates, key=lambda i: (options[i].value, i))


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


def vote_label(criterion: Criterion, judgment: Judgment) -> str:
    """One judge's vote as ``votes`` lists it; a failed call shows what it was counted as."""
    if judgment.failure is None:
        return _vote_name(criterion, judgment)
    return f"ERROR ({judgment.failure.category}; counted as {_vote_name(criterion, stand_in(criterion, judgment))})"


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
