"""End-to-end: diagnostics over stdio for VS Code, Neovim 0.11 and Emacs client profiles."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.test_server_helpers import column, session_fixture

client = session_fixture()
pytestmark = pytest.mark.asyncio(loop_scope="module")

# A duplicate key after é and an emoji on the same line: the column differs per encoding.
NON_ASCII = 'rubric:\n  - {name: "café 🎉", name: second, requirement: "Says hello"}\n'


def expected_range(text: str, needle: str, occurrence: int, encoding: str) -> tuple[int, int, int]:
    lines = text.split("\n")
    for number, line in enumerate(lines):
        index = -1
        for _ in range(occurrence):
            index = line.find(needle, index + 1)
        if index != -1:
            return number, column(line, index, encoding), column(line, index + len(needle), encoding)
    raise AssertionError(needle)


async def test_duplicate_key_range_after_non_ascii(client: LanguageClient):
    s = client.rubric_session
    uri = s.open("a.rubric.yaml", NON_ASCII)
    diags = [d for d in await s.diagnostics(uri) if d.code == "RL002"]
    assert len(diags) == 1
    line, start, end = expected_range(NON_ASCII, "name", 2, s.encoding)
    d = diags[0]
    assert (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character) == (line, start, line, end)
    assert d.source == "rubric-lint"
    assert d.severity == types.DiagnosticSeverity.Error
    assert d.code_description is not None and d.code_description.href.endswith("#rl002")
    # The first 'name' is pointed at as related information.
    assert d.related_information and d.related_information[0].location.range.start.character == column(
        NON_ASCII.split("\n")[1], NON_ASCII.split("\n")[1].find("name"), s.encoding)


async def test_unrelated_yaml_gets_nothing_and_a_fixed_file_clears(client: LanguageClient):
    s = client.rubric_session
    uri = s.open("ci.yaml", "on: [push]\njobs:\n  build: {runs-on: ubuntu}\n")
    assert await s.diagnostics(uri) == []
    bad = s.open("b.rubric.yaml", "rubric:\n  - requirement: ok\n    weight: [1]\n")
    diags = await s.diagnostics(bad)
    assert [d.code for d in diags] == ["AR104"] and diags[0].range.start.line == 2
    s.replace(bad, "rubric:\n  - requirement: ok\n    weight: 1\n")
    assert await s.diagnostics(bad) == []


async def test_syntax_error_range_stays_on_its_line(client: LanguageClient):
    s = client.rubric_session
    text = "rubric:\n  - requirement: \"é unterminated\n    weight: 2\n"
    uri = s.open("c.rubric.yaml", text)
    diags = await s.diagnostics(uri)
    assert any(d.code == "RL001" for d in diags)
    for d in diags:
        assert d.range.start.line == d.range.end.line


async def test_rapid_edits_are_debounced_and_stale_results_dropped(client: LanguageClient):
    s = client.rubric_session
    if s.mode != "push":
        pytest.skip("push only")
    uri = s.open("d.rubric.yaml", "rubric:\n  - requirement: ok\n")
    await s.diagnostics(uri)
    s.published[uri] = []
    for i in range(20):  # alternately broken and fine; the last edit (i = 19) is broken
        s.replace(uri, "rubric:\n  - requirement: ok\n" + "    weight: [1]\n" * (i % 2))
    final = await s.diagnostics(uri)
    await asyncio.sleep(0.3)
    published = s.published[uri]
    assert [d.code for d in final] == ["AR104"]
    assert published[-1] == (s.versions[uri], 1)
    assert len(published) < 20  # debounced: not one lint per keystroke
    versions = [v for v, _ in published]
    assert versions == sorted(versions)  # never an older version after a newer one


async def test_pull_result_ids(client: LanguageClient):
    s = client.rubric_session
    if s.mode != "pull":
        pytest.skip("pull only")
    uri = s.open("e.rubric.yaml", "rubric:\n  - requirement: ok\n    weight: [1]\n")
    first = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert first.kind == "full" and first.result_id
    again = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=first.result_id))
    assert again.kind == "unchanged" and again.result_id == first.result_id
    s.replace(uri, "rubric:\n  - requirement: ok\n")
    third = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=first.result_id))
    assert third.kind == "full" and list(third.items) == []


async def test_pyproject_settings_apply_and_reload(client: LanguageClient):
    s = client.rubric_session
    project = s.root / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.rubric-lint]\nignore = ["AR104"]\n')
    uri = s.open("project/f.rubric.yaml", "rubric:\n  - requirement: ok\n    weight: [1]\n")
    assert await s.diagnostics(uri) == []
    (project / "pyproject.toml").write_text('[tool.rubric-lint]\nignore = []\n')
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=(project / "pyproject.toml").as_uri(), type=types.FileChangeType.Changed)]))
    client.diagnostics.pop(uri, None)
    for _ in range(100):
        diags = await s.diagnostics(uri)
        if diags:
            break
        await asyncio.sleep(0.05)
    assert [d.code for d in diags] == ["AR104"]
