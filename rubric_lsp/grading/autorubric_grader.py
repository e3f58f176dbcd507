"""Grading against an autorubric rubric: one judge call per criterion (and per judge).

Faithful to autorubric 1.6.1's semantics (semantics.md §1): binary and multi-choice reply
contracts, an automatic "cannot assess" option appended to multi-choice criteria without
one, deterministic option shuffling mapped back to the authored order, penalties, the score
formula with its CANNOT_ASSESS strategies, the failure categories and their effect, and
"every criterion failed" → no score. The prompts are our own.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from rubric_lsp.formats.autorubric.model import Criterion, CriterionOption
from rubric_lsp.formats.autorubric.score import Outcome, binary_outcome, compute_score, fail_value, option_outcome, worst_option_index
from rubric_lsp.grading.failures import JudgeFailure
from rubric_lsp.grading.judge import Judge
from rubric_lsp.grading.replies import extract, snippet
from rubric_lsp.grading.report import ERROR_VERDICT, GradeReport, Verdict

NA_OPTION = CriterionOption(label="Cannot assess / not applicable", value=0.0, na=True)
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
            "properties": {"criterion_status": {"type": "string", "enum": list(BINARY)}, "explanation": {"type": "string"}},
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


def binary_messages(criterion: Criterion, response: str, query: str | None, guidelines: str | None) -> list[dict[str, str]]:
    flaw = "\n(This criterion describes a flaw: MET means the response has it.)" if criterion.weight < 0 else ""
    user = f"{_context(response, query, guidelines)}\n\n<criterion>\n{criterion.requirement}{flaw}\n</criterion>"
    return [{"role": "system", "content": BINARY_SYSTEM}, {"role": "user", "content": user}]


def choice_messages(criterion: Criterion, shown: Sequence[CriterionOption], response: str, query: str | None, guidelines: str | None) -> list[dict[str, str]]:
    lines = "\n".join(f"{n}. {option.label}" for n, option in enumerate(shown, 1))
    user = f"{_context(response, query, guidelines)}\n\n<criterion>\n{criterion.requirement}\n</criterion>\n\n<options>\n{lines}\n</options>"
    return [{"role": "system", "content": CHOICE_SYSTEM}, {"role": "user", "content": user}]


def parse_binary(content: str) -> tuple[str, str, bool]:
    found = extract(content, lambda o: "criterion_status" in o, lambda o: o.get("criterion_status"))
    if found is None:
        raise JudgeFailure("parse", f"The judge's reply has no {{\"criterion_status\", \"explanation\"}} object: {snippet(content)!r}", "bad_reply")
    status = found.value.get("criterion_status")
    if status not in BINARY:
        raise JudgeFailure("parse", f"The judge answered criterion_status {status!r}; expected MET, UNMET or CANNOT_ASSESS.", "bad_reply")
    explanation = found.value.get("explanation")
    if not isinstance(explanation, str):
        raise JudgeFailure("parse", "The judge's reply has no explanation.", "bad_reply")
    return status, explanation, found.ambiguous


def parse_choice(content: str, shown_count: int) -> tuple[int, str, bool]:
    """(0-based shown position, explanation, ambiguous)."""
    found = extract(content, lambda o: "selected_option" in o, lambda o: o.get("selected_option"))
    if found is None:
        raise JudgeFailure("parse", f"The judge's reply has no {{\"selected_option\", \"explanation\"}} object: {snippet(content)!r}", "bad_reply")
    selected = found.value.get("selected_option")
    if isinstance(selected, bool) or not isinstance(selected, int):
        raise JudgeFailure("parse", f"The judge answered selected_option {selected!r}; expected an option number.", "bad_reply")
    if not 1 <= selected <= shown_count:
        raise JudgeFailure("parse", f"The judge chose option {selected}, outside 1–{shown_count}.", "bad_reply")
    explanation = found.value.get("explanation")
    if not isinstance(explanation, str):
        raise JudgeFailure("parse", "The judge's reply has no explanation.", "bad_reply")
    return selected - 1, explanation, found.ambiguous


async def judge_criterion(judge: Judge, item: CriterionInput, response: str, query: str | None, guidelines: str | None, *, shuffle: bool, seed: int) -> Judgment:
    criterion = item.criterion
    try:
        if criterion.options is None:
            messages = binary_messages(criterion, response, query, guidelines)
            (status, reason, ambiguous), cached = await judge.ask(messages, BINARY_FORMAT, parse_binary)
            return Judgment(verdict=status, reason=reason, ambiguous=ambiguous, cached=cached)
        options = effective_options(criterion)
        order = shuffle_order(len(options), response, item.index, judge.model, seed) if shuffle else list(range(len(options)))
        shown = [options[i] for i in order]
        messages = choice_messages(criterion, shown, response, query, guidelines)
        (position, reason, ambiguous), cached = await judge.ask(messages, CHOICE_FORMAT, lambda c: parse_choice(c, len(shown)))
        return Judgment(option=order[position], reason=reason, ambiguous=ambiguous, cached=cached)
    except asyncio.CancelledError:
        raise
    except JudgeFailure as failure:
        return Judgment(failure=failure)
    except Exception as exc:  # noqa: BLE001 - a bug of ours must still not look like a verdict
        return Judgment(failure=JudgeFailure("unknown", f"{type(exc).__name__}: {exc}"))


def _verdict_name(criterion: Criterion, option: int) -> str:
    return effective_options(criterion)[option].label


def failure_outcome(criterion: Criterion, failure: JudgeFailure) -> tuple[Outcome, str]:
    """How a failed judgment counts: infrastructure/parse abstain; unknown takes the worst case."""
    if failure.category == "unknown":
        if criterion.options is None:
            worst = "MET" if criterion.weight < 0 else "UNMET"
            return binary_outcome(criterion, worst), worst
        index = worst_option_index(criterion)
        return option_outcome(criterion, index), criterion.options[index].label
    outcome = Outcome(criterion.weight, 0.0, True, fail_value(criterion))
    return outcome, "CANNOT_ASSESS" if criterion.options is None else "abstained (NA)"


def judgment_outcome(criterion: Criterion, judgment: Judgment) -> Outcome:
    if criterion.options is None:
        return binary_outcome(criterion, judgment.verdict or "CANNOT_ASSESS")
    option = judgment.option
    options = effective_options(criterion)
    chosen = options[option] if option is not None else NA_OPTION
    return Outcome(criterion.weight, chosen.value, chosen.na, fail_value(criterion))


def aggregate(criterion: Criterion, judgments: list[Judgment], strategy: str) -> Judgment:
    """Several judges' answers on one criterion → one (failures are left out; all failed → failure)."""
    good = [j for j in judgments if j.failure is None]
    if not good:
        return judgments[0]
    if len(good) == 1:
        return good[0]
    reason = " | ".join(j.reason for j in good)
    cached = all(j.cached for j in good)
    if criterion.options is None:
        met = sum(1 for j in good if j.verdict == "MET")
        unmet = sum(1 for j in good if j.verdict == "UNMET")
        if met == 0 and unmet == 0:
            return Judgment(verdict="CANNOT_ASSESS", reason=reason, cached=cached)
        if strategy == "unanimous":
            verdict = "MET" if unmet == 0 else "UNMET"  # autorubric: any UNMET vote decides
        elif strategy == "any":
            verdict = "MET" if met > 0 else "UNMET"
        elif met != unmet:
            verdict = "MET" if met > unmet else "UNMET"
        else:  # a tie takes the worst case for the weight's sign
            verdict = "MET" if criterion.weight < 0 else "UNMET"
        return Judgment(verdict=verdict, reason=reason, cached=cached)
    options = effective_options(criterion)
    picks = [j.option for j in good if j.option is not None and not options[j.option].na]
    if not picks:
        return Judgment(option=good[0].option, reason=reason, cached=cached)
    counts: dict[int, int] = {}
    for pick in picks:
        counts[pick] = counts.get(pick, 0) + 1
    if criterion.scale_type == "ordinal" and (criterion.aggregation or "mean") in ("mean", "weighted_mean", "median", "min", "max"):
        values = sorted(options[p].value for p in picks)
        how = criterion.aggregation or "mean"
        target = {"min": values[0], "max": values[-1], "median": values[len(values) // 2] if len(values) % 2 else (values[len(values) // 2 - 1] + values[len(values) // 2]) / 2}.get(how, sum(values) / len(values))
        scored = [i for i, o in enumerate(options) if not o.na]
        best = min(abs(options[i].value - target) for i in scored)
        nearest = [i for i in scored if abs(options[i].value - target) == best]
        return Judgment(option=_worst_among(criterion, options, nearest), reason=reason, cached=cached)
    top = max(counts.values())
    return Judgment(option=_worst_among(criterion, options, [i for i, c in counts.items() if c == top]), reason=reason, cached=cached)


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

    tasks = [[asyncio.ensure_future(one(judge, item)) for judge in judges] for item in items]
    try:
        results = [await asyncio.gather(*row) for row in tasks]
    except BaseException:
        for row in tasks:
            for task in row:
                task.cancel()
        raise
    report = GradeReport(format="autorubric", model=", ".join(j.model for j in judges))
    for judge in judges:
        report.usage.merge(judge.usage)
    outcomes: list[Outcome] = []
    for item, judgments in zip(items, results):
        judgment = aggregate(item.criterion, judgments, aggregation) if len(judgments) > 1 else judgments[0]
        verdict = to_verdict(item, judgment)
        if len(judgments) > 1:
            verdict.votes = [to_verdict(item, j).verdict for j in judgments]
        report.verdicts.append(verdict)
        if judgment.failure is not None:
            outcomes.append(failure_outcome(item.criterion, judgment.failure)[0])
        else:
            outcomes.append(judgment_outcome(item.criterion, judgment))
    finish_score(report, outcomes, strategy, partial_credit, normalize)
    return report


def finish_score(report: GradeReport, outcomes: list[Outcome], strategy: str, partial_credit: float, normalize: bool) -> None:
    if report.verdicts and all(v.failed for v in report.verdicts):
        report.error = "Every criterion's judgment failed, so there is no score: " + report.verdicts[0].error
        return
    report.raw_score = compute_score(outcomes, strategy, partial_credit, normalize=False)
    report.score = compute_score(outcomes, strategy, partial_credit, normalize=normalize) if normalize else report.raw_score


def to_verdict(item: CriterionInput, judgment: Judgment) -> Verdict:
    criterion = item.criterion
    base = dict(name=item.name, index=item.index, range=item.range, weight=criterion.weight)
    if judgment.failure is not None:
        _, counted = failure_outcome(criterion, judgment.failure)
        return Verdict(verdict=ERROR_VERDICT, reason=f"Judge call failed ({judgment.failure.category}): {judgment.failure.message}", error=judgment.failure.error, counted_as=counted, **base)
    if criterion.options is None:
        return Verdict(verdict=judgment.verdict or "CANNOT_ASSESS", reason=judgment.reason, ambiguous=judgment.ambiguous, cached=judgment.cached, score={"MET": 1.0, "UNMET": 0.0}.get(judgment.verdict or ""), **base)
    options = effective_options(criterion)
    option = judgment.option
    chosen = options[option] if option is not None else NA_OPTION
    # An appended NA option has no authored index; report it by label only.
    authored = option if option is not None and option < len(criterion.options) else None
    return Verdict(verdict=chosen.label, option=authored, reason=judgment.reason, ambiguous=judgment.ambiguous, cached=judgment.cached, score=None if chosen.na else chosen.value, **base)
