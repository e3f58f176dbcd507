"""Each autorubric rubric check: a snippet that trips it on the right line, a near miss that does not."""

from __future__ import annotations

import pytest

from rubric_lsp.diagnostics import Severity
from rubric_lsp.fixes import apply_edits
from tests.helpers import codes, lines_of, lint

OPTIONS_01 = """
  options:
    - {label: Poor, value: 0}
    - {label: Good, value: 1}
"""

# (code, snippet that trips it, lines, near miss)
CASES = [
    ("AR001", "- requirement: x\n  requirment: y\n", [2], "- requirement: x\n  name: y\n"),
    (
        "AR001",
        "- requirement: x\n  options:\n    - {label: a, value: 0, nA: true}\n    - {label: b, value: 1}\n",
        [3],
        "- requirement: x\n  options:\n    - {label: a, value: 0, na: true}\n    - {label: b, value: 1}\n    - {label: c, value: 0.5}\n",
    ),
    ("AR001", "- criteria:\n    - requirement: x\n      criteria: []\n", [3], "- criteria:\n    - requirement: x\n"),
    (
        "AR002",
        "- requirement: x\n  aggregation: medain" + OPTIONS_01,
        [2],
        "- requirement: x\n  aggregation: median" + OPTIONS_01,
    ),
    (
        "AR003",
        "- requirement: x\n  aggregation: unanimous" + OPTIONS_01,
        [2],
        "- requirement: x\n  scale_type: nominal\n  aggregation: unanimous" + OPTIONS_01,
    ),
    ("AR004", "- requirement: x\n  scale_type: nominal\n", [2], "- requirement: x\n  scale_type: nominal" + OPTIONS_01),
    ("AR004", "- requirement: x\n  aggregation: mode\n", [2], "- requirement: x\n  aggregation: null\n"),
    ("AR004", "- requirement: x\n  options: null\n", [2], "- requirement: x\n"),
    (
        "AR005",
        "- requirement: x\n  options:\n    - {label: Good, value: 1}\n    - {label: ' good', value: 0}\n",
        [4],
        "- requirement: x\n  options:\n    - {label: Good, value: 1}\n    - {label: Goods, value: 0}\n",
    ),
    (
        "AR006",
        "- requirement: x\n  options:\n    - {label: '  ', value: 0}\n    - {label: b, value: 1}\n",
        [3],
        "- requirement: x\n  options:\n    - {label: a, value: 0}\n    - {label: b, value: 1}\n",
    ),
    (
        "AR007",
        "- requirement: x\n  options:\n    - {label: a, value: 0}\n    - {label: b, value: 1}\n    - {label: n, value: 0, na: true}\n    - {label: m, value: 0, na: true}\n",
        [6],
        "- requirement: x\n  options:\n    - {label: a, value: 0}\n    - {label: b, value: 1}\n    - {label: n, value: 0, na: true}\n    - {label: m, value: 0, na: false}\n",
    ),
    (
        "AR008",
        "- requirement: x\n  options:\n    - {label: a, value: 0}\n    - {label: b, value: 1}\n    - {label: n, value: -1, na: true}\n",
        [5],
        "- requirement: x\n  options:\n    - {label: a, value: 0}\n    - {label: b, value: 1}\n    - {label: n, value: 1, na: true}\n",
    ),
    (
        "AR009",
        "- requirement: x\n  scale_type: nominal\n  options:\n    - {label: a, value: 1}\n    - {label: b, value: 1}\n",
        [3],
        "- requirement: x\n  scale_type: nominal\n  options:\n    - {label: a, value: 1}\n    - {label: b, value: 0.9}\n",
    ),
    (
        "AR010",
        "- requirement: x\n  options:\n    - {label: a, value: 0}\n    - {label: b, value: 0.8}\n",
        [2],
        "- requirement: x\n  scale_type: nominal\n  options:\n    - {label: a, value: 0}\n    - {label: b, value: 0.8}\n",
    ),
    (
        "AR010",
        "- requirement: x\n  weight: -5\n  options:\n    - {label: a, value: 0.2}\n    - {label: b, value: 1}\n",
        [3],
        "- requirement: x\n  weight: -5\n  options:\n    - {label: a, value: 0}\n    - {label: b, value: 1}\n",
    ),
    (
        "AR011",
        "- requirement: x\n  options:\n    - {label: a, value: 0}\n    - {label: b, value: 1}\n    - {label: c, value: 0.5}\n",
        [5],
        "- requirement: x\n  options:\n    - {label: a, value: 1}\n    - {label: b, value: 0.5}\n    - {label: c, value: 0.5}\n    - {label: n, value: 0.9, na: true}\n",
    ),
    (
        "AR012",
        "- name: a\n  requirement: x\n- name: a\n  requirement: y\n",
        [3],
        "- name: a\n  requirement: x\n- name: b\n  requirement: y\n",
    ),
    ("AR013", "- requirement: x\n  weight: '3'\n", [2], "- requirement: x\n  weight: 3\n"),
    ("AR013", "- requirement: x\n  weight: true\n", [2], "- requirement: x\n  weight: 1\n"),
    (
        "AR013",
        "- requirement: x\n  weight: 0\n- requirement: y\n",
        [2],
        "- requirement: x\n  weight: 0.5\n- requirement: y\n",
    ),
    ("AR013", "- requirement: x\n  weight: .nan\n", [2], "- requirement: x\n  weight: 1.5\n"),
    ("AR013", "- requirement: x\n  weight: .inf\n", [2], "- requirement: x\n  weight: -0.5\n- requirement: y\n"),
    ("AR013", '- requirement: x\n  weight: "1e3"\n', [2], "- requirement: x\n  weight: 1e3\n"),
    (
        "AR014",
        "- requirement: Contains errors\n  weight: -10\n- requirement: Is rude\n  weight: 0\n",
        [1],
        "- requirement: Contains errors\n  weight: -10\n- requirement: Answers\n  weight: 1\n",
    ),
    ("AR015", "- requirement: '  '\n", [1], "- requirement: Answers the question\n"),
    (
        "AR016",
        "guidelines: ' '\ncriteria:\n  - requirement: x\n",
        [1],
        "guidelines: Be strict\ncriteria:\n  - requirement: x\n",
    ),
    (
        "AR017",
        "sections:\n  - criteria:\n      - requirement: x\ncriteria:\n  - requirement: y\n",
        [4],
        "sections:\n  - criteria:\n      - requirement: x\n  - criteria:\n      - requirement: y\n",
    ),
    (
        "AR017",
        "rubric:\n  - requirement: x\ncriteria:\n  - requirement: y\n",
        [3],
        "rubric:\n  - requirement: x\n  - requirement: y\n",
    ),
    (
        "AR018",
        "- requirement: Contains factual errors\n  weight: 10\n",
        [1],
        "- requirement: Contains no factual errors\n  weight: 10\n",
    ),
    (
        "AR018",
        "- requirement: The response explains its reasoning clearly\n  weight: -5\n",
        [1],
        "- requirement: The response explains its reasoning clearly\n  weight: 5\n",
    ),
    (
        "AR018",
        "- requirement: Hallucinates a citation\n",
        [1],
        "- requirement: Hallucinates a citation\n  weight: -3\n",
    ),
    (
        "AR019",
        "- requirement: States the date and explains the cause\n",
        [1],
        "- requirement: States the date and the cause (e.g. war; famine)\n",
    ),
    (
        "AR019",
        "- requirement: States the date; cites a source\n",
        [1],
        "- requirement: States the start and end date\n",
    ),
    (
        "AR020",
        "- requirement: a\n  weight: 30\n- requirement: b\n  weight: 5\n- requirement: c\n  weight: 5\n",
        [2],
        "- requirement: a\n  weight: 10\n- requirement: b\n  weight: 5\n- requirement: c\n  weight: 5\n",
    ),
    (
        "AR021",
        "guideline: Be strict\ncriteria:\n  - requirement: x\n",
        [1],
        "guidelines: Be strict\ncriteria:\n  - requirement: x\n",
    ),
    (
        "AR021",
        "rubric:\n  critera: []\n  criteria:\n    - requirement: x\n",
        [2],
        "rubric:\n  criteria:\n    - requirement: x\n",
    ),
    (
        "AR021",
        "sections:\n  - name: S\n    weight: 30\n    criteria:\n      - requirement: x\n",
        [3],
        "sections:\n  - name: S\n    criteria:\n      - requirement: x\n        weight: 30\n",
    ),
    (
        "AR022",
        "criteria:\n  - requirement: x\nexamples:\n  - name: a\n    answer: Paris\n",
        [4, 5],
        "criteria:\n  - requirement: x\nexamples:\n  - name: a\n    response: Paris\n",
    ),
    ("AR022", "criteria:\n  - requirement: x\nexamples: nope\n", [3], "criteria:\n  - requirement: x\nexamples: []\n"),
    (
        "AR023",
        "criteria:\n  - requirement: x\nexamples:\n  - name: a\n    response: Paris\n    expect: {verdicts: [MET, UNMET]}\n",
        [6],
        "criteria:\n  - requirement: x\nexamples:\n  - name: a\n    response: Paris\n    expect: {verdicts: [MET]}\n",
    ),
    (
        "AR023",
        "criteria:\n  - name: capital\n    requirement: x\nexamples:\n  - name: a\n    response: Paris\n    expect:\n      verdicts: {capitol: met}\n",
        [8],
        "criteria:\n  - name: capital\n    requirement: x\nexamples:\n  - name: a\n    response: Paris\n    expect:\n      verdicts: {capital: MET}\n",
    ),
    (
        "AR023",
        "criteria:\n  - requirement: x\nexamples:\n  - name: a\n    response: Paris\n    expect: {min_score: 7}\n",
        [6],
        "criteria:\n  - requirement: x\nexamples:\n  - name: a\n    response: Paris\n    expect: {min_score: 0.7}\n",
    ),
    (
        "AR108",
        "- requirement: x\n  scale_type: nominal\n  aggregation: mean" + OPTIONS_01,
        [3],
        "- requirement: x\n  scale_type: nominal\n  aggregation: weighted_mode" + OPTIONS_01,
    ),
]


