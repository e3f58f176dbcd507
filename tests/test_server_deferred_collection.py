"""The language server's diagnostics go out before the cyclic collector runs (server/publish.py, _push_loop).

Reading a document pauses the collector; when that pause ended, the next allocation ran a young collection
over every node the read had made (~0.1 s on promptfoo's 1.3 MB redteam config, none of it garbage), in the
middle of the lint and before its diagnostics. The push loop and the pull handler now hold the pause until the
diagnostics are sent or the report is built. Driven here in-process with a stand-in server, so the check is the
collector's state at each step, not a timing.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
from types import SimpleNamespace

import pytest
from lsprotocol import types

from rubric_lsp.runtime import gc as collector
from rubric_lsp.server import diagnostics, publish

URI = "file:///w/a.rubric.yaml"


class StandIn:
    """What the push loop and the pull handler ask of the server, recording the collector's state."""

    pull_diagnostics = False
    settings_generation = 0

    def __init__(self) -> None:
        self.workspace = SimpleNamespace(text_documents={URI: None})
        self.doc = SimpleNamespace(push_task=None, smell_task=None, result_id=None, extra={})
        self.seen: list[tuple[str, bool]] = []

    def state(self, uri: str) -> SimpleNamespace:
        return self.doc

    def text_of(self, uri: str) -> tuple[str, int]:
        return "rubric: {}\n", 1

    async def lint(self, uri: str) -> str:
        self.seen.append(("lint", gc.isenabled()))
        await asyncio.sleep(0)  # the lint runs on the lint thread: the event loop goes on meanwhile
        self.seen.append(("linted", gc.isenabled()))
        return "result"

    async def lint_with_smells(self, uri: str) -> str:
        return "result"

    def smelled_now(self, uri: str, result: str) -> str:
        return result

    def client_supports(self, feature: str) -> bool:
        return True


@pytest.fixture
def collector_on():
    """A collector that runs, with nothing paused (as in a server once started)."""
    assert collector._pauses == 0
    enabled = gc.isenabled()
    gc.enable()
    yield
    assert collector._pauses == 0, "a pause was left behind"
    (gc.enable if enabled else gc.disable)()


async def test_a_push_is_sent_before_the_collector_runs_again(collector_on, monkeypatch):
    server = StandIn()
    monkeypatch.setattr(
        publish, "publish", lambda ls, uri, version, result: server.seen.append(("published", gc.isenabled()))
    )
    await publish._push_loop(server, URI, 0)
    assert server.seen == [("lint", False), ("linted", False), ("published", False)]
    assert gc.isenabled()
    await server.doc.smell_task


async def test_a_push_whose_document_changed_meanwhile_lints_again_and_resumes_the_collector(collector_on, monkeypatch):
    server = StandIn()
    versions = itertools.chain([1], itertools.repeat(2))  # edited once, while the first lint ran
    monkeypatch.setattr(server, "text_of", lambda uri: ("", next(versions)))
    monkeypatch.setattr(publish, "publish", lambda *args: server.seen.append(("published", gc.isenabled())))
    await publish._push_loop(server, URI, 0)
    assert [step for step, _ in server.seen] == ["lint", "linted", "lint", "linted", "published"]
    assert not any(on for _, on in server.seen) and gc.isenabled()
    await server.doc.smell_task


async def test_a_pulled_report_is_built_before_the_collector_runs_again(collector_on, monkeypatch):
    server = StandIn()
    server.pull_diagnostics = True
    monkeypatch.setattr(
        diagnostics, "all_diagnostics", lambda ls, uri, result: server.seen.append(("built", gc.isenabled())) or []
    )
    params = types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=URI))
    report = await diagnostics.pull(server, params)
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport) and report.items == []
    assert server.seen == [("lint", False), ("linted", False), ("built", False)]
    assert gc.isenabled()
