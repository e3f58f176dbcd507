"""``rubric-lint``: output formats, exit codes, --fix, stdin, folders, rule docs.

Most tests call the CLI in process (fast); the ones about stdin, start-up imports and
the installed entry points run it in a subprocess. Tests that do not exercise a
format's own rules pass ``--select RL`` so that new AR/PF/NS/RT rules cannot change them.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rubric_lsp.cli import lint_main, main
from rubric_lsp.formats.registry import all_rules
from rubric_lsp.reporters.lint.github import escape_github_data, escape_github_property

GOOD = """\
criteria:
  - name: accuracy
    weight: 5
    requirement: States the correct final answer
  - name: sources
    weight: 5
    requirement: Cites at least one source
"""
# Two RL005 findings (each with a quoting fix) and one RL002 duplicate key (no fix; a warning on an
# autorubric file, whose PyYAML keeps the last value).
BAD = """\
criteria:
  - name: accuracy
    weight: 5
    requirement: States the correct final answer
    requirement: States the final answer
  - name: yes
    weight: 5
    requirement: on
"""
WORKFLOW = """\
name: CI
on:
  push:
    branches: [main]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: echo yes
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = lint_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_subprocess(
    *argv: str, stdin: str | bytes | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rubric_lsp", *argv],
        input=stdin.encode() if isinstance(stdin, str) else stdin,
        capture_output=True,
        timeout=60,
        cwd=cwd,
    )


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "good.rubric.yaml").write_text(GOOD)
    (tmp_path / "bad.rubric.yaml").write_text(BAD)
    return tmp_path


# -- text output and exit codes ---------------------------------------------------


def test_text_output_lines_and_summary(capsys, files):
    code, out, _ = run(capsys, "--select", "RL", str(files / "bad.rubric.yaml"))
    assert code == 1
    lines = out.splitlines()
    path = str(files / "bad.rubric.yaml")
    assert lines[0] == f"{path}:5:5: RL002 warning " + lines[0].split(" warning ", 1)[1]
    assert re.match(re.escape(path) + r":6:11: RL005 warning 'yes' is read as the boolean true .* \[\*\]$", lines[1])
    assert re.match(re.escape(path) + r":8:18: RL005 warning 'on' ", lines[2])
    assert "Found 3 problem(s) in 1 of 1 file(s) checked: 0 error(s), 3 warning(s), 0 info." in out
    assert "[*] 2 fixable with --fix." in out


def test_clean_file_exits_zero(capsys, files):
    code, out, _ = run(capsys, "--select", "RL", str(files / "good.rubric.yaml"))
    assert code == 0
    assert "Found 0 problem(s)" in out


@pytest.mark.parametrize(
    "fail_level, select, expected",
    [
        ("warning", "RL005", 1),
        ("error", "RL005", 0),  # only warnings: below the fail level
        ("error", "RL002", 0),  # a warning on an autorubric file (PyYAML keeps the last value)
        ("warning", "RL002", 1),
        ("info", "RL005", 1),
    ],
)
def test_fail_level(capsys, files, fail_level, select, expected):
    code, _, _ = run(capsys, "--select", select, "--fail-level", fail_level, str(files / "bad.rubric.yaml"))
    assert code == expected


