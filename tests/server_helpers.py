"""Shared pieces for the language-server tests (no tests here): client profiles, fixtures, waits.

Each profile is a real client's capabilities from pytest-lsp (VS Code 1.65, Neovim 0.11,
Emacs 29.1); "pull" adds pull-diagnostic support so both delivery modes are exercised,
and each negotiates a different position encoding (utf-16, utf-8, utf-32).
"""

from __future__ import annotations

import asyncio
import copy
import functools
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SERVER = [sys.executable, "-m", "rubric_lsp", "serve"]
# Not left to warm up (RUBRIC_LSP_WARM_UP_IDLE, server/main.py): a server quiet for 2 s loads every format's rules and
# the grading engine, ~0.3 s of CPU in each of the suite's servers (~17 s over the server modules, measured) that
# none of their tests needs; tests/test_server_warm_up.py checks the warm-up itself.
ENV = {
    **os.environ,
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "OPENAI_API_KEY": "x",
    "PYTHONUNBUFFERED": "1",
    "RUBRIC_LSP_WARM_UP_IDLE": "3600",
}

# (pytest-lsp client spec, diagnostics mode, expected encoding)
PROFILES = [
    ("visual-studio-code", "push", "utf-16"),
    ("neovim@v0.11", "pull", "utf-8"),
    ("neovim@v0.11", "push", "utf-8"),
    ("emacs@v29.1", "pull", "utf-32"),
    ("emacs@v29.1", "push", "utf-32"),
]
PROFILE_IDS = [f"{spec.split('@')[0]}-{mode}-{enc}" for spec, mode, enc in PROFILES]


@functools.cache
def _published_capabilities(spec: str) -> types.ClientCapabilities:
    return client_capabilities(spec)  # read and structured on a converter of its own: ~0.1 s of CPU each time


def capabilities(spec: str, mode: str) -> types.ClientCapabilities:
    caps = copy.deepcopy(_published_capabilities(spec))  # each session changes its copy below
    if mode == "pull":
        caps.text_document.diagnostic = types.DiagnosticClientCapabilities(related_document_support=False)
        caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    else:
        caps.text_document.diagnostic = None
    if caps.workspace is not None and caps.workspace.workspace_edit is None:
        caps.workspace.workspace_edit = types.WorkspaceEditClientCapabilities(document_changes=True)
    return caps


def make_config(env: dict[str, str] | None = None) -> ClientServerConfig:
    env = dict(env or {})
    if env.get("RUBRIC_CACHE_DIR") == "__CACHE__":  # a fresh verdict cache per test module
        import atexit
        import shutil
        import tempfile

        # Made when the module is imported (the config is a decorator's argument), so no fixture owns it:
        # removed when the worker exits, after its servers have stopped.
        env["RUBRIC_CACHE_DIR"] = tempfile.mkdtemp(prefix="rubric-lsp-cache-")
        atexit.register(shutil.rmtree, env["RUBRIC_CACHE_DIR"], True)
    return ClientServerConfig(
        server_command=SERVER, server_env={**ENV, **env}, client_factory=client_on_a_shared_converter
    )


@functools.cache
def _converter() -> Any:
    from pygls.protocol import default_converter

    return default_converter()


def client_on_a_shared_converter() -> LanguageClient:
    """pytest-lsp's test client (``make_test_lsp_client``), on one converter for every client of the worker.
    cattrs writes and compiles a (un)structure function per message type on each converter's first use of it:
    ~0.15 s of CPU a client, measured. The converter keeps no state but those functions."""
    from pytest_lsp.client import register_lsp_features

    client = LanguageClient(converter_factory=_converter)
    register_lsp_features(client)
    return client


