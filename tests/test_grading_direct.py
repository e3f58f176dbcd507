"""The direct route (rubric_lsp/engine/transports/direct.py): where it is taken, and that it sends the same request
and ends in the same failures, usage and cost as litellm's hosted_vllm route for the same answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rubric_lsp.engine import JudgeSettings
from rubric_lsp.engine import judge as judge_module
from rubric_lsp.engine.failures import JudgeFailure
from rubric_lsp.engine.runner import Run
from rubric_lsp.engine.transports.direct import direct_model
from tests.judge_server import Reply

REPO = Path(__file__).resolve().parent.parent
SECRET = "sk-test-SECRET-0123456789abcdef"
FORMAT = {"type": "json_schema", "json_schema": {"name": "j", "schema": {"type": "object"}}}
CLASSIFY = judge_module.classify
MESSAGES = [{"role": "system", "content": "Judge it."}, {"role": "user", "content": 'Réponse: ✓ "quoted"\n'}]


@pytest.mark.parametrize(
    "model, api_base, sent",
    [
        ("openai/judge", "http://127.0.0.1:8000/v1", "judge"),
        ("openai/Qwen/Qwen2.5-7B-Instruct", "http://gpu:8000/v1", "Qwen/Qwen2.5-7B-Instruct"),
        ("openai/gpt-4o-mini", "http://proxy.internal/v1", None),  # priced (and OpenAI's): litellm's rules
        ("openai/judge", "https://gateway.example/v1", None),  # https: litellm's certificate settings
        ("openai/judge", None, None),
        ("anthropic/claude-sonnet-4-5", "http://127.0.0.1:8000", None),
        ("hosted_vllm/judge", "http://127.0.0.1:8000/v1", None),
        ("openai/", "http://127.0.0.1:8000/v1", None),
        ("openai/judge", "http://user:secret@127.0.0.1:8000/v1", None),  # credentials in the URL: litellm's
        ("openai/judge", "http://127.0.0.1:80a/v1", None),  # not a URL http1 can call: litellm says why
        ("openai/judge", "http://[::1/v1", None),
        ("openai/judge", "http:///v1", None),
    ],
)
def test_where_the_direct_route_is_taken(model, api_base, sent):
    assert direct_model(model, api_base, "key") == sent


@pytest.mark.parametrize(
    "environment, direct",
    [
        ({"HTTP_PROXY": "http://proxy.lan:3128"}, False),
        ({"http_proxy": "http://proxy.lan:3128"}, False),
        ({"ALL_PROXY": "http://proxy.lan:3128"}, False),
        ({"HTTP_PROXY": "http://proxy.lan:3128", "NO_PROXY": "gpu.lan,other"}, True),
        ({"HTTP_PROXY": "http://proxy.lan:3128", "no_proxy": "*"}, True),
        ({"HTTPS_PROXY": "http://proxy.lan:3128"}, True),  # only https calls, never this route's
        ({}, True),
    ],
)
def test_a_call_a_proxy_would_carry_goes_through_litellm(monkeypatch, environment, direct):
    # The direct route's client speaks to the server itself (engine/transports/http1.py); litellm's honours proxies.
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert direct_model("openai/judge", "http://gpu.lan:8000/v1", "key") == ("judge" if direct else None)


@pytest.mark.parametrize("key", ["sk-abc\r\nX-Injected: 1", "sk-\u2713", "sk-tab\there"])
async def test_a_key_no_header_can_carry_is_refused_unsent(judge_server, monkeypatch, key):
    monkeypatch.setenv("RUBRIC_JUDGE_TRANSPORT", "direct")
    judge = _judge(judge_server, env={"OPENAI_API_KEY": key})
    with pytest.raises(JudgeFailure) as failure:
        await judge.ask(MESSAGES, FORMAT, lambda text: text)
    assert failure.value.kind == "auth" and "not sent" in failure.value.message
    assert key not in failure.value.message and judge_server.call_count == 0


def test_the_direct_route_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("RUBRIC_JUDGE_TRANSPORT", "litellm")
    assert direct_model("openai/judge", "http://127.0.0.1:8000/v1", "key") is None


def _judge(server, **overrides):
    values = dict(
        model="openai/judge",
        api_base=server.base_url,
        cache_enabled=False,
        timeout_seconds=1.5,
        max_retries=0,
        env={"OPENAI_API_KEY": SECRET},
    )
    values.update(overrides)
    return Run.start(JudgeSettings(**values)).judge()


async def _ask(server, monkeypatch, transport, response_format=FORMAT, **overrides):
    """(outcome, usage, classified) of one ask through ``transport``; classified: what ``classify`` returned."""
    monkeypatch.setenv("RUBRIC_JUDGE_TRANSPORT", transport)
    classified = []

    def spy(exc, *args):
        result = CLASSIFY(exc, *args)
        classified.append((result[1], result[2]))
        return result

    monkeypatch.setattr(judge_module, "classify", spy)
    judge = _judge(server, **overrides)
    try:
        outcome = ("reply", (await judge.ask(MESSAGES, response_format, lambda text: text))[0])
    except JudgeFailure as failure:
        outcome = ("failure", failure.category, failure.kind, failure.message)
    return outcome, judge.usage.to_json(), classified


@pytest.mark.parametrize(
    "overrides, response_format",
    [
        ({}, FORMAT),
        ({"temperature": 0.7, "max_tokens": 321}, FORMAT),
        ({"model": "openai/Qwen/Qwen2.5-7B-Instruct", "env": {}}, None),  # no key: "no-key-needed"
    ],
)
async def test_the_direct_route_sends_what_litellm_sends(judge_server, monkeypatch, overrides, response_format):
    sent = []
    for transport in ("litellm", "direct"):
        judge_server.reset()
        outcome, usage, _ = await _ask(judge_server, monkeypatch, transport, response_format, **overrides)
        assert outcome[0] == "reply"
        (request,) = judge_server.completions
        sent.append((request.path, request.headers["authorization"], request.headers["content-type"], request.raw))
        assert usage["cost_usd"] == 0.0 and usage["prompt_tokens"] == 100  # litellm's zero price for a local model
    assert sent[0] == sent[1]  # the very same bytes
    assert json.loads(sent[1][3])["model"] == overrides.get("model", "openai/judge").split("/", 1)[1]


# Every way an answer can go wrong, and a few right ones; each runs through both routes.
ANSWERS = {
    "ok": Reply.json({"criterion_status": "MET", "explanation": "ok"}),
    "ok without usage": Reply(
        raw_body=json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}]}).encode()
    ),
    "usage as text": Reply(
        raw_body=json.dumps(
            {
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}],
                "usage": {"prompt_tokens": "7", "completion_tokens": None},
            }
        ).encode()
    ),
    "429 with Retry-After": Reply.rate_limited(retry_after=3),
    "429 without": Reply.rate_limited(retry_after=None),
    "400 saying rate limit": Reply.error(400, "Rate limit exceeded for this key"),
    "500": Reply.server_error(500),
    "502": Reply.server_error(502),
    "503": Reply.server_error(503),
    "504": Reply.server_error(504),
    "529": Reply.server_error(529),
    "500 plain text": Reply(status=500, raw_body=b"upstream crashed"),
    "400": Reply.error(400, "messages must not be empty"),
    "400 plain text": Reply(status=400, raw_body=b"bad request"),
    "401": Reply.error(401, "Incorrect API key provided"),
    "403": Reply.error(403, "forbidden"),
    "404": Reply.error(404, "The model `judge` does not exist"),
    "408": Reply.error(408, "request timeout"),
    "409": Reply.error(409, "conflict"),
    "422": Reply.error(422, "unprocessable"),
    "context window": Reply.error(400, "This model's maximum context length is 8192 tokens"),
    "key echoed in an error": Reply.error(400, f"bad key {SECRET}"),
    "garbage body": Reply.garbage(),
    "empty body": Reply(raw_body=b""),
    "html body": Reply(raw_body=b"<html>proxy error</html>"),
    "content null": Reply.empty(),
    "content empty": Reply.text(""),
    "no choices": Reply(raw_body=json.dumps({"id": "x", "choices": [], "usage": {"prompt_tokens": 1}}).encode()),
    "never answers": Reply.hang(),
}


@pytest.mark.parametrize("name", list(ANSWERS))
async def test_the_direct_route_fails_as_litellms_does(judge_server, monkeypatch, name):
    seen = []
    for transport in ("litellm", "direct"):
        judge_server.reset()
        judge_server.queue(ANSWERS[name])
        seen.append(await _ask(judge_server, monkeypatch, transport))
    assert seen[0] == seen[1]  # outcome (kind, message), usage (tokens, cost), (retryable, Retry-After)
    assert SECRET not in repr(seen[1])


@pytest.mark.parametrize(
    "body",
    [
        b"[1, 2]",
        json.dumps({"choices": [{"index": 0}]}).encode(),
        json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": 5}}]}).encode(),
    ],
)
async def test_a_reply_that_is_no_chat_completion_is_a_retried_server_failure(judge_server, monkeypatch, body):
    # Deliberately not litellm's wording (a connection failure quoting its own traceback): same category, retried.
    judge_server.queue(Reply(raw_body=body))
    outcome, usage, classified = await _ask(judge_server, monkeypatch, "direct")
    assert outcome[:3] == ("failure", "infrastructure", "server")
    assert "is not a chat completion" in outcome[3]
    assert classified == [(True, None)] and usage["cost_usd"] is None


async def test_the_direct_route_retries_and_counts_like_litellm(judge_server, monkeypatch):
    seen = []
    for transport in ("litellm", "direct"):
        judge_server.reset()
        judge_server.queue(Reply.rate_limited(retry_after=0), Reply.server_error(503), Reply.garbage())
        seen.append(await _ask(judge_server, monkeypatch, transport, max_retries=3))
        assert judge_server.call_count == 4
    assert seen[0] == seen[1]
    assert seen[1][1]["calls"] == 4 and seen[1][1]["retries"] == 3


def test_the_direct_route_does_not_import_litellm(tmp_path):
    script = f"""