@pytest.mark.parametrize("code,bad,lines,good", [pytest.param(*c, id=f"{c[0]}-{i}") for i, c in enumerate(CASES)])
def test_rule_trips_on_the_line_and_not_on_the_near_miss(code, bad, lines, good):
    result = lint(bad)
    assert lines_of(result, code) == lines, [(d.code, d.range.start.line + 1, d.message) for d in result.diagnostics]
    near = lint(good)
    assert code not in codes(near), [(d.code, d.range.start.line + 1, d.message) for d in near.diagnostics]


def apply_fixes(text: str, fixes) -> str:
    return apply_edits(text, [edit for fix in fixes for edit in fix.edits])


def _fixed(text: str, code: str, unsafe: bool = False) -> str:
    result = lint(text)
    fixes = [d.fix for d in result.diagnostics if d.code == code and d.fix is not None]
    assert fixes, f"no fix for {code}"
    if not unsafe:
        assert all(f.safe for f in fixes)
    return apply_fixes(text, fixes)


def test_fixes_repair_in_one_edit():
    assert _fixed("- requirement: x\n  weight: '3'\n", "AR013") == "- requirement: x\n  weight: 3\n"
    assert _fixed('- requirement: x\n  weight: "1e3"\n', "AR013") == "- requirement: x\n  weight: 1000\n"
    assert _fixed("- requirement: x\n  aggregation: medain" + OPTIONS_01, "AR002").startswith(
        "- requirement: x\n  aggregation: median\n"
    )
    assert (
        _fixed("- requirement: x\n  weight: 2\n  scale_type: nominal\n", "AR004") == "- requirement: x\n  weight: 2\n"
    )
    assert _fixed("guideline: Be strict\ncriteria:\n  - requirement: x\n", "AR021").startswith("guidelines:")
    fixed = _fixed("- requirement: x\n  scale_type: nominal\n  aggregation: mdoe" + OPTIONS_01, "AR108")
    assert "aggregation: mode\n" in fixed


