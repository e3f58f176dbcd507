"""Run files under the faults a real machine produces (issue 26, items 1-3): a disk that fills up
during ``--run``, a damaged run file given to ``--resume``, and two processes on one run file. Each
test is built from its reproduction; the judge is tests/judge_server.py through litellm's HTTP path."""

from __future__ import annotations

import fcntl
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

import pytest

from rubric_lsp.engine.store import run_guard
from rubric_lsp.engine.store.run_guard import RunInUse, RunLock
from tests.calibration import reply_for
from tests.conftest import use_judge
from tests.run_faults import (
    CALLS,
    CONCURRENCY,
    damage_page,
    grade_in_process,
    recorded,
    rows_on_page,
    slow_verdict,
    start_grade,
    table_pages,
    write_dataset,
)


@pytest.fixture
def env(judge_server, tmp_path, monkeypatch):
    judge_server.default = slow_verdict(20)
    # The direct route: what a run file records does not depend on the transport.
    use_judge(monkeypatch, judge_server, "sk-test-run-faults-0123456789", tmp_path / "cache", direct=True)
    write_dataset(tmp_path)
    return tmp_path


@pytest.fixture
def uninterrupted(env, judge_server, capfd):
    """The figures of the dataset graded in one go (the judge server's counters reset after)."""
    code, out, err = grade_in_process(capfd, env)
    assert code == 0, err
    judge_server.reset()
    judge_server.default = slow_verdict(20)
    return json.loads(out)


def one_line(err: str) -> str:
    """The one line a refusal writes (besides the progress lines a run slower than 10 s writes)."""
    lines = [line for line in err.splitlines() if line.strip() and not re.match(r"rubric grade: \d+/\d+ done · ", line)]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# -- 1. a full disk ------------------------------------------------------------------------------


@pytest.fixture
def small_tmpfs(tmp_path):
    """A 96 KB tmpfs (a disk that really fills up: ENOSPC); skipped where mounting is not allowed."""
    folder = tmp_path / "small-disk"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", str(folder)], capture_output=True, check=False
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode(errors='replace').strip()}")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], check=False)


@pytest.mark.parametrize("disk", ["file-size-limit", "tmpfs"])
def test_a_full_disk_stops_the_run_before_its_next_judge_call_and_the_record_resumes(
    env, judge_server, uninterrupted, disk, request
):
    if disk == "tmpfs":
        run = request.getfixturevalue("small_tmpfs") / "run.sqlite"
        first = start_grade(env, "--run", str(run))
    else:  # the run file's WAL grows past 96 KB after a dozen commits
        run = env / "run.sqlite"
        first = start_grade(env, "--run", str(run), file_size_limit=96 * 1024)
    out, err = first.communicate(timeout=120)
    assert first.returncode == 2, err
    line = one_line(err)
    assert re.search(r"cannot write to the run file .*run\.sqlite: (database or disk is full|disk I/O error)", line)
    assert f"continue with --resume {run}" in line and "replies are recorded" in line
    assert out == ""
    asked = judge_server.call_count
    done = recorded(run)
    assert 0 < done < CALLS
    # Before: 817 calls paid, 56 replies kept. Now the calls after the failed write are never sent: only
    # those in flight then, and the replies of the commit that failed (at most the concurrency's worth
    # are ever waiting for one), were paid and not kept.
    assert asked - done <= 3 * CONCURRENCY, (asked, done)

    if disk == "tmpfs":  # space freed: the run file moves to a disk with room
        moved = env / "moved.sqlite"
        for suffix in ("", "-wal", "-shm"):
            if Path(f"{run}{suffix}").exists():
                moved.with_name(moved.name + suffix).write_bytes(Path(f"{run}{suffix}").read_bytes())
        run = moved
    final = start_grade(env, "--resume", str(run))
    out, err = final.communicate(timeout=120)
    assert final.returncode == 0, err
    assert json.loads(out) == uninterrupted
    assert judge_server.call_count - asked == CALLS - done  # exactly what the record lacked


# -- 2. a damaged run file -----------------------------------------------------------------------


@pytest.fixture
def finished_run(env, capfd, uninterrupted, judge_server):
    run = env / "run.sqlite"
    code, _, err = grade_in_process(capfd, env, "--run", str(run))
    assert code == 0, err
    assert not Path(f"{run}-wal").exists()  # checkpointed at close: every page is in the file
    judge_server.reset()
    judge_server.default = slow_verdict(20)
    return run


