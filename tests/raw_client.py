"""A raw stdio client for the language server: bytes in, JSON-RPC messages out (no pytest-lsp),
for tests that send malformed frames or params. The ``raw`` fixture (an initialized one) is in conftest."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from tests.server_helpers import ENV, SERVER


class RawClient:
    def __init__(self, tmp_path: Path) -> None:
        self.proc = subprocess.Popen(
            SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, cwd=tmp_path
        )
        self.next_id = 0

    def send_raw(self, body: bytes) -> None:
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def send(self, method: str, params, request: bool = True) -> int | None:
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            message["id"] = self.next_id
        self.send_raw(json.dumps(message).encode())
        return message.get("id")

    def read(self) -> dict:
        headers = {}
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(
                    "server closed stdout; stderr: " + self.proc.stderr.read().decode(errors="replace")[-2000:]
                )
            line = line.strip()
            if not line:
                break
            name, _, value = line.decode("ascii").partition(":")  # non-protocol bytes on stdout fail here
            headers[name.lower()] = value.strip()
        return json.loads(self.proc.stdout.read(int(headers["content-length"])))

    def response(self, request_id: int, timeout: float = 20) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = self.read()
            if message.get("id") == request_id and "method" not in message:
                return message
            if "method" in message and "id" in message:  # a request from the server: answer it
                self.send_raw(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": None}).encode())
        raise AssertionError(f"no response to {request_id}")

    def close(self) -> None:
        try:
            self.send("shutdown", None)
            self.send("exit", None, request=False)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


def open_doc(raw: RawClient, tmp_path: Path, text: str) -> str:
    uri = (tmp_path / "a.rubric.yaml").as_uri()
    raw.send(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
        request=False,
    )
    return uri


def hover(raw: RawClient, uri: str) -> dict:
    rid = raw.send("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 6}})
    return raw.response(rid)
