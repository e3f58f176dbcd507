"""The grading runner: one GradeRequest for every face, formats plug in through ``Format.grader``.

- the runner, the engine, the grading CLI and the server's grading commands name no format;
- a toy format registered here, with a grader defined here, is graded through the real
  runner and litellm's HTTP path (tests/judge_server.py) from the CLI entry point and from
  the language server's ``rubric-lsp.grade`` command, with no edit outside this file;
- every grading has a total deadline: a judge that never answers ends in an error naming
  the deadline and how to change it, not a five-minute wait.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from rubric_lsp.document import Document
from rubric_lsp.engine import runner
from rubric_lsp.engine.failures import JudgeFailure
from rubric_lsp.engine.report import ERROR_VERDICT, GradeReport, Verdict
from rubric_lsp.engine.request import GradeRequest, GradeResult, RequestKind
from rubric_lsp.engine.runner import DeadlineExceeded, Grading, UnsupportedRequest, fan_out
from rubric_lsp.engine.settings import JudgeSettings
from tests.conftest import use_judge
from tests.judge_server import JudgeServer, Reply

REPO = Path(__file__).resolve().parent.parent

# -- a toy format, registered from this module ------------------------------------------------
TOY = "toy-checklist"
TOY_TEXT = "checks:\n  - name: polite\n    ask: Is the reply polite?\n  - name: short\n    ask: Is it one sentence?\n"


def register_toy() -> object:
    """Register the toy format (the server subprocess calls this before it starts)."""
    from rubric_lsp.formats.registry import Format, register

    return register(
        Format(
            name=TOY,
            title="toy checklist",
            languages=("yaml",),
            file_patterns=("*.toy.yaml",),
            grader=__name__,  # this module's ``grade`` below
        )
    )


def _parse(content: str) -> tuple[str, str]:
    try:
        data = json.loads(content)
        return ("PASS" if data["pass"] else "FAIL"), str(data["reason"])
    except (ValueError, KeyError, TypeError) as exc:
        raise JudgeFailure("parse", f"not a toy verdict: {exc}") from None


async def grade(doc: Document, request: GradeRequest, grading: Grading) -> GradeResult:
    """The toy format's grader: one judge call per check; PASS when every check passes."""
    if request.kind is not RequestKind.RESPONSE:
        raise UnsupportedRequest(request.kind, "a toy checklist grades one response")
    checks = doc.root.get("checks").value
    run = grading.start()
    judge = run.judge()
    grading.expect(len(checks))

    async def one(index: int, node) -> Verdict:
        name = node.get("name").value
        where = doc.range(node).to_json()
        messages = [{"role": "user", "content": f"{node.get('ask').value}\n\n{request.response}"}]
        try:
            (verdict, reason), cached = await judge.ask(messages, None, _parse)
        except JudgeFailure as failure:
            return Verdict(name, index, ERROR_VERDICT, failure.message, where, error=failure.error, counted_as="FAIL")
        finally:
            grading.tick()
        return Verdict(name, index, verdict, reason, where, passed=verdict == "PASS", cached=cached)

    verdicts = await fan_out(one(i, node) for i, node in enumerate(checks))
    passed = [v.passed is True for v in verdicts]
    report = GradeReport(format=TOY, verdicts=verdicts, model=judge.model, usage=run.usage())
    report.score = report.raw_score = sum(passed) / len(passed)
    report.passed = all(passed)
    return report


@pytest.fixture
def judge_server():
    with JudgeServer() as server:
        yield server


@pytest.fixture
def toy_format():
    from rubric_lsp.formats import registry

    fmt = register_toy()
    yield fmt
    registry._FORMATS.pop(TOY, None)


def _judge_replies(server: JudgeServer) -> None:
    server.when("polite", Reply.json({"pass": True, "reason": "It says please."}))
    server.when("one sentence", Reply.json({"pass": False, "reason": "Two sentences."}))


# -- no face names a format --------------------------------------------------------------------
FACES = [
    "rubric_lsp/engine/runner.py",
    "rubric_lsp/engine/request.py",
    "rubric_lsp/engine/report.py",
    "rubric_lsp/engine/calls.py",
    "rubric_lsp/engine/settings.py",
    "rubric_lsp/commands/grade.py",
    "rubric_lsp/server/grading.py",
]
FORMAT_NAMES = re.compile(r"autorubric|promptfoo|northstar|rubrics[ _-]task|select[ _-]best|max[ _-]score", re.I)


@pytest.mark.parametrize("path", FACES)
def test_no_grading_face_names_a_format(path):
    text = (REPO / path).read_text(encoding="utf-8")
    found = [(n + 1, line.strip()) for n, line in enumerate(text.splitlines()) if FORMAT_NAMES.search(line)]
    assert not found, f"{path} names a format: {found}"


