"""autorubric dataset checks: each trips on the right line, a near miss does not; fixes repair."""

from __future__ import annotations

import json

import pytest

from rubric_lsp.fixes import apply_edits
from tests.helpers import codes, lines_of, lint

PATH = "data.dataset.json"


def dataset(items, rubric=None, prompt="Explain photosynthesis", **extra) -> str:
    """A dataset written one item per line, so item i (0-based) sits on line 5 + i."""
    if rubric is None:
        rubric = [
            {"name": "chlorophyll", "requirement": "Mentions chlorophyll"},
            {
                "name": "tone",
                "requirement": "How clear is it?",
                "options": [{"label": "Unclear", "value": 0}, {"label": "Very clear", "value": 1}],
            },
        ]
    head = {"prompt": prompt, "rubric": rubric, **extra}
    lines = ["{"]
    lines += [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items() if k != "items"]
    lines.append('  "items": [')
    lines += [f"    {json.dumps(item)}" + ("," if i < len(items) - 1 else "") for i, item in enumerate(items)]
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


def item(**fields):
    return {"submission": "Plants use light.", "description": "short", **fields}


CASES = [
    ("AR202", [{"description": "d"}], [item()]),
    ("AR202", [item(submission=None)], [item(submission="")]),
    ("AR201", ["just text"], [item()]),
    ("AR205", [item(ground_truth=["MET"])], [item(ground_truth=["MET", "Very clear"])]),
    ("AR205", [item(ground_truth="MET")], [item(ground_truth=None)]),
    ("AR206", [item(ground_truth=["Met", "Unclear"])], [item(ground_truth=["CANNOT_ASSESS", "Unclear"])]),
    ("AR207", [item(ground_truth=["MET", "very clera"])], [item(ground_truth=["MET", " VERY CLEAR "])]),
    (
        "AR208",
        [item(ground_truth_reasons=["r", None])],
        [item(ground_truth=["MET", "Unclear"], ground_truth_reasons=["r", None])],
    ),
    (
        "AR208",
        [item(ground_truth=["MET", "Unclear"], ground_truth_reasons=[None])],
        [item(ground_truth=["MET", "Unclear"], ground_truth_reasons=[None, "r"])],
    ),
    ("AR021", [item(ground_thruth=["MET", "Unclear"])], [item(ground_truth=["MET", "Unclear"])]),
]


@pytest.mark.parametrize("code,bad_items,good_items", [pytest.param(*c, id=f"{c[0]}-{i}") for i, c in enumerate(CASES)])
def test_item_rule_trips_on_the_item_line(code, bad_items, good_items):
    result = lint(dataset(bad_items), PATH)
    assert lines_of(result, code) == [5], [(d.code, d.range.start.line + 1, d.message) for d in result.diagnostics]
    near = lint(dataset(good_items), PATH)
    assert near.diagnostics == [], [(d.code, d.range.start.line + 1, d.message) for d in near.diagnostics]


def test_missing_rubric_key_and_its_near_miss():
    text = '{\n  "prompt": "p",\n  "items": []\n}\n'
    assert lines_of(lint(text, PATH), "AR200") == [1]
    assert lint('{\n  "prompt": "p",\n  "rubric": null,\n  "items": []\n}\n', PATH).diagnostics == []


def test_no_rubric_anywhere_and_the_per_item_rubric_near_miss():
    bad = dataset([item()], rubric=[]).replace('"rubric": []', '"rubric": null')
    assert lines_of(lint(bad, PATH), "AR203") == [5]
    good = dataset([item(rubric=[{"requirement": "Mentions chlorophyll"}])], rubric=[]).replace(
        '"rubric": []', '"rubric": null'
    )
    assert lint(good, PATH).diagnostics == []


def test_no_prompt_anywhere_and_the_per_item_prompt_near_miss():
    assert lines_of(lint(dataset([item()], prompt=None), PATH), "AR204") == [5]
    assert lint(dataset([item(prompt="Explain it")], prompt=None), PATH).diagnostics == []


def test_item_rubric_gets_every_rubric_check():
    rubric = [{"requirement": "Contains factual errors", "weight": 10}, {"requirement": "x", "weight": "10"}]
    result = lint(dataset([item(rubric=rubric)]), PATH)
    assert set(codes(result)) == {"AR018", "AR013"}
    assert lines_of(result, "AR018") == [5]


def test_dataset_rubric_problems_are_reported_where_they_are():
    result = lint(dataset([item()], rubric=[{"weight": 3}]), PATH)
    assert lines_of(result, "AR103") == [3]


def test_ground_truth_is_checked_against_the_item_rubric_not_the_dataset_one():
    per_item = [{"requirement": "a"}]
    assert lint(dataset([item(rubric=per_item, ground_truth=["MET"])]), PATH).diagnostics == []
    assert lines_of(lint(dataset([item(rubric=per_item, ground_truth=["MET", "Unclear"])]), PATH), "AR205") == [5]


def _fix(text: str, code: str) -> str:
    result = lint(text, PATH)
    fixes = [d.fix for d in result.diagnostics if d.code == code and d.fix is not None]
    assert fixes
    return apply_edits(text, [e for f in fixes for e in f.edits])


@pytest.mark.parametrize(
    "written,meant",
    [("met", "MET"), (" UNMET", "UNMET"), ("Cannot assess", "CANNOT_ASSESS"), ("cannot-assess", "CANNOT_ASSESS")],
)
def test_binary_ground_truth_fix_for_case_and_space_variants(written, meant):
    fixed = _fix(dataset([item(ground_truth=[written, "Unclear"])]), "AR206")
    assert json.loads(fixed)["items"][0]["ground_truth"] == [meant, "Unclear"]


def test_binary_ground_truth_without_an_obvious_meaning_has_no_fix():
    result = lint(dataset([item(ground_truth=["yes", "Unclear"])]), PATH)
    (diag,) = [d for d in result.diagnostics if d.code == "AR206"]
    assert diag.fix is None and "MET, UNMET or CANNOT_ASSESS" in diag.message


def test_choice_ground_truth_suggests_the_closest_label():
    fixed = _fix(dataset([item(ground_truth=["MET", "Verry clear"])]), "AR207")
    assert json.loads(fixed)["items"][0]["ground_truth"] == ["MET", "Very clear"]


def test_choice_ground_truth_written_as_a_number_is_fixed_to_text():
    rubric = [{"requirement": "Rate it", "options": [{"label": "1", "value": 0}, {"label": "2", "value": 1}]}]
    fixed = _fix(dataset([item(ground_truth=[2])], rubric=rubric), "AR207")
    assert json.loads(fixed)["items"][0]["ground_truth"] == ["2"]


def test_items_that_are_not_a_list_are_an_error_but_an_empty_mapping_is_not():
    assert lines_of(lint('{"rubric": null, "items": 5}', PATH), "AR201") == [1]
    assert lint('{"rubric": null, "items": {}}', PATH).diagnostics == []


def test_unknown_dataset_key_is_a_warning_with_a_rename():
    text = '{\n  "promt": "p",\n  "prompt": "q",\n  "rubric": null\n}\n'
    result = lint(text, PATH)
    assert lines_of(result, "AR021") == [1 + 1]
    text = '{\n  "promt": "p",\n  "rubric": null\n}\n'
    assert json.loads(_fix(text, "AR021")) == {"prompt": "p", "rubric": None}
