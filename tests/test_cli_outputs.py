"""``rubric-lint`` reports that other tools read, validated against their published shapes:
``--format json`` against schemas/rubric-lint-output.schema.json, ``--format junit`` against
Jenkins' junit-10.xsd (tests/data), ``--format gitlab`` against GitLab's code quality shape
(tests/data/gitlab-code-quality.schema.json)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from rubric_lsp.cli import lint_main
from tests.conftest import REPO, SAMPLES, import_or_require

DATA = Path(__file__).parent / "data"
LINT_SCHEMA = json.loads((REPO / "schemas" / "rubric-lint-output.schema.json").read_text(encoding="utf-8"))
GITLAB_SCHEMA = json.loads((DATA / "gitlab-code-quality.schema.json").read_text(encoding="utf-8"))

# A message that quotes control characters and markup: the XML must stay well-formed.
HOSTILE = 'rubric:\n  - requirement: "x"\n    "re<q>&\\u0001\\u001bment": 1\n    weight: 1\n'


def run(capsys, *argv: str) -> tuple[int, str]:
    code = lint_main(list(argv))
    return code, capsys.readouterr().out


def test_the_output_schemas_are_valid_json_schemas():
    jsonschema.Draft202012Validator.check_schema(LINT_SCHEMA)
    jsonschema.Draft202012Validator.check_schema(GITLAB_SCHEMA)


def test_json_output_of_the_samples_validates(capsys):
    code, out = run(capsys, str(SAMPLES), "--format", "json")
    assert code == 1
    data = json.loads(out)
    jsonschema.validate(data, LINT_SCHEMA, cls=jsonschema.Draft202012Validator)
    assert any(f["fix"] for f in data) and any(f["fix"] is None for f in data)
    assert {f["path"].split("/")[-2] for f in data} >= {"autorubric", "promptfoo"}


def test_json_output_of_nothing_validates(capsys, tmp_path):
    (tmp_path / "ci.yaml").write_text("on: [push]\n")
    code, out = run(capsys, str(tmp_path), "--format", "json")
    assert (code, json.loads(out)) == (0, [])


def test_the_schema_rejects_what_is_not_a_finding():
    validator = jsonschema.Draft202012Validator(LINT_SCHEMA)
    finding = {
        "path": "a.yaml",
        "code": "AR001",
        "severity": "warning",
        "message": "m",
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
        "fix": None,
    }
    assert validator.is_valid([finding])
    assert not validator.is_valid([{**finding, "severity": "fatal"}])
    assert not validator.is_valid([{**finding, "code": "E501"}])
    assert not validator.is_valid([{k: v for k, v in finding.items() if k != "fix"}])


@pytest.fixture(scope="module")
def junit_schema():
    xmlschema = import_or_require("xmlschema")
    return xmlschema.XMLSchema(str(DATA / "junit-10.xsd"))


def test_junit_output_validates_against_junit_10_xsd(capsys, junit_schema, tmp_path):
    (tmp_path / "good.rubric.yaml").write_text("rubric:\n  - requirement: Says hello\n    weight: 1\n")
    (tmp_path / "hostile.rubric.yaml").write_text(HOSTILE)
    code, out = run(capsys, str(SAMPLES), str(tmp_path), "--format", "junit")
    assert code == 1
    junit_schema.validate(out)
    from xml.etree import ElementTree

    root = ElementTree.fromstring(out)
    suites = root.findall("testsuite")
    failures = sum(int(s.get("failures")) for s in suites)
    assert root.get("failures") == str(failures) and failures > 0
    assert root.get("tests") == str(len(root.findall("testsuite/testcase")))
    by_name = {s.get("name"): s for s in suites}
    good = by_name[str(tmp_path / "good.rubric.yaml")]
    assert (good.get("tests"), good.get("failures")) == ("1", "0")  # a clean file is a passing test
    hostile = by_name[str(tmp_path / "hostile.rubric.yaml")]
    case = hostile.find("testcase[@name='rubric-lint.AR001']")
    assert case is not None and case.get("classname") == str(tmp_path / "hostile.rubric.yaml")
    failure = case.find("failure")
    assert failure.get("type") == "warning" and "re<q>&\\x01\\x1bment" in failure.get("message")
    assert failure.text.startswith(f"{tmp_path / 'hostile.rubric.yaml'}:3:5: AR001 warning")


def test_junit_output_of_nothing_validates(capsys, junit_schema, tmp_path):
    (tmp_path / "ci.yaml").write_text("on: [push]\n")
    code, out = run(capsys, str(tmp_path), "--format", "junit")
    assert code == 0
    junit_schema.validate(out)


def test_gitlab_output_validates_and_fingerprints_are_unique(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    code, out = run(capsys, "samples", "--format", "gitlab")
    assert code == 1
    issues = json.loads(out)
    jsonschema.validate(issues, GITLAB_SCHEMA, cls=jsonschema.Draft202012Validator)
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    assert all(i["location"]["path"].startswith("samples/") for i in issues)
    assert {i["severity"] for i in issues} <= {"major", "minor", "info"}


def test_gitlab_paths_are_relative_to_ci_project_dir(capsys, monkeypatch, tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.rubric.yaml").write_text(HOSTILE)
    monkeypatch.setenv("CI_PROJECT_DIR", str(tmp_path))
    _code, out = run(capsys, str(tmp_path / "sub"), "--format", "gitlab")
    issues = json.loads(out)
    jsonschema.validate(issues, GITLAB_SCHEMA, cls=jsonschema.Draft202012Validator)
    assert {i["location"]["path"] for i in issues} == {"sub/a.rubric.yaml"}


def test_gitlab_fingerprints_survive_an_edit_above_the_finding(capsys, tmp_path):
    path = tmp_path / "a.rubric.yaml"
    path.write_text(HOSTILE)
    before = json.loads(run(capsys, str(path), "--format", "gitlab")[1])
    path.write_text("# a comment added above\n" + HOSTILE)
    after = json.loads(run(capsys, str(path), "--format", "gitlab")[1])
    assert [i["fingerprint"] for i in before] == [i["fingerprint"] for i in after]
    assert [i["location"]["lines"]["begin"] for i in after] == [i["location"]["lines"]["begin"] + 1 for i in before]


def test_gitlab_output_of_nothing_is_an_empty_list(capsys, tmp_path):
    (tmp_path / "ci.yaml").write_text("on: [push]\n")
    assert run(capsys, str(tmp_path), "--format", "gitlab") == (0, "[]\n")


def test_gitlab_fingerprints_survive_a_message_naming_a_line_that_moved(capsys, tmp_path):
    text = (SAMPLES / "promptfoo" / "promptfooconfig.bad.yaml").read_text(encoding="utf-8")
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(text)
    before = json.loads(run(capsys, str(path), "--format", "gitlab")[1])
    assert any(re.search(r"\bline \d+", i["description"]) for i in before)
    path.write_text("# a comment added above\n" + text)
    after = json.loads(run(capsys, str(path), "--format", "gitlab")[1])
    assert [i["description"] for i in before] != [i["description"] for i in after]
    assert [i["fingerprint"] for i in before] == [i["fingerprint"] for i in after]
