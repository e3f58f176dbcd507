"""promptfoo's ``max-score`` over one test's outputs, as ``selectMaxScore`` (``dist/src/evaluator-*.js``) decides it.

What promptfoo 0.123.1 does, after every output of the test is graded (and after select-best):

- each output's score is made from its ``gradingResult.componentResults`` whose ``assertion`` is set and is not
  ``max-score`` or ``select-best``: every assertion the test ran — deterministic, JavaScript, model-graded,
  python, an assert-set's children (the set's own result carries no ``assertion``, so it is not counted) —
  each ``componentResult.score || 0`` times ``value.weights[type] ?? 1`` (the assertion's own ``weight`` plays
  no part); ``method: sum`` adds them, else (``average``) divides by the weights' sum;
- the winner is the first output whose score is strictly greater than every earlier one (ties keep the first);
  it passes (score 1) when ``value.threshold`` is unset or its score reaches it, and every other output fails
  (score 0): ``Selected as highest scoring output (score: 0.875)``, ``Not selected (score: 0.400, max:
  0.875)``, ``Not selected - score 1.000 below threshold 2``.

Here an assertion whose result is not known (not run here, or its judge call or script failed) makes its
output's score a range — 0 to 1 for a handler that scores 0 or 1 (``aggregate.score_bounds``), unbounded
otherwise — and the choice is made only where every score in the ranges gives the same one; otherwise it is
undecided, naming what it rests on. A failed judge call is not promptfoo's score 0: it is unknown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from rubric_lsp.engine.report import Verdict
from rubric_lsp.engine.result import Outcome
from rubric_lsp.formats.promptfoo.grading.aggregate import score_bounds, to_fixed
from rubric_lsp.formats.promptfoo.grading.assertions import compared_threshold
from rubric_lsp.formats.promptfoo.grading.prompts import js_number_text, js_string

SELECTORS = ("max-score", "select-best")


@dataclass(frozen=True)
class Scored:
    """One output's max-score: the least and the most it can be (equal when every part is known)."""

    low: float | None  # None: unbounded
    high: float | None
    unknown: tuple[str, ...] = ()  # the types of the parts not known here

    @property
    def known(self) -> float | None:
        return self.low if self.low is not None and self.low == self.high and not self.unknown else None


def options(value: Any) -> tuple[str, dict[str, Any], Any]:
    """(method, weights, threshold) as ``selectMaxScore`` reads its value."""
    config = value if isinstance(value, dict) else {}
    weights = config.get("weights")
    return config.get("method", "average"), weights if isinstance(weights, dict) else {}, config.get("threshold")


def _weight(weights: dict[str, Any], type_name: str) -> float:
    weight = weights.get(type_name, 1)
    return float(weight) if isinstance(weight, (int, float)) and not isinstance(weight, bool) else 1.0


def output_score(verdicts: list[Verdict], types: list[str], method: str, weights: dict[str, Any]) -> Scored | None:
    """One output's score from its test's verdicts (``types``: each one's assertion type), or None when the test has
    no assertion to score (promptfoo throws: 'max-score requires at least one other assertion')."""
    parts = [(v, t) for v, t in zip(verdicts, types) if t not in SELECTORS]
    if not parts:
        return None
    low: float | None = 0.0
    high: float | None = 0.0
    weight_sum = 0.0
    unknown: list[str] = []
    for verdict, type_name in parts:
        weight = _weight(weights, type_name)
        weight_sum += weight
        if verdict.outcome in (Outcome.PASS, Outcome.FAIL):
            score = verdict.score if verdict.score is not None else float(bool(verdict.passed))
            score = 0.0 if math.isnan(score) else score  # `score || 0`
            low, high = _plus(low, score * weight), _plus(high, score * weight)
            continue
        unknown.append(type_name)
        bounds = score_bounds(type_name)
        if bounds is None:
            low = high = None
        else:
            ends = sorted((bounds[0] * weight, bounds[1] * weight))
            low, high = _plus(low, ends[0]), _plus(high, ends[1])
    if method != "sum":
        low = None if low is None else (low / weight_sum if weight_sum else 0.0)
        high = None if high is None else (high / weight_sum if weight_sum else 0.0)
    return Scored(low, high, tuple(unknown))


def _plus(total: float | None, value: float) -> float | None:
    return None if total is None else total + value


def choose(scores: list[Scored], threshold_value: Any) -> dict[str, Any]:
    """The winner (``winner``: its position, None when no output passes), each output's ``passed`` and reason,
    or ``undecided`` (why) when the ranges allow more than one outcome."""
    threshold = compared_threshold(threshold_value, None)
    winner = _certain_winner(scores)
    if winner is None:
        rests = sorted({t for s in scores for t in s.unknown})
        if threshold is not None and all(s.high is not None and s.high < threshold for s in scores):
            return _none_pass(scores, threshold, threshold_value)  # below the threshold whichever wins
        return {"undecided": f"the winner rests on {', '.join(rests)}, not known here"}
    best = scores[winner]
    if threshold is not None and not (best.low is not None and best.low >= threshold):
        if best.high is not None and best.high < threshold:
            return _none_pass(scores, threshold, threshold_value, winner)
        rests = sorted(set(best.unknown))
        return {
            "undecided": f"whether the best score reaches the threshold rests on {', '.join(rests)}, not known here"
        }
    reasons = []
    for position, scored in enumerate(scores):
        if position == winner:
            reasons.append(f"Selected as highest scoring output (score: {_fixed(scored)})")
        else:
            reasons.append(f"Not selected (score: {_fixed(scored)}, max: {_fixed(best)})")
    return {"winner": winner, "passed": [p == winner for p in range(len(scores))], "reasons": reasons}


def _none_pass(scores: list[Scored], threshold: float, written: Any, winner: int | None = None) -> dict[str, Any]:
    best = scores[winner] if winner is not None else None
    top = best.known if best is not None else None
    reasons = []
    for scored in scores:
        if top is not None and scored.known == top:  # `score === maxScore && !meetsThreshold`
            reasons.append(f"Not selected - score {_fixed(scored)} below threshold {js_string(written)}")
        else:
            reasons.append(f"Not selected (score: {_fixed(scored)}, max: {_fixed(best) if best else 'not known'})")
    written_text = written if isinstance(written, str) else js_number_text(threshold)
    return {
        "winner": None,
        "passed": [False] * len(scores),
        "reasons": reasons,
        "reason": f"The best score is below the threshold {written_text}, so no output passes.",
    }


def _certain_winner(scores: list[Scored]) -> int | None:
    """The output every score within the ranges makes the winner: the first strictly greater than those before it
    and at least as great as those after it."""
    for position, scored in enumerate(scores):
        if scored.low is None:
            continue
        before = all(o.high is not None and scored.low > o.high for o in scores[:position])
        after = all(o.high is not None and scored.low >= o.high for o in scores[position + 1 :])
        if before and after:
            return position
    return None


def _fixed(scored: Scored) -> str:
    """``score.toFixed(3)``, or the range when it is not known."""
    if scored.known is not None:
        return to_fixed(scored.known, 3)
    if scored.low is not None and scored.high is not None:
        return f"{to_fixed(scored.low, 3)} to {to_fixed(scored.high, 3)}"
    return "not known"
