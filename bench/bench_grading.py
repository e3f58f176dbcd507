"""Grading throughput: 100 criteria at 200 ms judge latency on a local OpenAI-compatible server.

Measures rubric-lsp's engine at concurrency 8 and 32 against the ideal
⌈100 / concurrency⌉ × latency (target: within 15 %), side by side with autorubric 1.6.1's
CriterionGrader at the same concurrency on the same server, and checks that re-grading
after editing one criterion makes exactly one judge call (the verdict cache).

    python bench/bench_grading.py [--criteria 100] [--latency-ms 200] [--concurrency 8 32] [--no-autorubric]

Exit code 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rubric_lsp.grading import JudgeSettings, grade_text  # noqa: E402
from rubric_lsp.grading.judge import load_litellm  # noqa: E402

class ServerProcess:
    """tests/judge_server.py in a process of its own: in-process, its threads would compete
    with the engine for the GIL and the benchmark would measure that instead of the engine."""

    def __init__(self, latency_ms: float, log: Path):
        import json
        import subprocess

        self.log = log
        reply = json.dumps({"criterion_status": "MET", "explanation": "Meets it."})
        self.process = subprocess.Popen([sys.executable, str(REPO / "tests" / "judge_server.py"), "--port", "0", "--latency-ms", str(latency_ms),
                                         "--reply-json", reply, "--log", str(log)], stdout=subprocess.PIPE, text=True)
        self.base_url = self.process.stdout.readline().split()[1]

    @property
    def call_count(self) -> int:
        try:
            return sum(1 for line in self.log.read_text().splitlines() if "chat/completions" in line)
        except OSError:
            return 0

    def __enter__(self) -> "ServerProcess":
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)

KEY = "sk-bench-not-a-real-key"


def rubric_text(count: int, edited: int | None = None) -> str:
    lines = []
    for i in range(count):
        suffix = " (edited)" if i == edited else ""
        lines.append(f"- name: c{i}\n  requirement: The response satisfies check number {i}{suffix}\n  weight: {1 + i % 5}\n")
    return "".join(lines)


async def ours(server: "ServerProcess", count: int, concurrency: int, cache_dir: Path | None) -> tuple[float, int]:
    settings = JudgeSettings(model="openai/judge", api_base=server.base_url, concurrency=concurrency, cache_enabled=cache_dir is not None,
                             cache_dir=cache_dir, max_retries=0, env={"OPENAI_API_KEY": KEY})
    before = server.call_count
    start = time.perf_counter()
    report = await grade_text(rubric_text(count), "bench.yaml", "A response.", "A question?", settings)
    elapsed = time.perf_counter() - start
    assert all(v.verdict == "MET" for v in report.verdicts), [v.error for v in report.verdicts if v.error][:3]
    return elapsed, server.call_count - before


async def theirs(server: "ServerProcess", count: int, concurrency: int) -> float:
    from autorubric import LLMConfig, Rubric
    from autorubric.graders import CriterionGrader

    rubric = Rubric.from_dict([{"name": f"c{i}", "requirement": f"The response satisfies check number {i}", "weight": 1 + i % 5} for i in range(count)])
    grader = CriterionGrader(judge_model_config=LLMConfig(model="openai/judge", api_base=server.base_url, api_key=KEY,
                                                          max_parallel_requests=concurrency, max_retries=0, cache_enabled=False))
    start = time.perf_counter()
    await rubric.grade(to_grade="A response.", grader=grader, query="A question?")
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--criteria", type=int, default=100)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--no-autorubric", action="store_true", help="skip the autorubric comparison")
    args = parser.parse_args(argv)
    load_litellm()  # import cost is not grading cost
    ok = True
    with tempfile.TemporaryDirectory() as scratch, ServerProcess(args.latency_ms, Path(scratch) / "requests.jsonl") as server:
        asyncio.run(ours(server, 2, 2, None))  # warm the HTTP client
        print(f"{args.criteria} criteria, judge latency {args.latency_ms:g} ms")
        print(f"{'concurrency':>11}  {'ideal':>7}  {'rubric-lsp':>10}  {'vs ideal':>8}  {'autorubric':>10}")
        for concurrency in args.concurrency:
            ideal = math.ceil(args.criteria / concurrency) * args.latency_ms / 1000
            elapsed, calls = asyncio.run(ours(server, args.criteria, concurrency, None))
            theirs_text = "-"
            if not args.no_autorubric:
                try:
                    theirs_text = f"{asyncio.run(theirs(server, args.criteria, concurrency)):.2f} s"
                except ImportError:
                    theirs_text = "n/a"
            over = elapsed / ideal - 1
            ok &= over <= 0.15 and calls == args.criteria
            print(f"{concurrency:>11}  {ideal:>5.2f} s  {elapsed:>8.2f} s  {over:>+7.1%}  {theirs_text:>10}")
        with tempfile.TemporaryDirectory() as cache:
            cache_dir = Path(cache)
            asyncio.run(ours(server, args.criteria, 32, cache_dir))
            before = server.call_count
            settings = JudgeSettings(model="openai/judge", api_base=server.base_url, concurrency=32, cache_dir=cache_dir, max_retries=0, env={"OPENAI_API_KEY": KEY})
            start = time.perf_counter()
            asyncio.run(grade_text(rubric_text(args.criteria, edited=41), "bench.yaml", "A response.", "A question?", settings))
            calls = server.call_count - before
            ok &= calls == 1
            print(f"re-grade after editing one criterion: {calls} judge call(s), {time.perf_counter() - start:.2f} s")
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