def test_remove_key_fix_in_json_keeps_valid_json():
    import json

    text = '[\n  {\n    "requirement": "x",\n    "scale_type": "nominal",\n    "weight": 2\n  }\n]\n'
    result = lint(text, "t.rubric.json")
    fix = next(d.fix for d in result.diagnostics if d.code == "AR004")
    assert json.loads(apply_fixes(text, [fix])) == [{"requirement": "x", "weight": 2}]
    text = '[{"requirement": "x", "weight": 2, "scale_type": "nominal"}]'
    fix = next(d.fix for d in lint(text, "t.rubric.json").diagnostics if d.code == "AR004")
    assert json.loads(apply_fixes(text, [fix])) == [{"requirement": "x", "weight": 2}]


def test_sign_flip_fix_is_unsafe():
    result = lint("- requirement: Contains factual errors\n  weight: 10\n")
    (diag,) = [d for d in result.diagnostics if d.code == "AR018"]
    assert diag.fix is not None and not diag.fix.safe
    assert apply_fixes("- requirement: Contains factual errors\n  weight: 10\n", [diag.fix]).endswith("weight: -10\n")


def test_wrong_family_on_nominal_is_an_error_with_an_unsafe_fix():
    result = lint("- requirement: x\n  scale_type: nominal\n  aggregation: median" + OPTIONS_01)
    (diag,) = [d for d in result.diagnostics if d.code == "AR108"]
    assert diag.severity == Severity.ERROR and "ordinal" in diag.message
    assert diag.fix is not None and not diag.fix.safe


