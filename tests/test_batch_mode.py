"""``rubric grade DATASET --batch``: judge calls through OpenAI's batch API (litellm's files + batches calls)
against tests/fake_batches.py on the scripted judge: the same verdicts and figures as live grading, failed
lines and expired batches as judge failures, a resume after SIGKILL that collects the submitted batch
instead of submitting it again, and no API key in the uploaded file or the run file."""

from __future__ import annotations

import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from rubric_lsp.cli import main
from tests.calibration import dataset, reply_for
from tests.conftest import database, use_judge
from tests.judge_server import Reply

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-test-batch-mode-0123456789"
ITEMS = 6
CALLS = ITEMS * 2

DATASET = dataset(ITEMS, "batch")
SUBPROCESS_SECONDS = 300  # for a `rubric grade` process's step: generous, still finite


def verdict(request) -> Reply:
    text = request.text
    usage = {"prompt_tokens": 50 + len(text) % 17, "completion_tokens": 9, "total_tokens": 59 + len(text) % 17}
    return reply_for(text, usage=usage)


@pytest.fixture
def env(judge_server, tmp_path, monkeypatch):
    judge_server.default = verdict
    use_judge(monkeypatch, judge_server, KEY, tmp_path / "cache")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "calibration.dataset.json").write_text(json.dumps(DATASET))
    return tmp_path


def grade_args(env: Path, *flags: str) -> list[str]:
    dataset = str(env / "calibration.dataset.json")
    return ["grade", dataset, "--format", "json", "--no-cache", "--batch-poll", "0.05", *flags]


def grade(capfd, env: Path, *flags: str) -> tuple[int, str, str]:
    code = main(grade_args(env, *flags))
    out, err = capfd.readouterr()
    return code, out, err


def posts(judge_server, path: str) -> int:
    return sum(1 for r in judge_server.requests if r.path.rstrip("/") == path)


def replies(run: Path) -> dict[str, tuple[str, dict]]:
    with database(run) as db:
        return {
            key: (content, json.loads(usage))
            for key, content, usage in db.execute("SELECT key, content, usage FROM replies")
        }


def test_batch_grading_gives_the_live_verdicts_and_figures(env, judge_server, capfd):
    code, live, err = grade(capfd, env, "--run", str(env / "live.sqlite"))
    assert code == 0, err
    assert judge_server.call_count == CALLS
    judge_server.reset()
    judge_server.default = verdict

    run = env / "run.sqlite"
    judge_server.batches.in_progress_polls = 12  # polled 12 times while in progress: one status line
    code, batched, err = grade(capfd, env, "--batch", "--run", str(run))
    assert code == 0, err
    assert judge_server.call_count == 0  # no live call: everything went through the batch
    assert err.count("batch batch_1: in_progress, 0/12 done, 0 failed") == 1  # a status line per change
    assert posts(judge_server, "/v1/files") == 1 and posts(judge_server, "/v1/batches") == 1
    assert "batch batch_1: completed, 12/12 done, 0 failed" in err
    assert judge_server.batches.downloads == {"file-out-batch_1": 1}  # read once (litellm's own pricing is off)
    # Identical output: verdicts, reasons, agreement figures and usage (calls, tokens, cost).
    assert json.loads(batched) == json.loads(live)
    # Call by call: the same requests (keys), replies and usage (one request each, tokens, cost).
    assert replies(run) == replies(env / "live.sqlite")
    assert {usage["calls"] for _, usage in replies(run).values()} == {1}
    assert sum(usage["prompt_tokens"] for _, usage in replies(run).values()) > 50 * CALLS

    # The uploaded file holds the requests, never the key; nor does the run file.
    judge_server.assert_never_saw(KEY)
    uploaded = judge_server.batches.files["file-1"].decode()
    assert uploaded.count('"url":"/v1/chat/completions"') == CALLS and '"model":"judge"' in uploaded
    stored = run.read_bytes() + b"".join(p.read_bytes() for p in env.glob("run.sqlite*"))
    assert KEY.encode() not in stored
    with database(run) as db:
        rows = db.execute("SELECT batch_id, status, resolved, keys FROM batches").fetchall()
    assert [(r[0], r[1], r[2], len(json.loads(r[3]))) for r in rows] == [("batch_1", "completed", 1, CALLS)]

    # Resuming the finished run replays it: no upload, no batch, same figures.
    code, again, err = grade(capfd, env, "--batch", "--resume", str(run))
    assert code == 0, err
    assert json.loads(again) == json.loads(live)
    assert posts(judge_server, "/v1/files") == 1 and posts(judge_server, "/v1/batches") == 1


