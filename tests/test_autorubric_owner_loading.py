"""Issue 15 items 9-12 and 14 (RL005): files are refused where autorubric's own loaders refuse them,
and the any-file rules follow each owner's loader.

Every refusal is checked against autorubric 1.6.1 itself (``Rubric.from_file``,
``RubricDataset.from_file``): lint error ⇔ the owner refuses, and ``rubric grade`` refuses too.
"""

from __future__ import annotations

import json

import pytest

from rubric_lsp.cli import main
from rubric_lsp.diagnostics import Severity
from rubric_lsp.document import parse_document
from rubric_lsp.document.pure_yaml import pure_loader_refusal, suspicious
from rubric_lsp.lint import lint_path, lint_text
from tests.conftest import import_or_require, use_judge

OK = "- requirement: Gives the right answer\n  weight: 10\n"

# (name, YAML autorubric's yaml.safe_load refuses while libyaml composes it, (line, column) of the refusal)
HAZARDS = [
    ("flow mapping with ?", OK + "- {requirement: Does it address the question?, weight: 5}\n", (3, 44)),
    ("tab in a flow sequence", OK + "- requirement: Lists steps\n  tags: [a,\tb]\n", (4, 11)),
    ("unknown tag", OK + "- requirement: !needs-review Cites sources\n", (3, 15)),
    ("!!int abc", OK + "- requirement: Cites sources\n  weight: !!int abc\n", (4, 10)),
    ("a bare =", OK + "- requirement: Cites sources\n  name: =\n", (4, 8)),
    ("name: <<", OK + "- requirement: Cites sources\n  name: <<\n", (4, 8)),
    ("<<: null", OK + "- requirement: Cites sources\n  <<: null\n", (4, 6)),
    ("a flow-collection key", OK + "- requirement: Cites sources\n  [a, b]: c\n", (4, 2)),
    ("an impossible date", OK + "- requirement: Cites sources\n  name: 2024-13-45\n", (4, 8)),
]
# Constructs that look suspicious to the scan and that autorubric loads: no finding.
LOADABLE = [
    OK + '- {requirement: "Does it address the question?", weight: 5}\n',
    OK + "- requirement: Is it clear? Does it cite [1]?\n",
    OK + "- requirement: Says hello!\n  name: greeting\n",
    "defaults: &d {weight: 5}\nrubric:\n  - requirement: a\n    <<: *d\n",
]


def owner_loads_rubric(path):
    import_or_require("autorubric")
    from autorubric import Rubric

    try:
        Rubric.from_file(str(path))
    except Exception as exc:  # autorubric raises ValueError, and a plain ValueError from a constructor
        return str(exc)
    return None


@pytest.mark.parametrize("name, text, where", HAZARDS, ids=[h[0] for h in HAZARDS])
def test_what_safeloader_refuses_is_an_error_with_its_position(tmp_path, name, text, where):
    path = tmp_path / "r.rubric.yaml"
    path.write_text(text)
    assert owner_loads_rubric(path) is not None, "autorubric loads it: not a hazard"
    import yaml

    yaml.compose(text, Loader=yaml.CSafeLoader)  # libyaml composes it: our reader has a tree
    found = [d for d in lint_path(path).diagnostics if d.code == "AR109"]
    assert len(found) == 1 and found[0].severity is Severity.ERROR
    assert (found[0].range.start.line + 1, found[0].range.start.character) == where
    assert "SafeLoader" in found[0].message


@pytest.mark.parametrize("text", LOADABLE)
def test_what_safeloader_loads_is_not_reported(tmp_path, text):
    path = tmp_path / "r.rubric.yaml"
    path.write_text(text)
    assert owner_loads_rubric(path) is None
    assert "AR109" not in {d.code for d in lint_path(path).diagnostics}


def test_the_cheap_scan_lets_ordinary_rubrics_skip_the_pure_loader():
    plain = "rubric:\n" + "".join(
        f"  - name: c{i}\n    requirement: Does it cite source {i}? It should.\n    weight: {i}\n" for i in range(50)
    )
    flow_options = plain + "  - requirement: Depth?\n    options: [{label: none, value: 0}, {label: lots, value: 1}]\n"
    assert not suspicious(plain) and not suspicious(flow_options)
    for _, text, _ in HAZARDS:
        assert suspicious(text)
    assert pure_loader_refusal(plain) is None