def test_sign_heuristic_leaves_virtues_phrased_with_without_alone():
    result = lint("- requirement: The response contains accurate information without factual errors\n  weight: 10\n")
    assert "AR018" not in codes(result)


def test_dominant_needs_two_positive_criteria():
    result = lint("- requirement: a\n  weight: 10\n- requirement: Contains errors\n  weight: -30\n")
    assert "AR020" not in codes(result)


def test_examples_entries_that_are_right_produce_nothing():
    text = """
    # yaml-language-server: $schema=../../schemas/autorubric-rubric.schema.json
    criteria:
      - name: capital
        requirement: Names Paris as the capital of France
      - name: tone
        requirement: How polite is the answer?
        options:
          - {label: Rude, value: 0}
          - {label: Polite, value: 1}
    examples:
      - name: good
        query: What is the capital of France?
        response: Paris.
        expect:
          min_score: 0.9
          verdicts: {capital: MET, tone: polite}
      - name: bad
        response: London.
        expect:
          verdicts: [UNMET, Rude]
    """
    assert lint(text).diagnostics == []


def test_rename_fixes_in_json_keep_the_quotes():
    import json

    text = '[{"requirement": "x", "wieght": 3}, {"requirement": "y", "aggregation": "medain", "options": [{"label": "a", "value": 0}, {"label": "b", "value": 1}]}]'
    result = lint(text, "t.rubric.json")
    fixes = [d.fix for d in result.diagnostics if d.code in ("AR001", "AR002") and d.fix is not None]
    assert len(fixes) == 2
    data = json.loads(apply_fixes(text, fixes))
    assert data[0]["weight"] == 3 and data[1]["aggregation"] == "median"


def test_ranges_count_code_points_after_non_ascii_text():
    text = '[{"requirement": "Café ☕ 🍰 menu", "weight": "3"}]'
    (diag,) = [d for d in lint(text, "t.rubric.json").diagnostics if d.code == "AR013"]
    assert diag.range.start.character == text.index('"3"')
    assert diag.range.end.character == text.index('"3"') + 3


def test_yaml_quoting_is_kept_by_value_fixes():
    fixed = _fixed("- requirement: x\n  scale_type: 'Nominal'\n", "AR104")
    assert fixed == "- requirement: x\n  scale_type: 'nominal'\n"


@pytest.mark.parametrize(
    "requirement,weight",
    [
        ("Includes error handling for invalid input", 10),
        ("Has no typos", 5),
        ("Contains error messages that name the bad field", 5),
        ("Avoids answering the question", -10),
        ("Demonstrates bias against a group", -10),
        ("Explains how to bypass the safety lock", -10),
        ("The response recommends using personal fireworks", -5),
        ("Identifies the errors in the student's proof", 10),
    ],
)
def test_sign_heuristic_near_misses(requirement, weight):
    text = f"- requirement: {requirement}\n  weight: {weight}\n- requirement: Answers\n  weight: 10\n"
    assert "AR018" not in codes(lint(text))


@pytest.mark.parametrize(
    "requirement,weight",
    [
        ("Correctly states the boiling point", -10),
        ("Is accurate and concise", -5),
        ("Explains the trade-offs clearly", -5),
        ("The answer makes several factual mistakes", 10),
        ("Fails to cite a source", 4),
        ("Is misleading about the risks", 3),
    ],
)
def test_sign_heuristic_trips(requirement, weight):
    text = f"- requirement: {requirement}\n  weight: {weight}\n- requirement: Answers\n  weight: 10\n"
    assert lines_of(lint(text), "AR018") == [1]


def test_unknown_key_from_another_tool_gets_an_unsafe_rename():
    result = lint("- requirement: x\n  points: 3\n")
    (diag,) = [d for d in result.diagnostics if d.code == "AR001"]
    assert "'weight'" in diag.message and diag.fix is not None and not diag.fix.safe
    assert apply_fixes("- requirement: x\n  points: 3\n", [diag.fix]) == "- requirement: x\n  weight: 3\n"
    (plain,) = [d for d in lint("- requirement: x\n  colour: red\n").diagnostics if d.code == "AR001"]
    assert plain.fix is None and "Remove it" in plain.message


def test_example_shape_errors_point_at_the_field():
    text = (
        "criteria:\n  - requirement: x\nexamples:\n  - name: a\n    response: 42\n"
        "    expect: {verdicts: [true], min_score: high}\n  - just text\n"
    )
    found = [(d.range.start.line + 1, d.range.start.character + 1) for d in lint(text).diagnostics if d.code == "AR022"]
    assert found == [(5, 15), (6, 25), (6, 43), (7, 5)]
    assert all(d.severity == Severity.WARNING for d in lint(text).diagnostics)