class Session:
    """A started client plus what the test needs to know about it."""

    def __init__(self, client: LanguageClient, spec: str, mode: str, encoding: str, root: Path) -> None:
        self.client, self.spec, self.mode, self.encoding, self.root = client, spec, mode, encoding, root
        self.versions: dict[str, int] = {}
        self.texts: dict[str, str] = {}
        self.published: dict[str, list[tuple[int | None, int]]] = {}  # uri -> (version, count) per push
        features = client.protocol.fm.features
        default = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

        def record(params: types.PublishDiagnosticsParams):
            self.published.setdefault(params.uri, []).append((params.version, len(params.diagnostics)))
            return default(params)

        features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record

    # -- documents --------------------------------------------------------------------------
    def open(self, name: str, text: str, language: str = "yaml", write: bool = True) -> str:
        path = self.root / name
        if write:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        self.versions[uri] = 1
        self.texts[uri] = text
        self.client.diagnostics.pop(uri, None)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
            )
        )
        return uri

    def replace(self, uri: str, text: str) -> None:
        self.versions[uri] += 1
        self.texts[uri] = text
        self.client.diagnostics.pop(uri, None)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    async def diagnostics(self, uri: str, timeout: float = 10) -> list[types.Diagnostic]:
        if self.mode == "pull":
            report = await asyncio.wait_for(
                self.client.text_document_diagnostic_async(
                    types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
                ),
                timeout,
            )
            return list(report.items)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pushes = self.published.get(uri)
            if uri in self.client.diagnostics and pushes and pushes[-1][0] in (None, self.versions[uri]):
                return list(self.client.diagnostics[uri])
            await asyncio.sleep(0.01)
        raise AssertionError(f"no diagnostics published for {uri} within {timeout}s")

    async def apply(self, uri: str, edit: types.WorkspaceEdit) -> str:
        """Apply a workspace edit to our copy of the document and send it as a full change."""
        edits: list[types.TextEdit] = []
        if edit.document_changes:
            for change in edit.document_changes:
                edits.extend(change.edits)
        if edit.changes:
            edits.extend(edit.changes.get(uri, []))
        text = apply_text_edits(self.texts[uri], edits, self.encoding)
        self.replace(uri, text)
        return text


def _to_offset(text: str, pos: types.Position, encoding: str) -> int:
    lines = text.split("\n")
    offset = sum(len(line) + 1 for line in lines[: pos.line])
    line = lines[pos.line] if pos.line < len(lines) else ""
    units = 0
    for i, ch in enumerate(line):
        if units >= pos.character:
            return offset + i
        units += unit_len(ch, encoding)
    return offset + len(line)


def unit_len(ch: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(ch.encode("utf-8"))
    if encoding == "utf-16":
        return len(ch.encode("utf-16-le")) // 2
    return 1


def column(line: str, index: int, encoding: str) -> int:
    """The client column of code-point ``index`` in ``line``."""
    return sum(unit_len(c, encoding) for c in line[:index])


def apply_text_edits(text: str, edits: list[types.TextEdit], encoding: str) -> str:
    spans = sorted(
        (
            (_to_offset(text, e.range.start, encoding), _to_offset(text, e.range.end, encoding), e.new_text)
            for e in edits
        ),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def session_fixture(
    env: dict[str, str] | None = None,
    init_options: dict[str, Any] | None = None,
    configuration: dict[str, Any] | None = None,
    profiles=PROFILES,
    ids=PROFILE_IDS,
    scope: str = "module",
):
    """A pytest-lsp fixture, one server per module (or ``scope``) and profile, parametrised over client profiles.

    Modules using it mark their tests ``pytest.mark.asyncio(loop_scope=scope)``; tests
    sharing a server each use their own file names.
    """

    @pytest_lsp.fixture(config=make_config(env), params=profiles, ids=ids, scope=scope)
    async def session(lsp_client: LanguageClient, request, tmp_path_factory):
        spec, mode, encoding = request.param
        tmp_path = tmp_path_factory.mktemp("ws")
        if configuration is not None:
            lsp_client.set_configuration(configuration, section="rubric")

        @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply_edit(params: types.ApplyWorkspaceEditParams):
            return types.ApplyWorkspaceEditResult(applied=True)

        @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register_capability(params: types.RegistrationParams):
            return None

        lsp_client.refreshes = {"inlayHint": 0, "codeLens": 0}

        @lsp_client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
        def inlay_hint_refresh(params: None):
            lsp_client.refreshes["inlayHint"] += 1

        @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
        def code_lens_refresh(params: None):
            lsp_client.refreshes["codeLens"] += 1

        result = await lsp_client.initialize_session(
            types.InitializeParams(
                capabilities=capabilities(spec, mode),
                root_uri=tmp_path.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=tmp_path.as_uri(), name="ws")],
                initialization_options=init_options,
            )
        )
        assert (
            str(result.capabilities.position_encoding) in (encoding, f"PositionEncodingKind.{encoding}")
            or getattr(result.capabilities.position_encoding, "value", None) == encoding
        )
        lsp_client.rubric_session = Session(lsp_client, spec, mode, encoding, tmp_path)
        yield
        await lsp_client.shutdown_session()

    return session