def test_every_gradable_format_names_an_importable_grader():
    import inspect

    from rubric_lsp.formats.registry import formats

    graders = {f.name: runner.load_grader(f.grader) for f in formats() if f.grader}
    assert len(graders) >= 5
    for grader in graders.values():
        assert isinstance(grader, runner.Grader) and inspect.iscoroutinefunction(grader)
        assert list(inspect.signature(grader).parameters) == ["doc", "request", "grading"]
    with pytest.raises(runner.GradingError, match="cannot be called"):
        runner.load_grader("json:__name__")


# -- the toy format through the CLI ----------------------------------------------------------
@pytest.fixture
def cli_env(judge_server, tmp_path, monkeypatch, toy_format):
    use_judge(monkeypatch, judge_server, "sk-toy-key-0123456789", tmp_path / "cache")
    (tmp_path / "reply.toy.yaml").write_text(TOY_TEXT)
    (tmp_path / "response.txt").write_text("Please find it attached. Thanks.")
    return tmp_path


def _cli(capfd, *argv: str) -> tuple[int, str, str]:
    from rubric_lsp.cli import main

    code = main(["grade", *argv])
    out, err = capfd.readouterr()
    return code, out, err


def test_toy_format_is_graded_from_the_cli(cli_env, judge_server, capfd):
    _judge_replies(judge_server)
    rubric, response = str(cli_env / "reply.toy.yaml"), str(cli_env / "response.txt")
    code, out, err = _cli(capfd, rubric, "--response", response, "--format", "json")
    assert code == 1, err  # one check fails, so the grading fails
    data = json.loads(out)
    assert data["format"] == TOY and data["passed"] is False and data["score"] == 0.5
    assert [(v["name"], v["verdict"]) for v in data["verdicts"]] == [("polite", "PASS"), ("short", "FAIL")]
    assert data["verdicts"][1]["range"]["start"]["line"] == 3
    assert data["usage"]["calls"] == 2 and judge_server.call_count == 2
    # Text output and the verdict cache go through the same runner.
    code, out, _ = _cli(capfd, rubric, "--response", response)
    assert code == 1 and re.search(r"PASS +polite \(line 2\)", out) and re.search(r"FAIL +short", out)
    assert "0 calls, 2 cached" in out
    assert judge_server.call_count == 2
    # A request kind the toy grader does not answer is refused with its words, before any call.
    code, _, err = _cli(capfd, rubric, "--response", response, "--response", response)
    assert code == 2 and "a toy checklist grades one response" in err


def test_a_judge_that_never_answers_meets_the_deadline(cli_env, judge_server, capfd):
    judge_server.default = Reply.hang()
    started = time.monotonic()
    code, _, err = _cli(
        capfd, str(cli_env / "reply.toy.yaml"), "--response", str(cli_env / "response.txt"), "--deadline", "1.5"
    )
    assert time.monotonic() - started < 20
    assert code == 2
    assert "deadline of 1.5 s" in err and "--deadline SECONDS" in err and "0 of 2" in err


async def test_the_runner_deadline_is_an_error_not_a_verdict(judge_server, tmp_path, toy_format):
    judge_server.default = Reply.hang()
    settings = JudgeSettings(
        model="openai/judge",
        api_base=judge_server.base_url,
        cache_enabled=False,
        deadline_seconds=0.5,
        env={"OPENAI_API_KEY": "x"},
    )
    request = GradeRequest.for_response(TOY_TEXT, str(tmp_path / "a.toy.yaml"), "Hi.")
    with pytest.raises(DeadlineExceeded, match=r"deadline of 0\.5 s"):
        await runner.grade(request, settings)


async def test_progress_counts_every_work_item(judge_server, tmp_path, toy_format):
    _judge_replies(judge_server)
    seen: list[tuple[int, int]] = []
    settings = JudgeSettings(
        model="openai/judge", api_base=judge_server.base_url, cache_enabled=False, env={"OPENAI_API_KEY": "x"}
    )
    request = GradeRequest.for_response(TOY_TEXT, str(tmp_path / "a.toy.yaml"), "Hi.")
    report = await runner.grade(request, settings, on_progress=lambda done, total: seen.append((done, total)))
    assert sorted(seen) == [(0, 2), (1, 2), (2, 2)] and report.passed is False  # 0/N as soon as N is known


async def test_fan_out_cancels_the_rest_on_an_error():
    cancelled = []

    async def slow():
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    async def boom():
        await asyncio.sleep(0)
        raise RuntimeError("bug")

    with pytest.raises(RuntimeError, match="bug"):
        await fan_out([slow(), boom(), slow()])
    await asyncio.sleep(0)
    assert cancelled == [True, True]


