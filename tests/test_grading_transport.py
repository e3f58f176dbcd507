"""How judge requests leave: one at a time through the send gate, and over which litellm route."""

from __future__ import annotations

import asyncio
import os
import socket
import threading

import pytest

from rubric_lsp.engine import ERROR_VERDICT, JudgeSettings, grade_text
from rubric_lsp.engine.limits.send_gate import SendGate
from tests.judge_server import Reply

SECRET = "sk-test-SECRET-0123456789abcdef"


def settings(server, tmp_path, **overrides):
    values = dict(
        model="openai/judge",
        api_base=server.base_url,
        cache_enabled=False,
        timeout_seconds=10.0,
        max_retries=0,
        env={"OPENAI_API_KEY": SECRET},
    )
    values.update(overrides)
    return JudgeSettings(**values)


def rubric(count: int) -> str:
    return "".join(f"- name: c{i}\n  requirement: Meets check {i}\n" for i in range(count))


# --- the gate itself -------------------------------------------------------------------


async def test_next_call_waits_until_the_request_is_sent():
    gate, events = SendGate(), []

    async def call(name: str, sent: asyncio.Event):
        async with gate.turn("openai/judge") as request_sent:
            events.append(f"{name} building")
            await sent.wait()
            request_sent({"model": "judge"})
            events.append(f"{name} sent")
            await asyncio.sleep(0.05)  # waiting for the answer: the other call goes meanwhile
            events.append(f"{name} answered")

    first_sent, second_sent = asyncio.Event(), asyncio.Event()
    tasks = [asyncio.create_task(call("first", first_sent)), asyncio.create_task(call("second", second_sent))]
    await asyncio.sleep(0.02)
    assert events == ["first building"]  # the second call has not started building
    first_sent.set()
    second_sent.set()
    await asyncio.gather(*tasks)
    assert events == [
        "first building",
        "first sent",
        "second building",
        "second sent",
        "first answered",
        "second answered",
    ]


async def test_request_sent_from_a_worker_thread_releases_the_turn():
    gate = SendGate()
    order = []
    sent = {"a": asyncio.Event(), "b": asyncio.Event()}

    async def call(name: str, other: str):
        async with gate.turn("openai/judge") as request_sent:
            order.append(name)
            thread = threading.Thread(target=request_sent)
            thread.start()
            thread.join()
            sent[name].set()
            # Overlapped, not one after the other: the other call takes its turn while this one waits
            # for its answer (a turn held to the end would leave both waiting: the bound catches it).
            await asyncio.wait_for(sent[other].wait(), 30)

    await asyncio.gather(call("a", "b"), call("b", "a"))
    assert order == ["a", "b"]


async def test_a_route_without_the_hook_stops_being_gated_after_one_call():
    gate = SendGate()
    started = []

    async def call(name: str):
        async with gate.turn("vendor/model") as request_sent:
            started.append((name, request_sent is None))
            await asyncio.sleep(0.1)  # never calls request_sent

    await asyncio.gather(call("a"), call("b"), call("c"))
    # "a" held the turn for its whole call; "b" and "c" then went through together, ungated.
    assert started == [("a", False), ("b", True), ("c", True)]
    assert not gate.gates("vendor/model") and gate.gates("openai/judge")


async def test_a_failed_call_releases_the_turn_and_keeps_the_gate():
    gate = SendGate()
    with pytest.raises(RuntimeError):
        async with gate.turn("openai/judge"):
            raise RuntimeError("refused before sending")
    assert gate.gates("openai/judge")
    async with gate.turn("openai/judge") as request_sent:  # not left locked
        assert request_sent is not None


# --- through litellm -------------------------------------------------------------------


async def test_litellm_calls_the_hook_so_concurrent_requests_overlap(judge_server, tmp_path, monkeypatch):
    monkeypatch.setenv("RUBRIC_JUDGE_TRANSPORT", "litellm")  # openai/judge would take the direct route
    # If litellm stopped calling logger_fn before sending, the first call would hold the
    # turn until its answer: at most three of the four requests would ever be in flight.
    judge_server.latency_ms = 600
    report = await grade_text(rubric(4), "r.yaml", "A response.", None, settings(judge_server, tmp_path, concurrency=4))
    assert [v.verdict for v in report.verdicts] == ["MET"] * 4
    assert judge_server.max_in_flight == 4


@pytest.mark.parametrize(
    "model, api_base, route",
    [
        ("openai/judge", "http://127.0.0.1:8000/v1", "hosted_vllm/judge"),
        (
            "openai/meta-llama/Llama-3.1-8B-Instruct",
            "http://gpu:8000/v1",
            "hosted_vllm/meta-llama/Llama-3.1-8B-Instruct",
        ),
        (
            "openai/gpt-4o-mini",
            "http://proxy.internal/v1",
            "openai/gpt-4o-mini",
        ),  # OpenAI's own model: litellm's parameter rules
        ("openai/judge", "https://api.openai.com/v1", "openai/judge"),
        ("openai/gpt-4o-mini", None, "openai/gpt-4o-mini"),
        ("anthropic/claude-sonnet-4-5", "http://127.0.0.1:8000", "anthropic/claude-sonnet-4-5"),
        ("hosted_vllm/judge", "http://127.0.0.1:8000/v1", "hosted_vllm/judge"),
    ],
)
def test_route(model, api_base, route):
    from rubric_lsp.engine.transports.via_litellm import litellm_route, load_litellm

    assert litellm_route(load_litellm(), model, api_base) == route


