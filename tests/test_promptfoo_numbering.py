"""promptfoo's test numbering (``formats/promptfoo/cases.py``) against recorded promptfoo 0.123.1 evals.

``tests/data/promptfoo-recorded/numbering/numbering.json`` holds, per config, each test number promptfoo gave
(``testIdx + 1``) with its description and vars: vars lists and defaultTest's list, lists that are one value,
JavaScript's key order, scenarios' config entries, repeats, disableVarExpansion (the option and the env switch),
``file://`` globs in glob 13's order, no tests, tests from a file. ``rubric grade --test N``, a labels file's
``test`` column and the editor's lenses all name that numbering.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubric_lsp.calibration.labels import LabelRow, LabelsError
from rubric_lsp.cli import main
from rubric_lsp.document import parse_document
from rubric_lsp.formats.editor import EditorContext
from rubric_lsp.formats.promptfoo.cases import MAX_CASES, number_tests
from rubric_lsp.formats.promptfoo.editor import LENSES_PER_ENTRY, gradable_units
from rubric_lsp.formats.promptfoo.grading.calibration import assertion_unit
from rubric_lsp.formats.promptfoo.grading.labels import _find
from rubric_lsp.formats.promptfoo.reading import read_config

RECORDED = json.loads(
    (Path(__file__).parent / "data" / "promptfoo-recorded" / "numbering" / "numbering.json").read_text("utf-8")
)


def _view(folder: Path, config: str, files: dict[str, str] | None = None):
    for relative, text in (files or {}).items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text, encoding="utf-8")
    path = folder / "promptfooconfig.yaml"
    path.write_text(config, encoding="utf-8")
    doc = parse_document(config, str(path))
    return doc, read_config(doc.root, str(path), doc)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_tests_are_numbered_as_promptfoo_numbered_them(name, tmp_path, monkeypatch):
    monkeypatch.delenv("PROMPTFOO_DISABLE_VAR_EXPANSION", raising=False)
    case = RECORDED[name]
    _, view = _view(tmp_path, case["config"], case["files"])
    got = []
    for c in view.numbering.cases:
        described = c.test.get("description")
        got.append({"test": c.number, "description": described.value if described else None, "vars": c.vars})
    wanted = [{k: t[k] for k in ("test", "description", "vars")} for t in case["tests"]]
    assert got == wanted
    assert view.test_count == len(wanted)


def test_the_environment_switch_stops_expansion(tmp_path):
    _, view = _view(tmp_path, "prompts: ['{{q}}']\ntests:\n  - vars: {q: [a, b]}\n")
    assert [c.vars for c in number_tests(view, {"PROMPTFOO_DISABLE_VAR_EXPANSION": "yes"}).cases] == [{"q": ["a", "b"]}]
    assert len(number_tests(view, {"PROMPTFOO_DISABLE_VAR_EXPANSION": "0"}).cases) == 2


def test_a_test_that_multiplies_past_the_bound_is_refused_not_expanded(tmp_path):
    values = ", ".join(f"v{i}" for i in range(60))
    config = "tests:\n  - vars: {q: a}\n  - vars: {" + ", ".join(f"k{k}: [{values}]" for k in range(4)) + "}\n"
    _, view = _view(tmp_path, config)
    numbering = view.numbering
    assert [c.number for c in numbering.cases] == [1]  # numbered up to the test that would explode
    assert numbering.refused and f"at most {MAX_CASES}" in numbering.refused and "test 2 expands" in numbering.refused


LISTED = (
    "prompts: ['Say {{q}} in {{lang}}']\nproviders: [echo]\n"
    "defaultTest:\n  vars: {lang: [en, fr]}\n  assert:\n    - type: contains\n      value: '{{q}}'\n"
    "tests:\n  - description: one\n    vars: {q: paris}\n  - description: two\n    vars: {q: [rome, oslo]}\n"
    "    assert:\n      - type: llm-rubric\n        value: 'names {{q}} in {{lang}}'\n"
)


def test_grade_test_n_is_promptfoos_test_n(tmp_path, capsys):
    """``--test 5`` is promptfoo's test 5 (test two with fr and rome), graded with that test's vars."""
    _, view = _view(tmp_path, LISTED)
    (tmp_path / "out.txt").write_text("Say rome in fr", encoding="utf-8")
    argv = ["grade", str(tmp_path / "promptfooconfig.yaml"), "--response", str(tmp_path / "out.txt")]
    # Test 2 (one, fr) has only defaultTest's contains: no judge is asked.
    assert main([*argv, "--test", "2", "--format", "json", "--no-cache"]) == 1
    data = json.loads(capsys.readouterr().out)
    (test,) = data["tests"]
    assert test["test"] == 2 and test["vars"] == {"lang": "fr", "q": "paris"} and test["result"] == "FAIL"
    assert main([*argv, "--test", "7", "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert "There is no test 7: the config has 6 test(s) as promptfoo numbers them (2 written)" in err
    assert view.test_vars(5) == {"lang": "fr", "q": "rome"}


def test_a_labels_rows_test_is_promptfoos_test(tmp_path):
    _, view = _view(tmp_path, LISTED)
    row = LabelRow(2, "labels.csv row 2", None, "out", None, True, None, {"test": "5", "assertion": "1"})
    number, assertion = _find(view, row)
    assert number == 5 and assertion.type == "llm-rubric"
    unit = assertion_unit(view, number, assertion)
    assert unit.id == "test 5 assertion 1" and unit.text["vars"] == {"lang": "fr", "q": "rome"}
    with pytest.raises(LabelsError, match="from 1 to 6, got '7'"):
        _find(view, LabelRow(3, "labels.csv row 3", None, "out", None, True, None, {"test": "7", "assertion": "1"}))


def test_each_numbered_test_gets_a_lens_on_the_entry_it_comes_from(tmp_path):
    doc, view = _view(tmp_path, LISTED)
    units = gradable_units(EditorContext(doc, view))
    entries = view.root.get("tests").value
    assert [u.plan.test for u in units] == [1, 2, 3, 4, 5, 6]
    spans = [u.span for u in units]
    assert spans[:2] == [entries[0].span] * 2 and spans[2:] == [entries[1].span] * 4
    assert [u.label for u in units] == [
        "one · test 1 (lang=en)",
        "one · test 2 (lang=fr)",
        "two · test 3 (lang=en, q=rome)",
        "two · test 4 (lang=en, q=oslo)",
        "two · test 5 (lang=fr, q=rome)",
        "two · test 6 (lang=fr, q=oslo)",
    ]


def test_a_scenario_test_gets_a_lens_per_config_entry_and_runs_the_entrys_assertions(tmp_path):
    config = RECORDED["scenarios"]["config"]
    doc, view = _view(tmp_path, config)
    units = gradable_units(EditorContext(doc, view))
    assert [u.plan.test for u in units] == list(range(1, 8))
    fourth = view.numbering.case(4)  # s1 with the second config entry: its contains assertion runs first
    assert [a.type for a in fourth.test.assertions] == ["contains"]
    assert [a.type for a in view.numbering.case(2).test.assertions] == []


def test_an_entry_with_many_values_gets_its_first_lenses_only(tmp_path):
    values = ", ".join(f"v{i}" for i in range(LENSES_PER_ENTRY + 5))
    doc, view = _view(tmp_path, f"tests:\n  - vars: {{q: [{values}]}}\n  - vars: {{q: last}}\n")
    units = gradable_units(EditorContext(doc, view))
    assert view.test_count == LENSES_PER_ENTRY + 6
    assert [u.plan.test for u in units] == [*range(1, LENSES_PER_ENTRY + 1), LENSES_PER_ENTRY + 6]
