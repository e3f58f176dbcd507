"""The smell rules in the editor (docs/smells.md, "When they run"): on by default, and never in the way of the
lint's own findings. A document's lint is published first; the smells follow in a publish of their own, from a
thread of their own, so an edit's diagnostics never wait for them. The pull client gets the lint's findings
at once and a refresh when the smells are in. The hover on a calibrated criterion names its smells beside its κ."""

from __future__ import annotations

import asyncio
import json

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from rubric_lsp.cli import main
from tests.calibration import dataset, reply_for
from tests.conftest import use_judge
from tests.server_helpers import GRADING_PROFILES, findings_until, session_fixture

client = session_fixture(profiles=GRADING_PROFILES, ids=["neovim-pull", "vscode-push"])
pytestmark = pytest.mark.asyncio(loop_scope="module")

RUBRIC = """\
rubric:
  - name: ack
    requirement: The response acknowledges the order number and offers a refund.
    weight: 5
    wieght: 2
"""


def _record_pushes(lsp_client: LanguageClient) -> list[types.PublishDiagnosticsParams]:
    """Every publish from now on, whole (the session keeps only the newest per document)."""
    features = lsp_client.protocol.fm.features
    before = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]
    pushes: list[types.PublishDiagnosticsParams] = []

    def record(params: types.PublishDiagnosticsParams):
        pushes.append(params)
        return before(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record
    return pushes


def _codes(diagnostics) -> set[str]:
    return {str(d.code) for d in diagnostics}


async def test_the_lint_is_published_before_the_smells_and_both_stay(client: LanguageClient):
    s = client.rubric_session
    if s.mode == "pull":
        pytest.skip("publishes are the push client's")
    pushes = _record_pushes(client)
    uri = s.open("first.rubric.yaml", RUBRIC)
    await findings_until(s, uri, "RL301", 1)
    mine = [p for p in pushes if p.uri == uri and p.version == 1]
    assert len(mine) >= 2, [_codes(p.diagnostics) for p in mine]
    first, last = _codes(mine[0].diagnostics), _codes(mine[-1].diagnostics)
    assert "AR001" in first and "RL301" not in first  # the lint's own findings (the misspelt key), first
    assert (first - {"AR019"}) | {"RL301"} == last  # AR019 defers to RL301 once the smells are in

    # An edit: its lint is published without waiting for its smells, which follow.
    pushes.clear()
    s.replace(uri, RUBRIC.replace("offers a refund", "offers a voucher"))
    await findings_until(s, uri, "RL301", lambda found: any("voucher" in d.message for d in found))
    mine = [p for p in pushes if p.uri == uri and p.version == 2]
    assert "RL301" not in _codes(mine[0].diagnostics) and "RL301" in _codes(mine[-1].diagnostics)


async def test_the_pull_client_gets_the_smells_after_a_refresh(client: LanguageClient):
    s = client.rubric_session
    if s.mode != "pull":
        pytest.skip("the pull client's refresh")
    uri = s.open("pulled.rubric.yaml", RUBRIC)
    found = await findings_until(s, uri, "RL301", 1)
    assert "acknowledges the order number" in found[0].message
    everything = _codes(await s.diagnostics(uri))
    assert {"RL301", "AR001"} <= everything  # the lint's findings too


async def test_the_split_is_offered_on_a_double_barreled_criterion(client: LanguageClient):
    s = client.rubric_session
    uri = s.open("split.rubric.yaml", RUBRIC.replace("    wieght: 2\n", ""))  # an unknown key: no clean split
    found = await findings_until(s, uri, "RL301", 1)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=found[0].range,
            context=types.CodeActionContext(diagnostics=found, only=[types.CodeActionKind.QuickFix]),
        )
    )
    assert any(a.title.startswith("split into two criteria") for a in actions or [] if isinstance(a, types.CodeAction))


async def test_the_hover_names_a_calibrated_criterions_smells_beside_its_kappa(
    client: LanguageClient, judge_server, monkeypatch, capfd
):
    s = client.rubric_session
    use_judge(monkeypatch, judge_server, "sk-hover", s.root / f"cache-{s.mode}")
    judge_server.handler = lambda request: reply_for(request.text)
    data = dataset(12, f"hover {s.mode}")
    data["rubric"][1]["requirement"] = "Shows the working and is polite"  # double-barreled, vague
    text = json.dumps(data, indent=2)
    path = s.root / f"hover-{s.mode}.dataset.json"
    path.write_text(text, encoding="utf-8")
    calibrated = await asyncio.to_thread(main, ["calibrate", str(path)])  # the record, beside the dataset
    assert calibrated == 0, capfd.readouterr().err
    uri = s.open(path.name, text, language="json")
    await findings_until(s, uri, "RL301", 1)
    line = next(n for n, row in enumerate(text.split("\n")) if "Shows the working" in row)
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line, 8))
    )
    shown = hover.contents.value
    assert "**Calibration** of criterion `shows_work`" in shown
    assert "**Smells** of criterion `shows_work`: RL301 double-barreled, RL302 vague-wording" in shown
    first = next(n for n, row in enumerate(text.split("\n")) if "Gives the right answer" in row)
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(first, 8))
    )
    assert "**Calibration** of criterion `correct`" in hover.contents.value
    assert "**Smells**" not in hover.contents.value  # a criterion without smells: none named
