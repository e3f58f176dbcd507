"""Dataset grading in bounded memory: items through a window, folded in the dataset's order as they land,
the same figures as grading them all at once; and the cheaper writes on that path (run file, verdict cache)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import random
import sqlite3
import time
from pathlib import Path

import pytest

from rubric_lsp.engine import (
    GradeRequest,
    JudgeSettings,
    RequestKind,
    grade,
)
from rubric_lsp.engine.store.cache import CACHE_FILE, KeyFilter, VerdictCache
from rubric_lsp.engine.store.run_file import RunFile
from rubric_lsp.engine.store.sqlite_writer import RowWriter
from rubric_lsp.engine.windowed import fold_in_order
from rubric_lsp.formats.autorubric.grading import agreement
from rubric_lsp.formats.autorubric.grading.agreement import bootstrap_kappas, cohen_kappa
from rubric_lsp.runtime import gc as collector
from tests.conftest import database
from tests.judge_server import Reply

# --- the window --------------------------------------------------------------------------


async def test_fold_in_order_keeps_at_most_the_window_unfolded_and_folds_in_order():
    started, folded, unfolded_peak = [], [], 0
    rng = random.Random(5)

    def work(n: int):
        async def item() -> int:
            await asyncio.sleep(rng.uniform(0, 0.01))  # lands out of order
            return n

        def start():
            nonlocal unfolded_peak
            started.append(n)
            unfolded_peak = max(unfolded_peak, len(started) - len(folded))
            return item()

        return start

    count = await fold_in_order((work(n) for n in range(60)), 7, folded.append)
    assert count == 60 and folded == list(range(60))
    assert unfolded_peak == 7


async def test_fold_in_order_cancels_the_rest_on_the_first_error():
    cancelled = []

    def work(n: int):
        async def item() -> int:
            try:
                await asyncio.sleep(0.001 if n == 3 else 1.0)
            except asyncio.CancelledError:
                cancelled.append(n)
                raise
            if n == 3:
                raise ValueError("item 3")
            return n

        return item

    with pytest.raises(ValueError, match="item 3"):
        await fold_in_order((work(n) for n in range(10)), 5, lambda _: None)
    await asyncio.sleep(0)  # the cancelled items run their handlers
    assert sorted(cancelled) == [0, 1, 2, 4]  # the window's others; items 5.. never started


# --- a dataset through the judge ----------------------------------------------------------

ITEMS = 40


def dataset() -> str:
    rubric = [
        {"name": "correct", "requirement": "Gives the right answer"},
        {
            "name": "tone",
            "requirement": "How polite is it?",
            "options": [
                {"label": "Rude", "value": 0},
                {"label": "Neutral", "value": 0.5},
                {"label": "Warm", "value": 1},
            ],
        },
    ]
    rng = random.Random(11)
    items = [
        {
            "submission": f"answer {n}: {rng.choice(['42', '41', 'no idea'])}",
            "description": f"item {n}",
            "ground_truth": [rng.choice(["MET", "UNMET", "CANNOT_ASSESS"]), rng.choice(["Rude", "Neutral", "Warm"])],
        }
        for n in range(ITEMS)
    ]
    return json.dumps({"prompt": "What is 6*7?", "rubric": rubric, "items": items}, indent=1)


def judge(request) -> Reply:
    """Varied verdicts and latencies (answers land out of the dataset's order), fixed per prompt."""
    digest = int(hashlib.sha256(request.text.encode()).hexdigest(), 16)
    delay = digest % 30
    if "numbered options" in request.text:
        return Reply.json({"selected_option": 1 + digest % 4, "explanation": "tone"}, delay_ms=delay)
    status = ("MET", "UNMET", "CANNOT_ASSESS")[digest % 3]
    return Reply.json({"criterion_status": status, "explanation": status.lower()}, delay_ms=delay)


async def grade_dataset(server, tmp_path, concurrency: int) -> dict:
    settings = JudgeSettings(
        model="openai/judge",
        api_base=server.base_url,
        concurrency=concurrency,
        cache_enabled=False,
        env={"OPENAI_API_KEY": "sk-test-dataset-scale-0123"},
    )
    result = await grade(GradeRequest(dataset(), str(tmp_path / "d.dataset.json"), RequestKind.DATASET), settings)
    return result.to_json()


async def test_items_go_through_a_window_and_the_figures_are_those_of_grading_all_at_once(
    judge_server, tmp_path, monkeypatch
):
    judge_server.default = judge
    active, peak = 0, 0
    score_response = agreement.score_response

    async def counting(*args, **kwargs):
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        try:
            return await score_response(*args, **kwargs)
        finally:
            active -= 1

    monkeypatch.setattr(agreement, "score_response", counting)  # what grade_dataset calls for each item
    windowed = await grade_dataset(judge_server, tmp_path, concurrency=2)
    assert 1 < peak <= agreement.ITEM_WINDOW_PER_CALL_SLOT * 2  # never every item at once
    assert judge_server.call_count == ITEMS * 2

    # Everything at once (a window as large as the dataset): what grade_dataset did before.
    monkeypatch.setattr(agreement, "ITEM_WINDOW_PER_CALL_SLOT", ITEMS)
    peak = 0
    at_once = await grade_dataset(judge_server, tmp_path, concurrency=2)
    assert peak == ITEMS
    assert windowed == at_once
    assert [item["index"] for item in windowed["items"]] == list(range(ITEMS))
    assert any(a["disagreeing"] for a in windowed["agreement"]) and windowed["agreement"][0]["kappa_interval"]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("weights", [None, "quadratic"])
def test_bootstrap_kappas_are_the_per_pair_resamples(seed, weights):
    # The counted bootstrap must give exactly (not approximately) what resampling pair by pair gives.
    rng = random.Random(seed)
    labels = [0, 1, 2, 3] if weights else ["MET", "UNMET"]
    # Skewed, so that some resamples miss a middle category (positions shift for the quadratic weights).
    pairs = [(rng.choice(labels), rng.choices(labels, weights=[8, 1, 1, 8][: len(labels)])[0]) for _ in range(37)]
    draw = random.Random(len(pairs)).choices
    expected = [k for k in (cohen_kappa(draw(pairs, k=len(pairs)), weights) for _ in range(200)) if k is not None]
    assert bootstrap_kappas(pairs, 200, weights) == expected


# --- the writes on the path ---------------------------------------------------------------


SQL = "INSERT OR REPLACE INTO t (key, value) VALUES (?, ?)"


def count_rows(path, table: str = "replies") -> int:
    with database(path) as other:
        return int(other.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def test_run_file_replies_are_read_back_at_once_and_committed_by_the_writer_thread(tmp_path):
    path = tmp_path / "run.sqlite"
    run = RunFile.create(path, {"kind": "dataset"})
    try:
        with run._writer.lock:  # the writer thread cannot commit meanwhile
            run.put("k1", "reply one", {"calls": 1})
            run.put("k2", "reply two", {"calls": 1})
            assert run.get("k1").content == "reply one"  # seen before it is committed
            assert count_rows(path) == 0
        for _ in range(200):  # committed by the thread, without anyone asking
            if count_rows(path) == 2:
                break
            time.sleep(0.01)
        assert count_rows(path) == 2
        assert run.get("k2").content == "reply two" and run.get("k3") is None
        assert run.get("k1").usage == {"calls": 1}
    finally:
        run.close()
    resumed = RunFile.resume(path, {"kind": "dataset"})
    try:
        assert resumed.get("k1").usage == {"calls": 1}
    finally:
        resumed.close()


def test_run_file_close_commits_what_is_pending(tmp_path):
    path = tmp_path / "run.sqlite"
    run = RunFile.create(path, {"kind": "dataset"})
    with run._writer.lock:
        run.put("k", "reply", {})
    run.close()
    with database(path) as other:
        assert other.execute("SELECT content FROM replies").fetchall() == [("reply",)]


def test_row_writer_commits_many_rows_per_transaction_and_keeps_the_latest_put(tmp_path):
    path = str(tmp_path / "rows.sqlite")
    with database(path) as db:
        db.execute("CREATE TABLE t (key TEXT PRIMARY KEY, value TEXT)")
    writer = RowWriter(lambda: sqlite3.connect(path, isolation_level=None, check_same_thread=False), SQL)
    with writer.lock:
        for n in range(100):
            writer.put(str(n), (str(n), "first"))
        writer.put("7", ("7", "second"))  # put again before its commit: the later row wins
        assert writer.pending("7") == ("7", "second")
    writer.flush()
    assert writer.pending("7") is None
    with database(path) as db:
        assert db.execute("SELECT count(*) FROM t").fetchone()[0] == 100
        assert db.execute("SELECT value FROM t WHERE key = '7'").fetchone()[0] == "second"
    writer.close()


async def test_row_writer_rows_put_in_one_loop_turn_go_in_one_transaction(tmp_path):
    path = str(tmp_path / "rows.sqlite")
    with database(path) as db:
        db.execute("CREATE TABLE t (key TEXT PRIMARY KEY, value TEXT)")
    statements: list[str] = []

    def connect() -> sqlite3.Connection:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        db.set_trace_callback(statements.append)
        return db

    writer = RowWriter(connect, SQL)
    writer.put("first", ("first", "v"))
    writer.flush()  # the thread is running and idle
    statements.clear()
    for n in range(50):
        writer.put(str(n), (str(n), "v"))
        time.sleep(0.001)  # the thread would have time to commit each, if it were woken for each
    await asyncio.sleep(0)  # the turn ends: the thread is woken once
    writer.flush()
    assert statements.count("COMMIT") == 1
    writer.close()


async def test_row_writer_settled_holds_back_while_lag_or_more_rows_are_uncommitted(tmp_path):
    path = str(tmp_path / "rows.sqlite")
    with database(path) as db:
        db.execute("CREATE TABLE t (key TEXT PRIMARY KEY, value TEXT)")
    writer = RowWriter(lambda: sqlite3.connect(path, isolation_level=None, check_same_thread=False), SQL)
    writer.put("first", ("first", "v"))
    writer.flush()
    with writer.lock:  # the thread cannot commit
        for n in range(3):
            writer.put(str(n), (str(n), "v"))
        await asyncio.wait_for(writer.settled(lag=3), 1)  # three waiting: within a lag of 3
        held = asyncio.ensure_future(writer.settled(lag=2))
        await asyncio.sleep(0.05)
        assert not held.done()
    await asyncio.wait_for(held, 5)  # released by the thread's commit
    writer.close()


def test_row_writer_raises_a_failed_commit_at_every_later_use_and_never_hangs(tmp_path):
    path = str(tmp_path / "rows.sqlite")  # no table t: every commit fails
    writer = RowWriter(lambda: sqlite3.connect(path, isolation_level=None, check_same_thread=False), SQL)
    writer.put("k", ("k", "v"))
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        writer.flush()
    # Sticky: its rows are lost, and an owner that went on would record nothing more (a run file's
    # grading kept paying for judge calls on a full disk, issue 26).
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        writer.put("k2", ("k2", "v"))
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        writer.close()
    assert writer._thread is None  # the thread stopped all the same


def test_deferred_cache_writes_are_read_back_at_once_and_all_written_at_the_end(tmp_path):
    cache = VerdictCache(tmp_path / "cache")
    with cache.deferred():
        for n in range(50):
            cache.put(f"{n:064x}", f"verdict {n}")
            assert cache.get(f"{n:064x}") == f"verdict {n}"
    assert len(cache) == 50
    assert [p.name for p in (tmp_path / "cache").iterdir() if not p.name.startswith(CACHE_FILE)] == []
    fresh = VerdictCache(tmp_path / "cache")
    assert all(fresh.get(f"{n:064x}") == f"verdict {n}" for n in range(50))


def test_a_dataset_grading_answers_cache_misses_from_its_key_filter_without_a_query(tmp_path):
    folder = tmp_path / "cache"
    stored = [hashlib.sha256(f"stored {n}".encode()).hexdigest() for n in range(200)]
    earlier = VerdictCache(folder)
    for key in stored:
        earlier.put(key, f"verdict for {key}")
    cache = VerdictCache(folder)
    queries: list[str] = []
    cache._connection().set_trace_callback(queries.append)
    absent = [hashlib.sha256(f"absent {n}".encode()).hexdigest() for n in range(200)]
    with cache.deferred():
        queries.clear()
        assert all(cache.get(key) is None for key in absent)
        assert sum("FROM verdicts WHERE key" in q for q in queries) < 20  # the filter's false positives only
        assert all(cache.get(key) == f"verdict for {key}" for key in stored)  # every stored key still found
        cache.put(absent[0], "new")
        assert cache.get(absent[0]) == "new"
    cache.put(absent[1], "after")  # outside the block: looked up entry by entry again
    assert cache.get(absent[1]) == "after"


def _open_files_under(folder: Path) -> list[str]:
    found = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # (the listing's own descriptor, closed meanwhile)
            target = os.readlink(f"/proc/self/fd/{fd}")
            if target.startswith(str(folder)):
                found.append(target)
    return found


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="lists open files through /proc")
def test_a_verdict_cache_no_longer_used_closes_its_files_without_the_cyclic_collector(tmp_path):
    # Freed only by the cyclic collector, a cache kept its SQLite files open for good once gc.freeze had
    # caught it (at start-up, litellm's import, each dataset grading): the test suite passed 1,023 files.
    with collector.paused():
        cache = VerdictCache(tmp_path / "cache")
        cache.put("0" * 64, "written at once")  # (no event loop: the write connection)
        with cache.deferred():  # the writer thread's connection
            cache.put("1" * 64, "written by the thread")
        assert cache.get("0" * 64) == "written at once"  # the read connection
        assert _open_files_under(tmp_path)
        del cache
        assert _open_files_under(tmp_path) == []


def test_key_filter_has_no_false_negatives_and_few_false_positives():
    keys = KeyFilter(1000)
    added = [hashlib.sha256(str(n).encode()).hexdigest() for n in range(1000)]
    for key in added:
        keys.add(key)
    keys.add("not a digest")
    assert all(key in keys for key in added) and "not a digest" in keys
    others = [hashlib.sha256(f"other {n}".encode()).hexdigest() for n in range(10000)]
    assert sum(key in keys for key in others) < 400  # ~1.7 % expected


def test_cache_entries_of_an_older_version_are_still_read(tmp_path):
    key = "ab" + "0" * 62
    folder = tmp_path / "cache" / "ab"
    folder.mkdir(parents=True)
    (folder / f"{key}.json").write_text(json.dumps({"format": 1, "content": "an old verdict"}))
    cache = VerdictCache(tmp_path / "cache")
    assert cache.get(key) == "an old verdict" and cache.get("cd" + "0" * 62) is None
    cache.put(key, "a new verdict")
    assert VerdictCache(tmp_path / "cache").get(key) == "a new verdict"


def test_a_cache_folder_that_cannot_be_written_is_a_miss_not_a_failure(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    cache = VerdictCache(blocked / "cache")
    cache.put("k", "v")
    assert cache.get("k") is None and len(cache) == 0
    with cache.deferred():
        cache.put("k", "v")


def test_the_collector_is_quiet_within_the_outermost_block_and_as_it_was_after():
    import gc

    from rubric_lsp.engine.windowed import YOUNG_COLLECTION_THRESHOLD, quiet_collector

    before = gc.get_threshold()
    with quiet_collector():
        assert gc.get_threshold()[0] == max(before[0], YOUNG_COLLECTION_THRESHOLD)
        assert gc.get_freeze_count() > 0
        with quiet_collector():  # a second grading meanwhile
            pass
        assert gc.get_threshold()[0] == max(before[0], YOUNG_COLLECTION_THRESHOLD)  # the inner one restored nothing
    # Unfrozen unless something was frozen for good meanwhile (litellm's modules): tests/test_runtime_gc.py.
    assert gc.get_threshold() == before


# --- the CLI's event loop --------------------------------------------------------------------


def test_the_grading_result_is_never_formatted_by_the_loop_that_made_it():
    import threading

    from rubric_lsp.commands.grade_progress import run_loop as _run_loop

    assert threading.current_thread() is threading.main_thread()  # where asyncio.run installs its SIGINT handler
    formatted: list[str] = []

    class Huge:
        def __repr__(self) -> str:
            formatted.append("repr")
            return "Huge()"

    async def grade() -> Huge:
        return Huge()

    result = _run_loop(grade())
    assert isinstance(result, Huge) and formatted == []  # asyncio.run(grade()) formats it twice (CPython 3.11)
