"""``rubric grade`` shows a progress bar on a terminal and none when its output is piped.

The command runs as a real process against the fake judge; its standard error is a
pseudo-terminal in one case and a pipe in the other.
"""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time

import pytest

SECRET = "sk-test-SECRET-progress-0123456789"
# rubric grade's line on a pipe (grading/cli.py _with_plain_progress): done/total, then the meter's figures
PLAIN_LINE = re.compile(r"^rubric grade: \d+/\d+ done · \d+ in flight")
RUBRIC = "\n".join(f"- {{name: c{i}, requirement: Requirement number {i}}}" for i in range(4)) + "\n"


@pytest.fixture
def command(judge_server, tmp_path):
    judge_server.latency_ms = 400  # four calls one at a time: long enough for the bar to draw
    (tmp_path / "rubric.yaml").write_text(RUBRIC)
    (tmp_path / "response.txt").write_text("An answer.")
    env = dict(
        os.environ,
        OPENAI_API_KEY=SECRET,
        RUBRIC_JUDGE_API_BASE=judge_server.base_url,
        RUBRIC_JUDGE_MODEL="openai/judge",
        RUBRIC_CACHE_DIR=str(tmp_path / "cache"),
        TERM="xterm-256color",
        COLUMNS="100",
        LITELLM_LOCAL_MODEL_COST_MAP="True",
    )
    env.pop("NO_COLOR", None)
    # The direct route (engine/transports/direct.py): the bar does not depend on the transport, and the
    # process then never imports litellm (~9 s of CPU each on the shared cores).
    env.pop("RUBRIC_JUDGE_TRANSPORT", None)
    argv = [
        sys.executable,
        "-m",
        "rubric_lsp",
        "grade",
        str(tmp_path / "rubric.yaml"),
        "--response",
        str(tmp_path / "response.txt"),
        "--concurrency",
        "1",
    ]
    return argv, env


def _read_all(fd: int, process: subprocess.Popen, limit_s: float = 120.0) -> bytes:
    chunks: list[bytes] = []
    deadline = time.monotonic() + limit_s
    # poll, not select: select refuses a descriptor above 1023, which a long suite's run reaches
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    while time.monotonic() < deadline:
        ready = poller.poll(200)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        elif process.poll() is not None:
            break
    return b"".join(chunks)


@pytest.mark.slow
def test_a_terminal_gets_a_progress_bar(command):
    argv, env = command
    controller, terminal = pty.openpty()
    process = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=terminal)
    os.close(terminal)
    try:
        shown = _read_all(controller, process).decode("utf-8", "replace")
        out = process.communicate(timeout=120)[0].decode()
    finally:
        os.close(controller)
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, shown
    assert "judging" in shown and "4/4" in shown, shown  # rich's bar: label and done/total
    # the meter's figures: calls in flight, tokens so far (judge_server's usage: 120 a call)
    assert "1 in flight" in shown and "480 tokens" in shown, shown
    assert "score: 1" in out  # the report itself still goes to standard output
    assert SECRET not in shown and SECRET not in out


@pytest.mark.slow
def test_piped_output_has_no_progress_bar(command):
    argv, env = command
    done = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    # No bar, no escape codes, no log lines: at most the plain line a piped run prints every 10 s,
    # which a run this short prints only when a loaded machine stretches it past 10 s.
    shown = done.stderr.decode()
    assert all(PLAIN_LINE.match(line) for line in shown.splitlines()), shown
    assert "\x1b[" not in shown and "\r" not in shown and "judging" not in shown
    assert b"score: 1" in done.stdout and b"\x1b[" not in done.stdout
    assert SECRET.encode() not in done.stdout