def test_grade_refuses_what_safeloader_refuses_before_any_call(judge_server, tmp_path, capfd, monkeypatch):
    use_judge(monkeypatch, judge_server, "sk-test-loader-0123456789")
    path = tmp_path / "r.rubric.yaml"
    path.write_text(HAZARDS[0][1])
    (tmp_path / "a.txt").write_text("answer")
    code = main(["grade", str(path), "--response", str(tmp_path / "a.txt"), "--no-cache"])
    err = capfd.readouterr().err
    assert code == 2 and "SafeLoader" in err and "line 3" in err
    assert judge_server.call_count == 0


def test_only_autorubric_files_get_the_pure_loader_check():
    text = "prompts: [p]\nproviders: [echo]\ntests:\n  - assert:\n      - {type: llm-rubric, value: Is it ok?}\n"
    assert "AR109" not in {d.code for d in lint_text(text, "promptfooconfig.yaml").diagnostics}


# -- item 10: a UTF-8 BOM on JSON ------------------------------------------------------------

RUBRIC_JSON = json.dumps([{"requirement": "Gives the right answer", "weight": 10}])
DATASET_JSON = json.dumps(
    {
        "prompt": "6*7?",
        "rubric": [{"requirement": "Gives the right answer"}],
        "items": [{"submission": "42", "description": "right", "ground_truth": ["MET"]}],
    }
)


@pytest.mark.parametrize("name, text", [("r.rubric.json", RUBRIC_JSON), ("d.dataset.json", DATASET_JSON)])
def test_a_bom_on_json_is_an_error_with_a_safe_fix_that_makes_it_load(tmp_path, capsys, name, text):
    import_or_require("autorubric")
    from autorubric import Rubric, RubricDataset

    load = RubricDataset.from_file if "dataset" in name else Rubric.from_file
    path = tmp_path / name
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    with pytest.raises(ValueError, match="BOM"):
        load(str(path))
    found = [d for d in lint_path(path).diagnostics if d.code == "RL007"]
    assert len(found) == 1 and found[0].severity is Severity.ERROR and found[0].fix and found[0].fix.safe
    assert [d.code for d in lint_path(path).diagnostics] == ["RL007"]  # the rest of the file is read
    from rubric_lsp.cli import lint_main

    assert lint_main(["--fix", str(path)]) == 0
    capsys.readouterr()
    assert path.read_bytes() == text.encode()
    load(str(path))


def test_a_bom_on_yaml_is_fine_as_it_is_for_pyyaml(tmp_path):
    path = tmp_path / "r.rubric.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + OK.encode())
    assert owner_loads_rubric(path) is None
    assert lint_path(path).diagnostics == []


def test_a_fix_elsewhere_keeps_a_yaml_bom_and_never_doubles_a_json_one(tmp_path, capsys):
    from rubric_lsp.cli import lint_main

    yaml_path = tmp_path / "r.rubric.yaml"
    yaml_path.write_bytes(b"\xef\xbb\xbf- requirement: x\n  label: yes\n")
    lint_main(["--fix", str(yaml_path)])
    assert yaml_path.read_bytes() == b'\xef\xbb\xbf- requirement: x\n  label: "yes"\n'
    json_path = tmp_path / "r.rubric.json"
    json_path.write_bytes(b'\xef\xbb\xbf[{"requirement": "x",}]')
    lint_main(["--fix", str(json_path)])
    capsys.readouterr()
    assert json_path.read_bytes() == b'[{"requirement": "x"}]'


