"""A raw stdio client for the language server: bytes in, JSON-RPC messages out (no pytest-lsp),
for tests that send malformed frames or params. The ``raw`` fixture (an initialized one) is in conftest."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.server_helpers import ENV, SERVER


class RawClient:
    """A JSON-RPC client over the server's stdio, written by hand so tests can send what pytest-lsp
    would refuse to. It keeps every byte the server wrote (``raw``), every response by id and the
    latest diagnostics per document, and answers the server's own requests (one null per
    ``workspace/configuration`` item: the defaults)."""

    def __init__(
        self,
        tmp_path: Path,
        *,
        env: dict[str, str] | None = None,
        stderr: Any = subprocess.PIPE,
        command: list[str] | None = None,
    ) -> None:
        self.proc = subprocess.Popen(
            command or SERVER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env={**ENV, **(env or {})},
            cwd=tmp_path,
        )
        os.set_blocking(self.proc.stdout.fileno(), True)
        self.next_id = 0
        self.raw = bytearray()
        self.responses: dict[int, dict] = {}
        self.published: dict[str, dict] = {}

    def send_raw(self, body: bytes) -> None:
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def send(self, method: str, params: Any, request: bool = True) -> int | None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if request:
            self.next_id += 1
            message["id"] = self.next_id
        self.send_raw(json.dumps(message).encode())
        return message.get("id")

    def read(self) -> dict:
        """The server's next message (a request from it is answered, a response or diagnostics kept)."""
        length = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                stderr = self.proc.stderr.read().decode(errors="replace")[-2000:] if self.proc.stderr else ""
                raise AssertionError(f"the server exited (code {self.proc.poll()}); stderr: {stderr}")
            self.raw += line
            if not line.strip():
                break
            name, _, value = line.decode("ascii").partition(":")  # non-protocol bytes on stdout fail here
            if name.strip().lower() == "content-length":
                length = int(value)
        assert length is not None, "a message without Content-Length"
        body = self.proc.stdout.read(length)
        self.raw += body
        message = json.loads(body)
        if "method" in message and "id" in message:
            params = message.get("params")
            items = params.get("items") if isinstance(params, dict) else None
            result = [None] * len(items) if items else None
            self.send_raw(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode())
        elif "id" in message:
            self.responses[message["id"]] = message
        elif message.get("method") == "textDocument/publishDiagnostics":
            self.published[message["params"]["uri"]] = message["params"]
        return message

    def pump_until(self, done: Callable[[], bool], timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not done():
            assert time.monotonic() < deadline, "the server stopped answering"
            self.read()

    def response(self, request_id: int | None, timeout: float = 20) -> dict:
        self.pump_until(lambda: request_id in self.responses, timeout)
        return self.responses[request_id]

    def request(self, method: str, params: Any, timeout: float = 90) -> dict:
        return self.response(self.send(method, params), timeout)

    def initialize(self, root: Path, options: dict[str, Any] | None = None) -> dict:
        """The LSP handshake (initialize, then initialized) for a workspace at ``root``, with ``options`` as
        its initializationOptions: the server's InitializeResult."""
        params: dict[str, Any] = {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {}}
        if options is not None:
            params["initializationOptions"] = options
        result = self.request("initialize", params, timeout=60)["result"]
        assert "capabilities" in result, result
        self.send("initialized", {}, request=False)
        return result

    def close(self, *, shutdown: bool = True) -> None:
        """Stop the server (LSP shutdown and exit first, unless ``shutdown`` is false: a server that does
        not exit by itself is killed), wait for it and close its pipes: nothing of it stays open."""
        try:
            if shutdown:
                try:
                    self.send("shutdown", None)
                    self.send("exit", None, request=False)
                    self.proc.wait(timeout=10)
                except Exception:
                    self.proc.kill()
            else:
                self.proc.kill()
            self.proc.wait(timeout=10)
        finally:
            for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    try:
                        stream.close()
                    except OSError:  # a write still buffered for a server that is gone
                        continue


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
