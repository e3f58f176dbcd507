"""The editor's lenses and code actions over stdio (pytest-lsp): a promptfoo test run once per value of a list var
gets one "▶ Grade" lens per test promptfoo numbers, each on the entry it comes from, and each grades its own test
(with that test's vars), not every test written there. The judge is tests/judge_server.py."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.judge_server import JudgeServer, Reply
from tests.server_helpers import grading_session_fixture, judge_lifetime

JUDGE = JudgeServer().start()
PROFILES = [("neovim@v0.11", "pull", "utf-8")]
client = grading_session_fixture(JUDGE, PROFILES)
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]
_judge_lifetime = judge_lifetime(JUDGE)

CONFIG = (
    "prompts: ['Answer: {{q}}']\n"
    "providers: [echo]\n"
    "tests:\n"
    "  - description: capitals\n"
    "    vars: {q: [Paris, Rome]}\n"
    "    assert:\n"
    "      - type: llm-rubric\n"
    "        value: 'names {{q}} as a capital'\n"
    "        provider: openai:judge\n"
    "  - description: plain\n"
    "    vars: {q: Oslo}\n"
    "    assert:\n"
    "      - type: llm-rubric\n"
    "        value: 'names {{q}}'\n"
    "        provider: openai:judge\n"
)


async def execute(client: LanguageClient, command: str, argument: dict) -> object:
    params = types.ExecuteCommandParams(command=command, arguments=[argument])
    return await asyncio.wait_for(client.workspace_execute_command_async(params), 60)


async def test_each_numbered_test_has_its_lens_and_grades_its_own_vars(client: LanguageClient):
    JUDGE.reset()
    JUDGE.default = Reply.json({"reason": "Fine.", "pass": True, "score": 1})
    config = client.rubric_session.open("numbered/promptfooconfig.yaml", CONFIG)
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=config))
    )
    grade = [lens for lens in found or [] if lens.command and lens.command.title.startswith("▶ Grade")]
    assert [(lens.range.start.line, lens.command.arguments[0].get("test")) for lens in grade] == [
        (3, 1),
        (3, 2),
        (9, 3),
    ]
    assert "test 2 (q=Rome)" in grade[1].command.title
    await execute(client, "rubric-lsp.gradeText", {"uri": config, "text": "Answer: Rome", "test": 1})
    JUDGE.reset()
    await execute(client, grade[1].command.command, grade[1].command.arguments[0])
    asked = [r.text for r in JUDGE.completions]
    assert len(asked) == 1 and "names Rome as a capital" in asked[0]  # test 2 alone, with its own value
