"""The shared verdict cache locked by another process (issue 26, item 4): an open ``sqlite3`` shell or
another editor in ``BEGIN IMMEDIATE`` holds its write lock. Before, every cache write waited SQLite's
5 s busy timeout on the event loop, one after another: 104 s instead of ~1 s for 20 criteria, and the
server's pings stalled up to 20 s. A cache is an optimisation: the grading goes on without writing to
it, says so once, and its event loop never waits on it."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rubric_lsp.cli import main
from rubric_lsp.engine.request import GradeRequest
from rubric_lsp.engine.runner import grade
from rubric_lsp.engine.settings import JudgeSettings
from rubric_lsp.engine.store.cache import CACHE_FILE, VerdictCache
from tests.calibration import dataset, reply_for
from tests.conftest import use_judge
from tests.judge_server import Reply

ROOT = Path(__file__).resolve().parent.parent
CRITERIA = 20
RUBRIC = {"rubric": [{"name": f"c{n}", "requirement": f"Mentions point {n}"} for n in range(CRITERIA)]}
WARNING = "cannot be written"


def met(request) -> Reply:
    return Reply.json({"criterion_status": "MET", "explanation": "it does"}, delay_ms=20)


@pytest.fixture
def env(judge_server, tmp_path, monkeypatch):
    judge_server.default = met
    # The direct route: no litellm import timed.
    use_judge(monkeypatch, judge_server, "sk-test-cache-locked-0123456789", tmp_path / "cache", direct=True)
    (tmp_path / "checks.rubric.json").write_text(json.dumps(RUBRIC))
    (tmp_path / "response.txt").write_text("It mentions every point.")
    return tmp_path


@pytest.fixture
def locked(env):
    """Another process's connection holding the cache's write lock for the whole test."""
    VerdictCache(env / "cache").put("0" * 64, "an entry of an earlier grading")  # the file exists
    holder = sqlite3.connect(env / "cache" / CACHE_FILE, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    yield holder
    holder.execute("ROLLBACK")
    holder.close()


def entries(env: Path) -> int:
    return len(VerdictCache(env / "cache"))


def grade_response(env: Path) -> subprocess.CompletedProcess:
    """``rubric grade`` as a real process: its stderr is what a user sees."""
    command = ["grade", str(env / "checks.rubric.json"), "--response", str(env / "response.txt"), "--format", "json"]
    environ = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "rubric_lsp", *command], env=environ, capture_output=True, text=True, timeout=120
    )


def test_a_response_graded_with_the_cache_locked_takes_seconds_and_says_so_once(env, judge_server, locked):
    started = time.monotonic()
    done = grade_response(env)
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert [v["verdict"] for v in json.loads(done.stdout)["verdicts"]] == ["MET"] * CRITERIA
    assert judge_server.call_count == CRITERIA
    assert elapsed < 15, elapsed  # before: 20 × 5 s of busy timeout, 104 s
    assert done.stderr.count(WARNING) == 1 and "verdicts.sqlite" in done.stderr, done.stderr
    assert len(done.stderr.splitlines()) == 1
    locked.execute("ROLLBACK")
    assert entries(env) == 1  # graded without it

    done = grade_response(env)  # unlocked: the next grading fills it as usual
    assert done.returncode == 0 and WARNING not in done.stderr
    assert entries(env) == 1 + CRITERIA
    locked.execute("BEGIN IMMEDIATE")  # (the fixture ends it)


def test_the_event_loop_never_waits_on_a_locked_cache(env, judge_server, locked):
    text = (env / "checks.rubric.json").read_text()
    request = GradeRequest.for_responses(text, str(env / "checks.rubric.json"), ["It mentions every point."])

    async def graded(settings: JudgeSettings) -> tuple[object, float]:
        gaps = [0.0]

        async def ticker() -> None:
            last = time.monotonic()
            while True:
                await asyncio.sleep(0.005)
                now = time.monotonic()
                gaps.append(now - last)
                last = now

        ticking = asyncio.ensure_future(ticker())
        try:
            result = await grade(request, settings)
        finally:
            ticking.cancel()
        return result, max(gaps)

    asyncio.run(graded(JudgeSettings(concurrency=4, cache_enabled=False)))  # first imports (grader, HTTP client)
    started = time.monotonic()
    result, worst_gap = asyncio.run(graded(JudgeSettings(concurrency=4)))
    assert time.monotonic() - started < 10
    assert worst_gap < 0.2, worst_gap  # a ping is answered within a loop turn, never behind a busy wait
    assert [v.verdict for v in result.verdicts] == ["MET"] * CRITERIA  # type: ignore[attr-defined]


def test_a_dataset_graded_with_the_cache_locked_is_not_slowed(env, judge_server, capfd, caplog, locked):
    judge_server.default = lambda request: reply_for(request.text, delay_ms=5)
    (env / "calibration.dataset.json").write_text(json.dumps(dataset(30, "locked")))
    started = time.monotonic()
    code = main(["grade", str(env / "calibration.dataset.json"), "--format", "json", "--concurrency", "4"])
    elapsed = time.monotonic() - started
    out, err = capfd.readouterr()
    assert code == 0, err
    assert len(json.loads(out)["items"]) == 30 and elapsed < 10, elapsed
    assert [r.getMessage().count(WARNING) for r in caplog.records if r.name == "rubric_lsp.engine.store.cache"] == [1]
    # The warning's record holds the locked write's exception, whose frames hold the cache and its
    # connections: dropped here, not kept open past the test by the captured records.
    caplog.clear()