def test_a_corrupt_reply_page_is_refused_before_any_call_and_what_reads_is_salvaged(
    env, judge_server, capfd, finished_run, uninterrupted
):
    _, leaves = table_pages(finished_run, "replies")
    assert len(leaves) >= 3, "the replies must span several pages for this test"
    lost = rows_on_page(finished_run, leaves[1])
    damage_page(finished_run, leaves[1])  # a leaf's page type zeroed: a corrupt b-tree page

    code, _, err = grade_in_process(capfd, env, "--resume", str(finished_run))
    assert code == 2
    line = one_line(err)
    salvaged = env / "run.salvaged.sqlite"
    assert f"{finished_run} is damaged (SQLite's quick_check:" in line
    assert f"the {CALLS - lost} replies and the request that read cleanly are copied to {salvaged}" in line
    assert line.endswith(f"continue with --resume {salvaged}")
    assert judge_server.call_count == 0  # checked before any judge call (before: paid, then malformed)

    # The salvaged copy resumes to the uninterrupted figures, asking only the lost page's calls.
    code, out, err = grade_in_process(capfd, env, "--resume", str(salvaged))
    assert code == 0, err
    assert json.loads(out) == uninterrupted
    assert judge_server.call_count == lost
    # Refused again, the damaged file gets a second salvaged copy, never overwriting the first.
    code, _, err = grade_in_process(capfd, env, "--resume", str(finished_run))
    assert code == 2 and "run.salvaged-2.sqlite" in err


def test_a_damaged_meta_page_is_refused_in_one_line_with_nothing_to_salvage(env, judge_server, capfd, finished_run):
    root, _ = table_pages(finished_run, "meta")
    damage_page(finished_run, root)
    code, _, err = grade_in_process(capfd, env, "--resume", str(finished_run))
    assert code == 2
    line = one_line(err)
    assert "is damaged (SQLite's quick_check:" in line and "its request cannot be read" in line
    assert "start a new run with --run" in line
    assert judge_server.call_count == 0 and not (env / "run.salvaged.sqlite").exists()


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("42", "its request is a JSON int, not an object"),
        ("'[1, 2]'", "its request is a JSON list, not an object"),
        ("x'00ff'", "its request is stored as bytes, not text"),
        ("'{not json'", "Expecting property name"),
    ],
)
def test_a_meta_value_of_the_wrong_type_is_refused_in_one_line(env, judge_server, capfd, finished_run, value, says):
    with sqlite3.connect(finished_run) as db:
        db.execute(f"UPDATE meta SET value = {value} WHERE name = 'request'")
    db.close()
    code, _, err = grade_in_process(capfd, env, "--resume", str(finished_run))
    assert code == 2
    line = one_line(err)
    assert "does not hold a run request this version can read" in line and says in line
    assert judge_server.call_count == 0


def test_unreadable_rows_of_a_whole_file_are_asked_again_not_fatal(
    env, judge_server, capfd, finished_run, uninterrupted
):
    with sqlite3.connect(finished_run) as db:
        db.execute("UPDATE replies SET content = x'00ff' WHERE rowid IN (SELECT rowid FROM replies LIMIT 3)")
        db.execute("UPDATE replies SET usage = 7 WHERE rowid IN (SELECT rowid FROM replies LIMIT 3 OFFSET 3)")
        db.execute("INSERT INTO batches (input_file_id, model, keys, status) VALUES ('file-x', 'm', 'not json', 'x')")
        db.execute("DELETE FROM meta WHERE name = 'figures'")
    db.close()
    code, out, err = grade_in_process(capfd, env, "--resume", str(finished_run))
    assert code == 0, err
    assert judge_server.call_count == 3  # the replies that are not text; a usage that is not JSON counts as none
    assert json.loads(out)["items"] == uninterrupted["items"]


# -- 3. two processes on one run file ------------------------------------------------------------


def test_two_resumes_of_one_run_file_the_second_is_refused_naming_the_first(env, judge_server, uninterrupted):
    run = env / "run.sqlite"
    first = start_grade(env, "--run", str(run))
    while judge_server.call_count < 6:  # then stopped hard: replies recorded, most calls missing
        time.sleep(0.01)
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=60)
    done = recorded(run)
    asked = judge_server.call_count

    # The resumes always overlap: the judge answers no call until one of them has ended (the refused
    # one; the holder cannot end before its calls are answered). A judge delay made them overlap only
    # when both started within a second of each other, which a loaded machine does not promise.
    one_ended = threading.Event()

    def once_one_ended(request):
        one_ended.wait(120)
        return reply_for(request.text)

    judge_server.default = once_one_ended
    racers = [start_grade(env, "--resume", str(run)) for _ in range(2)]
    deadline = time.monotonic() + 120
    while all(p.poll() is None for p in racers) and time.monotonic() < deadline:
        time.sleep(0.01)
    one_ended.set()
    results = [(p, *p.communicate(timeout=120)) for p in racers]
    refused = [(p, err) for p, _, err in results if p.returncode == 2]
    finished = [(p, out) for p, out, _ in results if p.returncode == 0]
    assert len(refused) == 1 and len(finished) == 1, [(p.returncode, err) for p, _, err in results]
    (_, err), (winner, out) = refused[0], finished[0]
    line = one_line(err)
    assert f"{run} is in use by another rubric grade (pid {winner.pid} on " in line and "started 20" in line
    assert json.loads(out) == uninterrupted
    # Before: both asked every missing call (600 needed, ~1,200 paid). Now each is asked once.
    assert judge_server.call_count - asked == CALLS - done
    assert not Path(f"{run}.lock").exists()  # removed when the run ended