def test_severity_override_below_fail_level_exits_zero(capsys, files):
    (files / "pyproject.toml").write_text('[tool.rubric-lint]\nselect = ["RL005"]\nseverity = { RL005 = "info" }\n')
    code, out, _ = run(capsys, str(files / "bad.rubric.yaml"))
    assert code == 0
    assert "RL005 info" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["--format", "xml", "x.yaml"],
        ["--kind", "no-such-kind", "x.yaml"],
        ["--select", "ZZ999", "x.yaml"],
        ["--no-such-option"],
    ],
)
def test_usage_errors_exit_two(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.strip()


def test_no_path_lints_the_current_folder_as_ruff_does(capsys, files, monkeypatch):
    monkeypatch.chdir(files)
    code, out, _ = run(capsys, "--select", "RL005")
    assert code == 1
    assert "bad.rubric.yaml" in out and "RL005" in out


def test_missing_path_exits_two_but_still_reports_the_others(capsys, files):
    code, out, err = run(capsys, "--select", "RL", str(files / "bad.rubric.yaml"), str(files / "missing.yaml"))
    assert code == 2
    assert "no such file or folder" in err
    assert "RL005" in out


def test_unknown_select_code_suggests_the_nearest(capsys):
    code, _, err = run(capsys, "--select", "RL0005", "x.yaml")
    assert code == 2 and "not a rule code or prefix" in err


# -- JSON, SARIF, GitHub --------------------------------------------------------------


def test_json_output_shape(capsys, files):
    code, out, _ = run(capsys, "--select", "RL", "--format", "json", str(files / "bad.rubric.yaml"))
    assert code == 1
    rows = json.loads(out)
    assert [r["code"] for r in rows] == ["RL002", "RL005", "RL005"]
    for row in rows:
        assert set(row) == {"path", "code", "severity", "message", "range", "fix"}
        assert row["severity"] in ("error", "warning", "info")
        assert set(row["range"]) == {"start", "end"}
        assert set(row["range"]["start"]) == {"line", "character"}
    assert rows[1]["range"] == {"start": {"line": 5, "character": 10}, "end": {"line": 5, "character": 13}}
    assert rows[0]["fix"] is None
    fix = rows[1]["fix"]
    assert fix["safe"] is True
    assert fix["edits"] == [{"range": rows[1]["range"], "newText": '"yes"'}]


def test_json_output_of_nothing_is_an_empty_array(capsys, files):
    code, out, _ = run(capsys, "--select", "RL", "--format", "json", str(files / "good.rubric.yaml"))
    assert code == 0 and json.loads(out) == []


SARIF_STRUCTURE = {
    # The parts of the SARIF 2.1.0 schema that consumers (GitHub code scanning) rely on.
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "$schema": {"type": "string", "format": "uri"},
        "runs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["tool", "results"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name"],
                                "properties": {
                                    "name": {"type": "string"},
                                    "version": {"type": "string"},
                                    "informationUri": {"type": "string"},
                                    "rules": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": ["id"],
                                            "properties": {
                                                "id": {"type": "string"},
                                                "name": {"type": "string"},
                                                "shortDescription": {"$ref": "#/$defs/message"},
                                                "fullDescription": {"$ref": "#/$defs/message"},
                                                "helpUri": {"type": "string"},
                                                "help": {"$ref": "#/$defs/message"},
                                                "defaultConfiguration": {
                                                    "type": "object",
                                                    "properties": {"level": {"$ref": "#/$defs/level"}},
                                                },
                                            },
                                        },
                                    },
                                },
                            }
                        },
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["message", "ruleId", "locations"],
                            "properties": {
                                "ruleId": {"type": "string"},
                                "ruleIndex": {"type": "integer", "minimum": 0},
                                "level": {"$ref": "#/$defs/level"},
                                "message": {"$ref": "#/$defs/message"},
                                "locations": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "required": ["physicalLocation"],
                                        "properties": {
                                            "physicalLocation": {
                                                "type": "object",
                                                "required": ["artifactLocation", "region"],
                                                "properties": {
                                                    "artifactLocation": {"$ref": "#/$defs/artifactLocation"},
                                                    "region": {"$ref": "#/$defs/region"},
                                                },
                                            }
                                        },
                                    },
                                },
                                "fixes": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "required": ["artifactChanges"],
                                        "properties": {
                                            "description": {"$ref": "#/$defs/message"},
                                            "artifactChanges": {
                                                "type": "array",
                                                "minItems": 1,
                                                "items": {
                                                    "type": "object",
                                                    "required": ["artifactLocation", "replacements"],
                                                    "properties": {
                                                        "artifactLocation": {"$ref": "#/$defs/artifactLocation"},
                                                        "replacements": {
                                                            "type": "array",
                                                            "minItems": 1,
                                                            "items": {
                                                                "type": "object",
                                                                "required": ["deletedRegion"],
                                                                "properties": {
                                                                    "deletedRegion": {"$ref": "#/$defs/region"},
                                                                    "insertedContent": {
                                                                        "type": "object",
                                                                        "required": ["text"],
                                                                    },
                                                                },
                                                            },
                                                        },
                                                    },
                                                },
                                            },
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
    "$defs": {
        "level": {"enum": ["none", "note", "warning", "error"]},
        "message": {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}},
        "artifactLocation": {
            "type": "object",
            "required": ["uri"],
            "properties": {"uri": {"type": "string", "pattern": "^[^ \\\\]*$"}},
        },
        "region": {
            "type": "object",
            "required": ["startLine"],
            "properties": {
                "startLine": {"type": "integer", "minimum": 1},
                "startColumn": {"type": "integer", "minimum": 1},
                "endLine": {"type": "integer", "minimum": 1},
                "endColumn": {"type": "integer", "minimum": 1},
            },
        },
    },
}


