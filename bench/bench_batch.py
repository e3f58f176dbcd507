"""Batch mode at dataset scale: ``rubric grade DATASET --batch`` with 10,000 items × 5 criteria (50,000 judge
calls) against tests/judge_server.py's fake OpenAI batch endpoints (tests/fake_batches.py), each in a process
of its own.

Reports the wall time of the whole grading (upload, the batch's scripted processing time, polling,
download, scoring), the engine's wall time besides the batch's own processing, CPU per call and peak RSS
of the grading process, the uploaded file's size, and checks that every call was answered (no failed
line, one upload, one batch). The provider's turnaround (minutes to 24 h) is what a real batch costs in
time; this measures what the engine adds to it.

    python bench/bench_batch.py [--items 10000] [--criteria 5] [--batch-seconds 2] [--poll 1]

Exit code 1 when a check fails or peak RSS exceeds --max-rss-mb (default 300).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def dataset(items: int, criteria: int) -> dict:
    return {
        "name": "bench-batch",
        "prompt": "Answer the question.",
        "rubric": [{"name": f"c{c}", "requirement": f"Meets requirement number {c}"} for c in range(criteria)],
        "items": [
            {"submission": f"submission {n}", "ground_truth": ["MET"] * criteria, "description": f"item {n}"}
            for n in range(items)
        ],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--criteria", type=int, default=5)
    parser.add_argument("--batch-seconds", type=float, default=2.0, help="the fake batch's processing time")
    parser.add_argument("--poll", type=float, default=1.0, help="--batch-poll")
    parser.add_argument("--max-rss-mb", type=float, default=300.0)
    args = parser.parse_args()
    calls = args.items * args.criteria
    env = dict(os.environ, PYTHONPATH=str(REPO), LITELLM_LOCAL_MODEL_COST_MAP="True")
    reply = json.dumps({"criterion_status": "MET", "explanation": "Meets it."})
    script = [sys.executable, str(REPO / "tests" / "judge_server.py"), "--port", "0", "--reply-json", reply]
    server = subprocess.Popen(
        [*script, "--batch-seconds", str(args.batch_seconds)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().split()[1]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bench.dataset.json"
            path.write_text(json.dumps(dataset(args.items, args.criteria)))
            run = Path(tmp) / "run.sqlite"
            grade_env = dict(
                env,
                OPENAI_API_KEY="sk-bench-batch",
                RUBRIC_JUDGE_API_BASE=base_url,
                RUBRIC_JUDGE_MODEL="openai/judge",
            )
            command = [sys.executable, "-m", "rubric_lsp", "grade", str(path), "--format", "json", "--no-cache"]
            command += ["--batch", "--run", str(run), "--batch-poll", str(args.poll)]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, env=grade_env, cwd=tmp)
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            with sqlite3.connect(run) as db:
                batches = db.execute("SELECT count(*), sum(json_array_length(keys)) FROM batches").fetchone()
                recorded = db.execute("SELECT count(*) FROM replies").fetchone()[0]
            size = run.stat().st_size
    finally:
        server.terminate()
        server.wait(timeout=30)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    rss_mb = after.ru_maxrss / 1024  # kilobytes on Linux
    try:
        result = json.loads(done.stdout)
        errors = sum(1 for item in result["items"] for v in item["verdicts"] if v == "ERROR")
    except (ValueError, KeyError):
        print(done.stderr[-2000:])
        return 1
    status_lines = [line for line in done.stderr.splitlines() if "batch batch_" in line]
    print(f"{calls} calls ({args.items} items × {args.criteria} criteria) through --batch")
    print(f"  wall {wall:.1f} s (batch processing scripted at {args.batch_seconds:g} s, polled every {args.poll:g} s)")
    print(f"  CPU {cpu:.1f} s = {cpu / calls * 1000:.2f} ms per call (grading process, litellm import included)")
    print(
        f"  peak RSS {rss_mb:.0f} MB; run file {size / 1e6:.1f} MB; {batches[0]} batch(es) holding {batches[1]} calls"
    )
    print(
        f"  recorded replies {recorded}, failed calls {errors}; last status: {status_lines[-1] if status_lines else '-'}"
    )
    ok = done.returncode in (0, 1) and errors == 0 and recorded == calls and batches[0] == 1
    ok = ok and rss_mb <= args.max_rss_mb
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
