"""A promptfoo test's result from its assertions' results, as promptfoo 0.123.1 makes it.

Ported from ``runAssertions`` and ``AssertionsResult`` (``dist/src/evaluator-*.js``; src
``assertions/index.ts`` and ``assertions/assertionsResult.ts``):

- every assertion of the test runs except ``select-*`` and ``max-score``; an ``assert-set`` is
  its own ``AssertionsResult`` (its ``threshold``) whose result joins the test's with the set's
  ``weight`` and ``metric``;
- ``addResult``: ``totalScore += score * weight``, ``totalWeight += weight`` (``weight`` 1 when
  unset); a ``metric`` sums ``score * weight`` and ``weight`` under its name, and a set's inner
  named scores join scaled by the set's weight; a result that did not pass sets ``failedReason``;
- ``runAssertion`` forces a ``weight: 0`` assertion to pass (a set's weight is not forced);
- ``testResult``: ``score = totalWeight > 0 ? totalScore / totalWeight : 0``, ``pass = !failedReason``;
  with a numeric, non-NaN ``threshold`` (the test's, else ``defaultTest.threshold``):
  ``pass = score >= threshold`` whatever failed, reason ``Aggregate score 0.67 ≥ 0.5 threshold``.

What rubric grade does not know (an assertion it does not run, a judge call that failed) is
unknown, pass and score alike (a javascript or llm-rubric score can be any number): the test's
result is then decided only when it does not depend on it (a failed assertion fails a test without
a threshold whatever the others say); otherwise ``passed`` is None — never a pass on our own authority.
An unknown assertion whose handler can only score 0 or 1 (``ZERO_ONE``) bounds the test's score: when
even its best possible score is under the test's threshold, the test fails whatever the rest gives
(1 known failure and 2 such unknowns: at most 2/3). A pass is never decided that way: an assertion
not run here could still error the test in promptfoo.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from rubric_lsp.formats.promptfoo.grading.prompts import js_number_text

# Types whose handler scores `pass ? 1 : 0` (or 0 / 1) in promptfoo 0.123.1 (dist/src/evaluator-*.js),
# not- forms included: an unknown one of them scores between 0 and 1.
ZERO_ONE = frozenset(
    [
        "contains",
        "icontains",
        "contains-any",
        "contains-all",
        "icontains-any",
        "icontains-all",
        "contains-html",
        "contains-json",
        "contains-sql",
        "contains-xml",
        "cost",
        "equals",
        "finish-reason",
        "guardrails",
        "is-html",
        "is-json",
        "is-refusal",
        "is-sql",
        "is-valid-function-call",
        "is-valid-openai-function-call",
        "is-valid-openai-tools-call",
        "is-xml",
        "latency",
        "levenshtein",
        "regex",
        "starts-with",
        "trace-span-count",
        "trace-error-spans",
        "trace-span-duration",
        "word-count",
    ]
)


def score_bounds(type_name: str | None) -> tuple[float, float] | None:
    """The range an unknown assertion of ``type_name`` scores in (None: any number)."""
    if type_name is None:
        return None
    base = type_name[4:] if type_name.startswith("not-") else type_name
    return (0.0, 1.0) if base in ZERO_ONE else None


@dataclass
class Part:
    """One assertion's (or assert-set's) result as ``addResult`` receives it; None: not known."""

    passed: bool | None
    score: float | None
    weight: float = 1.0
    metric: str | None = None
    reason: str = ""
    # An assert-set's own named scores: name -> (weighted sum or None, weight), joined scaled by its weight.
    named: dict[str, tuple[float | None, float]] = field(default_factory=dict)
    # When the score is not known: the range it lies in, if bounded (score_bounds).
    bounds: tuple[float, float] | None = None


@dataclass
class Outcome:
    """``testResult()``: pass (None: not decided here), score (None: not known), reason, named scores."""

    passed: bool | None
    score: float | None
    reason: str
    named: dict[str, tuple[float | None, float]] = field(default_factory=dict)
    bounds: tuple[float, float] | None = None

    def named_scores(self) -> dict[str, float | None]:
        """promptfoo's ``namedScores``: each metric's sum over its weight (0 without weight); None: not known."""
        return {
            name: (None if total is None else (total / weight if weight > 0 else 0.0))
            for name, (total, weight) in self.named.items()
        }

    def as_part(self, weight: float, metric: str | None) -> Part:
        return Part(self.passed, self.score, weight, metric, self.reason, dict(self.named), self.bounds)


def to_fixed(number: float, digits: int = 2) -> str:
    """JavaScript's ``number.toFixed(digits)``: the exact binary value, a tie rounded away from zero."""
    if not math.isfinite(number):
        return js_number_text(number)
    return str(Decimal(number).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def _add(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


def _times(value: float | None, weight: float) -> float | None:
    # score * 0 is 0 whatever the score (a weight-0 unknown counts for nothing).
    return 0.0 if weight == 0 else (None if value is None else value * weight)


def aggregate(parts: list[Part], threshold: Any) -> Outcome:
    """The test's (or an assert-set's) result from its parts, as ``AssertionsResult.testResult``."""
    total: float | None = 0.0
    weight_sum = 0.0
    named: dict[str, tuple[float | None, float]] = {}
    failed_reason: str | None = None
    unknown = False
    low: float | None = 0.0  # the least and the most the weighted total can be (None: unbounded)
    high: float | None = 0.0
    for part in parts:
        total = _add(total, _times(part.score, part.weight))
        least, most = _weighted_range(part)
        low, high = _add(low, least), _add(high, most)
        weight_sum += part.weight
        if part.metric:
            old, old_weight = named.get(part.metric, (0.0, 0.0))
            named[part.metric] = (_add(old, _times(part.score, part.weight)), old_weight + part.weight)
        for name, (inner, inner_weight) in part.named.items():
            if name == part.metric:
                continue
            # promptfoo adds the normalised inner score × (inner weight × set weight): the inner sum × set weight.
            scaled = _times(inner, part.weight) if inner_weight > 0 else 0.0
            old, old_weight = named.get(name, (0.0, 0.0))
            named[name] = (_add(old, scaled), old_weight + inner_weight * part.weight)
        if part.passed is False:
            failed_reason = part.reason
        elif part.passed is None:
            unknown = True
    score = (None if total is None else total / weight_sum) if weight_sum > 0 else 0.0
    bounds = None if score is not None or low is None or high is None else (low / weight_sum, high / weight_sum)
    if isinstance(threshold, (int, float)) and not isinstance(threshold, bool) and not math.isnan(threshold):
        if score is None and bounds is not None and bounds[1] < threshold:
            reason = (
                f"Aggregate score at most {to_fixed(bounds[1])} < {js_number_text(threshold)} threshold, "
                "whatever the assertions not known here give"
            )
            return Outcome(False, None, reason, named, bounds)
        if score is None:
            reason = (
                f"The aggregate score against the {js_number_text(threshold)} threshold rests on results not known here"
            )
            return Outcome(None, None, reason, named, bounds)
        passed = score >= threshold
        reason = f"Aggregate score {to_fixed(score)} {'≥' if passed else '<'} {js_number_text(threshold)} threshold"
        return Outcome(passed, score, reason, named)
    if failed_reason is not None:
        return Outcome(False, score, failed_reason, named, bounds)
    if unknown:
        return Outcome(None, score, "Every assertion known here passed; the others decide", named, bounds)
    return Outcome(True, score, "All assertions passed", named)


def _weighted_range(part: Part) -> tuple[float | None, float | None]:
    """The least and the most ``score * weight`` can be for this part (None: unbounded)."""
    if part.weight == 0:
        return 0.0, 0.0
    if part.score is not None:
        return part.score * part.weight, part.score * part.weight
    if part.bounds is None:
        return None, None
    ends = (part.bounds[0] * part.weight, part.bounds[1] * part.weight)
    return min(ends), max(ends)
