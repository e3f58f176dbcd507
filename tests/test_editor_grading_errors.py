"""Grading errors meant for the user, in editor wording, and the server's log in the client's log.

No judge model / no key: the command fails with RequestFailed and structured ``data`` (the
extension's *Choose judge model* / *Set API Key* buttons). The server's log lines reach the
client as window/logMessage with their level, and not stderr (VS Code shows stderr as [error]).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.raw_client import RawClient

RUBRIC = "rubric:\n  - name: greets\n    requirement: Greets the user\n"
NO_KEYS = {"OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "", "RUBRIC_JUDGE_MODEL": "", "RUBRIC_JUDGE_API_BASE": ""}


def _start(tmp_path: Path, options: dict, stderr: Any = subprocess.PIPE) -> RawClient:
    client = RawClient(tmp_path, env=NO_KEYS, stderr=stderr)
    rid = client.send(
        "initialize",
        {
            "processId": os.getpid(),
            "rootUri": tmp_path.as_uri(),
            "capabilities": {"window": {"workDoneProgress": False}},
            "initializationOptions": options,
        },
    )
    client.response(rid)
    client.send("initialized", {}, request=False)
    return client


def _grade(client: RawClient, tmp_path: Path) -> dict:
    uri = (tmp_path / "a.rubric.yaml").as_uri()
    client.send(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": RUBRIC}},
        request=False,
    )
    return client.request(
        "workspace/executeCommand", {"command": "rubric-lsp.gradeText", "arguments": [{"text": "Hi"}]}
    )


def _log_messages(client: RawClient) -> list[dict]:
    found = []
    for chunk in bytes(client.raw).split(b"Content-Length:"):
        body = chunk[chunk.find(b"{") :] if b"{" in chunk else b""
        try:
            message = json.loads(body)
        except ValueError:
            continue
        if message.get("method") == "window/logMessage":
            found.append(message["params"])
    return found


def test_no_model_is_an_error_with_data_in_editor_wording(tmp_path: Path):
    # The server's stderr goes to a file: RawClient.close closes the pipes, and a pipe read before the
    # server exits could wait for ever. The file is read once the server is gone, so it holds all of it.
    stderr_path = tmp_path / "server.stderr"
    with stderr_path.open("wb") as stderr_file:
        client = _start(tmp_path, {}, stderr=stderr_file)
    try:
        reply = _grade(client, tmp_path)
        error = reply["error"]
        assert error["code"] == -32803
        assert error["data"]["kind"] == "no-model" and "rubric.judge.model" in error["data"]["message"]
        assert "--model" not in error["message"]  # not the CLI's wording
        logs = _log_messages(client)
        assert any(m["type"] == 2 and "grading refused" in m["message"] for m in logs), logs  # Warning
    finally:
        client.close()
    stderr = stderr_path.read_text(errors="replace")
    if not os.environ.get("RUBRIC_LSP_LOG"):  # debugging the server keeps a copy on stderr
        assert "grading refused" not in stderr and "rubric_lsp" not in stderr, stderr


def test_no_key_names_the_model_and_the_variable(tmp_path: Path):
    client = _start(tmp_path, {"rubric": {"judge": {"model": "anthropic/claude-3-5-haiku-20241022"}}})
    try:
        error = _grade(client, tmp_path)["error"]
        assert error["data"]["kind"] == "no-key"
        assert error["data"]["model"] == "anthropic/claude-3-5-haiku-20241022"
        assert "ANTHROPIC_API_KEY" in error["data"]["message"]
    finally:
        client.close()