def test_sarif_output_is_valid_sarif_2_1_0(capsys, tmp_path):
    folder = tmp_path / "with space"
    folder.mkdir()
    (folder / "bad.rubric.yaml").write_text(BAD)
    import jsonschema

    code, out, _ = run(capsys, "--select", "RL", "--format", "sarif", str(folder / "bad.rubric.yaml"))
    assert code == 1
    log = json.loads(out)
    jsonschema.validate(log, SARIF_STRUCTURE)
    run_ = log["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["RL002", "RL005"]
    results = run_["results"]
    assert [r["ruleId"] for r in results] == ["RL002", "RL005", "RL005"]
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    assert results[0]["level"] == "warning" and results[1]["level"] == "warning"
    region = results[1]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 6, "startColumn": 11, "endLine": 6, "endColumn": 14}
    uri = results[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.startswith("file://") and "with%20space" in uri
    assert results[1]["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"] == '"yes"'
    assert "fixes" not in results[0]


def test_sarif_relative_paths_stay_relative(files, monkeypatch, capsys):
    monkeypatch.chdir(files)
    code, out, _ = run(capsys, "--select", "RL", "--format", "sarif", "bad.rubric.yaml")
    log = json.loads(out)
    assert code == 1
    assert (
        log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad.rubric.yaml"
    )


def test_sarif_with_no_findings_has_an_empty_result_list(capsys, files):
    code, out, _ = run(capsys, "--select", "RL", "--format", "sarif", str(files / "good.rubric.yaml"))
    import jsonschema

    log = json.loads(out)
    jsonschema.validate(log, SARIF_STRUCTURE)
    assert code == 0 and log["runs"][0]["results"] == []


def test_github_annotations(capsys, files):
    code, out, _ = run(capsys, "--select", "RL", "--format", "github", str(files / "bad.rubric.yaml"))
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 3
    path = escape_github_property(str(files / "bad.rubric.yaml"))
    assert lines[0].startswith(
        f"::warning file={path},line=5,col=5,endLine=5,endColumn=16,title=RL002 duplicate-key::RL002 "
    )
    assert lines[1].startswith(
        f"::warning file={path},line=6,col=11,endLine=6,endColumn=14,title=RL005 yaml11-value::RL005 "
    )


def test_github_escaping():
    assert escape_github_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_github_property("a:b,c%d\n") == "a%3Ab%2Cc%25d%0A"


def test_github_annotation_escapes_paths_with_commas_and_colons(capsys, tmp_path):
    weird = tmp_path / "a,b:c.rubric.yaml"
    weird.write_text(BAD)
    _, out, _ = run(capsys, "--select", "RL005", "--format", "github", str(weird))
    first = out.splitlines()[0]
    assert "file=" + str(tmp_path).replace(":", "%3A").replace(",", "%2C") + "/a%2Cb%3Ac.rubric.yaml," in first
    properties = first.split("::")[1]
    assert properties.count(",") == 5  # the six properties, no stray separator from the path


# -- --fix ------------------------------------------------------------------------------


def test_fix_applies_safe_fixes_relints_and_is_idempotent(capsys, files):
    path = files / "bad.rubric.yaml"
    code, out, _ = run(capsys, "--select", "RL", "--fix", str(path))
    fixed = path.read_text()
    assert 'name: "yes"' in fixed and 'requirement: "on"' in fixed
    assert fixed.count("requirement:") == 3  # the duplicate key has no automatic fix
    assert "Fixed 2 problem(s)." in out
    assert "RL005" not in out and "RL002" in out  # re-linted: only what is left is shown
    assert code == 1
    code, out, _ = run(capsys, "--select", "RL", "--fix", str(path))
    assert path.read_text() == fixed
    assert "Fixed" not in out


def test_fix_keeps_crlf_and_bom(capsys, tmp_path):
    path = tmp_path / "win.rubric.yaml"
    original = b"\xef\xbb\xbf" + GOOD.replace("name: sources", "name: on").replace("\n", "\r\n").encode()
    path.write_bytes(original)
    run(capsys, "--select", "RL", "--fix", str(path))
    assert path.read_bytes() == original.replace(b"name: on", b'name: "on"')


def test_fix_leaves_files_without_fixable_findings_untouched(capsys, files):
    path = files / "good.rubric.yaml"
    before = path.stat().st_mtime_ns
    run(capsys, "--fix", "--select", "RL", str(path))
    assert path.stat().st_mtime_ns == before


def test_fix_on_stdin_writes_fixed_text_to_stdout():
    proc = run_subprocess("lint", "--select", "RL", "--fix", "--stdin-filename", "x.rubric.yaml", "-", stdin=BAD)
    assert proc.stdout.decode() == BAD.replace("name: yes", 'name: "yes"').replace(
        "requirement: on", 'requirement: "on"'
    )
    assert b"RL002" in proc.stderr and b"RL005" not in proc.stderr
    assert proc.returncode == 1


# -- stdin ------------------------------------------------------------------------------


def test_stdin_filename_drives_detection():
    as_rubric = run_subprocess(
        "lint", "--format", "json", "--select", "RL", "--stdin-filename", "x.rubric.yaml", "-", stdin=BAD
    )
    assert [r["code"] for r in json.loads(as_rubric.stdout)] == ["RL002", "RL005", "RL005"]
    assert {r["path"] for r in json.loads(as_rubric.stdout)} == {"x.rubric.yaml"}
    # The same text named like a GitHub workflow is of no known kind: skipped, exit 0.
    as_other = run_subprocess(
        "lint", "--format", "json", "--stdin-filename", ".github/workflows/ci.yml", "-", stdin=WORKFLOW
    )
    assert as_other.returncode == 0 and json.loads(as_other.stdout) == []


def test_stdin_filename_finds_settings_by_that_name(tmp_path):
    project = tmp_path / "project"
    (project / "rubrics").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.rubric-lint]\nignore = ["RL005"]\n')
    proc = run_subprocess(
        "lint",
        "--format",
        "json",
        "--select",
        "RL",
        "--stdin-filename",
        "rubrics/x.rubric.yaml",
        "-",
        stdin=BAD,
        cwd=project,
    )
    assert [r["code"] for r in json.loads(proc.stdout)] == ["RL002"]
    elsewhere = run_subprocess(
        "lint",
        "--format",
        "json",
        "--select",
        "RL",
        "--stdin-filename",
        "x.rubric.yaml",
        "-",
        stdin=BAD,
        cwd=tmp_path,
    )
    assert "RL005" in [r["code"] for r in json.loads(elsewhere.stdout)]


