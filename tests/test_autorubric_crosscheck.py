"""The linter's errors agree with what the installed autorubric 1.6.1 refuses.

For every snippet: ``Rubric.from_yaml`` / ``Rubric.from_json`` / ``RubricDataset.from_json``
raising ⇔ the linter reporting at least one error, and the first error sits on the
offending line. The one deliberate difference: AR108 (unknown nominal aggregation) is an
error although autorubric loads the file, because it crashes later, while grading.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rubric_lsp.diagnostics import Severity
from tests.conftest import import_or_require
from tests.helpers import lint

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# Errors autorubric's loaders do not raise but its grader does.
RUNTIME_ONLY = {"AR108"}


@pytest.fixture(scope="module")
def autorubric():
    return import_or_require("autorubric")


def _load(autorubric, kind: str, text: str) -> Exception | None:
    try:
        if kind == "yaml":
            autorubric.Rubric.from_yaml(text)
        elif kind == "json":
            autorubric.Rubric.from_json(text)
        else:
            autorubric.RubricDataset.from_json(text)
    except Exception as exc:
        return exc
    return None


_PATHS = {"yaml": "case.rubric.yaml", "json": "case.rubric.json", "dataset": "case.dataset.json"}


def _errors(kind: str, text: str):
    result = lint(text, _PATHS[kind])
    assert "RL900" not in [d.code for d in result.diagnostics], "a checker crashed"
    return [d for d in result.diagnostics if d.severity == Severity.ERROR and d.code not in RUNTIME_ONLY]


# (id, kind, text, line of the first error or None when autorubric accepts it)
GOOD = [
    ("flat-list", "yaml", "- requirement: Names the capital\n  weight: 5\n- requirement: Cites a source\n"),
    ("sections", "yaml", "sections:\n  - name: A\n    criteria:\n      - requirement: x\n"),
    ("rubric-list", "yaml", "rubric:\n  - requirement: x\n"),
    ("rubric-mapping-guidelines", "yaml", "rubric:\n  guidelines: Be strict\n  criteria:\n    - requirement: x\n"),
    ("mixed-list", "yaml", "- requirement: a\n- criteria:\n    - requirement: b\n"),
    ("weight-text", "yaml", "- requirement: x\n  weight: '3'\n"),
    ("weight-bool", "yaml", "- requirement: x\n  weight: true\n"),
    ("weight-nan", "yaml", "- requirement: x\n  weight: .nan\n"),
    ("weight-inf-text", "yaml", "- requirement: x\n  weight: 'inf'\n"),
    ("weight-zero", "yaml", "- requirement: x\n  weight: 0\n"),
    ("empty-requirement", "yaml", "- requirement: ''\n"),
    ("duplicate-names", "yaml", "- name: a\n  requirement: x\n- name: a\n  requirement: y\n"),
    (
        "nominal-unknown-aggregation-loads",
        "yaml",
        "- requirement: x\n  scale_type: nominal\n  aggregation: mean\n  options:\n    - {label: a, value: 0}\n    - {label: b, value: 1}\n",
    ),
    (
        "ordinal-unknown-aggregation",
        "yaml",
        "- requirement: x\n  aggregation: medain\n  options:\n    - {label: a, value: 0}\n    - {label: b, value: 1}\n",
    ),
    (
        "na-value-out-of-range",
        "yaml",
        "- requirement: x\n  options:\n    - {label: a, value: 0}\n    - {label: b, value: 1}\n    - {label: n, value: 5, na: true}\n",
    ),
    (
        "na-nan",
        "yaml",
        "- requirement: x\n  options:\n    - {label: a, value: 0}\n    - {label: b, value: 1}\n    - {label: n, value: .nan, na: true}\n",
    ),
    (
        "na-as-text",
        "yaml",
        "- requirement: x\n  options:\n    - {label: a, value: 0}\n    - {label: b, value: 1}\n    - {label: n, value: 0, na: 'yes'}\n",
    ),
    (
        "value-as-text",
        "yaml",
        "- requirement: x\n  options:\n    - {label: a, value: '0'}\n    - {label: b, value: 1}\n",
    ),
    (
        "duplicate-labels",
        "yaml",
        "- requirement: x\n  options:\n    - {label: Good, value: 1}\n    - {label: ' good', value: 0}\n",
    ),
    (
        "blank-outer-guidelines-and-inner",
        "yaml",
        "guidelines: ''\nrubric:\n  guidelines: Be strict\n  criteria:\n    - requirement: x\n",
    ),
    (
        "guidelines-null-both",
        "yaml",
        "guidelines: null\nrubric:\n  guidelines: null\n  criteria:\n    - requirement: x\n",
    ),
    ("nested-section-with-requirement", "yaml", "- criteria:\n    - requirement: x\n      criteria: [1, 2]\n"),
    ("rubric-wins-over-bad-sections", "yaml", "rubric:\n  - requirement: x\nsections: 3\n"),
    ("sections-win-over-bad-criteria", "yaml", "sections:\n  - criteria:\n      - requirement: x\ncriteria: nope\n"),
    ("options-null", "yaml", "- requirement: x\n  options: null\n  scale_type: nominal\n"),
    ("unknown-keys", "yaml", "- requirement: x\n  requirment: y\n  points: 3\n"),
    ("examples-ignored", "yaml", "criteria:\n  - requirement: x\nexamples:\n  - nonsense: 1\n"),
    ("section-extra-keys", "yaml", "- name: S\n  weight: 3\n  criteria:\n    - requirement: x\n"),
    ("json-list", "json", '[{"requirement": "x", "weight": -5}, {"requirement": "y"}]'),
    ("json-rubric", "json", '{"rubric": {"sections": [{"criteria": [{"requirement": "x"}]}]}}'),
    (
        "dataset-minimal",
        "dataset",
        json.dumps(
            {
                "prompt": "p",
                "rubric": [{"requirement": "x"}, {"requirement": "y"}],
                "items": [{"submission": "s", "description": "d", "ground_truth": ["MET", "CANNOT_ASSESS"]}],
            }
        ),
    ),
    (
        "dataset-per-item",
        "dataset",
        json.dumps(
            {
                "prompt": None,
                "rubric": None,
                "items": [{"submission": "s", "description": "", "prompt": "p", "rubric": [{"requirement": "x"}]}],
            }
        ),
    ),
    ("dataset-no-items", "dataset", json.dumps({"rubric": None})),
    ("dataset-items-empty-mapping", "dataset", json.dumps({"rubric": None, "items": {}})),
    (
        "dataset-label-case",
        "dataset",
        json.dumps(
            {
                "prompt": "p",
                "rubric": [
                    {
                        "requirement": "x",
                        "options": [{"label": "Very helpful", "value": 1}, {"label": "No", "value": 0}],
                    }
                ],
                "items": [{"submission": "s", "description": "d", "ground_truth": [" very HELPFUL "]}],
            }
        ),
    ),
    (
        "dataset-reasons",
        "dataset",
        json.dumps(
            {
                "prompt": "p",
                "rubric": [{"requirement": "x"}, {"requirement": "y"}],
                "items": [
                    {
                        "submission": "s",
                        "description": "d",
                        "ground_truth": ["MET", "UNMET"],
                        "ground_truth_reasons": ["because", None],
                    }
                ],
            }
        ),
    ),
    (
        "dataset-non-text-submission",
        "dataset",
        json.dumps(
            {"prompt": "p", "rubric": [{"requirement": "x"}], "items": [{"submission": 42, "description": "d"}]}
        ),
    ),
    (
        "dataset-rubric-mapping",
        "dataset",
        json.dumps({"prompt": "p", "rubric": {"guidelines": "g", "criteria": [{"requirement": "x"}]}, "items": []}),
    ),
]

BAD = [
    ("empty-list", "yaml", "[]\n", 1),
    ("empty-criteria", "yaml", "criteria: []\n", 1),
    ("empty-mapping", "yaml", "{}\n", 1),
    ("empty-file", "yaml", "# nothing here\n", 1),
    ("scalar", "yaml", "hello\n", 1),
    ("rubric-null", "yaml", "guidelines: x\nrubric: null\n", 2),
    ("rubric-mapping-without-criteria", "yaml", "rubric:\n  guidelines: x\n", 2),
    ("sections-not-list", "yaml", "sections: 3\n", 1),
    ("criteria-mapping", "yaml", "criteria:\n  requirement: x\n", 2),
    ("item-not-mapping", "yaml", "- requirement: x\n- just text\n", 2),
    ("section-criteria-not-list", "yaml", "- criteria: 3\n", 1),
    ("sections-all-empty", "yaml", "- criteria: []\n- criteria: []\n", 1),
    ("criterion-not-mapping", "yaml", "- criteria:\n    - requirement: x\n    - plain text\n", 3),
    (
        "nested-section",
        "yaml",
        "sections:\n  - criteria:\n      - name: inner\n        criteria:\n          - requirement: x\n",
        4,
    ),
    ("missing-requirement", "yaml", "- requirement: x\n- name: accuracy\n  weight: 3\n", 2),
    ("requirement-number", "yaml", "- requirement: 42\n", 1),
    ("requirement-null", "yaml", "- requirement:\n  weight: 2\n", 1),
    ("name-number", "yaml", "- requirement: x\n  name: 5\n", 2),
    (
        "scale-type-unknown",
        "yaml",
        "- requirement: x\n  scale_type: ordered\n  options:\n    - {label: a, value: 0}\n    - {label: b, value: 1}\n",
        2,
    ),
    ("scale-type-null", "yaml", "- requirement: x\n  scale_type: null\n", 2),
    ("one-option", "yaml", "- requirement: x\n  options:\n    - {label: a, value: 1}\n", 2),
    (
        "one-scored-option",
        "yaml",
        "- requirement: x\n  options:\n    - {label: a, value: 1}\n    - {label: n, value: 0, na: true}\n",
        2,
    ),
    ("no-options", "yaml", "- requirement: x\n  options: []\n", 2),
    ("option-without-value", "yaml", "- requirement: x\n  options:\n    - {label: a}\n    - {label: b, value: 1}\n", 3),
    (
        "option-value-high",
        "yaml",
        "- requirement: x\n  options:\n    - {label: a, value: 0}\n    - {label: b, value: 5}\n",
        4,
    ),
    (
        "option-value-negative",
        "yaml",
        "- requirement: x\n  options:\n    - {label: a, value: -0.5}\n    - {label: b, value: 1}\n",
        3,
    ),
    (
        "option-value-nan",
        "yaml",
        "- requirement: x\n  options:\n    - {label: a, value: .nan}\n    - {label: b, value: 1}\n",
        3,
    ),
    (
        "option-label-number",
        "yaml",
        "- requirement: x\n  options:\n    - {label: 1, value: 0}\n    - {label: b, value: 1}\n",
        3,
    ),
    ("option-not-mapping", "yaml", "- requirement: x\n  options: [a, b]\n", 2),
    ("options-text", "yaml", "- requirement: x\n  options: abc\n", 2),
    ("guidelines-number", "yaml", "guidelines: 3\ncriteria:\n  - requirement: x\n", 1),
    (
        "guidelines-twice",
        "yaml",
        "guidelines: Be kind\nrubric:\n  guidelines: Be strict\n  criteria:\n    - requirement: x\n",
        3,
    ),
    ("weight-word", "yaml", "- requirement: x\n  weight: heavy\n", 2),
    ("weight-null", "yaml", "- requirement: x\n  weight:\n", 2),
    ("weight-list", "yaml", "- requirement: x\n  weight: [1]\n", 2),
    ("aggregation-number", "yaml", "- requirement: x\n  aggregation: 3\n", 2),
    ("key-not-text", "yaml", "- requirement: x\n  1: one\n", 2),
    ("json-item-not-object", "json", '[\n  {"requirement": "x"},\n  "y"\n]', 3),
    ("json-missing-requirement", "json", '[\n  {"requirement": "x"},\n  {"weight": 3}\n]', 3),
    ("dataset-not-object", "dataset", "[1, 2]", 1),
    ("dataset-no-rubric-key", "dataset", '{\n  "prompt": "p",\n  "items": []\n}', 1),
    ("dataset-items-number", "dataset", '{\n  "rubric": null,\n  "items": 5\n}', 3),
    ("dataset-items-text", "dataset", '{\n  "rubric": null,\n  "items": "ab"\n}', 3),
    (
        "dataset-item-not-object",
        "dataset",
        '{\n  "prompt": "p",\n  "rubric": [{"requirement": "x"}],\n  "items": ["text"]\n}',
        4,
    ),
    (
        "dataset-missing-submission",
        "dataset",
        '{\n  "prompt": "p",\n  "rubric": [{"requirement": "x"}],\n  "items": [\n    {"description": "d"}\n  ]\n}',
        5,
    ),
    (
        "dataset-null-description",
        "dataset",
        '{\n  "prompt": "p",\n  "rubric": [{"requirement": "x"}],\n  "items": [\n    {"submission": "s",\n     "description": null}\n  ]\n}',
        6,
    ),
    (
        "dataset-no-rubric",
        "dataset",
        '{\n  "prompt": "p",\n  "rubric": null,\n  "items": [\n    {"submission": "s", "description": "d"}\n  ]\n}',
        5,
    ),
    (
        "dataset-no-prompt",
        "dataset",
        '{\n  "rubric": [{"requirement": "x"}],\n  "items": [\n    {"submission": "s", "description": "d"}\n  ]\n}',
        4,
    ),
    (
        "dataset-gt-length",
        "dataset",
        '{\n  "prompt": "p",\n  "rubric": [{"requirement": "x"}, {"requirement": "y"}],\n  "items": [\n    {"submission": "s", "description": "d",\n     "ground_truth": ["MET"]}\n  ]\n}',
        6,
    ),
    (
        "dataset-gt-lowercase",
        "dataset",
        '{\n  "prompt": "p",\n  "rubric": [{"requirement": "x"}],\n  "items": [\n    {"submission": "s", "description": "d",\n     "ground_truth": ["met"]}\n  ]\n}',
        6,
    ),
    (
        "dataset-gt-bool",
        "dataset",
        '{\n  "prompt": "p",\n  "rubric": [{"requirement": "x"}],\n  "items": [\n    {"submission": "s", "description": "d",\n     "ground_truth": [true]}\n  ]\n}',
        6,
    ),
    (
        "dataset-gt-text",
        "dataset",
        '{\n  "prompt": "p",\n  "rubric": [{"requirement": "x"}],\n  "items": [\n    {"submission": "s", "description": "d",\n     "ground_truth": "MET"}\n  ]\n}',
        6,
    ),
    (
        "dataset-gt-empty-list",
        "dataset",
        '{\n  "prompt": "p",\n  "rubric": [{"requirement": "x"}],\n  "items": [\n    {"submission": "s", "description": "d",\n     "ground_truth": []}\n  ]\n}',
        6,
    ),
    (
        "dataset-gt-label",
        "dataset",
        '{\n  "prompt": "p",\n  "rubric": [{"requirement": "x", "options": [{"label": "Very helpful", "value": 1}, {"label": "No", "value": 0}]}],\n  "items": [\n    {"submission": "s", "description": "d",\n     "ground_truth": ["Very helpfull"]}\n  ]\n}',
        6,
    ),
    (
        "dataset-gt-label-number",
        "dataset",
        '{\n  "prompt": "p",\n  "rubric": [{"requirement": "x", "options": [{"label": "1", "value": 0}, {"label": "2", "value": 1}]}],\n  "items": [\n    {"submission": "s", "description": "d",\n     "ground_truth": [1]}\n  ]\n}',
        6,
    ),
    (
        "dataset-reasons-without-gt",
        "dataset",
        '{\n  "prompt": "p",\n  "rubric": [{"requirement": "x"}],\n  "items": [\n    {"submission": "s", "description": "d",\n     "ground_truth_reasons": ["r"]}\n  ]\n}',
        6,
    ),
    (
        "dataset-reasons-misaligned",
        "dataset",
        '{\n  "prompt": "p",\n  "rubric": [{"requirement": "x"}, {"requirement": "y"}],\n  "items": [\n    {"submission": "s", "description": "d", "ground_truth": ["MET", "UNMET"],\n     "ground_truth_reasons": ["r"]}\n  ]\n}',
        6,
    ),
    (
        "dataset-reasons-number",
        "dataset",
        '{\n  "prompt": "p",\n  "rubric": [{"requirement": "x"}],\n  "items": [\n    {"submission": "s", "description": "d", "ground_truth": ["MET"],\n     "ground_truth_reasons": [3]}\n  ]\n}',
        6,
    ),
    (
        "dataset-reasons-text",
        "dataset",
        '{\n  "prompt": "p",\n  "rubric": [{"requirement": "x"}],\n  "items": [\n    {"submission": "s", "description": "d", "ground_truth": ["MET"],\n     "ground_truth_reasons": "r"}\n  ]\n}',
        6,
    ),
    ("dataset-rubric-empty", "dataset", '{\n  "prompt": "p",\n  "rubric": [],\n  "items": []\n}', 3),
    (
        "dataset-item-rubric-invalid",
        "dataset",
        '{\n  "prompt": "p",\n  "rubric": null,\n  "items": [\n    {"submission": "s", "description": "d",\n     "rubric": [{"weight": 3}]}\n  ]\n}',
        6,
    ),
    (
        "dataset-item-rubric-guidelines",
        "dataset",
        '{\n  "prompt": "p",\n  "rubric": null,\n  "items": [\n    {"submission": "s", "description": "d",\n     "rubric": {"guidelines": 3, "criteria": [{"requirement": "x"}]}}\n  ]\n}',
        6,
    ),
]


@pytest.mark.parametrize("kind,text", [pytest.param(k, t, id=i) for i, k, t in GOOD])
def test_autorubric_accepts_and_we_report_no_error(autorubric, kind, text):
    assert _load(autorubric, kind, text) is None
    assert _errors(kind, text) == []


@pytest.mark.parametrize("kind,text,line", [pytest.param(k, t, n, id=i) for i, k, t, n in BAD])
def test_autorubric_refuses_and_we_report_an_error_on_the_node(autorubric, kind, text, line):
    assert _load(autorubric, kind, text) is not None
    errors = _errors(kind, text)
    assert errors, "autorubric refuses this but the linter reports no error"
    assert errors[0].range.start.line + 1 == line, [(d.code, d.range.start.line + 1, d.message) for d in errors]


def test_nominal_aggregation_is_the_only_error_autorubric_loads(autorubric):
    text = dict((i, t) for i, _k, t in GOOD)["nominal-unknown-aggregation-loads"]
    result = lint(text, "case.rubric.yaml")
    assert [(d.code, d.range.start.line + 1) for d in result.diagnostics if d.severity == Severity.ERROR] == [
        ("AR108", 3)
    ]


# -- random criteria ------------------------------------------------------------------------
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", "x", "3", "MET", "ordinal", "nominal", "mean", "inf"]),
)
_option = st.one_of(
    st.fixed_dictionaries(
        {"label": st.one_of(st.text(max_size=3), st.integers(0, 2)), "value": _scalars},
        optional={"na": st.one_of(st.booleans(), st.sampled_from(["yes", "no", 2]))},
    ),
    _scalars,
)
_criterion = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "requirement": st.one_of(st.text(max_size=5), _scalars),
            "weight": _scalars,
            "name": st.one_of(st.text(max_size=3), _scalars),
            "options": st.one_of(st.none(), st.lists(_option, max_size=4), _scalars),
            "scale_type": st.one_of(st.sampled_from(["ordinal", "nominal", "Ordinal"]), _scalars),
            "aggregation": st.one_of(st.sampled_from(["mean", "mode", "unanimous", "medain"]), _scalars),
            "criteria": st.lists(st.fixed_dictionaries({"requirement": st.just("x")}), max_size=2),
        },
    ),
    _scalars,
)


_guidelines = st.one_of(st.none(), st.just(""), st.just("  "), st.just("Be strict"), st.integers(0, 1))
_shapes = st.lists(_criterion, max_size=3).flatmap(
    lambda criteria: st.one_of(
        st.just(criteria),
        st.fixed_dictionaries(
            {"criteria": st.just(criteria)}, optional={"guidelines": _guidelines, "sections": st.sampled_from([3, []])}
        ),
        st.fixed_dictionaries({"sections": st.just([{"criteria": criteria}])}, optional={"guidelines": _guidelines}),
        st.fixed_dictionaries(
            {"rubric": st.just(criteria)}, optional={"guidelines": _guidelines, "criteria": st.just("x")}
        ),
        st.fixed_dictionaries(
            {"rubric": st.fixed_dictionaries({"criteria": st.just(criteria)}, optional={"guidelines": _guidelines})},
            optional={"guidelines": _guidelines},
        ),
    )
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_shapes)
def test_random_rubrics_agree(autorubric, data):
    import yaml

    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
    refused = _load(autorubric, "yaml", text) is not None
    errors = _errors("yaml", text)
    assert refused == bool(errors), (text, [(d.code, d.message) for d in errors])


# -- random datasets ------------------------------------------------------------------------
_RUBRICS = st.sampled_from(
    [
        None,
        [{"requirement": "a"}],
        [
            {"requirement": "a"},
            {"requirement": "b", "options": [{"label": "Lo", "value": 0}, {"label": "Hi", "value": 1}]},
        ],
        {"sections": [{"criteria": [{"requirement": "a"}, {"requirement": "b"}]}]},
        [],
        [{"weight": 1}],
    ]
)
_verdict = st.one_of(
    st.sampled_from(["MET", "UNMET", "CANNOT_ASSESS", "met", "Lo", " hi ", "Mid", ""]),
    st.none(),
    st.integers(0, 1),
    st.booleans(),
)
_item = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "submission": st.one_of(st.just("s"), st.just(""), st.none(), st.integers()),
            "description": st.one_of(st.just("d"), st.none()),
            "prompt": st.one_of(st.just("p"), st.none()),
            "rubric": _RUBRICS,
            "ground_truth": st.one_of(st.none(), st.lists(_verdict, max_size=3), st.just("MET")),
            "ground_truth_reasons": st.one_of(
                st.none(), st.lists(st.one_of(st.none(), st.just("r"), st.integers()), max_size=3), st.just("r")
            ),
        },
    ),
    st.sampled_from(["text", 3, None]),
)
_dataset = st.fixed_dictionaries(
    {"items": st.one_of(st.lists(_item, max_size=3), st.sampled_from([None, 5, "", {}, "ab"]))},
    optional={"rubric": _RUBRICS, "prompt": st.one_of(st.just("p"), st.none(), st.just(7)), "name": st.just("n")},
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_dataset)
def test_random_datasets_agree(autorubric, data):
    text = json.dumps(data)
    refused = _load(autorubric, "dataset", text) is not None
    errors = _errors("dataset", text)
    assert refused == bool(errors), (text, [(d.code, d.message) for d in errors])
