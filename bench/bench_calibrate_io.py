"""Calibration's files at scale (issues 33 and 36): a folder lint beside large records, and a million label rows.

    python bench/bench_calibrate_io.py [--repo PATH] [--records 10] [--record-mib 7.8] [--rows 1000000]
                                       [--outputs 1000] [--latency-ms 5] [--skip-lint] [--skip-labels]

``--repo``: the checkout whose ``rubric_lsp`` runs (default: this one), so the same script measures ``main``
and a branch in turn. Each leg is a subprocess; its wall time and peak RSS (``os.wait4``'s ``ru_maxrss``) are
printed, with the floor it reads against in the same run:

- **lint**: ``rubric-lint FOLDER`` on one small rubric beside ``--records`` calibration records of
  ``--record-mib`` MiB each, against the same lint of the folder without them (the floor: what the records add);
- **labels**: ``rubric calibrate LABELS.csv --config promptfooconfig.yaml`` on ``--rows`` rows labelling one
  llm-rubric assertion, over ``--outputs`` distinct outputs (so the judge is asked ``--outputs`` times: the rest is
  reading, grouping and counting), against tests/judge_server.py in a process of its own (bench/judge_process.py);
  the floor is ``wc -l``-like reading of the same file in Python (``sum(1 for _ in open(...))``).

It asserts nothing (the tests bound behaviour, not speed): it prints figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from judge_process import JudgeProcess  # bench/, the script's folder

REPO = Path(__file__).resolve().parent.parent
KEY = "sk-bench-not-a-real-key"
RUBRIC = "criteria:\n  - name: accuracy\n    weight: 5\n    requirement: States the correct final answer\n"
CONFIG = """\
prompts: ["Reply to {{name}}"]
providers: [echo]
tests:
  - vars: {name: Ann}
    assert:
      - type: llm-rubric
        value: Is polite
        metric: polite
"""


def run(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int, str, float]:
    """Wall seconds, peak RSS in MiB, exit code, the end of standard error and CPU seconds (user + system: what
    a loaded machine's wall time hides) of one subprocess."""
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    assert child.stderr is not None
    err = child.stderr.read().decode(errors="replace")  # read before waiting: a full pipe would block it
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    return wall, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), err[-600:], usage.ru_utime + usage.ru_stime


def environment(repo: Path, work: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(repo), OPENAI_API_KEY=KEY, RUBRIC_CACHE_DIR=str(work / "cache"))
    for name in ("RUBRIC_JUDGE_MODEL", "RUBRIC_JUDGE_API_BASE", "RUBRIC_JUDGE_TRANSPORT"):
        env.pop(name, None)
    return env


def record_text(target_bytes: int, rng: random.Random) -> str:
    """A well-formed calibration record of about ``target_bytes`` (many units, each with figures)."""

    def built(count: int) -> str:
        record = {
            "calibration": 1,
            "tool": {"name": "rubric-lsp", "version": "bench"},
            "date": "2025-01-01",
            "source": "rubric.yaml",
            "judge": {"models": ["openai/judge"], "settings": {}},
            "units": [unit(n) for n in range(count)],
        }
        return json.dumps(record, indent=2, sort_keys=True) + "\n"

    def unit(n: int) -> dict:
        return {
            "id": f"criterion {n}",
            "title": f"Criterion {n}: "
            + " ".join(rng.choice(["states", "cites", "answer", "clear"]) for _ in range(8)),
            "kind": "binary",
            "fingerprints": {k: f"{rng.getrandbits(64):016x}" for k in ("text", "judge", "prompt", "settings", "all")},
            "figures": {
                "labels": 40,
                "accuracy": {"value": 0.9, "interval": [0.77, 0.96]},
                "kappa": {"statistic": "cohen", "value": 0.8, "interval": [0.6, 0.95]},
                "balance": {"PASS": 20, "FAIL": 20},
                "abstained": {"both": 0, "judge_only": 0, "truth_only": 0},
                "failed": 0,
            },
        }

    per_unit = len(built(100)) / 100
    return built(int(target_bytes / per_unit))


