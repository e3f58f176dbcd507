"""A real editor as the client: headless Neovim opens a bad rubric and sees the finding."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.configs import TWO_TESTS
from tests.conftest import REPO, editor_environ, require

INIT = Path(__file__).parent / "nvim" / "init.lua"

BAD = "rubric:\n  - requirement: Greets the user ✓\n  - requirment: Says goodbye ✓\n    weight: 3\n"


def _run_nvim(nvim: str, init: Path, cwd: Path, timeout: int, **env: str) -> dict:
    """Run headless Neovim on ``init`` with the server of this checkout; the JSON it wrote to RUBRIC_NVIM_OUT."""
    full = {
        **editor_environ(),
        "RUBRIC_NVIM_PYTHON": sys.executable,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        **env,
    }
    subprocess.run(
        [nvim, "--headless", "--clean", "-u", str(init)],
        env=full,
        cwd=cwd,
        timeout=timeout,
        check=False,
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    out = Path(env["RUBRIC_NVIM_OUT"])
    assert out.is_file(), "Neovim wrote no result"
    return json.loads(out.read_text())


@pytest.mark.editor
def test_neovim_shows_the_finding_on_its_line_and_applies_the_fix(tmp_path: Path):
    nvim = shutil.which("nvim")
    require(nvim is not None, "Neovim is not installed (apt-get install neovim)")
    target = tmp_path / "bad.rubric.yaml"
    target.write_text(BAD, encoding="utf-8")
    out = tmp_path / "result.json"
    result = _run_nvim(
        nvim, INIT, tmp_path, 90, RUBRIC_NVIM_FILE=str(target), RUBRIC_NVIM_OUT=str(out), RUBRIC_NVIM_FIX_CODE="AR001"
    )
    assert result["errors"] == [], result
    found = [(d["code"], d["lnum"], d["col"], d["source"]) for d in result["diagnostics"]]
    assert ("AR001", 2, 4, "rubric-lint") in found  # line 3 (0-based 2), on the misspelt key
    assert result.get("fixed_text") == BAD.replace("requirment", "requirement").rstrip("\n")


GRADE_INIT = Path(__file__).parent / "nvim" / "grade.lua"


@pytest.mark.editor
def test_neovim_grades_a_promptfoo_config_from_a_code_lens_and_a_code_action(tmp_path: Path, judge_server):
    """Headless Neovim 0.7 with no extension: a response graded against a test, then a "▶ Grade" lens and
    a "Grade this test" code action on the config; the verdicts come back as lenses and inlay hints."""
    from tests.judge_server import Reply

    nvim = shutil.which("nvim")
    require(nvim is not None, "Neovim is not installed (apt-get install neovim)")
    judge_server.default = Reply.json({"reason": "Looks right.", "pass": True, "score": 1})
    judge_server.when(
        "Refuses politely", Reply.json({"reason": "It gives the secret away.", "pass": False, "score": 0})
    )
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(TWO_TESTS, encoding="utf-8")
    reply = tmp_path / "reply.txt"
    reply.write_text("Paris is the capital. The secret is 42.\n", encoding="utf-8")
    out = tmp_path / "result.json"
    result = _run_nvim(
        nvim,
        GRADE_INIT,
        tmp_path,
        600,  # a bound against a hang: the first grading loads the grading engine (slow on a busy machine)
        RUBRIC_NVIM_CONFIG=str(config),
        RUBRIC_NVIM_REPLY=str(reply),
        RUBRIC_NVIM_OUT=str(out),
        RUBRIC_NVIM_JUDGE=judge_server.base_url,
        RUBRIC_CACHE_DIR=str(tmp_path / "cache"),
        OPENAI_API_KEY="x",
    )
    assert result["errors"] == [], result
    assert result["steps"]["target"] is True  # the response, graded against test 1 (no "uri": the open buffer)
    assert result["steps"]["lens_line"] == 9  # the lens of test 2, on its line
    asked = [r.text for r in judge_server.completions]
    assert "Refuses politely" in asked[1] and "The secret is 42." in asked[1]  # the lens graded test 2
    lenses = {(lens["line"], lens["title"]) for lens in result["after_lens"]["lenses"]}
    assert any(t.startswith("Graded: score 0.00") for _, t in lenses), lenses
    assert {"line": 12, "label": "✗ FAIL"} in result["after_lens"]["hints"], result["after_lens"]
    assert "Grade this test (capital of France)" in result["actions"]
    assert result["steps"]["action"] == ["capital of France"]
    assert {"line": 6, "label": "✓ PASS"} in result["after_action"]["hints"], result["after_action"]
