"""Grading commands naming a file that cannot be read: a one-line -32602, never -32603 with a traceback,
and never a wedged server (a FIFO named like a rubric used to block the event loop for good)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

COMMANDS = [
    "rubric-lsp.grade",
    "rubric-lsp.gradeText",
    "rubric-lsp.gradeDocument",
    "rubric-lsp.gradeSelection",
    "rubric-lsp.gradeExamples",
]


def _targets(root: Path) -> dict[str, str]:
    folder = root / "folder.rubric.yaml"
    folder.mkdir()
    pipe = root / "p.rubric.yaml"
    os.mkfifo(pipe)
    zero = root / "zero.rubric.yaml"
    zero.symlink_to("/dev/zero")
    return {
        "missing": (root / "missing.rubric.yaml").as_uri(),
        "folder": folder.as_uri(),
        "fifo": pipe.as_uri(),
        "device": zero.as_uri(),
    }


@pytest.mark.parametrize("command", COMMANDS)
def test_an_unreadable_file_uri_is_one_line_invalid_params(raw, tmp_path: Path, command: str):
    (tmp_path / command).mkdir()
    for what, uri in _targets(tmp_path / command).items():
        argument = {"uri": uri, "text": "Hello"} if command == "rubric-lsp.gradeText" else {"uri": uri}
        answer = raw.request("workspace/executeCommand", {"command": command, "arguments": [argument]}, timeout=20)
        error = answer.get("error")
        assert error is not None and error["code"] == -32602, (what, answer)
        assert "\n" not in error["message"] and "Traceback" not in error["message"], (what, error)
    # still answering
    answer = raw.request(
        "workspace/executeCommand", {"command": "rubric-lsp.gradeTargets", "arguments": []}, timeout=20
    )
    assert "result" in answer


def test_grade_targets_skips_a_fifo_in_the_workspace(tmp_path: Path):
    from tests.raw_client import RawClient

    os.mkfifo(tmp_path / "wedge.rubric.yaml")
    (tmp_path / "ok.rubric.yaml").write_text("rubric:\n  - {name: polite, requirement: Is polite}\n", encoding="utf-8")
    client = RawClient(tmp_path)
    try:
        folders = [{"uri": tmp_path.as_uri(), "name": "ws"}]
        init = {"processId": os.getpid(), "rootUri": tmp_path.as_uri(), "capabilities": {}, "workspaceFolders": folders}
        client.response(client.send("initialize", init))
        client.send("initialized", {}, request=False)
        answer = client.request(
            "workspace/executeCommand", {"command": "rubric-lsp.gradeTargets", "arguments": []}, timeout=20
        )
        uris = [t["uri"] for t in answer["result"]["targets"]]
        assert any(u.endswith("ok.rubric.yaml") for u in uris), uris
        assert not any(u.endswith("wedge.rubric.yaml") for u in uris)
    finally:
        client.close()
