"""Seeded, bounded fault campaign over the grading's stored state (issue 26): run files with random
pages damaged, the verdict cache damaged or locked at random moments, batch result lines mangled at
random. Modelled on SQLite's own fault-injection testing: whatever the fault, ``rubric grade`` ends
with a result or one line saying what failed (never a traceback), refuses a damaged run file before
any judge call, and lets a bad batch line fail only its own call. The seeds are fixed, so a failure
reproduces; the mutant counts bound the time (about a minute on two shared cores)."""

from __future__ import annotations

import io
import json
import random
import re
import shutil
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from rubric_lsp.engine.store.cache import CACHE_FILE, VerdictCache
from tests.calibration import reply_for
from tests.conftest import use_judge
from tests.run_faults import CALLS, ITEMS, PAGE, damage_page, grade_args, grade_in_process, write_dataset

RUN_MUTANTS = 10
CACHE_MUTANTS = 6
BATCH_MUTANTS = 6


@pytest.fixture
def env(judge_server, tmp_path, monkeypatch):
    judge_server.default = lambda request: reply_for(request.text)
    use_judge(monkeypatch, judge_server, "sk-test-fault-campaign-0123456789", tmp_path / "cache")
    monkeypatch.delenv(
        "RUBRIC_JUDGE_TRANSPORT", raising=False
    )  # the direct route (batch mode uses litellm's files API)
    write_dataset(tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def without_progress(err: str) -> list[str]:
    return [
        line
        for line in err.splitlines()
        if line.strip() and not re.match(r"rubric grade: (\d+/\d+ done|batch \S+: )", line)
    ]


def assert_graded_or_one_line(code: int, out: str, err: str) -> dict[str, Any] | None:
    assert "Traceback" not in err and "never retrieved" not in err, err
    if code == 2 and out == "":  # refused: one line, nothing graded
        assert len(without_progress(err)) == 1, err
        return None
    if code == 2:  # graded, but some judgment failed: the result says so, and so does one line
        assert [line for line in without_progress(err) if line.startswith("rubric grade: incomplete:")], err
        result = json.loads(out)
        assert result["incomplete"], result.get("incomplete")
        assert len(result["items"]) == ITEMS
        return result
    assert code in (0, 1), err
    result = json.loads(out)
    assert len(result["items"]) == ITEMS
    return result


def damage_at_random(path: Path, rng: random.Random) -> str:
    pages = path.stat().st_size // PAGE
    number = rng.randint(1, pages)
    how = rng.choice(["type", "header", "cells", "zeros"])
    if how == "type":
        damage_page(path, number, 0 if number > 1 else 100, bytes([rng.choice([0, 1, 3, 0x0B, 0xFF])]))
    elif how == "header":
        damage_page(path, number, 1 if number > 1 else 101, rng.randbytes(7))
    elif how == "cells":
        damage_page(path, number, rng.randint(12, PAGE - 32), rng.randbytes(rng.randint(1, 32)))
    else:
        damage_page(path, number, 0, bytes(PAGE))
    return f"page {number}/{pages}: {how}"


def test_run_files_with_random_pages_damaged(env, judge_server, capfd):
    run = env / "whole.sqlite"
    code, out, err = grade_in_process(capfd, env, "--run", str(run))
    assert code == 0, err
    uninterrupted = json.loads(out)
    rng = random.Random(2026)
    outcomes = []
    for n in range(RUN_MUTANTS):
        mutant = env / f"mutant-{n}.sqlite"
        shutil.copyfile(run, mutant)
        what = ", ".join(damage_at_random(mutant, rng) for _ in range(rng.randint(1, 3)))
        asked = judge_server.call_count
        code, out, err = grade_in_process(capfd, env, "--resume", str(mutant))
        result = assert_graded_or_one_line(code, out, err)
        outcomes.append("resumed" if result is not None else "refused")
        if result is None:
            assert judge_server.call_count == asked, (what, err)  # refused before any judge call
            salvaged = re.search(r"continue with --resume (\S+salvaged\S*\.sqlite)", err)
            if salvaged:
                outcomes.append("salvaged")
                code, out, err = grade_in_process(capfd, env, "--resume", salvaged.group(1))
                assert code == 0, (what, err)
                assert json.loads(out)["items"] == uninterrupted["items"], what
        assert judge_server.call_count - asked <= CALLS, what
    assert {"refused", "salvaged"} <= set(outcomes), outcomes  # the seed still reaches both outcomes


def test_the_verdict_cache_damaged_or_locked_at_random_moments(env, judge_server, capfd):
    cache_file = env / "cache" / CACHE_FILE
    args = grade_args(env)
    args.remove("--no-cache")
    from rubric_lsp.cli import main

    assert main(args) == 0  # a warm cache
    expected = json.loads(capfd.readouterr()[0])["items"]
    rng = random.Random(26)
    took_the_lock: list[str] = []
    for n in range(CACHE_MUTANTS):
        fault = ("damaged", "garbage", "locked")[n % 3]  # each kind in turn, its details at random
        guard = threading.Lock()
        state: dict[str, Any] = {"holder": None, "closed": False}
        if fault == "damaged":
            what = damage_at_random(cache_file, rng)
        elif fault == "garbage":
            cache_file.write_bytes(rng.randbytes(rng.randint(0, 3 * PAGE)))
            what = "garbage"
        else:
            shutil.rmtree(env / "cache")  # a cold cache: every reply is a write that meets the lock
            (env / "cache").mkdir()
            VerdictCache(env / "cache").put("0" * 64, "an entry of an earlier grading")  # the file, in WAL mode
            when = rng.randint(1, CALLS // 2)  # (at 0 the lock races the grading's own first cache write)
            what = f"locked after {when} calls"
            start = judge_server.call_count

            def lock_then_reply(request, when=when, start=start, guard=guard, state=state):
                with guard:  # the holder is opened, used and closed under it: never used after close
                    if state["holder"] is None and not state["closed"] and judge_server.call_count - start >= when:
                        held = sqlite3.connect(cache_file, isolation_level=None, check_same_thread=False, timeout=0.5)
                        try:
                            held.execute("BEGIN IMMEDIATE")
                        except sqlite3.OperationalError:  # the grading's writer held it at that instant: next call
                            held.close()
                        else:
                            state["holder"] = held
                return reply_for(request.text)

            judge_server.default = lock_then_reply
        started = time.monotonic()
        code = main(args)
        out, err = capfd.readouterr()
        elapsed = time.monotonic() - started
        with guard:
            state["closed"] = True
            held = state["holder"]
            if held is not None:
                took_the_lock.append(what)
                held.execute("ROLLBACK")
                held.close()
        judge_server.default = lambda request: reply_for(request.text)
        assert code == 0 and "Traceback" not in err, (what, err)
        assert elapsed < 20, (what, elapsed)  # never a busy timeout per write
        items = json.loads(out)["items"]
        if fault != "damaged":  # (a damaged page may change what a cached entry says, as any cache)
            assert items == expected, what
        if cache_file.exists() and fault != "locked":
            cache_file.unlink()  # the next mutant starts from a cache this grading rebuilt
            for side in ("-wal", "-shm"):
                Path(f"{cache_file}{side}").unlink(missing_ok=True)
            assert main(args) == 0
            capfd.readouterr()
    assert took_the_lock, "no locked mutant held the lock while its grading ran"


MUTATIONS = [
    ("usage", lambda rng: {"prompt_tokens": rng.choice(["12k", -1, 2.5, None, [], {}, True, 10**30, "NaN"])}),
    ("body", lambda rng: rng.choice([None, 5, "text", [], {"choices": None}])),
    ("choices", lambda rng: rng.choice([5, "x", [None], [{"message": None}], [{"message": {"content": 7}}]])),
    ("status", lambda rng: rng.choice([200, 500, "200", None, 99999])),
    ("truncate", lambda rng: rng.randint(1, 60)),
    ("custom_id", lambda rng: rng.choice([None, 12, "unknown"])),
]


def mangle(line: bytes, rng: random.Random) -> tuple[bytes, str]:
    name, value_for = rng.choice(MUTATIONS)
    value = value_for(rng)
    if name == "truncate":
        return line[:value] + b"\n", f"truncated at {value}"
    entry = json.loads(line)
    response = entry.get("response") or {}
    body = response.get("body") if isinstance(response, dict) else None
    if name == "usage" and isinstance(body, dict):
        body["usage"] = value
    elif name == "body" and isinstance(response, dict):
        response["body"] = value
    elif name == "choices" and isinstance(body, dict):
        body["choices"] = value
    elif name == "status" and isinstance(response, dict):
        response["status_code"] = value
    elif name == "custom_id":
        entry["custom_id"] = value
    return (json.dumps(entry) + "\n").encode(), f"{name}={value!r}"


def test_batch_result_lines_mangled_at_random_fail_only_their_own_calls(env, judge_server, capfd, monkeypatch):
    from rubric_lsp.cli import main
    from rubric_lsp.engine.sources import batch

    base = grade_args(env, "--batch-poll", "0.05")
    assert main(grade_args(env)) == 0
    live = json.loads(capfd.readouterr()[0])["items"]
    real_lines = batch._lines
    rng = random.Random(6)
    mangled: list[str] = []

    def mangling(results: Any) -> Any:
        lines = results.read().splitlines(keepends=True)
        picked = set(rng.sample(range(len(lines)), k=min(len(lines), rng.randint(1, 4))))
        out = []
        for n, line in enumerate(lines):
            if n in picked and line.strip():
                line, what = mangle(line, rng)
                mangled.append(what)
            out.append(line)
        return real_lines(io.BytesIO(b"".join(out)))

    monkeypatch.setattr(batch, "_lines", mangling)
    seen = []
    for n in range(BATCH_MUTANTS):
        mangled.clear()
        run = env / f"batch-{n}.sqlite"
        code = main([*base, "--batch", "--run", str(run)])
        out, err = capfd.readouterr()
        result = assert_graded_or_one_line(code, out, err)
        assert result is not None, (mangled, err)
        items = result["items"]
        wrong = [
            (i, c)
            for i, item in enumerate(items)
            for c, v in enumerate(item["verdicts"])
            if v != live[i]["verdicts"][c]
        ]
        assert all(items[i]["verdicts"][c] == "ERROR" for i, c in wrong), (mangled, wrong)  # never another verdict
        assert len(wrong) <= len(mangled), (mangled, wrong)  # a bad line fails its own call only
        seen += mangled
        code = main([*base, "--resume", str(run)])  # and every resume works (asks the failed calls again)
        out, err = capfd.readouterr()
        assert assert_graded_or_one_line(code, out, err) is not None, (mangled, err)
    assert len({what.split("=")[0].split(" ")[0] for what in seen}) >= 5, seen  # most kinds of mangling met
