"""Without the [grade] extra (litellm), grading refuses in one line that says how to install it.

litellm is hidden from the child processes by a sitecustomize that maps it to None in
sys.modules (an import then fails, and importlib.util.find_spec answers None), so these run
in this environment; test_install.py checks the same in a real base-only install.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rubric_lsp.engine import extra
from tests.conftest import REPO
from tests.raw_client import RawClient, open_doc

RUBRIC = "rubric:\n  criteria:\n    - {name: polite, requirement: Is polite, weight: 1}\n"
PREFIX = "grading needs litellm, which is not installed (the optional [grade] extra"


@pytest.fixture
def no_litellm(tmp_path: Path) -> dict[str, str]:
    """Environment variables under which a Python process of this environment cannot import litellm."""
    hide = tmp_path / "hide-litellm"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text('import sys\nsys.modules["litellm"] = None\n', encoding="utf-8")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(hide), str(REPO)]), "OPENAI_API_KEY": "x"}


def grade(env: dict[str, str], tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    rubric = tmp_path / "r.rubric.yaml"
    rubric.write_text(RUBRIC, encoding="utf-8")
    command = [sys.executable, "-m", "rubric_lsp", "grade", str(rubric), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)


def test_rubric_grade_exits_2_with_one_line(no_litellm, tmp_path: Path) -> None:
    (tmp_path / "reply.txt").write_text("Hello", encoding="utf-8")
    done = grade(no_litellm, tmp_path, "--response", str(tmp_path / "reply.txt"))
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()  # no traceback, no per-criterion errors
    assert line.startswith(f"rubric grade: {PREFIX}")
    assert f"{sys.executable} -m pip install 'litellm>=" in line


def test_rescoring_given_verdicts_needs_no_judge_and_no_litellm(no_litellm, tmp_path: Path) -> None:
    verdicts = tmp_path / "v.json"
    verdicts.write_text(json.dumps({"verdicts": [{"name": "polite", "verdict": "MET"}]}), encoding="utf-8")
    done = grade(no_litellm, tmp_path, "--verdicts", str(verdicts), "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["score"] == 1.0


def test_the_editor_grading_command_fails_with_the_one_line(no_litellm, tmp_path: Path) -> None:
    client = RawClient(tmp_path, env=no_litellm)
    try:
        rid = client.send("initialize", {"processId": os.getpid(), "rootUri": tmp_path.as_uri(), "capabilities": {}})
        client.response(rid)
        client.send("initialized", {}, request=False)
        uri = open_doc(client, tmp_path, RUBRIC)
        answer = client.request(
            "workspace/executeCommand", {"command": "rubric-lsp.gradeText", "arguments": [{"uri": uri, "text": "Hi"}]}
        )
        error = answer["result"]["error"]
        assert error.startswith(PREFIX) and "\n" not in error
        # window/showMessage is sent before the command's answer
        assert f"Grading failed: {PREFIX}".encode() in client.raw
    finally:
        client.close()


def test_the_message_names_the_extras_requirements(monkeypatch) -> None:
    monkeypatch.setattr(extra.importlib.util, "find_spec", lambda name: None)
    message = extra.grade_extra_missing()
    assert message is not None and message.startswith(PREFIX)
    for requirement in extra.grade_requirements():
        assert requirement.split(">=")[0] in message
    monkeypatch.undo()
    assert extra.grade_extra_missing() is None  # this environment has litellm


def test_a_report_without_pygal_is_refused_before_any_judge_call(tmp_path: Path) -> None:
    """The pipx route `pipx inject rubric-lsp litellm rich` had no pygal: --report failed after the
    grading was paid for. Now the request is refused first, with a command that installs what is missing."""
    hide = tmp_path / "hide-pygal"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text('import sys\nsys.modules["pygal"] = None\n', encoding="utf-8")
    # No API key and no judge: a judge call would fail differently (missing credentials), not with this line.
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = os.pathsep.join([str(hide), str(REPO)])
    (tmp_path / "reply.txt").write_text("Hello", encoding="utf-8")
    done = grade(env, tmp_path, "--response", str(tmp_path / "reply.txt"), "--report", str(tmp_path / "r.html"))
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("rubric grade: the HTML report needs pygal, not installed: run ")
    assert f"{sys.executable} -m pip install 'pygal>=" in line and "rubric-lsp[grade]" not in line
    assert not (tmp_path / "r.html").exists()


def test_the_fallback_requirements_are_the_grade_extra() -> None:
    from rubric_lsp.settings import _toml  # tomllib, or tomli before Python 3.11

    project = _toml().loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert list(extra.FALLBACK_REQUIREMENTS) == project["optional-dependencies"]["grade"]
