"""The editor's calibration stays inside the workspace (issue 33, item 7): a committed record whose ``source``
names a labelled set outside the workspace gives the rubric no Calibrate lens (it would grade a file elsewhere
and send it to the judge), and ``rubric-lsp.calibrate``'s ``record`` argument outside the workspace is refused
before any judge call, nothing written; a relative ``record`` is the labelled set's folder's, not the server's
working directory's."""

from __future__ import annotations

import asyncio
import json

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.calibration import dataset, reply_for
from tests.judge_server import JudgeServer
from tests.server_helpers import findings_until, grading_session_fixture, judge_lifetime

JUDGE = JudgeServer().start()
client = grading_session_fixture(JUDGE)
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]
_judge_lifetime = judge_lifetime(JUDGE)

RUBRIC = "rubric:\n  - name: correct\n    requirement: Gives the right answer\n  - name: shows_work\n    requirement: Shows the working\n"


async def lenses(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return [lens for lens in found or [] if lens.command and lens.command.title.startswith("▶ Calibrate")]


async def calibrate(client: LanguageClient, **argument: str) -> dict:
    return await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="rubric-lsp.calibrate", arguments=[argument])
        ),
        90,
    )


async def test_a_record_naming_a_set_outside_the_workspace_gives_no_lens(client: LanguageClient):
    s = client.rubric_session
    JUDGE.handler = lambda request: reply_for(request.text)
    team = s.root / "team"
    (team / "sets").mkdir(parents=True)
    (team / "rubric-lint.toml").write_text('calibration = { required = true, path = "sets" }\n')
    labelled = team / "sets" / "maths.dataset.json"
    labelled.write_text(json.dumps(dataset(8, f"confined {s.spec}"), indent=2))
    record_path = team / "sets" / "maths.dataset.json.calibration.json"
    assert (await calibrate(client, uri=labelled.as_uri()))["record"] == str(record_path)
    uri = s.open("team/maths.rubric.yaml", RUBRIC)
    assert await findings_until(s, uri, "RL020", 0) == []
    assert len(await lenses(client, uri)) == 1  # the record's own set, inside: the lens

    # The same set outside the workspace, named by the committed record (relative and absolute): no lens.
    outside = s.root.parent / f"{s.root.name}-outside"
    outside.mkdir()
    (outside / "maths.dataset.json").write_bytes(labelled.read_bytes())
    data = json.loads(record_path.read_text())
    for source in (f"../../../{outside.name}/maths.dataset.json", str(outside / "maths.dataset.json")):
        record_path.write_text(json.dumps({**data, "source": source}))
        s.replace(uri, RUBRIC + f"# {len(source)}\n")  # lint again: the record is read anew
        await findings_until(s, uri, "RL020", 0)
        assert await lenses(client, uri) == [], source

    # The command's record argument: outside the workspace refused before any call, nothing written.
    calls = JUDGE.call_count
    for record in (str(outside / "x.calibration.json"), "../../../../x.calibration.json"):
        with pytest.raises(Exception, match=r"\"record\" must lie inside the workspace"):
            await calibrate(client, uri=labelled.as_uri(), record=record)
    assert JUDGE.call_count == calls and not (outside / "x.calibration.json").exists()
    # A relative one is the labelled set's folder's (not the server's working directory's).
    (team / "sets" / "kept").mkdir()
    answer = await calibrate(client, uri=labelled.as_uri(), record="kept/maths.calibration.json")
    assert answer["record"] == str(team / "sets" / "kept" / "maths.calibration.json")
    assert (team / "sets" / "kept" / "maths.calibration.json").is_file()