def code_of(diag: types.Diagnostic) -> str:
    return str(diag.code)


__all__ = ["PROFILES", "PROFILE_IDS", "Session", "apply_text_edits", "column", "pytest", "session_fixture"]


# The grading modules' clients: one of each diagnostics mode, each with another encoding.
GRADING_PROFILES = [("neovim@v0.11", "pull", "utf-8"), ("visual-studio-code", "push", "utf-16")]


def judge_lifetime(judge: Any):
    """The module fixture that stops ``judge`` (a started tests.judge_server.JudgeServer) after the module's
    tests: assign it to a name in the module (``_judge_lifetime = judge_lifetime(JUDGE)``)."""

    @pytest.fixture(scope="module", autouse=True)
    def _judge_lifetime():
        yield
        judge.stop()

    return _judge_lifetime


async def findings_until(
    s: Any, uri: str, code: str, wanted: int | Callable[[list[types.Diagnostic]], bool], timeout: float = 30
) -> list[types.Diagnostic]:
    """The findings of rule ``code`` on ``uri`` once ``wanted(findings)`` holds, or there are ``wanted`` of them
    (or ``timeout`` seconds passed):
    pulled again and again, or the newest push read again and again once there is one (never waited for: a
    re-lint's push may already have come)."""
    holds = wanted if callable(wanted) else lambda found: len(found) == wanted
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        if s.mode == "pull":
            found = [d for d in await s.diagnostics(uri) if code_of(d) == code]
        else:
            found = [d for d in s.client.diagnostics.get(uri, []) if code_of(d) == code]
        published = s.mode == "pull" or uri in s.client.diagnostics  # no push yet is no answer yet
        if (published and holds(found)) or loop.time() > deadline:
            return found
        await asyncio.sleep(0.2)


def grading_session_fixture(judge: Any, profiles=GRADING_PROFILES, ids=None, scope: str = "module"):
    """``session_fixture`` for grading modules: servers whose judge is ``judge`` (a started
    tests.judge_server.JudgeServer), grade-on-save on, a verdict cache per server. ``ids``: by default each
    profile's client and mode ("neovim-pull"). ``scope="function"``: a server per test, for tests that need
    one that has graded nothing yet."""
    ids = ids if ids is not None else [f"{spec.split('@')[0]}-{mode}" for spec, mode, _ in profiles]
    return session_fixture(
        init_options={
            "rubric": {
                "judge": {"model": "openai/judge", "apiBase": judge.base_url, "concurrency": 8, "timeoutSeconds": 20},
                "gradeOnSave": True,
            }
        },
        env={"RUBRIC_CACHE_DIR": "__CACHE__"},
        profiles=profiles,
        ids=ids,
        scope=scope,
    )


def in_process_sender(ls: Any) -> Callable[..., None]:
    """A function that hands ``ls`` (``server.main.build_server()``, no process) one JSON-RPC message, structured
    as its stdio reader structures one: ``send(method, params, rid)``, ``rid`` None for a notification."""

    def send(method: str, params: dict[str, Any], rid: int | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if rid is not None:
            message["id"] = rid
        ls.protocol.handle_message(json.loads(json.dumps(message), object_hook=ls.protocol.structure_message))

    return send


class Responses:
    """A writer for an in-process server (``ls.protocol.set_writer``): the messages it writes, parsed (the
    protocol frames each one with a Content-Length header)."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.messages.append(json.loads(data.split(b"\r\n\r\n", 1)[1]))

    def close(self) -> None:
        pass

    def answer(self, rid: int) -> dict[str, Any] | None:
        return next((m for m in self.messages if m.get("id") == rid and "method" not in m), None)
