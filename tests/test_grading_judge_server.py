"""tests/judge_server.py itself: script mode for the editor tests, scripted replies in-process."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request

from tests.conftest import REPO
from tests.judge_server import JudgeServer, Reply


def post(base_url, body):
    request = urllib.request.Request(
        base_url + "/chat/completions", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status, dict(response.headers), response.read()


def test_script_mode_prints_ready_and_answers():
    process = subprocess.Popen(
        [
            sys.executable,
            str(REPO / "tests" / "judge_server.py"),
            "--port",
            "0",
            "--reply-json",
            '{"criterion_status": "UNMET", "explanation": "x"}',
            "--when",
            'Paris={"criterion_status": "MET", "explanation": "y"}',
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline().split()
        assert line[0] == "READY" and line[1].startswith("http://127.0.0.1:") and line[1].endswith("/v1")
        _, _, body = post(line[1], {"model": "judge", "messages": [{"role": "user", "content": "hello"}]})
        assert json.loads(json.loads(body)["choices"][0]["message"]["content"])["criterion_status"] == "UNMET"
        _, _, body = post(line[1], {"model": "judge", "messages": [{"role": "user", "content": "Paris?"}]})
        assert json.loads(json.loads(body)["choices"][0]["message"]["content"])["criterion_status"] == "MET"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_queue_rules_and_errors_in_process():
    with JudgeServer() as server:
        server.queue(Reply.rate_limited(retry_after=3))
        server.when("x", Reply.text("plain"))
        try:
            post(server.base_url, {"messages": [{"role": "user", "content": "x"}]})
            raise AssertionError("expected a 429")
        except urllib.error.HTTPError as error:
            assert error.code == 429 and error.headers["Retry-After"] == "3"
        _, _, body = post(server.base_url, {"messages": [{"role": "user", "content": "x"}]})
        assert json.loads(body)["choices"][0]["message"]["content"] == "plain"
        assert server.call_count == 2 and server.requests[1].text == "x"
