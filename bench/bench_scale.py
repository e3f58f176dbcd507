"""Dataset scale, end to end: `rubric grade DATASET --concurrency 64 --run RUN` on 10,000 items × 5 criteria.

Generates a seeded autorubric dataset (a shared rubric of 4 binary criteria and 1 ordinal
multi-choice one; every item with a submission, a description and ground-truth labels) in a
temporary folder, starts tests/judge_server.py as a process of its own at 50 ms latency, and
runs `rubric grade` as a subprocess — import, parse, plan, grade, figures, JSON written, run
file and verdict cache included — against it. Reported, against the issue's goals:

- wall time vs the floor ⌈calls / concurrency⌉ × latency (goal: within 15 %);
- CPU per call: the grading process's user + sys time (``os.wait4``'s rusage of that child)
  divided by the calls the server saw, start-up included;
- peak RSS of the grading process (``ru_maxrss``; goal ≤ 300 MB);
- calls seen by the server (must be items × criteria: no call repeated, none lost), and the
  figures' sanity (every item scored, the agreement computed).

    python bench/bench_scale.py [--items 10000] [--criteria 5] [--latency-ms 50] [--concurrency 64]
                                [--transport direct|litellm] [--no-cache] [--keep DIR]
                                [--no-batch] [--batch-seconds 2] [--batch-poll 1]

`--rounds N` (with `--base-repo` for the last release's checkout) runs the live leg, the base's, then the
reference in turn N times and prints the medians of CPU per call with their ratios to the bare client and
to the base: the issue's method in one command (e.g. `--items 1000 --rounds 7`; no batch leg).

`--items 1000` runs in well under a minute. `--transport litellm` measures litellm's
hosted_vllm route for comparison (sets RUBRIC_JUDGE_TRANSPORT=litellm; it misses the goals
by design: that is why the direct route exists). Exit 1 when a goal is missed.

Then the same dataset through `rubric grade --batch` against the same server's fake OpenAI batch
endpoints (tests/fake_batches.py; `--batch-seconds` of scripted processing, `--no-batch` to skip):
its wall time (and the engine's share besides the provider's processing), CPU per call, peak
RSS, no live call, and the same JSON output as the live leg.

Then the reference (`--no-reference` to skip): the live leg's requests, as the server logged them,
sent again by a bare aiohttp client (bench/reference_client.py) to a fresh server at the same
latency: what the rig itself costs over the floor, so that the live leg's figure reads against it.

Measured (2 cores; the judge server takes ~0.4-0.5 ms of CPU per call on the same cores): see the
README's "Datasets at scale" and the module docstring of rubric_lsp/engine/transports/direct.py.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from judge_process import JudgeProcess  # bench/, the script's folder

REPO = Path(__file__).resolve().parent.parent
KEY = "sk-bench-not-a-real-key"
WORDS = [
    "the",
    "refund",
    "order",
    "delivery",
    "card",
    "store",
    "policy",
    "thirty",
    "days",
    "return",
    "reply",
    "customer",
    "polite",
    "warm",
    "answer",
    "asks",
    "phone",
    "email",
    "receipt",
    "item",
    "gift",
    "credit",
    "original",
    "payment",
    "method",
    "window",
    "contact",
    "thanks",
    "please",
]
OPTIONS = [{"label": "Rude", "value": 0}, {"label": "Neutral", "value": 0.5}, {"label": "Warm", "value": 1}]


def dataset(items: int, criteria: int, seed: int) -> dict:
    """A seeded dataset: ``criteria - 1`` binary criteria and one ordinal multi-choice one, labelled items."""
    rng = random.Random(seed)
    rubric: list[dict] = [
        {"name": f"check_{i}", "requirement": f"The reply states fact number {i} about the refund policy", "weight": 5}
        for i in range(max(0, criteria - 1))
    ]
    if criteria:
        rubric.append({"name": "tone", "requirement": "How polite is the reply?", "weight": 3, "options": OPTIONS})
    rows = []
    for i in range(items):
        truth = [rng.choice(("MET", "MET", "UNMET", "CANNOT_ASSESS")) for _ in range(max(0, criteria - 1))]
        if criteria:
            truth.append(rng.choice([o["label"] for o in OPTIONS]))
        rows.append(
            {
                "submission": " ".join(rng.choice(WORDS) for _ in range(rng.randint(30, 80))).capitalize() + ".",
                "description": f"item {i}",
                "ground_truth": truth,
            }
        )
    return {"name": "bench-scale", "prompt": "How do I get my money back?", "rubric": rubric, "items": rows}


def write_dataset(path: Path, data: dict) -> None:
    # One item per line, as people write them (and as the linter's tests do).
    head = {k: v for k, v in data.items() if k != "items"}
    lines = ["{"] + [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()] + ['  "items": [']
    items = data["items"]
    lines += [f"    {json.dumps(item)}" + ("," if i < len(items) - 1 else "") for i, item in enumerate(items)]
    lines += ["  ]", "}"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def grade(args: argparse.Namespace, data_path: Path, base_url: str, work: Path, batch: bool = False) -> dict:
    """One `rubric grade` subprocess (live, or through ``--batch``); its wall time, rusage and result."""
    leg = "batch" if batch else "live"
    out = work / f"result-{leg}.json"
    run_file = work / f"run-{leg}.sqlite"
    profile = ["-m", "cProfile", "-o", str(args.profile)] if args.profile else []
    command = [
        sys.executable,
        *profile,
        "-m",
        "rubric_lsp",
        "grade",
        str(data_path),
        "--model",
        "openai/judge",
        "--api-base",
        base_url,
        "--concurrency",
        str(args.concurrency),
        "--retries",
        "0",
        "--deadline",
        "3600",
        "--format",
        "json",
        "--run",
        str(run_file),
    ]
    if args.no_cache or batch:  # the batch leg must not be served by the live leg's cache
        command.append("--no-cache")
    if batch:
        command += ["--batch", "--batch-poll", str(args.batch_poll)]
    env = dict(os.environ, PYTHONPATH=str(args.repo), OPENAI_API_KEY=KEY, RUBRIC_CACHE_DIR=str(work / "cache"))
    env.pop("RUBRIC_JUDGE_MODEL", None)
    env.pop("RUBRIC_JUDGE_API_BASE", None)
    if args.transport == "litellm":
        env["RUBRIC_JUDGE_TRANSPORT"] = "litellm"
    else:
        env.pop("RUBRIC_JUDGE_TRANSPORT", None)
    started = time.perf_counter()
    with out.open("wb") as stdout:
        # cwd: the work folder, so `-m` finds rubric_lsp through PYTHONPATH only.
        child = subprocess.Popen(command, stdout=stdout, stderr=subprocess.PIPE, env=env, cwd=work)
        _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    stderr = child.stderr.read().decode(errors="replace") if child.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"rubric grade exited {code}: {stderr[-2000:]}")
    result = json.loads(out.read_text(encoding="utf-8"))
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "user": usage.ru_utime,
        "rss_mb": usage.ru_maxrss / 1024,
        "result": result,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--items", type=int, default=10_000)
    p.add_argument("--criteria", type=int, default=5)
    p.add_argument("--latency-ms", type=float, default=50.0)
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--seed", type=int, default=18)
    p.add_argument("--transport", choices=("direct", "litellm"), default="direct")
    p.add_argument("--no-cache", action="store_true", help="grade with --no-cache (default: a fresh verdict cache)")
    p.add_argument("--slack", type=float, default=0.15, help="wall-time goal over the floor (default 0.15)")
    p.add_argument("--rss-mb", type=float, default=300.0, help="peak RSS goal in MB (default 300)")
    p.add_argument(
        "--repo", type=Path, default=REPO, help="grade with this checkout's rubric_lsp (e.g. before a change)"
    )
    p.add_argument("--profile", type=Path, help="run the grading process under cProfile, writing its stats here")
    p.add_argument("--keep", type=Path, help="work in this folder and keep it (dataset, run file, result, log)")
    p.add_argument("--no-batch", action="store_true", help="skip the --batch leg")
    p.add_argument("--no-reference", action="store_true", help="skip the reference leg (a bare aiohttp client)")
    p.add_argument("--batch-seconds", type=float, default=2.0, help="the fake provider's batch processing time")
    p.add_argument("--batch-poll", type=float, default=1.0, help="--batch-poll of the batch leg")
    p.add_argument(
        "--rounds", type=int, default=1, help="with more than 1: the live and reference legs in turn, medians and ratio"
    )
    p.add_argument("--base-repo", type=Path, help="with --rounds: this checkout's live leg too, each round (ratio)")
    args = p.parse_args(argv)
    if args.rounds > 1 or args.base_repo is not None:
        return in_rounds(args)

    with tempfile.TemporaryDirectory(prefix="bench-scale-") as temp:
        work = args.keep or Path(temp)
        work.mkdir(parents=True, exist_ok=True)
        data_path = work / "bench.dataset.json"
        write_dataset(data_path, dataset(args.items, args.criteria, args.seed))
        load = os.getloadavg()[0]
        extra = judge_options(args)
        with JudgeProcess(args.latency_ms, work / "requests.jsonl", *extra) as judge:
            measured = grade(args, data_path, judge.base_url, work)
            calls = judge.calls()
            batched = None if args.no_batch else grade(args, data_path, judge.base_url, work, batch=True)
            live_calls_after_batch = judge.calls()
        server_cpu = judge.cpu
        reference = None
        if not args.no_reference:
            with JudgeProcess(args.latency_ms, work / "reference-requests.jsonl", *extra) as again:
                reference = replay(args, work / "requests.jsonl", again.base_url)

    expected = args.items * args.criteria
    floor = math.ceil(expected / args.concurrency) * args.latency_ms / 1000.0
    over = measured["wall"] / floor - 1.0
    cpu_ms = 1000.0 * measured["cpu"] / max(1, calls)
    result = measured["result"]
    scored = sum(1 for item in result["items"] if item["score"] is not None)
    compared = sum(c["compared"] for c in result["agreement"])
    print(
        f"{args.items} items x {args.criteria} criteria = {expected} calls, c={args.concurrency}, "
        f"{args.latency_ms:g} ms, transport {args.transport}, load {load:.2f} -> {os.getloadavg()[0]:.2f}"
    )
    print(
        f"  wall        {measured['wall']:7.2f} s   floor {floor:.2f} s   {100 * over:+.1f} % (goal +{100 * args.slack:.0f} %)"
    )
    print(
        f"  CPU/call    {cpu_ms:7.3f} ms  ({measured['cpu']:.2f} s user+sys, of which user {measured['user']:.2f} s; "
        "start-up included)"
    )
    print(f"  judge CPU   {server_cpu:7.2f} s   (tests/judge_server.py, on the same {os.cpu_count()} cores)")
    print(f"  peak RSS    {measured['rss_mb']:7.1f} MB  (goal {args.rss_mb:.0f} MB)")
    print(
        f"  server saw  {calls} calls (expected {expected}); {scored}/{len(result['items'])} items scored, {compared} pairs compared"
    )
    if reference is not None:
        print(
            f"  reference   {reference['wall']:7.2f} s   {100 * (reference['wall'] / floor - 1):+.1f} % over the floor, "
            f"{1000 * reference['cpu'] / max(1, reference['calls']):.3f} ms CPU/call: the same {reference['calls']} "
            f"requests from a bare aiohttp client (bench/reference_client.py); rubric grade "
            f"{100 * (measured['wall'] / reference['wall'] - 1):+.1f} % over it"
        )
    missed = []
    if batched is not None:
        missed += batch_leg(args, batched, result, expected, live_calls_after_batch - calls)
    if over > args.slack:
        missed.append("wall time")
    if measured["rss_mb"] > args.rss_mb:
        missed.append("peak RSS")
    if calls != expected or scored != len(result["items"]) or len(result["items"]) != args.items:
        missed.append("calls / figures")
    if missed:
        print(f"MISSED: {', '.join(missed)}")
        return 1
    return 0


def judge_options(args: argparse.Namespace) -> tuple[str, ...]:
    """tests/judge_server.py's options: MET for a binary criterion, an option for the multi-choice one."""
    choice = json.dumps({"selected_option": 2, "explanation": "Courteous."})
    return ("--when", f"numbered options={choice}", "--batch-seconds", str(args.batch_seconds))


