"""The editor's workspace folder is the boundary of file:// references (issue 24 item 1): a config in a
subfolder reading ../shared/x.md is fine even when a settings file sits beside the config, a file
outside the workspace is a warning, and a missing file is RL010 wherever it points."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server_helpers import PROFILE_IDS, PROFILES, session_fixture

client = session_fixture(profiles=PROFILES[:1], ids=PROFILE_IDS[:1])
pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_the_workspace_folder_bounds_references(client: LanguageClient):
    s = client.rubric_session
    (s.root / ".git").mkdir()  # the workspace folder is a repository root
    (s.root / "shared").mkdir()
    (s.root / "shared" / "rubric.md").write_text("Is polite")
    (s.root / "evals").mkdir()
    # Settings beside the config once made its folder the boundary.
    (s.root / "evals" / "rubric-lint.toml").write_text("ignore = []\n")
    text = (
        "prompts: [file://../shared/rubric.md]\n"
        "providers: [echo]\n"
        "tests:\n"
        "  - vars:\n"
        "      a: file://../shared/missing.md\n"
        "      b: file:///etc/passwd\n"
    )
    uri = s.open("evals/promptfooconfig.yaml", text)
    diags = await s.diagnostics(uri)
    found = sorted((str(d.code), d.range.start.line + 1, d.severity) for d in diags)
    assert found == [
        ("RL010", 5, types.DiagnosticSeverity.Error),
        ("RL011", 6, types.DiagnosticSeverity.Warning),
    ]
