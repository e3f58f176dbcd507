"""``rubric grade DATASET --run / --resume``: a run killed with SIGKILL at seeded random points and resumed
ends with the figures an uninterrupted run gives, and no call the judge answered and the run recorded is
asked again. Through litellm's real HTTP path to tests/judge_server.py, and once through the direct route."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest

from rubric_lsp.cli import main
from rubric_lsp.engine.transports.direct import USER_AGENT
from tests.calibration import dataset, reply_for
from tests.conftest import database, use_judge
from tests.judge_server import Reply

ROOT = Path(__file__).resolve().parent.parent
ITEMS = 8
CRITERIA = 2
CALLS = ITEMS * CRITERIA
CONCURRENCY = 2

DATASET = dataset(ITEMS, "resume")


def verdict(request) -> Reply:
    return reply_for(request.text, delay_ms=40)


@pytest.fixture
def env(judge_server, tmp_path, monkeypatch):
    judge_server.default = verdict
    use_judge(monkeypatch, judge_server, "sk-test-run-file-0123456789", tmp_path / "cache")
    (tmp_path / "calibration.dataset.json").write_text(json.dumps(DATASET))
    return tmp_path


def grade_args(env: Path, *flags: str) -> list[str]:
    dataset = str(env / "calibration.dataset.json")
    return ["grade", dataset, "--format", "json", "--no-cache", "--concurrency", str(CONCURRENCY), *flags]


def grade_in_process(capfd, env: Path, *flags: str) -> tuple[int, str, str]:
    code = main(grade_args(env, *flags))
    out, err = capfd.readouterr()
    return code, out, err


def subprocess_grade(env: Path, *flags: str) -> subprocess.Popen:
    environ = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-m", "rubric_lsp", *grade_args(env, *flags)],
        cwd=env,
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def kill_after(judge_server, process: subprocess.Popen, requests: int) -> threading.Event:
    """SIGKILL ``process`` when the judge receives its ``requests``-th request (counted from now):
    that request and the others in flight never get their reply to the run."""
    killed = threading.Event()
    start = judge_server.call_count

    def reply(request) -> Reply:
        if judge_server.call_count - start >= requests and not killed.is_set():
            killed.set()
            process.send_signal(signal.SIGKILL)
        return verdict(request)

    judge_server.default = reply
    return killed


def recorded(run: Path) -> int:
    with database(run) as db:
        return int(db.execute("SELECT count(*) FROM replies").fetchone()[0])


def test_a_dataset_graded_with_a_run_file_records_every_reply_and_the_figures(env, judge_server, capfd):
    run = env / "run.sqlite"
    code, out, err = grade_in_process(capfd, env, "--run", str(run))
    assert code == 0, err
    assert judge_server.call_count == CALLS and recorded(run) == CALLS
    with database(run) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        figures = json.loads(db.execute("SELECT value FROM meta WHERE name = 'figures'").fetchone()[0])
        request = json.loads(db.execute("SELECT value FROM meta WHERE name = 'request'").fetchone()[0])
        stored = " ".join(row[0] for row in db.execute("SELECT content || usage FROM replies"))
    assert figures == json.loads(out)
    assert request["model"] == "openai/judge" and "env" not in request and len(request["file_sha256"]) == 64
    assert "sk-test-run-file" not in stored + json.dumps(request)

    # A finished run resumed again asks the judge nothing and reports the same figures.
    code, again, err = grade_in_process(capfd, env, "--resume", str(run))
    assert code == 0, err
    assert judge_server.call_count == CALLS and json.loads(again) == json.loads(out)


# Each route a call can take is killed: litellm's (the judge_server fixture's) and the direct one a local
# judge takes (engine/transports/direct.py), each under its own seeded kill points. Not named `seed`: the
# dependency suites run both (README, "Rules for tests"). The second kill, during the resume, is the run
# file's and not the route's: it is made on the direct route only, as each `rubric grade` that goes through
# litellm imports it first (~6 s of CPU on the shared cores).
@pytest.mark.parametrize("transport, kills", [("litellm", 7), ("direct", 18)])
def test_a_run_killed_at_random_points_resumes_to_the_uninterrupted_figures(
    env, judge_server, capfd, monkeypatch, transport, kills
):
    if transport == "direct":
        monkeypatch.delenv("RUBRIC_JUDGE_TRANSPORT")
    code, out, err = grade_in_process(capfd, env)
    assert code == 0, err
    uninterrupted = json.loads(out)
    judge_server.reset()
    judge_server.default = verdict

    rng = random.Random(kills)
    run = env / "run.sqlite"
    first = subprocess_grade(env, "--run", str(run))
    killed = kill_after(judge_server, first, rng.randint(1, CALLS // 2))
    first.communicate(timeout=120)
    assert killed.is_set() and first.returncode == -signal.SIGKILL
    done = recorded(run)
    asked = judge_server.call_count

    kills_in_all = 2 if transport == "direct" else 1
    if kills_in_all == 2:  # A second kill, during the resume: a resumed run is itself resumable.
        second = subprocess_grade(env, "--resume", str(run))
        killed = kill_after(judge_server, second, rng.randint(1, CALLS - done - CONCURRENCY))
        second.communicate(timeout=120)
        assert killed.is_set() and second.returncode == -signal.SIGKILL
        # Every reply recorded before the kill was replayed, not asked again: the judge heard only the rest.
        assert recorded(run) >= done
        done = recorded(run)
        asked = judge_server.call_count

    judge_server.default = verdict
    final = subprocess_grade(env, "--resume", str(run))
    out, err = final.communicate(timeout=120)
    assert final.returncode == 0, err
    assert judge_server.call_count - asked == CALLS - done  # only the calls the run never recorded
    assert json.loads(out) == uninterrupted  # verdicts, agreement figures and usage alike

    # A request the kill cut off while its body was being sent (under load, the 17th distinct "prompt":
    # an empty one) was never a question put to the judge: only whole requests count.
    per_prompt = Counter(request.text for request in judge_server.completions if request.body is not None)
    assert len(per_prompt) == CALLS
    # Every call took the route under test (the direct route names itself; litellm sends the OpenAI SDK's).
    routes = {request.headers.get("user-agent") == USER_AGENT for request in judge_server.completions}
    assert routes == {transport == "direct"}
    # A prompt asked twice was in flight when a kill landed, or its reply had landed and was not yet
    # committed (no call is sent while as many as the concurrency are waiting): at most twice the
    # concurrency, per kill.
    repeated = [text for text, count in per_prompt.items() if count > 1]
    assert len(repeated) <= kills_in_all * 2 * CONCURRENCY and max(per_prompt.values()) <= kills_in_all + 1


def test_a_resume_with_another_file_or_other_settings_is_refused(env, judge_server, capfd):
    run = env / "run.sqlite"
    code, _, err = grade_in_process(capfd, env, "--run", str(run), "--limit", "2")
    assert code == 0, err
    asked = judge_server.call_count

    code, _, err = grade_in_process(capfd, env, "--resume", str(run))  # without --limit 2
    assert code == 2 and err.count("\n") == 1 and "different grading (limit changed)" in err

    code, _, err = grade_in_process(capfd, env, "--resume", str(run), "--limit", "2", "--cannot-assess", "fail")
    assert code == 2 and "(cannot_assess changed)" in err

    edited = dict(DATASET, prompt="What is 7*6?")
    (env / "calibration.dataset.json").write_text(json.dumps(edited))
    code, _, err = grade_in_process(capfd, env, "--resume", str(run), "--limit", "2")
    assert code == 2 and "(the file's content changed)" in err
    assert judge_server.call_count == asked  # refused before any call

    code, _, err = grade_in_process(capfd, env, "--run", str(run), "--limit", "2")
    assert code == 2 and "already holds a run" in err and "--resume" in err
    code, _, err = grade_in_process(capfd, env, "--resume", str(env / "missing.sqlite"))
    assert code == 2 and "no run file" in err
    (env / "junk.sqlite").write_text("not a database, just text that is long enough to be read as a header")
    code, _, err = grade_in_process(capfd, env, "--resume", str(env / "junk.sqlite"))
    assert code == 2 and err.count("\n") == 1 and "cannot open the run file" in err


def test_a_run_file_from_before_an_option_existed_resumes_when_the_option_is_at_its_default(tmp_path):
    """A format's new grading option (promptfoo's ``swap``) is absent from run files written before it:
    they hold its default, so they resume; a resume asking another value is refused naming it."""
    from rubric_lsp.engine.store.run_file import RunFile, RunFileError

    path = tmp_path / "old.run.sqlite"
    old = {"format": 1, "file_sha256": "ab", "kind": "dataset", "limit": None}
    RunFile.create(path, old).close()
    RunFile.resume(path, {**old, "swap": False}, {"swap": False}).close()
    with pytest.raises(RunFileError, match="swap changed"):
        RunFile.resume(path, {**old, "swap": True}, {"swap": False})
    with pytest.raises(RunFileError, match="swap changed"):  # no default known: a new field differs
        RunFile.resume(path, {**old, "swap": False})