def test_a_dataset_larger_than_the_live_window_is_one_batch(env, judge_server, capfd):
    # A dataset is graded through a window of 4 × concurrency items (engine/windowed.py); at
    # concurrency 1 that is 4 of the 6 items. The collect pass goes through the window too, and every
    # item's calls must reach the batch file before the batch goes out: one batch, not one a window,
    # each waiting on the provider in turn.
    code, out, err = grade(capfd, env, "--batch", "--run", str(env / "run.sqlite"), "--concurrency", "1")
    assert code == 0, err
    assert posts(judge_server, "/v1/batches") == 1
    assert "batch batch_1: completed, 12/12 done, 0 failed" in err
    assert len(json.loads(out)["items"]) == ITEMS


def test_failed_lines_are_judge_failures_not_verdicts(env, judge_server, capfd):
    judge_server.when("answer 2", Reply.server_error(503))
    judge_server.when(lambda r: "answer 4" in r.text and "Shows the working" in r.text, Reply.rate_limited())
    _code, out, err = grade(capfd, env, "--batch", "--run", str(env / "run.sqlite"))
    items = json.loads(out)["items"]
    failed = {n: item["verdicts"] for n, item in enumerate(items) if "ERROR" in item["verdicts"]}
    assert failed == {2: ["ERROR", "ERROR"], 4: ["MET", "ERROR"]}, err  # the failed lines, never a verdict
    assert "HTTP 503" in json.dumps(items[2]) and "HTTP 429" in items[4]["reasons"][1]
    assert len(replies(env / "run.sqlite")) == CALLS - 3  # a failed line is no reply: a resume asks it again


def test_an_expired_batch_fails_its_calls_with_a_message(env, judge_server, capfd):
    judge_server.batches.final_status = "expired"
    _code, out, err = grade(capfd, env, "--batch", "--run", str(env / "run.sqlite"))
    assert "batch_1: expired" in err
    items = json.loads(out)["items"]
    assert all("expired before the provider ran it" in json.dumps(item) for item in items)
    assert all(item["verdicts"] == ["ERROR", "ERROR"] for item in items)
    with database(env / "run.sqlite") as db:
        assert db.execute("SELECT count(*) FROM replies").fetchone()[0] == 0  # nothing recorded as a reply


def test_a_refused_upload_fails_every_call_without_quoting_the_key(env, judge_server, capfd):
    judge_server.batches.refuse = (401, f"Incorrect API key provided: {KEY}")
    _code, out, err = grade(capfd, env, "--batch", "--run", str(env / "run.sqlite"))
    items = json.loads(out)["items"]
    assert all(item["verdicts"] == ["ERROR", "ERROR"] for item in items), err
    assert all("while submitting a batch" in json.dumps(item) for item in items)
    assert KEY not in out + err


def test_batch_without_a_run_file_creates_one(env, judge_server, capfd):
    code, _out, err = grade(capfd, env, "--batch")
    assert code == 0, err
    made = list(env.glob("calibration.dataset.batch-*.run.sqlite"))
    assert len(made) == 1 and f"--resume {made[0].name}" in err


