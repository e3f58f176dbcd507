"""End-to-end: diagnostics over stdio for VS Code, Neovim 0.11 and Emacs client profiles."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server_helpers import column, session_fixture

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
    assert (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character) == (
        line,
        start,
        line,
        end,
    )
    assert d.source == "rubric-lint"
    # a warning on an autorubric file: PyYAML keeps the last value (an error where the owner refuses it)
    assert d.severity == types.DiagnosticSeverity.Warning
    assert d.code_description is not None and d.code_description.href.endswith("#rl002")
    # The first 'name' is pointed at as related information.
    assert d.related_information and d.related_information[0].location.range.start.character == column(
        NON_ASCII.split("\n")[1], NON_ASCII.split("\n")[1].find("name"), s.encoding
    )


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
    text = 'rubric:\n  - requirement: "é unterminated\n    weight: 2\n'
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
    first = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert first.kind == "full" and first.result_id
    again = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=first.result_id
        )
    )
    assert again.kind == "unchanged" and again.result_id == first.result_id
    s.replace(uri, "rubric:\n  - requirement: ok\n")
    third = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=first.result_id
        )
    )
    assert third.kind == "full" and list(third.items) == []


async def test_pyproject_settings_apply_and_reload(client: LanguageClient):
    s = client.rubric_session
    project = s.root / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.rubric-lint]\nignore = ["AR104"]\n')
    uri = s.open("project/f.rubric.yaml", "rubric:\n  - requirement: ok\n    weight: [1]\n")
    assert await s.diagnostics(uri) == []
    (project / "pyproject.toml").write_text("[tool.rubric-lint]\nignore = []\n")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=(project / "pyproject.toml").as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    client.diagnostics.pop(uri, None)
    for _ in range(100):
        diags = await s.diagnostics(uri)
        if diags:
            break
        await asyncio.sleep(0.05)
    assert [d.code for d in diags] == ["AR104"]
    # the server's log goes to the client's log (window/logMessage), never to stdout
    assert any("re-reading [tool.rubric-lint]" in m.message for m in client.log_messages)


async def test_editor_settings_select_and_ignore(client: LanguageClient):
    s = client.rubric_session
    text = "rubric:\n  - requirement: ok\n    weight: [1]\n    wieght: 2\n"
    uri = s.open("settings/a.rubric.yaml", text)
    assert sorted(d.code for d in await s.diagnostics(uri)) == ["AR001", "AR104"]
    client.set_configuration({"lint": {"ignore": ["AR104"]}}, section="rubric")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
    for _ in range(100):
        s.replace(uri, text)  # a fresh version, so the wait below sees the new settings' result
        codes = [d.code for d in await s.diagnostics(uri)]
        if codes == ["AR001"]:
            break
        await asyncio.sleep(0.05)
    assert codes == ["AR001"]
    client.set_configuration({"lint": {"ignore": [], "select": ["AR1"]}}, section="rubric")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
    for _ in range(100):
        s.replace(uri, text)
        codes = [d.code for d in await s.diagnostics(uri)]
        if codes == ["AR104"]:
            break
        await asyncio.sleep(0.05)
    assert codes == ["AR104"]
    client.set_configuration({}, section="rubric")  # settings removed: every rule again
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
    for _ in range(100):
        s.replace(uri, text)
        codes = sorted(d.code for d in await s.diagnostics(uri))
        if len(codes) == 2:
            break
        await asyncio.sleep(0.05)
    assert codes == ["AR001", "AR104"]


async def test_incremental_edit_after_non_ascii_lands_in_place(client: LanguageClient):
    s = client.rubric_session
    text = 'rubric:\n  - {name: "café 🎉", weight: 1, requirement: "x"}\n'
    uri = s.open("incremental/a.rubric.yaml", text)
    assert await s.diagnostics(uri) == []
    line = text.split("\n")[1]
    at = line.index("1,")
    start = types.Position(line=1, character=column(line, at, s.encoding))
    end = types.Position(line=1, character=column(line, at + 1, s.encoding))
    s.versions[uri] += 1
    new_text = text.replace("weight: 1,", "weight: [1],")
    s.texts[uri] = new_text
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=s.versions[uri]),
            content_changes=[
                types.TextDocumentContentChangePartial(range=types.Range(start=start, end=end), text="[1]")
            ],
        )
    )
    diags = await s.diagnostics(uri)
    assert [d.code for d in diags] == ["AR104"]
    new_line = new_text.split("\n")[1]
    assert diags[0].range.start.character == column(new_line, new_line.index("[1]"), s.encoding)
    assert diags[0].range.end.character == column(new_line, new_line.index("[1]") + 3, s.encoding)


async def test_referenced_files_relint_the_config_when_they_change(client: LanguageClient):
    s = client.rubric_session
    folder = s.root / "deps"
    folder.mkdir()
    uri = s.open("deps/promptfooconfig.yaml", "prompts: [hi]\nproviders: [echo]\ntests: file://cases.yaml\n")
    assert [d.code for d in await s.diagnostics(uri)] == ["RL010"]

    async def after(path, kind, expected):
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=path.as_uri(), type=kind)])
        )
        codes = None
        for _ in range(100):
            if s.mode == "push":  # the expected result differs from the current one: poll for it
                codes = [d.code for d in client.diagnostics.get(uri, [])]
            else:
                codes = [d.code for d in await s.diagnostics(uri)]
            if codes == expected:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"diagnostics {codes}, expected {expected}")

    cases = folder / "cases.yaml"
    cases.write_text("- vars: {a: 1}\n  assert:\n    - type: contians\n      value: x\n")
    await after(cases, types.FileChangeType.Created, ["PF100"])  # the missing file now exists: its typo shows
    cases.write_text("- vars: {a: 1}\n  assert:\n    - type: contains\n      value: x\n")
    await after(cases, types.FileChangeType.Changed, [])


async def test_typing_inside_values_gives_the_findings_a_fresh_open_gives(client: LanguageClient):
    """The server reads an edit inside one value from its last reading (rubric_lsp/document/incremental.py):
    what it publishes is what the same text opened afresh gives, ranges after a non-ASCII name included."""
    s = client.rubric_session
    text = (
        "rubric:\n  - name: café 🎉\n    weight: 1\n    requirement: Says hello\n"
        "  - name: b\n    weight: 2\n    requirement: 'Says bye'\n"
    )
    uri = s.open("typing/a.rubric.yaml", text)
    await s.diagnostics(uri)
    steps = [
        text.replace("Says hello", "yes"),  # a YAML 1.1 boolean where text is required
        text.replace("Says hello", "yes").replace("weight: 2", "weight: 2e3"),  # a second edit, further down
        text.replace("Says hello", "Says hello").replace("weight: 2", "weight: on"),
        text.replace("'Says bye'", "'Says goodbye'").replace("weight: 2", "weight: on"),
    ]
    for step, new in enumerate(steps):
        s.replace(uri, new)
        got = await s.diagnostics(uri)
        fresh = s.open(f"typing/fresh{step}.rubric.yaml", new)
        want = await s.diagnostics(fresh)
        assert len(got) > 1, step  # the edits make findings (and AR020 on the weights)
        assert _unsmelled(got) == _unsmelled(want), step


def _unsmelled(diagnostics: list[types.Diagnostic]) -> list[tuple]:
    """The findings but the smells (RL3xx), which a push publishes apart, after the others."""
    return [(d.code, d.range, d.message) for d in diagnostics if not str(d.code).startswith("RL3")]