def lint_leg(args: argparse.Namespace, work: Path) -> None:
    rng = random.Random(33)
    bare = work / "bare"
    full = work / "records"
    for folder in (bare, full):
        folder.mkdir()
        (folder / "a.rubric.yaml").write_text(RUBRIC)
    text = record_text(int(args.record_mib * 1024 * 1024), rng)
    for index in range(args.records):
        (full / f"r{index}.rubric.yaml.calibration.json").write_text(text)
    env = environment(args.repo, work)
    command = [sys.executable, "-m", "rubric_lsp", "lint"]
    floor = run([*command, str(bare)], env, work)
    timed = run([*command, str(full)], env, work)
    mib = len(text.encode()) / (1024 * 1024)
    print(f"## rubric-lint on a folder: one rubric and {args.records} records of {mib:.1f} MiB ({args.repo})")
    print(
        f"  without the records  {floor[0]:7.2f} s (CPU {floor[4]:6.2f} s)  peak {floor[1]:6.0f} MiB  exit {floor[2]}"
    )
    print(
        f"  with the records     {timed[0]:7.2f} s (CPU {timed[4]:6.2f} s)  peak {timed[1]:6.0f} MiB  exit {timed[2]}"
    )
    print(f"  the records add      {timed[0] - floor[0]:7.2f} s (CPU {timed[4] - floor[4]:6.2f} s)")


def labels_leg(args: argparse.Namespace, work: Path) -> None:
    rng = random.Random(36)
    (work / "promptfooconfig.yaml").write_text(CONFIG)
    # Short rows (the labels file as main refused it above 16 MiB): by position, short outputs.
    outputs = [f"o{n}" for n in range(args.outputs)]
    labels = work / "labels.csv"
    with labels.open("w", encoding="utf-8") as handle:
        handle.write("test,assertion,output,verdict\n")
        for _ in range(args.rows):
            output = rng.choice(outputs)
            verdict = "pass" if rng.random() < 0.7 else "fail"
            handle.write(f"1,1,{output},{verdict}\n")
    size = labels.stat().st_size / (1024 * 1024)
    started = time.perf_counter()
    with labels.open("rb") as handle:
        lines = sum(1 for _ in handle)
    floor = time.perf_counter() - started
    env = environment(args.repo, work)
    reply = json.dumps({"reason": "polite", "pass": True, "score": 1})
    with JudgeProcess(args.latency_ms, work / "judge.log", reply=reply) as judge:
        command = [sys.executable, "-m", "rubric_lsp", "calibrate", str(labels), "--config"]
        command += [str(work / "promptfooconfig.yaml"), "--model", "openai/judge", "--api-base", judge.base_url]
        command += ["--concurrency", "16", "--retries", "0", "--deadline", "3600"]
        wall, peak, code, err, cpu = run(command, env, work)
        calls = judge.calls()
    print(f"## rubric calibrate: {args.rows:,} label rows ({size:.1f} MiB, {args.outputs} outputs) ({args.repo})")
    print(f"  reading its {lines:,} lines in Python (floor)  {floor:7.2f} s")
    print(
        f"  rubric calibrate  {wall:7.2f} s (CPU {cpu:7.2f} s)  peak {peak:6.0f} MiB  exit {code}  judge calls {calls}"
    )
    if code:
        print("  stderr: " + err.strip().replace("\n", "\n          "))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, default=REPO)
    parser.add_argument("--records", type=int, default=10)
    parser.add_argument("--record-mib", type=float, default=7.8)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--outputs", type=int, default=1000)
    parser.add_argument("--latency-ms", type=float, default=5)
    parser.add_argument("--skip-lint", action="store_true")
    parser.add_argument("--skip-labels", action="store_true")
    args = parser.parse_args()
    args.repo = args.repo.resolve()
    with tempfile.TemporaryDirectory(prefix="bench-calibrate-io-") as folder:
        work = Path(folder)
        if not args.skip_lint:
            (work / "lint").mkdir()
            lint_leg(args, work / "lint")
        if not args.skip_labels:
            (work / "labels").mkdir()
            labels_leg(args, work / "labels")


if __name__ == "__main__":
    main()