async def test_both_routes_send_the_same_request(judge_server, tmp_path, monkeypatch):
    monkeypatch.setenv(
        "RUBRIC_JUDGE_TRANSPORT", "litellm"
    )  # litellm's two routes (the direct one: test_grading_direct)
    bodies, agents = [], []
    for model in ("openai/judge", "openai/gpt-4o-mini"):
        judge_server.reset()
        report = await grade_text(
            rubric(1),
            "r.yaml",
            "A response.",
            None,
            settings(judge_server, tmp_path, model=model, temperature=0.3, max_tokens=77),
        )
        assert report.verdicts[0].verdict == "MET" and report.verdicts[0].error is None
        (request,) = judge_server.completions
        assert request.headers["authorization"] == f"Bearer {SECRET}"
        bodies.append({key: value for key, value in request.body.items() if key != "model"})
        agents.append(request.headers.get("user-agent", ""))
    assert bodies[0] == bodies[1]
    assert bodies[0]["temperature"] == 0.3 and bodies[0]["max_tokens"] == 77
    assert bodies[0]["response_format"]["type"] == "json_schema"
    assert agents[0].startswith("litellm/") and "OpenAI" in agents[1]  # hosted_vllm route, then the OpenAI SDK


async def test_a_body_that_is_not_json_is_retried(judge_server, tmp_path):
    judge_server.queue(Reply.garbage())
    report = await grade_text(rubric(1), "r.yaml", "A response.", None, settings(judge_server, tmp_path, max_retries=1))
    assert report.verdicts[0].verdict == "MET"
    assert judge_server.call_count == 2


async def test_errors_quote_the_server_not_litellms_route(judge_server, tmp_path):
    judge_server.default = Reply.server_error(503)
    report = await grade_text(rubric(1), "r.yaml", "A response.", None, settings(judge_server, tmp_path))
    (verdict,) = report.verdicts
    assert verdict.verdict == ERROR_VERDICT
    assert verdict.error.startswith("infrastructure: Judge model 'openai/judge' failed with a server error")
    assert "Internal server error" in verdict.error or "Service" in verdict.error
    assert "Exception" not in verdict.error and "hosted_vllm" not in verdict.error.lower() and "{" not in verdict.error


@pytest.mark.parametrize(
    "model, said, transport",
    [
        ("openai/judge", "cannot connect to 127.0.0.1:{port}", "direct"),  # direct route (aiohttp, no litellm)
        ("openai/judge", "cannot connect to 127.0.0.1:{port}", "litellm"),  # hosted_vllm route (litellm's own client)
        ("openai/gpt-4o-mini", "the connection failed", "direct"),  # OpenAI SDK route (a priced model)
    ],
)
async def test_an_unreachable_judge_is_a_connection_failure_not_a_server_error(
    tmp_path, model, said, transport, monkeypatch
):
    monkeypatch.setenv("RUBRIC_JUDGE_TRANSPORT", transport)
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = JudgeSettings(
        model=model,
        api_base=f"http://127.0.0.1:{port}/v1",
        cache_enabled=False,
        timeout_seconds=5.0,
        max_retries=1,
        env={"OPENAI_API_KEY": SECRET},
    )
    report = await grade_text(rubric(1), "r.yaml", "A response.", None, settings)
    (verdict,) = report.verdicts
    assert verdict.verdict == ERROR_VERDICT
    assert verdict.error == f"infrastructure: Judge model '{model}' could not be reached: {said.format(port=port)}."
    assert report.usage.calls == 2  # retried once, like any transport failure


def connections_to(port: int) -> int:
    """Connections from this machine to ``port`` still established (the client ends; /proc/net/tcp)."""
    with open("/proc/self/net/tcp") as table:
        rows = [line.split() for line in table.readlines()[1:]]
    return sum(int(row[2].split(":")[1], 16) == port and row[3] == "01" for row in rows)


@pytest.mark.skipif(not os.path.exists("/proc/self/net/tcp"), reason="reads the connection table in /proc")
def test_litellms_connections_close_with_the_event_loop_that_made_them(judge_server, tmp_path, monkeypatch):
    # litellm keeps a client per event loop and never closed one: each asyncio.run that called a judge
    # (rubric calibrate --repeat, a program calling grade, every test) left its connection open for good.
    monkeypatch.setenv("RUBRIC_JUDGE_TRANSPORT", "litellm")
    for _ in range(3):
        report = asyncio.run(grade_text(rubric(2), "r.yaml", "A response.", None, settings(judge_server, tmp_path)))
        assert [v.verdict for v in report.verdicts] == ["MET", "MET"]
        assert connections_to(judge_server.port) == 0
    assert judge_server.call_count == 6
