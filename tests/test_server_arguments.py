"""Bad command arguments get InvalidParams (-32602) with a one-line message (issue 13, item 12)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.raw_client import RawClient


@pytest.fixture(scope="module")
def raw(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("args")
    client = RawClient(tmp_path)
    rid = client.send("initialize", {"processId": os.getpid(), "rootUri": tmp_path.as_uri(), "capabilities": {}})
    assert "capabilities" in client.response(rid)["result"]
    client.send("initialized", {}, request=False)
    client.root = tmp_path
    yield client
    client.close()


def execute(raw: RawClient, command: str, arguments) -> dict:
    params = {"command": command}
    if arguments is not None:
        params["arguments"] = arguments
    return raw.response(raw.send("workspace/executeCommand", params))


def rubric_uri(raw: RawClient) -> str:
    path = Path(raw.root) / "r.rubric.yaml"
    path.write_text("rubric:\n  - requirement: Greets\n")
    return path.as_uri()


@pytest.mark.parametrize(
    "command, arguments, says",
    [
        ("rubric-lsp.gradeText", ["str"], "takes one object argument"),
        ("rubric-lsp.gradeText", None, "got none"),
        ("rubric-lsp.gradeText", [], "got none"),
        ("rubric-lsp.gradeText", [{"uri": "URI"}, {}], "it got 2"),
        ("rubric-lsp.gradeText", [{"uri": "URI"}], '"text" (the response to grade) is missing'),
        ("rubric-lsp.gradeText", [{"uri": "URI", "text": 3}], '"text" must be a string; it is a number'),
        ("rubric-lsp.gradeText", [{"uri": "URI", "text": "hi", "test": True}], '"test" must be an integer'),
        ("rubric-lsp.gradeText", [{"uri": "https://example.com/r.yaml", "text": "hi"}], "a file: URI"),
        ("rubric-lsp.gradeText", [{"uri": 7, "text": "hi"}], '"uri" must be a string'),
        ("rubric-lsp.gradeDocument", [{"uri": "untitled:Untitled-1"}], "a file: URI"),
        ("rubric-lsp.gradeDocument", [["uri"]], "it got a list"),
        ("rubric-lsp.clearVerdicts", ["str"], "takes one object argument"),
    ],
)
def test_bad_arguments_are_invalid_params_in_one_line(raw: RawClient, command, arguments, says):
    if arguments:
        arguments = [
            {k: (rubric_uri(raw) if v == "URI" else v) for k, v in a.items()} if isinstance(a, dict) else a
            for a in arguments
        ]
    reply = execute(raw, command, arguments)
    error = reply.get("error")
    assert error is not None, reply
    assert error["code"] == -32602, error
    assert says in error["message"] and "\n" not in error["message"] and "Traceback" not in str(error)
    assert raw.proc.poll() is None


def test_good_arguments_still_run(raw: RawClient):
    reply = execute(raw, "rubric-lsp.clearVerdicts", [{"uri": rubric_uri(raw)}])
    assert reply.get("result") == {"cleared": True}
    reply = execute(raw, "rubric-lsp.clearVerdicts", None)
    assert reply.get("result") == {"cleared": True}