def test_stdin_with_kind_forces_the_format():
    proc = run_subprocess("lint", "--format", "json", "--select", "RL", "--kind", "autorubric-rubric", "-", stdin=BAD)
    assert "RL005" in [r["code"] for r in json.loads(proc.stdout)]


# -- folders ------------------------------------------------------------------------


def test_folder_recursion_honours_nested_gitignore(capsys, tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("build/\n*.tmp.yaml\n")
    for rel in [
        "a.rubric.yaml",
        "build/b.rubric.yaml",
        "sub/c.rubric.yaml",
        "sub/d.tmp.yaml",
        "sub/deep/e.rubric.yaml",
        "sub/deep/keep.rubric.yaml",
        "node_modules/f.rubric.yaml",
    ]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(BAD)
    (tmp_path / "sub" / ".gitignore").write_text("deep/*\n!deep/keep.rubric.yaml\n")
    code, out, _ = run(capsys, "--select", "RL005", "--format", "json", str(tmp_path))
    found = sorted({Path(r["path"]).relative_to(tmp_path).as_posix() for r in json.loads(out)})
    assert found == ["a.rubric.yaml", "sub/c.rubric.yaml", "sub/deep/keep.rubric.yaml"]
    assert code == 1


def test_a_nested_gitignore_can_re_include_what_a_parent_ignored(capsys, tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*.draft.rubric.yaml\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".gitignore").write_text("!keep.draft.rubric.yaml\n")
    for rel in ["x.draft.rubric.yaml", "sub/y.draft.rubric.yaml", "sub/keep.draft.rubric.yaml"]:
        (tmp_path / rel).write_text(BAD)
    _, out, _ = run(capsys, "--select", "RL005", "--format", "json", str(tmp_path))
    assert {Path(r["path"]).name for r in json.loads(out)} == {"keep.draft.rubric.yaml"}


def test_gitignore_above_the_linted_folder_applies(capsys, tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("generated/\n")
    (tmp_path / "pkg" / "generated").mkdir(parents=True)
    (tmp_path / "pkg" / "generated" / "x.rubric.yaml").write_text(BAD)
    (tmp_path / "pkg" / "y.rubric.yaml").write_text(BAD)
    _, out, _ = run(capsys, "--select", "RL005", "--format", "json", str(tmp_path / "pkg"))
    assert {Path(r["path"]).name for r in json.loads(out)} == {"y.rubric.yaml"}


def test_files_of_no_known_kind_are_skipped_when_walking(capsys, tmp_path):
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "ci.yml").write_text(WORKFLOW)
    (tmp_path / "docker-compose.yaml").write_text("services:\n  web:\n    image: nginx\n    tty: yes\n")
    (tmp_path / "broken.yaml").write_text("a: [\n")
    (tmp_path / "package.json").write_text('{"name": "x",}')
    code, out, _ = run(capsys, str(tmp_path))
    assert code == 0
    assert "Found 0 problem(s) in 0 of 0 file(s) checked" in out
    assert "4 file(s) of no known kind skipped" in out
    code, out, _ = run(capsys, "--format", "json", str(tmp_path))
    assert json.loads(out) == []


def test_an_explicit_file_of_no_known_kind_is_skipped_not_an_error(capsys, tmp_path):
    path = tmp_path / "ci.yml"
    path.write_text(WORKFLOW)
    code, out, _ = run(capsys, str(path))
    assert code == 0 and "1 file(s) of no known kind skipped" in out


def test_explicit_unreadable_file_is_reported(capsys, tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("a: [\n")
    code, out, _ = run(capsys, str(path))
    assert code == 1 and "RL001" in out


# -- rule docs --------------------------------------------------------------------------


@pytest.mark.parametrize("code", [r.code for r in all_rules()])
def test_rule_docs_for_every_registered_rule(capsys, code):
    assert lint_main(["rule", code]) == 0
    out = capsys.readouterr().out
    found = next(r for r in all_rules() if r.code == code)
    assert out.startswith(f"## {code} `{found.name}` ({found.severity.label})")
    assert found.summary in out and "**Why:**" in out
    assert f"Docs: {found.docs_url}" in out


def test_rule_docs_accept_lower_case_and_reject_unknown_codes(capsys):
    assert lint_main(["rule", "rl005"]) == 0
    assert "RL005" in capsys.readouterr().out
    assert lint_main(["rule", "XX123"]) == 2
    assert "unknown rule code" in capsys.readouterr().err


def test_list_rules_prints_every_rule(capsys):
    assert lint_main(["--list-rules"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| [")]
    listed = [re.match(r"\| \[(\w+)\]", row).group(1) for row in rows]
    assert sorted(listed) == sorted(r.code for r in all_rules())
    assert listed[0].startswith("RL")  # any-file rules first, then each format


def test_rubric_rule_all_and_table(capsys):
    assert main(["rule", "--all"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n## ") + out.startswith("## ") == len(all_rules())
    assert main(["rule", "--table"]) == 0
    assert capsys.readouterr().out.startswith("| Code |")


# -- start-up cost -----------------------------------------------------------------------


def test_lint_path_does_not_import_heavy_modules(tmp_path):
    path = tmp_path / "small.rubric.yaml"
    path.write_text(GOOD)
    probe = (
        "import sys, runpy\n"
        f"sys.argv = ['rubric-lint', {str(path)!r}]\n"
        "from rubric_lsp.cli import lint_main\n"
        "code = lint_main()\n"
        # xml.sax, http.client, ssl: what the JUnit output's escaping pulls in (~40 ms), for --format junit only
        "heavy = sorted(m for m in ('litellm', 'pygls', 'rich', 'lsprotocol', 'openai', 'autorubric', 'jinja2', 'pygal',"
        " 'xml.sax', 'http.client', 'ssl') if m in sys.modules)\n"
        "print('HEAVY=' + ','.join(heavy))\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert "HEAVY=\n" in proc.stdout, proc.stdout + proc.stderr


def test_module_entry_point_and_console_scripts(tmp_path):
    path = tmp_path / "bad.rubric.yaml"
    path.write_text(BAD)
    proc = run_subprocess("lint", "--select", "RL005", str(path))
    assert proc.returncode == 1 and b"RL005" in proc.stdout
    import shutil

    exe = shutil.which("rubric-lint")
    if exe:
        proc = subprocess.run([exe, "--select", "RL005", str(path)], capture_output=True, timeout=60)
        assert proc.returncode == 1 and b"RL005" in proc.stdout


# -- pre-commit -----------------------------------------------------------------------------


def test_pre_commit_manifest_and_its_entry(tmp_path):
    import shlex

    import yaml

    hooks = yaml.safe_load((Path(__file__).resolve().parent.parent / ".pre-commit-hooks.yaml").read_text())
    by_id = {hook["id"]: hook for hook in hooks}
    assert {"rubric-lint", "rubric-lint-fix"} <= set(by_id)
    for hook in hooks:
        assert {"id", "name", "entry", "language", "files"} <= set(hook)
        assert hook["language"] == "python"
        assert re.search(hook["files"], "x.rubric.yaml") and re.search(hook["files"], "cases.jsonl")
        assert not re.search(hook["files"], "README.md")
    # pre-commit runs the entry with every matching file name appended.
    (tmp_path / "bad.rubric.yaml").write_text(BAD)
    (tmp_path / "template.yaml").write_text("a: {{ not yaml }\n")  # e.g. a Helm template
    (tmp_path / "ci.yml").write_text(WORKFLOW)
    entry = shlex.split(by_id["rubric-lint"]["entry"])
    assert entry[0] == "rubric-lint"
    names = ["bad.rubric.yaml", "template.yaml", "ci.yml"]
    proc = run_subprocess("lint", *entry[1:], "--select", "RL", *names, cwd=tmp_path)
    out = proc.stdout.decode()
    assert proc.returncode == 1
    assert "bad.rubric.yaml:6:11: RL005" in out
    assert "template.yaml" not in out and "ci.yml" not in out
    fix_entry = shlex.split(by_id["rubric-lint-fix"]["entry"])
    proc = run_subprocess("lint", *fix_entry[1:], "--select", "RL005", *names, cwd=tmp_path)
    assert proc.returncode == 0
    assert 'name: "yes"' in (tmp_path / "bad.rubric.yaml").read_text()
    assert (tmp_path / "template.yaml").read_text() == "a: {{ not yaml }\n"


# -- internal errors ------------------------------------------------------------------------


def test_a_crashing_checker_reports_rl900_and_the_other_checks_still_run(caplog):
    from rubric_lsp.formats import registry
    from rubric_lsp.rules import registry as rules_registry
    from tests.helpers import codes, lint

    def crashing_checker(ctx):
        raise RuntimeError("boom")

    registry.checkers_for("autorubric-rubric")  # make sure the real checkers are registered first
    registry.checker("autorubric-rubric")(crashing_checker)
    try:
        result = lint(BAD, "x.rubric.yaml")
    finally:
        rules_registry._CHECKERS["autorubric-rubric"].remove(crashing_checker)
    assert "RL900" in codes(result) and "RL005" in codes(result)
    diag = next(d for d in result.diagnostics if d.code == "RL900")
    assert "crashing_checker" in diag.message
    assert "boom" in caplog.text


def test_an_internal_error_in_the_cli_exits_two(capsys, files, monkeypatch):
    import rubric_lsp.commands.lint as command

    def broken(*args, **kwargs):
        raise RuntimeError("unexpected")

    monkeypatch.setattr(command, "lint_text", broken)
    code, _, err = run(capsys, str(files / "bad.rubric.yaml"))
    assert code == 2
    assert "internal error" in err and "RuntimeError: unexpected" in err


def test_quiet_prints_findings_only(capsys, files):
    code, out, _ = run(capsys, "-q", "--select", "RL", str(files / "bad.rubric.yaml"), str(files / "good.rubric.yaml"))
    assert code == 1
    assert len(out.splitlines()) == 3 and "Found" not in out and "fixable" not in out


def test_fix_on_stdin_echoes_unfixable_and_unknown_input_unchanged():
    for data in [b"a: [\n", b"name: x\xff\n", WORKFLOW.encode(), b"\xef\xbb\xbf" + GOOD.encode()]:
        proc = run_subprocess("lint", "--fix", "-", stdin=data)
        assert proc.stdout == data
        assert proc.returncode in (0, 1)


def test_fix_on_stdin_keeps_a_bom():
    data = b"\xef\xbb\xbf" + BAD.encode()
    proc = run_subprocess("lint", "--select", "RL005", "--fix", "--stdin-filename", "x.rubric.yaml", "-", stdin=data)
    assert proc.stdout.startswith(b"\xef\xbb\xbfcriteria:") and b'name: "yes"' in proc.stdout


def test_lone_surrogates_from_json_escapes_are_printed_escaped(tmp_path):
    path = tmp_path / "x.rubric.json"
    path.write_text('{"criteria": [{"requirement": "x", "\\\\ud800": 1, "\\\\ud800": 2}]}')
    for fmt in ("text", "json", "sarif", "github"):
        proc = run_subprocess("lint", "--select", "RL", "--format", fmt, str(path))
        assert proc.returncode == 1, proc.stderr
        assert b"RL002" in proc.stdout
        if fmt in ("json", "sarif"):
            json.loads(proc.stdout)


def test_fix_removes_json_trailing_commas(capsys, tmp_path):
    path = tmp_path / "x.rubric.json"
    path.write_text('{\n  "criteria": [\n    {"requirement": "Cites a source", "weight": 1,},\n  ],\n}\n')
    code, out, _ = run(capsys, "--select", "RL", "--fix", str(path))
    assert path.read_text() == '{\n  "criteria": [\n    {"requirement": "Cites a source", "weight": 1}\n  ]\n}\n'
    assert code == 0 and "Fixed 1 problem(s)." in out
    json.loads(path.read_text())


def test_stdin_filename_alone_reads_stdin():
    proc = run_subprocess(
        "lint", "--format", "json", "--select", "RL005", "--stdin-filename", "x.rubric.yaml", stdin=BAD
    )
    assert [r["code"] for r in json.loads(proc.stdout)] == ["RL005", "RL005"]
