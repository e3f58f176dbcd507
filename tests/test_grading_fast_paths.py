"""The grading path's shortcuts give the answers of the long ways they replace (issue 36: grading CPU per
judge call against a bare client's).

A judge's option number read without pydantic when it is a plain int; the reply reader's decoder and
encoder built once; the verdict cache's rows committed together (``RowWriter``'s ``linger``); the
interpreter's last collection skipped when ``rubric grade`` ends its process (``no_sweep_at_exit``)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pydantic import TypeAdapter, ValidationError

from rubric_lsp.cli import main
from rubric_lsp.engine import replies
from rubric_lsp.engine.store.cache import CACHE_FILE, DEFERRED_LINGER_SECONDS, VerdictCache
from rubric_lsp.engine.store.run_file import RECORD_LINGER_SECONDS
from rubric_lsp.engine.store.sqlite_writer import RowWriter
from rubric_lsp.formats.autorubric.grading.prompt import lax_int
from tests.calibration import dataset, reply_for
from tests.conftest import database, use_judge

ROOT = Path(__file__).resolve().parent.parent

SQL = "INSERT OR REPLACE INTO t (key, value) VALUES (?, ?)"


def _pydantic_int(value: object) -> int | None:
    try:
        return TypeAdapter(int).validate_python(value)
    except ValidationError:
        return None


def test_lax_int_reads_every_value_as_pydantic_does():
    rng = random.Random(36)
    ints = [0, 1, -1, 2**31, 2**63, -(2**63) - 1, 2**200, *(rng.randint(-(10**30), 10**30) for _ in range(200))]
    others = [True, False, 2.0, -3.0, 2.5, float("nan"), "2", " 2 ", "2.0", "two", "", None, [2], {"a": 2}, b"2"]
    for value in [*ints, *others]:
        got = lax_int(value)
        assert got == _pydantic_int(value) and type(got) is type(_pydantic_int(value)), value


def test_a_judge_answering_with_a_number_is_read_without_importing_pydantic():
    """pydantic is ~0.1 s of a grading's start-up; only a number that is not a plain int needs it."""
    code = (
        "import sys\n"
        "from rubric_lsp.formats.autorubric.grading.prompt import parse_choice\n"
        'assert parse_choice(\'{"selected_option": 2, "explanation": "Warm."}\', 3) == (1, \'Warm.\', False)\n'
        "print('pydantic' in sys.modules)\n"
        'assert parse_choice(\'{"selected_option": "3", "explanation": "Warm."}\', 3)[0] == 2\n'
        "print('pydantic' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split() == ["False", "True"]


def test_the_reply_reader_s_shared_encoder_and_decoder_answer_as_fresh_ones(monkeypatch):
    values = [
        "MET",
        2,
        2.0,
        None,
        True,
        {"b": 1, "a": [1, {"d": "é", "c": None}]},
        ["x", 1.5],
        {"z": object.__name__},
    ]
    for value in values:
        assert replies._VERDICT_KEY.encode(value) == json.dumps(value, sort_keys=True, default=str)
    texts = [
        'x {"a": 1} y {"b": [1, {"c": 2}]} {broken {"d": "}"}',
        '{"criterion_status": "MET"}{"criterion_status": "UNMET", "explanation": "no"}',
        "no object at all",
        '{"a": {"nested": true}} trailing {',
    ]
    shared = replies._DECODER
    for _ in range(2):  # a second pass: nothing the first left behind changes the answer
        for text in texts:
            with monkeypatch.context() as fresh:  # the long way: a decoder made for this text alone
                fresh.setattr(replies, "_DECODER", json.JSONDecoder())
                found = replies.json_objects(text)
            assert replies._DECODER is shared and replies.json_objects(text) == found
    assert replies.json_objects(texts[0]) == [{"a": 1}, {"b": [1, {"c": 2}]}, {"d": "}"}]
    both = replies.extract(texts[1], lambda o: "criterion_status" in o, lambda o: o.get("criterion_status"))
    assert both is not None and both.ambiguous and both.candidates == 2


def _table(path: str) -> None:
    with database(path) as db:
        db.execute("CREATE TABLE t (key TEXT PRIMARY KEY, value TEXT)")


def _count(path: str) -> int:
    with database(path) as db:
        return int(db.execute("SELECT count(*) FROM t").fetchone()[0])


async def test_a_lingering_writer_commits_rows_of_many_loop_turns_together(tmp_path):
    path = str(tmp_path / "rows.sqlite")
    _table(path)
    statements: list[str] = []

    def connect() -> sqlite3.Connection:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        db.set_trace_callback(statements.append)
        return db

    writer = RowWriter(connect, SQL, linger=3600.0)  # no wake within the test: only flush commits
    writer.put("first", ("first", "v"))
    writer.flush()
    statements.clear()
    for n in range(50):
        writer.put(str(n), (str(n), "v"))
        await asyncio.sleep(0)  # a loop turn ends: a writer without linger would commit here
        assert writer.pending(str(n)) == (str(n), "v")  # read back before it is committed
    assert _count(path) == 1
    writer.flush()  # does not wait out the linger
    assert statements.count("COMMIT") == 1 and _count(path) == 51
    writer.close()


async def test_a_lingering_writer_commits_without_being_asked(tmp_path):
    path = str(tmp_path / "rows.sqlite")
    _table(path)
    writer = RowWriter(lambda: sqlite3.connect(path, isolation_level=None, check_same_thread=False), SQL, 0.01)
    for n in range(10):
        writer.put(str(n), (str(n), "v"))
        await asyncio.sleep(0)
    for _ in range(1000):
        if _count(path) == 10:
            break
        await asyncio.sleep(0.01)
    assert _count(path) == 10
    writer.close()


async def test_a_lingering_writer_commits_at_once_for_a_caller_held_back_by_settled(tmp_path):
    """The run file lingers too (``RECORD_LINGER_SECONDS``): its kill bound (``recorded``) must never wait
    out a linger, or every judge call held back by it would wait as long."""
    assert RECORD_LINGER_SECONDS > 0
    path = str(tmp_path / "rows.sqlite")
    _table(path)
    writer = RowWriter(lambda: sqlite3.connect(path, isolation_level=None, check_same_thread=False), SQL, 3600.0)
    writer.put("first", ("first", "v"))
    writer.flush()  # the thread is up and idle
    for n in range(3):
        writer.put(str(n), (str(n), "v"))
    await asyncio.sleep(0.05)
    assert _count(path) == 1  # lingering
    await asyncio.wait_for(writer.settled(lag=1), 10)  # a caller that may leave at most one uncommitted
    assert _count(path) == 4
    writer.close()


async def test_a_dataset_grading_s_cache_lingers_and_keeps_every_entry(tmp_path):
    assert DEFERRED_LINGER_SECONDS > 0
    cache = VerdictCache(tmp_path / "cache")
    with cache.deferred():
        for n in range(30):
            cache.put(f"{n:064x}", f"verdict {n}")
            await asyncio.sleep(0)
            assert cache.get(f"{n:064x}") == f"verdict {n}"
    fresh = VerdictCache(tmp_path / "cache")
    assert [fresh.get(f"{n:064x}") for n in range(30)] == [f"verdict {n}" for n in range(30)]


@pytest.mark.parametrize("linger", [0.0, 0.05])
async def test_a_writer_s_wake_on_a_closed_loop_loses_no_row(tmp_path, linger):
    """A loop that ends before its scheduled wake ran: the rows are committed at the next flush or close."""
    path = str(tmp_path / "rows.sqlite")
    _table(path)
    writer = RowWriter(lambda: sqlite3.connect(path, isolation_level=None, check_same_thread=False), SQL, linger)

    async def put_some() -> None:
        for n in range(5):
            writer.put(str(n), (str(n), "v"))

    await asyncio.get_running_loop().run_in_executor(None, asyncio.run, put_some())
    time.sleep(0.01)
    writer.close()
    assert _count(path) == 5


def test_no_sweep_at_exit_freezes_what_exists_when_the_process_exits_and_only_then():
    code = (
        "import atexit, gc\n"
        "atexit.register(lambda: print('frozen at exit:', gc.get_freeze_count() > 0))\n"  # runs after the hook
        "from rubric_lsp.runtime import gc as collector\n"
        "collector.no_sweep_at_exit(); collector.no_sweep_at_exit()\n"
        "print('frozen before:', gc.get_freeze_count() > 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.splitlines() == ["frozen before: False", "frozen at exit: True"]
    assert done.stderr == ""


def test_a_graded_dataset_s_process_leaves_the_output_run_file_and_cache_of_an_in_process_grading(
    judge_server, tmp_path, monkeypatch, capfd
):
    """The process's last collection skipped (``no_sweep_at_exit``): what it wrote is whole, as in-process."""
    judge_server.default = lambda request: reply_for(request.text)
    # Both gradings take the direct route: what is compared does not depend on the transport.
    use_judge(monkeypatch, judge_server, "sk-test-fast-paths-0123456789", direct=True)
    data = tmp_path / "calibration.dataset.json"
    data.write_text(json.dumps(dataset(6, "sweep")))
    written = {}
    for where in ("in-process", "subprocess"):
        folder = tmp_path / where
        folder.mkdir()
        monkeypatch.setenv("RUBRIC_CACHE_DIR", str(folder / "cache"))
        args = ["grade", str(data), "--format", "json", "--concurrency", "3", "--run", str(folder / "run.sqlite")]
        if where == "in-process":
            assert main(args) == 0
            out, err = capfd.readouterr()
        else:
            environ = dict(os.environ, PYTHONPATH=str(ROOT))
            done = subprocess.run(
                [sys.executable, "-m", "rubric_lsp", *args], capture_output=True, text=True, env=environ, timeout=300
            )
            assert done.returncode == 0, done.stderr
            out, err = done.stdout, done.stderr
        with database(folder / "run.sqlite") as run, database(folder / "cache" / CACHE_FILE) as cache:
            rows = run.execute("SELECT key, content FROM replies ORDER BY key").fetchall()
            entries = cache.execute("SELECT key, content FROM verdicts ORDER BY key").fetchall()
        written[where] = (json.loads(out), rows, entries, "Exception ignored" in err)
    assert written["subprocess"] == written["in-process"]
    assert len(written["subprocess"][1]) == len(written["subprocess"][2]) == 12
