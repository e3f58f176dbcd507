"""The language server reads the settings rubric-lint reads: a ``rubric-lint.toml`` and its ``kinds``
globs (a rubric with any name is checked in the editor too), re-read when the file changes."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server_helpers import PROFILE_IDS, PROFILES, session_fixture

# One push and one pull client: settings are read the same way whatever the delivery.
client = session_fixture(profiles=PROFILES[:2], ids=PROFILE_IDS[:2])
pytestmark = pytest.mark.asyncio(loop_scope="module")

ANONYMOUS = '[{"requirment": "Cites a source", "weight": 1}]\n'


async def wait_for(s, uri: str, predicate, tries: int = 100) -> list[types.Diagnostic]:
    diags: list[types.Diagnostic] = []
    for _ in range(tries):
        diags = await s.diagnostics(uri)
        if predicate(diags):
            return diags
        await asyncio.sleep(0.05)
    return diags


async def test_kinds_globs_make_any_file_a_rubric_in_the_editor(client: LanguageClient):
    s = client.rubric_session
    project = s.root / "kinds"
    project.mkdir()
    uri = s.open("kinds/evals/rubrics/whatever.json", ANONYMOUS, language="json")
    assert await s.diagnostics(uri) == []  # no name or content claims it
    config = project / "rubric-lint.toml"
    config.write_text('[kinds]\n"evals/rubrics/**/*.json" = "autorubric-rubric"\n')
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Created)]
        )
    )
    client.diagnostics.pop(uri, None)
    diags = await wait_for(s, uri, bool)
    assert sorted(str(d.code) for d in diags) == ["AR001", "AR103"]


async def test_a_dotted_settings_file_applies_in_the_editor(client: LanguageClient):
    s = client.rubric_session
    project = s.root / "dotted"
    project.mkdir()
    (project / ".rubric-lint.toml").write_text('ignore = ["AR104"]\n')
    uri = s.open("dotted/f.rubric.yaml", "rubric:\n  - requirement: ok\n    weight: [1]\n")
    assert await s.diagnostics(uri) == []
    (project / ".rubric-lint.toml").write_text("ignore = []\n")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=(project / ".rubric-lint.toml").as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    client.diagnostics.pop(uri, None)
    diags = await wait_for(s, uri, bool)
    assert [str(d.code) for d in diags] == ["AR104"]
