"""Grading throughput: 100 criteria at 200 ms judge latency on a local OpenAI-compatible server.

Measures rubric-lsp's engine at concurrency 8 and 32 against the ideal
⌈100 / concurrency⌉ × latency (target: within 15 %), side by side with autorubric 1.6.1's
CriterionGrader at the same concurrency on the same server, and checks that re-grading
after editing one criterion makes exactly one judge call (the verdict cache).

Everything runs on one event loop, as in the language server: litellm keeps its HTTP
clients per loop, so a fresh ``asyncio.run`` per measurement would time connection set-up
instead of grading. Before each timed run, ``concurrency`` calls open one connection per
slot. Each figure is the best of ``--repeat`` runs (other jobs on the machine only ever add
time; the median is printed too), with the load average before and after. Two columns
explain the result: "raw HTTP" is the same requests from a bare aiohttp client at the same
concurrency (what the server and the network allow), "CPU/call" is this process's CPU per
judge call (litellm's Python path is most of it; at 32 concurrent calls one 200 ms round
holds 32 × that of serialised CPU on the event loop). The engine's two answers to that CPU
(one request built and sent at a time; the hosted_vllm route for a local server) are
explained in rubric_lsp/engine/limits/send_gate.py and transports.via_litellm_route.

    python bench/bench_grading.py [--criteria 100] [--latency-ms 200] [--concurrency 8 32] [--repeat 3] [--no-autorubric]

Exit code 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from judge_process import JudgeProcess  # noqa: E402  (bench/, the script's folder)

from rubric_lsp.engine import JudgeSettings, grade_text  # noqa: E402
from rubric_lsp.engine.transports.via_litellm import load_litellm  # noqa: E402

KEY = "sk-bench-not-a-real-key"


def rubric_text(count: int, edited: int | None = None) -> str:
    lines = []
    for i in range(count):
        suffix = " (edited)" if i == edited else ""
        lines.append(
            f"- name: c{i}\n  requirement: The response satisfies check number {i}{suffix}\n  weight: {1 + i % 5}\n"
        )
    return "".join(lines)


async def ours(server: JudgeProcess, count: int, concurrency: int, cache_dir: Path | None) -> tuple[float, int]:
    settings = JudgeSettings(
        model="openai/judge",
        api_base=server.base_url,
        concurrency=concurrency,
        cache_enabled=cache_dir is not None,
        cache_dir=cache_dir,
        max_retries=0,
        env={"OPENAI_API_KEY": KEY},
    )
    before = server.calls()
    start = time.perf_counter()
    report = await grade_text(rubric_text(count), "bench.yaml", "A response.", "A question?", settings)
    elapsed = time.perf_counter() - start
    assert all(v.verdict == "MET" for v in report.verdicts), [v.error for v in report.verdicts if v.error][:3]
    return elapsed, server.calls() - before


async def theirs(server: JudgeProcess, count: int, concurrency: int) -> float:
    from autorubric import LLMConfig, Rubric
    from autorubric.graders import CriterionGrader

    rubric = Rubric.from_dict(
        [
            {"name": f"c{i}", "requirement": f"The response satisfies check number {i}", "weight": 1 + i % 5}
            for i in range(count)
        ]
    )
    grader = CriterionGrader(
        judge_model_config=LLMConfig(
            model="openai/judge",
            api_base=server.base_url,
            api_key=KEY,
            max_parallel_requests=concurrency,
            max_retries=0,
            cache_enabled=False,
        )
    )
    start = time.perf_counter()
    await rubric.grade(to_grade="A response.", grader=grader, query="A question?")
    return time.perf_counter() - start


async def raw_http(server: JudgeProcess, count: int, concurrency: int) -> float:
    """The same number of chat requests from a bare aiohttp client: the floor the server allows."""
    import aiohttp

    body = {"model": "judge", "messages": [{"role": "user", "content": "The response satisfies check number 1"}]}
    slots = asyncio.Semaphore(concurrency)
    async with aiohttp.ClientSession() as session:

        async def one() -> None:
            async with slots, session.post(server.base_url.rstrip("/") + "/chat/completions", json=body) as reply:
                await reply.read()

        await asyncio.gather(*(one() for _ in range(concurrency)))  # open the connections
        start = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(count)))
        return time.perf_counter() - start


PACKAGES = (
    "rubric_lsp",
    "litellm",
    "openai",
    "httpx",
    "httpcore",
    "aiohttp",
    "asyncio",
    "pydantic",
    "pydantic_core",
    "typing",
    "json",
    "yarl",
    "multidict",
)


async def profile(server: JudgeProcess, count: int, concurrency: int) -> None:
    """Where one judge call's CPU goes, per package (cProfile's own time; it inflates every figure alike)."""
    import collections
    import cProfile
    import pstats

    await ours(server, concurrency, concurrency, None)
    profiler = cProfile.Profile()
    profiler.enable()
    await ours(server, count, concurrency, None)
    profiler.disable()
    totals: collections.Counter[str] = collections.Counter()
    for (filename, _, name), (_, _, own, _, _) in pstats.Stats(profiler).stats.items():  # type: ignore[attr-defined]
        if name.startswith("<method 'poll'"):
            continue  # waiting for the server, not CPU
        package = next(
            (p for p in PACKAGES if f"/{p}/" in filename or filename.endswith(f"/{p}.py")),
            "builtins" if filename == "~" else "other",
        )
        totals[package] += own
    whole = sum(totals.values())
    print(f"profile at concurrency {concurrency}: {1000 * whole / count:.1f} ms of CPU per judge call under cProfile")
    for package, own in totals.most_common(10):
        print(f"  {package:<14} {1000 * own / count:5.2f} ms  {own / whole:4.0%}")


def load() -> str:
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


async def run(args: argparse.Namespace, server: JudgeProcess) -> bool:
    ok = True
    print(
        f"{args.criteria} criteria, judge latency {args.latency_ms:g} ms, best of {args.repeat} ({os.cpu_count()} CPUs, {load()})"
    )
    print(
        f"{'concurrency':>11}  {'ideal':>7}  {'rubric-lsp':>10}  {'vs ideal':>8}  {'median':>7}  {'CPU/call':>8}  {'raw HTTP':>8}  {'autorubric':>10}"
    )
    for concurrency in args.concurrency:
        ideal = math.ceil(args.criteria / concurrency) * args.latency_ms / 1000
        await ours(server, concurrency, concurrency, None)  # one open connection per slot
        runs, cpu, calls = [], [], args.criteria
        for _ in range(max(1, args.repeat)):
            cpu_before = time.process_time()
            elapsed, calls = await ours(server, args.criteria, concurrency, None)
            cpu.append((time.process_time() - cpu_before) / max(1, calls))
            runs.append(elapsed)
            ok &= calls == args.criteria
        best = min(runs)
        raw = await raw_http(server, args.criteria, concurrency)
        theirs_text = "-"
        if not args.no_autorubric:
            try:
                theirs_text = f"{await theirs(server, args.criteria, concurrency):.2f} s"
            except ImportError:
                theirs_text = "n/a"
        over = best / ideal - 1
        ok &= over <= 0.15
        print(
            f"{concurrency:>11}  {ideal:>5.2f} s  {best:>8.2f} s  {over:>+7.1%}  {statistics.median(runs):>5.2f} s  {1000 * min(cpu):>5.1f} ms  {raw:>6.2f} s  {theirs_text:>10}"
        )
    with tempfile.TemporaryDirectory() as cache:
        cache_dir = Path(cache)
        await ours(server, args.criteria, 32, cache_dir)
        before = server.calls()
        settings = JudgeSettings(
            model="openai/judge",
            api_base=server.base_url,
            concurrency=32,
            cache_dir=cache_dir,
            max_retries=0,
            env={"OPENAI_API_KEY": KEY},
        )
        start = time.perf_counter()
        await grade_text(rubric_text(args.criteria, edited=41), "bench.yaml", "A response.", "A question?", settings)
        calls = server.calls() - before
        ok &= calls == 1
        print(f"re-grade after editing one criterion: {calls} judge call(s), {time.perf_counter() - start:.2f} s")
    print(load())
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--criteria", type=int, default=100)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per concurrency; the best counts")
    parser.add_argument("--no-autorubric", action="store_true", help="skip the autorubric comparison")
    parser.add_argument("--profile", action="store_true", help="only print where a judge call's CPU goes, per package")
    args = parser.parse_args(argv)
    load_litellm()  # import cost is not grading cost
    with (
        tempfile.TemporaryDirectory() as scratch,
        JudgeProcess(args.latency_ms, Path(scratch) / "requests.jsonl") as server,
    ):
        if args.profile:
            for concurrency in args.concurrency:
                asyncio.run(profile(server, args.criteria, concurrency))
            return 0
        ok = asyncio.run(run(args, server))
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