def in_rounds(args: argparse.Namespace) -> int:
    """--rounds N: the live leg (``--repo``, then ``--base-repo``'s), then the reference leg replaying this round's
    requests, in turn N times, each with a fresh server, run file and verdict cache; the medians of CPU per
    call, and their ratios (the issue's method: pairs in turn, medians, ratios to the floor in the same run)."""
    legs = {"this": args.repo.resolve(), **({"base": args.base_repo.resolve()} if args.base_repo else {})}
    for repo in legs.values():  # as bench_ratios.byte_compile: a clone would compile what it imports every run
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(repo / "rubric_lsp")], capture_output=True)
    per_call: dict[str, list[float]] = {}
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as temp:
        root = Path(temp)
        data_path = root / "bench.dataset.json"
        write_dataset(data_path, dataset(args.items, args.criteria, args.seed))
        for n in range(args.rounds):
            for name, repo in legs.items():
                work = root / f"{name}-{n}"
                work.mkdir()
                with JudgeProcess(args.latency_ms, work / "requests.jsonl", *judge_options(args)) as judge:
                    measured = grade(
                        argparse.Namespace(**{**vars(args), "repo": repo}), data_path, judge.base_url, work
                    )
                    calls = judge.calls()
                if calls != args.items * args.criteria:
                    sys.exit(f"{name}: the server saw {calls} calls, not {args.items * args.criteria}")
                per_call.setdefault(name, []).append(1000 * measured["cpu"] / calls)
            log = root / f"reference-{n}.jsonl"
            with JudgeProcess(args.latency_ms, log, *judge_options(args)) as again:
                reference = replay(args, root / f"this-{n}" / "requests.jsonl", again.base_url)
            per_call.setdefault("reference", []).append(1000 * reference["cpu"] / max(1, reference["calls"]))
            loads.append(os.getloadavg()[0])
    m = {name: statistics.median(values) for name, values in per_call.items()}
    print(
        f"{args.items} items x {args.criteria} criteria, c={args.concurrency}, {args.latency_ms:g} ms; "
        f"{args.rounds} rounds in turn; load {min(loads):.1f}-{max(loads):.1f}"
    )
    print("CPU per judge call (user + system, start-up included), medians; each round: " + ", ".join(per_call))
    for name, values in per_call.items():
        rounds = " ".join(f"{v:.3f}" for v in values)
        ratio = "" if name == "reference" else f" = {m[name] / m['reference']:.2f}x the bare client"
        print(f"  {name:<10} {m[name]:.3f} ms{ratio}   ({rounds})")
    if "base" in m:
        print(f"  this / base {m['this'] / m['base']:.2f}x")
    return 0