def test_an_unsupported_provider_is_refused_in_one_line(env, judge_server, capfd, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123456789")
    code, _out, err = grade(capfd, env, "--batch", "--model", "anthropic/claude-3-5-haiku", "--run", "r.sqlite")
    assert code == 2 and err.count("\n") == 1 and "grade it live" in err
    assert not (env / "r.sqlite").exists() and not judge_server.requests


def submitted(run: Path) -> bool:
    if not run.exists():
        return False
    try:
        with database(run) as db:
            return db.execute("SELECT count(*) FROM batches WHERE batch_id IS NOT NULL").fetchone()[0] == 1
    except sqlite3.OperationalError:  # the table is not created yet
        return False


@pytest.mark.parametrize(
    "stopped", ["after creating the batch", "between the upload and the batch's creation", "ctrl-c"]
)
def test_a_run_killed_after_submitting_its_batch_resumes_without_submitting_again(env, judge_server, capfd, stopped):
    code, live, err = grade(capfd, env)
    assert code == 0, err
    judge_server.reset()
    judge_server.default = verdict

    judge_server.batches.hold = True  # the batch stays in progress until released
    run = env / "run.sqlite"
    process = subprocess.Popen(
        [sys.executable, "-m", "rubric_lsp", *grade_args(env, "--batch", "--run", str(run))],
        cwd=env,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # Bounds that catch a hang, not a slow machine: the child imports litellm first (seconds
        # alone, over a minute measured at a load of 12 on the shared 2 cores).
        deadline = time.monotonic() + SUBPROCESS_SECONDS
        while not submitted(run):  # the batch is created and its id recorded: now it is paid for
            assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() < deadline, f"no batch submitted in {SUBPROCESS_SECONDS} s"
            time.sleep(0.05)
        process.send_signal(signal.SIGINT if stopped == "ctrl-c" else signal.SIGKILL)
        _, stopped_err = process.communicate(timeout=SUBPROCESS_SECONDS)
    finally:
        if process.poll() is None:  # a failed wait: leave no process behind
            process.kill()
            process.communicate()
    assert judge_server.batches.uploads == 1 and judge_server.batches.created == 1
    assert not any(b.cancelled for b in judge_server.batches.batches.values())  # paid for: never cancelled
    if stopped == "ctrl-c":
        assert process.returncode == 130
        assert f"batch batch_1 still runs at the provider; collect it with --resume {run}" in stopped_err
    created = 1
    if (
        stopped == "between the upload and the batch's creation"
    ):  # as if the kill landed before the batch id was recorded
        with database(run) as db:
            db.execute("UPDATE batches SET batch_id = NULL")
        created = 2

    judge_server.batches.hold = False
    code, resumed, err = grade(capfd, env, "--resume", str(run))  # batch mode resumes by itself
    assert code == 0, err
    assert f"batch_{created}: resumed" in err
    assert judge_server.batches.uploads == 1  # the recorded input file is never uploaded again
    assert judge_server.batches.created == created  # ... and a recorded batch never created again
    assert judge_server.call_count == 0
    assert json.loads(resumed) == json.loads(live)


def test_calls_that_depend_on_earlier_replies_go_in_further_batches(env, judge_server):
    """A grader with rounds (a later call needs an earlier reply) gets one batch per round; the
    rounds' replies parse exactly as live ones, through ``Judge.ask``; a pass that met a pending
    call is never the result."""
    import asyncio

    from rubric_lsp.engine.failures import JudgeFailure
    from rubric_lsp.engine.runner import Run
    from rubric_lsp.engine.settings import JudgeSettings
    from rubric_lsp.engine.sources import batch
    from rubric_lsp.engine.store.run_file import RunFile

    judge_server.default = lambda request: Reply.text(f"seen: {request.text}")
    statuses: list[str] = []
    passes: list[list[str]] = []

    async def rounds() -> list[str]:
        run_file = RunFile.create(env / "r.sqlite", {})
        mode = batch.BatchMode(run_file, poll_seconds=0.05, status=statuses.append)

        async def once() -> list[str]:
            run = Run.start(JudgeSettings(cache_enabled=False))

            async def chain(n: int) -> str:
                judge = run.fresh_judges()[0]  # graders make a judge per item: still one batch per round
                try:
                    first, _ = await judge.ask([{"role": "user", "content": f"q{n}"}], None, str)
                    second, _ = await judge.ask([{"role": "user", "content": f"then {first}"}], None, str)
                except JudgeFailure as failure:  # as a grader does: the failure is the item's outcome
                    return f"failed: {failure.kind}"
                return second

            outcome = list(await asyncio.gather(*(chain(n) for n in range(3))))
            passes.append(outcome)
            return outcome

        try:
            return await batch.grade_in_rounds(mode, once)  # activates the mode and its run file
        finally:
            run_file.close()

    assert asyncio.run(rounds()) == [f"seen: then seen: q{n}" for n in range(3)]
    assert judge_server.batches.created == 2 and [len(b.outputs) for b in judge_server.batches.batches.values()] == [
        3,
        3,
    ]
    assert sum("submitted 3 calls" in line for line in statuses) == 2
    # Three passes: collect round 1, replay + collect round 2, replay; the first two were discarded.
    assert passes[:2] == [["failed: pending"] * 3] * 2 and "pending" not in json.dumps(passes[2])
    assert judge_server.call_count == 0


def test_a_run_stopped_between_passes_resumes_from_its_recorded_replies(env, judge_server, capfd, monkeypatch):
    """The replies of a settled round are in the run file before the replay pass: a process that stops
    there resumes with no batch at all, and the pending outcomes of the collect pass never show."""
    from rubric_lsp.engine.sources import batch

    code, live, err = grade(capfd, env)
    assert code == 0, err
    judge_server.reset()
    judge_server.default = verdict

    settle = batch.BatchMode.settle_round

    class Stopped(Exception):
        pass

    async def settle_then_stop(self):
        await settle(self)
        raise Stopped  # the process dies right after the round was recorded, before the replay pass

    monkeypatch.setattr(batch.BatchMode, "settle_round", settle_then_stop)
    run = env / "run.sqlite"
    with pytest.raises(Stopped):
        main(grade_args(env, "--batch", "--run", str(run)))
    out, err = capfd.readouterr()
    assert out == "" and "pending" not in err  # the collect pass's result was never shown
    assert len(replies(run)) == CALLS
    monkeypatch.setattr(batch.BatchMode, "settle_round", settle)

    code, resumed, err = grade(capfd, env, "--batch", "--resume", str(run))
    assert code == 0, err
    assert json.loads(resumed) == json.loads(live) and "pending" not in resumed
    assert judge_server.batches.uploads == 1 and judge_server.batches.created == 1 and judge_server.call_count == 0


def test_result_files_are_streamed_to_a_temporary_file_and_parsed_from_it(env, judge_server, capfd, monkeypatch):
    # 50,000 result lines (~25 MB) held whole cost ~3x that at once, in memory the replay pass never got
    # back (bench_scale's --batch leg): the download takes litellm's streaming path into a temporary
    # file, which the replies are then parsed from a line at a time.
    from rubric_lsp.engine.sources import batch
    from rubric_lsp.engine.transports.via_litellm import load_litellm

    litellm = load_litellm()
    streamed: list[object] = []
    parsed_from: list[object] = []
    real_content, real_lines = litellm.afile_content, batch._lines

    async def afile_content(**kwargs):
        streamed.append(kwargs.get("stream"))
        return await real_content(**kwargs)

    def lines(results):
        parsed_from.append(results)
        return real_lines(results)

    monkeypatch.setattr(litellm, "afile_content", afile_content)
    monkeypatch.setattr(batch, "_lines", lines)
    code, out, err = grade(capfd, env, "--batch", "--run", str(env / "run.sqlite"))
    assert code == 0, err
    assert streamed == [True]
    assert len(parsed_from) == 1 and isinstance(parsed_from[0], io.BufferedRandom)  # a file, not bytes
    assert [item["score"] is not None for item in json.loads(out)["items"]] == [True] * ITEMS


def test_a_result_file_litellm_cannot_stream_is_taken_whole_on_a_line_of_its_own():
    # Azure: litellm streams file content for OpenAI(-compatible) providers only, else gives it whole.
    import asyncio

    from rubric_lsp.engine.sources import batch

    class Whole:
        content = b'{"custom_id": "a"}\n{"custom_id": "b"}'  # no newline at the end

    class Litellm:
        async def afile_content(self, **kwargs):
            return Whole()

    with tempfile.TemporaryFile() as sink:
        for file_id in ("file-out", "file-err"):
            asyncio.run(batch._download(Litellm(), file_id, "azure", {}, sink))
        sink.seek(0)
        assert [line["custom_id"] for line in batch._lines(sink)] == ["a", "b", "a", "b"]


def test_batch_lines_take_litellm_parameter_mapping_and_batch_prices(monkeypatch):
    from rubric_lsp.engine.sources import batch_results
    from rubric_lsp.engine.transports.via_litellm import load_litellm

    load_litellm()
    fields = {"model": "openai/gpt-5-mini", "messages": [{"role": "user", "content": "q"}], "temperature": 0.0}
    body = batch_results.body("openai/gpt-5-mini", {**fields, "max_tokens": 300, "api_base": "https://x/v1"})
    assert body == {"model": "gpt-5-mini", "messages": fields["messages"], "max_completion_tokens": 300}
    body = batch_results.body("gpt-4.1-mini", {**fields, "model": "gpt-4.1-mini"})
    assert body == {"model": "gpt-4.1-mini", "messages": fields["messages"], "temperature": 0.0}

    tokens = {"prompt_tokens": 700, "completion_tokens": 100}
    # litellm's batch prices where its map has them: gpt-4.1-mini at $0.20 / $0.80 per million tokens
    assert batch_results.line_cost("openai/gpt-4.1-mini", None, tokens) == pytest.approx(700 * 0.2e-6 + 100 * 0.8e-6)
    # else half the live price (an entry of our own: which models the map prices for batches, and
    # at what, changes with the litellm release; the oldest and newest allowed both run this)
    import litellm

    live_only = {"input_cost_per_token": 0.15e-6, "output_cost_per_token": 0.6e-6, "litellm_provider": "azure"}
    monkeypatch.setitem(litellm.model_cost, "azure/live-only-judge", live_only)
    half = (700 * 0.15e-6 + 100 * 0.6e-6) / 2
    assert batch_results.line_cost("azure/live-only-judge", None, tokens) == pytest.approx(half)
    assert batch_results.line_cost("openai/judge", "http://127.0.0.1:8000/v1", tokens) == 0.0  # a local server
    assert batch_results.line_cost("openai/unknown-model", None, tokens) is None  # no price known


def test_the_deadline_bounds_the_whole_wait_for_a_batch_that_never_finishes(env, judge_server, capfd):
    # One whole batch run first: litellm's import and the lazy imports of its files and batches
    # calls take seconds on shared cores (over a minute at a load of 12), which is not what is
    # measured here; the deadline below then lands while the batch is followed.
    code, _out, err = grade(capfd, env, "--batch", "--run", str(env / "warm.sqlite"))
    assert code == 0, err
    batch_id = f"batch_{judge_server.batches.created + 1}"
    judge_server.batches.hold = True  # in progress for ever
    run = env / "run.sqlite"
    started = time.monotonic()
    code, out, err = grade(capfd, env, "--batch", "--run", str(run), "--deadline", "3")
    elapsed = time.monotonic() - started
    # Before: the deadline bounded each pass, not the wait; still polling after 45 s.
    assert code == 2 and out == "" and elapsed < 20, (elapsed, err)
    assert f"did not finish within its deadline of 3 s (waiting for batch {batch_id} in_progress)" in err
    assert f"batch {batch_id} still runs at the provider; collect it with --resume {run}" in err
    assert "Traceback" not in err
    assert not judge_server.batches.batches[batch_id].cancelled  # paid for: never cancelled

    created = judge_server.batches.created
    judge_server.batches.hold = False
    code, out, err = grade(capfd, env, "--resume", str(run))
    assert code == 0, err
    assert judge_server.batches.created == created and len(json.loads(out)["items"]) == ITEMS


@pytest.mark.parametrize("tokens", ["12k", -3, 1.5, True, [12], {"n": 1}, None])
def test_a_result_line_whose_usage_is_not_a_number_fails_that_call_not_the_run(env, judge_server, capfd, tokens):
    def bad_usage(request) -> Reply:
        reply = verdict(request)
        if "answer 3" in request.text and "Gives the right answer" in request.text:
            reply.usage = {"prompt_tokens": tokens, "completion_tokens": 9}
        return reply

    judge_server.default = bad_usage
    run = env / "run.sqlite"
    _, out, err = grade(capfd, env, "--batch", "--run", str(run))
    assert "Traceback" not in err and "invalid literal" not in err, err
    items = json.loads(out)["items"]
    expected_errors = 0 if tokens is None else 1  # an absent count is a zero, as live
    assert sum(v == "ERROR" for item in items for v in item["verdicts"]) == expected_errors, err
    if tokens is not None:
        assert items[3]["verdicts"][0] == "ERROR" and "not a number of tokens" in items[3]["reasons"][0]
    assert len(replies(run)) == CALLS - expected_errors  # every other line recorded
    # ... and every resume works (before: "invalid literal for int()" at each one). It asks the failed call
    # again, live, where litellm refuses such a reply (a string or fractional count) as a failure it retries
    # with backoff (~6 s a test) to the same end: no retries.
    _, again, err = grade(capfd, env, "--resume", str(run), "--retries", "0")
    assert "Traceback" not in err, err
    assert len(json.loads(again)["items"]) == ITEMS


def test_result_lines_of_any_shape_fail_only_their_own_call(env, judge_server, capfd, monkeypatch):
    from rubric_lsp.engine.sources import batch

    shapes = iter(
        [
            {"response": {"status_code": 200, "body": {"choices": 5}}},
            {"response": {"status_code": 200, "body": {"choices": [{"message": {"content": 7}}]}}},
            {"response": {"status_code": 200, "body": {"choices": [{"message": {1: "x"}}]}}},
            {"response": "not an object"},
        ]
    )
    real_lines = batch._lines

    def mangled(results):
        for n, line in enumerate(real_lines(results)):
            if n % 3 == 0:
                shape = next(shapes, None)
                if shape is not None:
                    line = {"custom_id": line.get("custom_id"), **shape}
            yield line

    monkeypatch.setattr(batch, "_lines", mangled)
    _, out, err = grade(capfd, env, "--batch", "--run", str(env / "run.sqlite"))
    assert "Traceback" not in err, err
    verdicts = [v for item in json.loads(out)["items"] for v in item["verdicts"]]
    assert verdicts.count("ERROR") == 4 and len(verdicts) == CALLS


def test_a_call_answered_twice_in_a_batch_fails_named_instead_of_taking_the_first(
    env, judge_server, capfd, monkeypatch
):
    """A result file holding one custom_id twice: which reply is right cannot be told, so that call fails and
    says so; every other call is recorded (it silently took the first)."""
    from rubric_lsp.engine.sources import batch

    real_download = batch._download

    async def twice(litellm, file_id, provider, target, results):
        start = results.tell()
        await real_download(litellm, file_id, provider, target, results)
        results.seek(start)
        first = results.readline()
        results.seek(0, 2)
        if first.strip():
            results.write(first.rstrip(b"\n") + b"\n")  # the same call answered again

    monkeypatch.setattr(batch, "_download", twice)
    run = env / "run.sqlite"
    _, out, err = grade(capfd, env, "--batch", "--run", str(run))
    assert "Traceback" not in err, err
    items = json.loads(out)["items"]
    reasons = [r for item in items for r in item["reasons"] if r and "answered this call twice" in r]
    assert len(reasons) == 1, err
    assert sum(v == "ERROR" for item in items for v in item["verdicts"]) == 1
    assert len(replies(run)) == CALLS - 1