import asyncio, sys
sys.path.insert(0, {str(REPO)!r})
from tests.judge_server import JudgeServer
from rubric_lsp.engine import JudgeSettings, grade_text

async def main():
    with JudgeServer() as server:
        settings = JudgeSettings(model="openai/judge", api_base=server.base_url, cache_enabled=False,
                                 env={{"OPENAI_API_KEY": "dummy-key"}})
        report = await grade_text("- name: c\\n  requirement: Is good\\n", "r.yaml", "A response.", None, settings)
    print(report.verdicts[0].verdict, "litellm" in sys.modules)

asyncio.run(main())
"""
    env = {k: v for k, v in os.environ.items() if k != "RUBRIC_JUDGE_TRANSPORT"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert done.stdout.split() == ["MET", "False"], done.stderr


def test_a_dataset_graded_over_either_route_gives_the_same_output(judge_server, tmp_path, monkeypatch, capfd):
    """End to end through ``rubric grade``: verdicts, reasons, agreement figures and usage (calls,
    tokens, cost 0) do not depend on the route."""
    from rubric_lsp.cli import main

    def judge(request) -> Reply:
        status = "UNMET" if "41" in request.text and "right answer" in request.text else "MET"
        return Reply.json({"criterion_status": status, "explanation": f"{status} for it"}, delay_ms=5)

    judge_server.default = judge
    items = [
        {"submission": f"answer {n}: {41 if n % 3 == 0 else 42}", "ground_truth": ["MET", "UNMET" if n % 4 else "MET"]}
        for n in range(9)
    ]
    rubric = [{"name": "correct", "requirement": "Gives the right answer"}, {"name": "brief", "requirement": "Brief"}]
    path = tmp_path / "calibration.dataset.json"
    path.write_text(json.dumps({"prompt": "What is 6*7?", "rubric": rubric, "items": items}))
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    outputs = []
    for transport in ("direct", "litellm"):
        monkeypatch.setenv("RUBRIC_JUDGE_TRANSPORT", transport)
        flags = ["--model", "openai/judge", "--api-base", judge_server.base_url, "--no-cache", "--format", "json"]
        assert main(["grade", str(path), *flags]) == 0
        outputs.append(json.loads(capfd.readouterr().out))
    assert outputs[0] == outputs[1]
    assert outputs[0]["usage"]["calls"] == 18 and outputs[0]["usage"]["cost_usd"] == 0.0
    assert judge_server.call_count == 36
    judge_server.assert_never_saw(SECRET)


def test_the_model_maps_names_are_read_once_then_from_the_users_cache(tmp_path, monkeypatch):
    """litellm's 3.5 MB map is read at a grading's start only when it changed: the names come from the cache,
    the same names, until the file's size or time changes; a damaged cache is read past."""
    from rubric_lsp.engine.transports import direct

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    names = tmp_path / "map.json"
    names.write_text(json.dumps({"gpt-x": {}, "sample_spec": {}}), encoding="utf-8")
    assert direct._names_in(str(names)) == {"gpt-x", "sample_spec"}
    cache_files = list((tmp_path / "cache").rglob("litellm-model-names.*"))
    assert len(cache_files) == 1

    def no_json(*_args, **_kwargs):
        raise AssertionError("the map was read again")

    monkeypatch.setattr(direct.json, "load", no_json)
    assert direct._names_in(str(names)) == {"gpt-x", "sample_spec"}
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))

    names.write_text(json.dumps({"gpt-y": {}}), encoding="utf-8")  # another size: read again, cached anew
    assert direct._names_in(str(names)) == {"gpt-y"}
    cache_files[0].write_bytes(b"damaged")
    assert direct._names_in(str(names)) == {"gpt-y"}
    assert direct._names_in(str(names)) == {"gpt-y"}  # (and written again)
    assert cache_files[0].read_bytes().startswith(direct._NAMES_HEADER)
