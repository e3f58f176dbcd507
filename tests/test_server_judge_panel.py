"""A judge panel in the editor (``rubric.judge.models``, beside ``rubric.judge.model``): what ``rubric grade``
and ``rubric calibrate`` do with several ``--model``s, the editor does with the same judges. Calibrate writes
the very record ``rubric calibrate --model A --model B`` writes (each judge's own figures and their agreement
included); grading a file whose format takes a panel asks every judge; a file whose format grades with one
judge is graded with the first, and a message says once which went unused."""

from __future__ import annotations

import asyncio
import json

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from rubric_lsp.cli import main
from rubric_lsp.server.settings import ServerSettings
from tests.calibration import dataset, status_for
from tests.conftest import use_judge
from tests.judge_server import JudgeServer, Reply
from tests.server_helpers import judge_lifetime, session_fixture

JUDGE = JudgeServer().start()
A, B = "openai/judge-a", "openai/judge-b"
DISAGREE = ("answer 0:", "answer 3:")  # items whose "shows the working" verdict judge B gives the other way
client = session_fixture(
    init_options={
        "rubric": {
            "judge": {"model": A, "models": [B], "apiBase": JUDGE.base_url, "concurrency": 8, "timeoutSeconds": 20}
        }
    },
    env={"RUBRIC_CACHE_DIR": "__CACHE__"},
    profiles=[("neovim@v0.11", "pull", "utf-8")],
    ids=["neovim-pull"],
)

PROMPTFOO = """\
prompts: ["Answer: {{question}}"]
providers: [echo]
tests:
  - vars: {question: Capital of France?}
    assert:
      - type: llm-rubric
        value: Names Paris
"""


_judge_lifetime = judge_lifetime(JUDGE)


def two_judges(request) -> Reply:
    """The scripted judge of tests/calibration.py; judge B answers the other way on DISAGREE's working."""
    status = status_for(request.text)
    if request.model == "judge-b" and "Shows the working" in request.text and any(d in request.text for d in DISAGREE):
        status = "UNMET" if status == "MET" else "MET"
    return Reply.json({"criterion_status": status, "explanation": f"{request.model} says {status.lower()}"})


async def execute(client: LanguageClient, command: str, argument: dict) -> dict:
    params = types.ExecuteCommandParams(command=command, arguments=[argument])
    return await asyncio.wait_for(client.workspace_execute_command_async(params), 120)


@pytest.mark.slow
@pytest.mark.asyncio(loop_scope="module")
async def test_calibrate_with_a_panel_writes_what_rubric_calibrate_writes(client: LanguageClient, monkeypatch):
    s = client.rubric_session
    JUDGE.reset()
    JUDGE.handler = two_judges
    text = json.dumps(dataset(8, "maths panel"), indent=2)
    (s.root / "maths.dataset.json").write_text(text)
    uri = s.open("maths.dataset.json", text, language="json")

    answer = await execute(client, "rubric-lsp.calibrate", {"uri": uri})
    record_path = s.root / "maths.dataset.json.calibration.json"
    assert answer["record"] == str(record_path) and answer["failed"] == 0
    asked = {request.model for request in JUDGE.completions}
    assert asked == {"judge-a", "judge-b"}
    assert len(JUDGE.completions) == 8 * 2 * 2  # each item and criterion, once per judge: alone is replayed
    written = record_path.read_bytes()
    data = json.loads(written)
    assert data["judge"]["models"] == [A, B]
    work = next(unit for unit in data["units"] if unit["id"] == "shows_work")
    assert [own["model"] for own in work["per_judge"]] == [A, B]
    assert work["judge_agreement"]["pairs"][0]["agreement"]["successes"] == 6  # 8 items, judge B differs on 2

    # The same judges through `rubric calibrate`: the same record, byte for byte.
    record_path.unlink()
    use_judge(monkeypatch, JUDGE, "sk-test-panel", s.root / "cli-cache")
    argv = ["calibrate", str(s.root / "maths.dataset.json"), "--model", A, "--model", B]
    assert await asyncio.to_thread(main, argv) == 0
    assert record_path.read_bytes() == written


@pytest.mark.slow
@pytest.mark.asyncio(loop_scope="module")
async def test_a_one_judge_format_is_graded_with_the_first_judge_and_says_so_once(client: LanguageClient):
    """A user setting never breaks a format: a promptfoo test, given the panel, is graded with judge A alone,
    and one message (the words `rubric grade` prints) says B went unused — once, however often it is graded."""
    s = client.rubric_session
    JUDGE.reset()
    JUDGE.default = Reply.json({"reason": "Names Paris.", "pass": True, "score": 1})
    uri = s.open("pf/promptfooconfig.yaml", PROMPTFOO)
    before = len(client.messages)
    answer = await execute(client, "rubric-lsp.gradeText", {"uri": uri, "text": "Paris.", "test": 1})
    assert answer["passed"] is True and answer["model"] == A, answer
    assert [r.model for r in JUDGE.completions] == ["judge-a"]
    note = (
        f"A promptfoo config is graded with one judge model, not a panel: graded with {A}, and {B} went unused; "
        "to compare judges on it, give them to `rubric calibrate` with a labelled set (docs/calibration.md)."
    )
    await execute(client, "rubric-lsp.gradeText", {"uri": uri, "text": "Lyon.", "test": 1})
    said = [(m.type, m.message) for m in client.messages[before:]]
    assert said == [(types.MessageType.Warning, note)], said


def test_judge_models_take_a_list_or_one_name():
    assert ServerSettings().merged({"judge": {"models": [B, " ", B, A]}}).judge_models == (B, A)
    assert ServerSettings().merged({"judge.models": B}).judge_models == (B,)
    assert ServerSettings().merged({"judge.models": None}).judge_models == ()


@pytest.mark.parametrize("given", [3, [A, 3], {"model": A}])
def test_other_judge_models_are_ignored_with_a_reason(given):
    settings = ServerSettings().merged({"judge": {"models": given}})
    assert settings.judge_models == ()
    assert settings.problems == (
        f"setting rubric.judge.models = {given!r} is ignored: it must be a list of model names: "
        "further judges, a panel with judge.model",
    )


@pytest.mark.parametrize(
    ("model", "models", "judges"),
    [(A, (B,), [A, B]), (None, (B, A), [B, A]), (A, (A, B), [A, B]), (None, (), [])],
)
def test_the_panel_is_judge_model_then_judge_models_each_once(model, models, judges):
    """The first is the judge (the engine's default when none is set), the rest the panel's other judges."""
    from types import SimpleNamespace

    from rubric_lsp.server.grading_run import judge_settings

    settings = judge_settings(SimpleNamespace(settings=ServerSettings(judge_model=model, judge_models=models)))
    assert settings.judge_models() == judges and settings.model == (judges[0] if judges else None)
