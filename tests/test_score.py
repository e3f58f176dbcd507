"""The pure score formula agrees with autorubric 1.6.1's ``Rubric.compute_score``."""

from __future__ import annotations

import math
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rubric_lsp.formats.autorubric.model import Criterion
from rubric_lsp.formats.autorubric.score import CANNOT_ASSESS_STRATEGIES, score_verdicts
from tests.conftest import import_or_require

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def _reference():
    autorubric = import_or_require("autorubric")
    from autorubric.types import CannotAssessStrategy

    return autorubric.Rubric, CannotAssessStrategy


def _both(data, verdicts, strategy="skip", partial=0.5, normalize=True):
    Rubric, Strategy = _reference()
    expected = Rubric.from_dict(data).compute_score(
        verdicts, normalize=normalize, cannot_assess_strategy=Strategy(strategy), partial_credit=partial
    )
    criteria = [Criterion.model_validate(c) for c in data]
    actual = score_verdicts(criteria, verdicts, strategy, partial, normalize)
    return actual, expected


def _close(a, b):
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def test_four_abstentions_and_one_met_score_one_under_skip():
    data = [{"requirement": f"r{i}"} for i in range(5)]
    verdicts = ["CANNOT_ASSESS"] * 4 + ["MET"]
    actual, expected = _both(data, verdicts)
    assert actual == expected == 1.0
    actual, expected = _both(data, verdicts, "zero")
    assert actual == expected == pytest.approx(0.2)


def test_every_abstention_under_skip_has_no_score():
    data = [{"requirement": "a"}, {"requirement": "b", "weight": -5}]
    actual, expected = _both(data, ["CANNOT_ASSESS", "CANNOT_ASSESS"])
    assert actual is None and expected is None


def test_penalty_only_rubric_uses_one_plus_sum_over_negative_total():
    data = [{"requirement": "says something false", "weight": -10}, {"requirement": "rude", "weight": -5}]
    actual, expected = _both(data, ["MET", "UNMET"])
    assert actual == expected == pytest.approx(1 - 10 / 15)


def test_fail_strategy_picks_worst_option_for_penalty():
    data = [
        {"requirement": "quality", "weight": 10},
        {
            "requirement": "harm",
            "weight": -4,
            "options": [
                {"label": "none", "value": 0},
                {"label": "some", "value": 0.5},
                {"label": "n/a", "value": 0, "na": True},
            ],
        },
    ]
    for strategy in CANNOT_ASSESS_STRATEGIES:
        actual, expected = _both(data, ["MET", " N/A "], strategy, 0.3)
        assert _close(actual, expected), strategy
    actual, _ = _both(data, ["MET", "n/a"], "fail")
    assert actual == pytest.approx((10 - 0.5 * 4) / 10)


def test_raw_weighted_sum_and_unknown_verdict():
    data = [{"requirement": "a", "weight": 3}, {"requirement": "b", "weight": -2}]
    actual, expected = _both(data, ["MET", "MET"], normalize=False)
    assert actual == expected == 1.0
    with pytest.raises(ValueError, match="MET, UNMET or CANNOT_ASSESS"):
        score_verdicts([Criterion.model_validate(c) for c in data], ["met", "MET"])


weights = st.one_of(st.sampled_from([0.0, 10.0, -10.0, 1.0, -1.0]), st.floats(-50, 50, allow_nan=False))
option_values = st.floats(0, 1, allow_nan=False)


@st.composite
def criterion_and_verdict(draw):
    weight = draw(weights)
    if draw(st.booleans()):
        return {"requirement": "binary", "weight": weight}, draw(st.sampled_from(["MET", "UNMET", "CANNOT_ASSESS"]))
    scored = draw(st.lists(option_values, min_size=2, max_size=5))
    options = [{"label": f"o{i}", "value": v} for i, v in enumerate(scored)]
    if draw(st.booleans()):
        options.insert(draw(st.integers(0, len(options))), {"label": "na", "value": draw(st.floats(-3, 3)), "na": True})
    pick = draw(st.sampled_from(options))["label"]
    return {"requirement": "choice", "weight": weight, "options": options}, pick


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    st.lists(criterion_and_verdict(), min_size=1, max_size=8),
    st.sampled_from(CANNOT_ASSESS_STRATEGIES),
    st.floats(0, 1, allow_nan=False),
    st.booleans(),
)
def test_matches_autorubric_compute_score(pairs, strategy, partial, normalize):
    data = [c for c, _ in pairs]
    verdicts = [v for _, v in pairs]
    actual, expected = _both(data, verdicts, strategy, partial, normalize)
    assert _close(actual, expected), (actual, expected)


def _same(a, b):
    """Equal, NaN equal to NaN (autorubric's raw sum can be NaN too)."""
    if a is None or b is None:
        return a is b
    return (math.isnan(a) and math.isnan(b)) or _close(a, b)


@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("verdict", ["CANNOT_ASSESS", "MET", "UNMET"])
def test_nan_weight_under_fail_scores_as_autorubric(verdict, normalize):
    """Issue 15 item 8: an abstaining binary criterion weighted NaN contributes 0.0 under ``fail``
    (autorubric: ``w if w < 0 else 0.0``), not NaN; issue's case scored 1 here, 0.0 in autorubric."""
    data = [{"requirement": "a", "weight": 10}, {"requirement": "b", "weight": float("nan")}]
    actual, expected = _both(data, ["UNMET", verdict], "fail", 0.5, normalize)
    assert _same(actual, expected), (actual, expected)
    actual, expected = _both(data, ["MET", "CANNOT_ASSESS"], "fail", 0.5, normalize)
    assert _same(actual, expected), (actual, expected)
    if normalize:
        assert actual == 1.0 or actual == 0.0 or actual is None or math.isnan(actual)


def test_nan_weight_case_from_the_issue():
    data = [{"requirement": "b", "weight": float("nan")}]
    actual, expected = _both(data, ["CANNOT_ASSESS"], "fail", 0.5, True)
    assert expected == 0.0 and actual == 0.0