# -- the toy format through the language server ---------------------------------------------
SERVER_CODE = (
    "import sys; sys.path.insert(0, {repo!r}); import tests.test_grading_runner as toy; toy.register_toy(); "
    "from rubric_lsp.server.main import main; sys.exit(main([]))"
)


@pytest.fixture(scope="module")
def lsp_judge():
    with JudgeServer() as server:
        yield server


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-c", SERVER_CODE.format(repo=str(REPO))],
        server_env={"LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENAI_API_KEY": "x", "PYTHONUNBUFFERED": "1"},
    ),
    scope="module",
)
async def toy_client(lsp_client: LanguageClient, lsp_judge, tmp_path_factory):
    root = tmp_path_factory.mktemp("toy-ws")
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=root.as_uri(),
            initialization_options={
                "rubric": {
                    "judge": {"model": "openai/judge", "apiBase": lsp_judge.base_url},
                    "cache": {"enabled": False},
                }
            },
        )
    )
    lsp_client.toy_root = root
    yield
    await lsp_client.shutdown_session()


@pytest.mark.slow
@pytest.mark.asyncio(loop_scope="module")
async def test_toy_format_is_graded_from_the_server(toy_client: LanguageClient, lsp_judge):
    lsp_client = toy_client
    lsp_judge.reset()
    _judge_replies(lsp_judge)
    path = lsp_client.toy_root / "reply.toy.yaml"
    path.write_text(TOY_TEXT)
    uri = path.as_uri()

    async def command(name: str, argument: dict):
        params = types.ExecuteCommandParams(command=name, arguments=[argument])
        return await asyncio.wait_for(lsp_client.workspace_execute_command_async(params), 60)

    data = await command("rubric-lsp.grade", {"uri": uri, "kind": "response", "text": "Please. Thanks."})
    assert data["format"] == TOY and data["passed"] is False
    assert [(v["name"], v["verdict"]) for v in data["verdicts"]] == [("polite", "PASS"), ("short", "FAIL")]
    # gradeText is the same request through the same runner.
    again = await command("rubric-lsp.gradeText", {"uri": uri, "text": "Please. Thanks."})
    assert [v["verdict"] for v in again["verdicts"]] == ["PASS", "FAIL"]
    # A kind the toy grader does not answer is an error with its words, not a crash.
    refused = await command("rubric-lsp.grade", {"uri": uri, "kind": "dataset"})
    assert "a toy checklist grades one response" in refused["error"]


MAX_SCORE_CONFIG = """\
prompts: [a]
providers: [echo]
tests:
  - assert:
      - type: llm-rubric
        value: Is accurate
      - type: max-score
"""

DATASET = {
    "rubric": [{"name": "correct", "requirement": "Gives the right answer"}],
    "items": [
        {"submission": "42", "ground_truth": ["MET"]},
        {"submission": "41", "ground_truth": ["UNMET"]},
    ],
}


@pytest.mark.slow
@pytest.mark.asyncio(loop_scope="module")
async def test_the_server_grades_what_the_cli_grades(toy_client: LanguageClient, lsp_judge):
    """Several outputs compared and a dataset's agreement: once CLI-only, now requests the server takes."""
    lsp_judge.reset()

    def by_output(request):
        if "<Output>" in request.text:
            output = request.text.split("<Output>\n")[1].split("\n</Output>")[0]
            return Reply.json({"pass": True, "score": {"one": 0.4, "two": 0.8}[output], "reason": "ok"})
        return Reply.json({"criterion_status": "MET", "explanation": "Looks right."})

    lsp_judge.default = by_output
    root = toy_client.toy_root
    (root / "promptfooconfig.yaml").write_text(MAX_SCORE_CONFIG)
    (root / "calibration.dataset.json").write_text(json.dumps(DATASET))

    async def command(argument: dict):
        params = types.ExecuteCommandParams(command="rubric-lsp.grade", arguments=[argument])
        return await asyncio.wait_for(toy_client.workspace_execute_command_async(params), 60)

    outputs = await command(
        {"uri": (root / "promptfooconfig.yaml").as_uri(), "kind": "outputs", "texts": ["one", "two"]}
    )
    selection = outputs["max_score"][0]
    assert selection["winner"] == 1 and selection["passed"] == [False, True]
    dataset = await command({"uri": (root / "calibration.dataset.json").as_uri(), "kind": "dataset"})
    (correct,) = dataset["agreement"]
    assert correct["compared"] == 2 and correct["accuracy"] == 0.5
    with pytest.raises(Exception, match='"kind" must be one of'):
        await command({"uri": (root / "calibration.dataset.json").as_uri(), "kind": "nonsense"})
