"""The server survives bad input: malformed JSON, unknown methods, invalid params, bad commands.

Talks raw JSON-RPC over the server's stdio, so what goes on the wire (and nothing else on
stdout) is checked too.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tests.raw_client import RawClient, hover, open_doc
from tests.server_helpers import ENV, SERVER


def test_malformed_json_and_unknown_methods_do_not_end_the_server(raw: RawClient, tmp_path: Path):
    uri = open_doc(raw, tmp_path, "rubric:\n  - requirement: Greets\n    weight: 3\n")
    raw.send_raw(b'{"jsonrpc": "2.0", "id": 99, "method": "textDocument/hover", "params": ')  # cut short
    raw.send_raw(b"\xff\xfe not even utf-8")
    rid = raw.send("rubric/doesNotExist", {"x": 1})
    assert raw.response(rid)["error"]["code"] == -32601  # method not found
    raw.send("$/someNotification", {}, request=False)
    assert "contents" in hover(raw, uri)["result"]
    assert raw.proc.poll() is None


def test_invalid_params_get_an_error_reply_not_silence(raw: RawClient, tmp_path: Path):
    uri = open_doc(raw, tmp_path, "rubric:\n  - requirement: Greets\n    weight: [3]\n")
    rid = raw.send("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": "one"}})
    assert raw.response(rid)["error"]["code"] == -32602
    # a code action whose context diagnostics lack required fields is still answered
    rid = raw.send(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 2, "character": 4}, "end": {"line": 2, "character": 15}},
            "context": {"diagnostics": [{"code": "AR104"}]},
        },
    )
    reply = raw.response(rid)
    assert "error" not in reply and any("AR104" in a["title"] for a in reply["result"])


def test_bad_command_arguments_and_missing_documents(raw: RawClient, tmp_path: Path):
    rid = raw.send("workspace/executeCommand", {"command": "rubric-lsp.gradeText", "arguments": ["not a dict"]})
    assert "error" in raw.response(rid)
    rid = raw.send(
        "workspace/executeCommand",
        {
            "command": "rubric-lsp.gradeText",
            "arguments": [{"uri": (tmp_path / "missing.rubric.yaml").as_uri(), "text": "hi"}],
        },
    )
    reply = raw.response(rid)
    assert "error" in reply or "error" in (reply.get("result") or {})
    rid = raw.send(
        "textDocument/hover",
        {"textDocument": {"uri": (tmp_path / "never-opened.yaml").as_uri()}, "position": {"line": 0, "character": 0}},
    )
    assert raw.response(rid).get("result") is None
    uri = open_doc(raw, tmp_path, "rubric:\n  - requirement: Greets\n")
    assert "contents" in hover(raw, uri)["result"]


def test_hostile_document_gets_a_diagnostic_and_the_server_stays_up(raw: RawClient, tmp_path: Path):
    bomb = (
        "a: &a [x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
            for i in range(9)
        )
        + "rubric: *j\n"
    )
    uri = (tmp_path / "bomb.rubric.yaml").as_uri()
    raw.send(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": bomb}},
        request=False,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        message = raw.read()
        if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
            assert any(d["code"] == "RL003" for d in message["params"]["diagnostics"])
            break
    else:
        raise AssertionError("no diagnostics for the hostile file")
    uri = open_doc(raw, tmp_path, "rubric:\n  - requirement: Greets\n")
    assert "contents" in hover(raw, uri)["result"]


def test_logs_never_reach_stdout(tmp_path: Path):
    # --version and a server that is fed garbage then closed: stdout holds nothing but frames.
    out = subprocess.run(
        [sys.executable, "-m", "rubric_lsp", "serve", "--version"], capture_output=True, env=ENV, timeout=60
    )
    assert out.returncode == 0 and b"rubric-lsp" in out.stdout
    proc = subprocess.run(SERVER, input=b"Content-Length: 5\r\n\r\n{bad}", capture_output=True, env=ENV, timeout=60)
    assert proc.stdout == b""