def replay(args: argparse.Namespace, log: Path, base_url: str) -> dict:
    """The reference leg: the live leg's requests, as logged, sent again by bench/reference_client.py."""
    command = [sys.executable, str(REPO / "bench" / "reference_client.py"), "--base", base_url, "--log", str(log)]
    child = subprocess.Popen([*command, "--concurrency", str(args.concurrency)], stdout=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    assert child.stdout is not None
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("the reference client failed")
    return {**json.loads(child.stdout.read()), "cpu": usage.ru_utime + usage.ru_stime}


def batch_leg(args: argparse.Namespace, batched: dict, live: dict, expected: int, live_calls: int) -> list[str]:
    """Print the --batch leg's figures; what it missed (its figures must be the live leg's)."""
    engine = batched["wall"] - args.batch_seconds
    print(
        f"  --batch     {batched['wall']:7.2f} s wall, of which the fake provider's processing {args.batch_seconds:g} s "
        f"(polled every {args.batch_poll:g} s): the engine {engine:.2f} s"
    )
    print(
        f"              {1000 * batched['cpu'] / expected:.3f} ms CPU/call, peak RSS {batched['rss_mb']:.1f} MB, "
        f"{live_calls} live calls"
    )
    same = batched["result"] == live
    print(f"              same items, verdicts, figures and usage as live: {'yes' if same else 'NO'}")
    missed = [] if same and live_calls == 0 else ["batch figures"]
    if batched["rss_mb"] > args.rss_mb:
        missed.append("batch peak RSS")
    return missed


if __name__ == "__main__":
    sys.exit(main())
