"""``rubric-lsp.report``: the editor gets the HTML report of a document's last grading.

Over stdio with pytest-lsp, graded against tests/judge_server.py through litellm's real HTTP path.
"""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import LanguageClient

from tests.judge_server import JudgeServer, Reply
from tests.server_helpers import judge_lifetime, session_fixture

JUDGE = JudgeServer().start()
KEY = "sk-test-server-report-0123456789abcdef"
client = session_fixture(
    init_options={"rubric": {"judge": {"model": "openai/judge", "apiBase": JUDGE.base_url, "timeoutSeconds": 20}}},
    env={"RUBRIC_CACHE_DIR": "__CACHE__", "OPENAI_API_KEY": KEY},
    profiles=[("visual-studio-code", "push", "utf-16")],
    ids=["visual-studio-code"],
)
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]

DATASET = {
    "prompt": "Explain photosynthesis",
    "rubric": [{"name": "chlorophyll", "requirement": "Mentions chlorophyll"}],
    "items": [
        {"submission": "Chlorophyll absorbs light.", "ground_truth": ["MET"]},
        {"submission": "Plants grow.", "ground_truth": ["UNMET"]},
    ],
}


_judge_lifetime = judge_lifetime(JUDGE)


async def execute(client: LanguageClient, command: str, argument: dict):
    params = types.ExecuteCommandParams(command=command, arguments=[argument])
    return await asyncio.wait_for(client.workspace_execute_command_async(params), 90)


async def test_the_report_of_the_last_grading(client: LanguageClient):
    s = client.rubric_session
    JUDGE.default = Reply.echo({"criterion_status": "MET", "explanation": "says so; key {token}"})
    uri = s.open("report/data.dataset.json", json.dumps(DATASET, indent=2), language="json")
    with pytest.raises(JsonRpcInvalidParams, match="has not been graded"):
        await execute(client, "rubric-lsp.report", {"uri": uri})
    graded = await execute(client, "rubric-lsp.grade", {"uri": uri, "kind": "dataset"})
    assert graded["agreement"][0]["confusion"]["matrix"] == [[1, 0], [1, 0]]
    html = (await execute(client, "rubric-lsp.report", {"uri": uri}))["html"]
    assert html.startswith("<!DOCTYPE html>") and 'id="confusion-0"' in html
    assert re.search(r'data-figure="accuracy:0"[^>]*>0\.500<', html)
    assert KEY not in html and "says so; key ***" in html


async def test_grade_examples_on_a_dataset_gives_the_dataset_report(client: LanguageClient):
    # What the extension's "Grade Examples" sends for the open file: rubric-lsp.gradeDocument.
    s = client.rubric_session
    JUDGE.default = Reply.json({"criterion_status": "UNMET", "explanation": "no chlorophyll"})
    fresh = {**DATASET, "prompt": "Explain photosynthesis briefly"}  # not in the verdict cache of the test above
    uri = s.open("report/examples.dataset.json", json.dumps(fresh, indent=2), language="json")
    await execute(client, "rubric-lsp.gradeDocument", {"uri": uri})
    html = (await execute(client, "rubric-lsp.report", {"uri": uri}))["html"]
    assert 'data-figure="kind">dataset<' in html
    assert re.search(r'data-figure="confusion:0:0:1"[^>]*>1<', html)  # human MET, judge UNMET