@pytest.mark.parametrize("trial", range(3))
def test_two_runs_to_one_new_path_one_is_refused_at_once_never_a_traceback(env, judge_server, trial):
    run = env / "new.sqlite"
    racers = [start_grade(env, "--run", str(run)) for _ in range(2)]
    results = [(p, *p.communicate(timeout=120)) for p in racers]
    codes = sorted(p.returncode for p, _, _ in results)
    assert codes == [0, 2], [(p.returncode, err) for p, _, err in results]
    err = next(err for p, _, err in results if p.returncode == 2)
    line = one_line(err)  # before: an IntegrityError traceback in 1 of 3 trials
    assert "is in use by another rubric grade (pid" in line or "already holds a run" in line
    assert judge_server.call_count == CALLS  # the refused one asked nothing
    assert recorded(run) == CALLS


def test_a_lock_left_by_a_killed_process_never_refuses_a_resume(env, judge_server, uninterrupted):
    run = env / "run.sqlite"
    first = start_grade(env, "--run", str(run))
    while judge_server.call_count < 4:
        time.sleep(0.01)
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=60)
    assert Path(f"{run}.lock").exists()  # left behind, but its lock died with the process
    final = start_grade(env, "--resume", str(run))
    out, err = final.communicate(timeout=120)
    assert final.returncode == 0, err
    assert json.loads(out) == uninterrupted
    assert not Path(f"{run}.lock").exists()


# -- the holder's record, read in the instant between its lock and its record ---------------------


@pytest.fixture(params=["reaped", "zombie"])
def killed_pid(request):
    """The pid of a process that has ended: reaped, or a zombie its parent has not waited for yet."""
    child = subprocess.Popen(["sleep", "0"])
    if request.param == "reaped":
        child.wait()
    else:
        while not Path(f"/proc/{child.pid}").exists() or b") Z" not in Path(f"/proc/{child.pid}/stat").read_bytes():
            time.sleep(0.01)
    yield child.pid
    child.wait()


def hold_without_record(run: Path, record_of: int) -> int:
    """A lock file left by the killed ``record_of``, locked again by a holder that has not written its
    own record yet (what a second process sees while the first is between ``flock`` and ``write``)."""
    lock_file = Path(f"{run}.lock")
    lock_file.write_text(json.dumps({"pid": record_of, "host": socket.gethostname(), "started": time.time() - 60}))
    fd = os.open(lock_file, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def test_a_process_refused_as_the_holder_writes_its_record_names_the_holder_never_a_killed_one(tmp_path, killed_pid):
    run = tmp_path / "run.sqlite"
    fd = hold_without_record(run, killed_pid)
    me = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()}).encode()
    writes = threading.Timer(0.2, lambda: (os.ftruncate(fd, 0), os.pwrite(fd, me, 0)))
    writes.start()
    try:
        with pytest.raises(RunInUse) as refused:
            RunLock(run).acquire(run)
    finally:
        writes.cancel()
        writes.join()  # (before the descriptor it writes to is closed)
        os.close(fd)
    assert f"in use by another rubric grade (pid {os.getpid()} on {socket.gethostname()}, started 20" in str(
        refused.value
    )


def test_a_holder_that_never_writes_its_record_is_not_named_and_the_refusal_waits_at_most_a_moment(
    tmp_path, killed_pid, monkeypatch
):
    monkeypatch.setattr(run_guard, "HOLDER_WAIT_SECONDS", 0.3)
    run = tmp_path / "run.sqlite"
    fd = hold_without_record(run, killed_pid)
    started = time.monotonic()
    try:
        with pytest.raises(RunInUse) as refused:
            RunLock(run).acquire(run)
    finally:
        os.close(fd)
    assert "(its pid is not recorded yet)" in str(refused.value) and f"pid {killed_pid}" not in str(refused.value)
    assert 0.3 <= time.monotonic() - started < 5


def test_a_holder_that_ends_while_its_record_is_awaited_leaves_the_lock_to_the_waiter(tmp_path, killed_pid):
    run = tmp_path / "run.sqlite"
    fd = hold_without_record(run, killed_pid)
    ends = threading.Timer(0.2, lambda: (os.unlink(f"{run}.lock"), os.close(fd)))  # as RunLock.release does
    ends.start()
    lock = RunLock(run)
    lock.acquire(run)
    ends.join()
    try:
        assert json.loads(Path(f"{run}.lock").read_text())["pid"] == os.getpid()
    finally:
        lock.release()