def test_grade_and_lint_agree_on_a_bom(tmp_path, capfd, monkeypatch, judge_server):
    use_judge(monkeypatch, judge_server, "sk-test-loader-0123456789", tmp_path / "cache")
    rubric = tmp_path / "r.rubric.json"
    rubric.write_bytes(b"\xef\xbb\xbf" + RUBRIC_JSON.encode())
    dataset = tmp_path / "d.dataset.json"
    dataset.write_bytes(b"\xef\xbb\xbf" + DATASET_JSON.encode())
    (tmp_path / "a.txt").write_text("42")
    assert main(["grade", str(rubric), "--response", str(tmp_path / "a.txt")]) == 2
    assert "Unexpected UTF-8 BOM" in capfd.readouterr().err
    assert main(["grade", str(dataset)]) == 2
    assert "Unexpected UTF-8 BOM" in capfd.readouterr().err
    assert judge_server.call_count == 0


def test_bom_positions_stay_exact_in_json():
    doc = parse_document(b'\xef\xbb\xbf{"a": 1}', "x.json")
    assert doc.text.startswith("\ufeff") and doc.root is not None
    assert doc.root.get("a").start == 7


# -- item 11: a dataset written in YAML ------------------------------------------------------

YAML_DATASET = (
    "prompt: 6*7?\nrubric:\n  - requirement: Gives the right answer\n"
    "items:\n  - submission: '42'\n    description: right\n    ground_truth: [MET]\n"
)


def test_a_yaml_dataset_is_an_error_as_autorubric_reads_datasets_only_as_json(tmp_path, capfd, monkeypatch):
    import_or_require("autorubric")
    from autorubric import RubricDataset

    path = tmp_path / "d.dataset.yaml"
    path.write_text(YAML_DATASET)
    with pytest.raises(ValueError, match="JSON"):
        RubricDataset.from_file(path)
    codes = [(d.code, d.severity) for d in lint_path(path, kind="autorubric-dataset").diagnostics]
    assert codes == [("AR110", Severity.ERROR)]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loader-0123456789")
    monkeypatch.setenv("RUBRIC_JUDGE_MODEL", "openai/judge")
    assert main(["grade", str(path)]) == 2  # not graded either (a YAML file is never taken for a dataset)
    capfd.readouterr()


# -- item 12: duplicate keys, item 14: RL005, per the owner's loader --------------------------


def test_duplicate_keys_warn_where_the_owner_keeps_the_last_value(tmp_path):
    import_or_require("autorubric")
    from autorubric import Rubric

    text = "- requirement: Cites sources\n  weight: 5\n  weight: 10\n"
    path = tmp_path / "r.rubric.yaml"
    path.write_text(text)
    assert Rubric.from_file(str(path)).rubric[0].weight == 10  # PyYAML keeps the last value
    assert [(d.code, d.severity) for d in lint_path(path).diagnostics] == [("RL002", Severity.WARNING)]
    as_json = tmp_path / "r.rubric.json"
    as_json.write_text('[{"requirement": "Cites sources", "weight": 5, "weight": 10}]')
    assert Rubric.from_file(str(as_json)).rubric[0].weight == 10  # so does json
    assert [(d.code, d.severity) for d in lint_path(as_json).diagnostics] == [("RL002", Severity.WARNING)]


def test_duplicate_keys_warn_on_northstar_and_are_errors_on_promptfoo():
    northstar = '{"graders": [{"type": "rubric", "name": "a", "name": "b", "rubric": "Is it right?"}]}'
    found = [d for d in lint_text(northstar, "eval_run_request.json").diagnostics if d.code == "RL002"]
    assert [d.severity for d in found] == [Severity.WARNING]
    promptfoo = "prompts: [p]\nproviders: [echo]\nproviders: [echo]\ntests: []\n"
    found = [d for d in lint_text(promptfoo, "promptfooconfig.yaml").diagnostics if d.code == "RL002"]
    assert [d.severity for d in found] == [Severity.ERROR] and "js-yaml refuses" in found[0].message


def test_yaml11_values_are_reported_for_pyyaml_owners_only():
    rubric = "- requirement: Cites sources\n  name: yes\n"
    assert "RL005" in {d.code for d in lint_text(rubric, "r.rubric.yaml").diagnostics}
    promptfoo = "prompts: [p]\nproviders: [echo]\ntests:\n  - vars: {answer: yes, count: 010}\n"
    assert "RL005" not in {d.code for d in lint_text(promptfoo, "promptfooconfig.yaml").diagnostics}
