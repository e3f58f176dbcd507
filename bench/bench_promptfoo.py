"""Benchmark: rubric-lint vs check-jsonschema on promptfoo's example configs, same files, same run.

Both run as one process over every YAML file under corpus/promptfoo/examples (start-up
included), check-jsonschema with promptfoo's published schema. Prints wall times, the
ratio (target ≤ 0.2) and what each tool found. Also times the largest example alone
(the language server's didChange budget is 1.5 s), and a generated config of 3,000 model-graded
tests against one of 300 (lint time should grow linearly: ratio about 10).

    python bench/bench_promptfoo.py [--corpus ../shared/corpus] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = Path(os.environ.get("RUBRIC_SHARED_DIR", REPO.parent / "shared")) / "corpus"


def run(command: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - started, done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=3, help="runs per tool; the best wall time counts")
    args = parser.parse_args(argv)
    examples = args.corpus / "promptfoo" / "examples"
    schema = args.corpus / "promptfoo" / "config-schema.json"
    files = sorted(str(p.relative_to(examples)) for p in list(examples.rglob("*.yaml")) + list(examples.rglob("*.yml")))
    checker = shutil.which("check-jsonschema")
    if checker is None:
        print("check-jsonschema is not installed (pip install check-jsonschema)", file=sys.stderr)
        return 2
    ours = [sys.executable, "-m", "rubric_lsp", "lint", "--format", "json", "--fail-level", "error", *files]
    theirs = [checker, "--schemafile", str(schema), *files]

    best_ours = best_theirs = float("inf")
    for _ in range(args.repeat):  # interleaved, so machine load hits both alike
        seconds, ours_done = run(ours, examples)
        best_ours = min(best_ours, seconds)
        seconds, theirs_done = run(theirs, examples)
        best_theirs = min(best_theirs, seconds)

    flat = json.loads(ours_done.stdout or "[]")  # a flat list of diagnostics
    by_severity: dict[str, int] = {}
    for d in flat:
        by_severity[str(d.get("severity"))] = by_severity.get(str(d.get("severity")), 0) + 1
    codes = sorted({d.get("code") for d in flat if d.get("code")})
    rejected = {line.split("::")[0].strip() for line in theirs_done.stdout.splitlines() if "::" in line}

    from rubric_lsp.formats.registry import all_rules

    pf_rules = [r for r in all_rules() if r.code.startswith("PF") or r.code.startswith("RL01")]
    print(f"files: {len(files)} YAML files under {examples}")
    print(
        f"check-jsonschema: {best_theirs:.2f} s wall (best of {args.repeat}); rejects {len(rejected)} files; "
        "one check: the published schema (any assertion type and provider shape accepted)"
    )
    print(
        f"rubric-lint:      {best_ours:.2f} s wall (best of {args.repeat}); {len(flat)} findings "
        f"{by_severity} with codes {', '.join(codes)}; {len(pf_rules)} promptfoo/file-reference rules plus the any-file rules"
    )
    ratio = best_ours / best_theirs
    print(f"ratio rubric-lint / check-jsonschema: {ratio:.3f} (target <= 0.2)")

    from rubric_lsp.lint import lint_text

    largest = max((examples / f for f in files), key=lambda p: p.stat().st_size)
    data = largest.read_bytes()
    lint_text(b"prompts: [a]\n", "promptfooconfig.yaml")  # imports and schema build, paid once at start-up
    timings = []
    for _ in range(args.repeat):
        cpu, wall = time.process_time(), time.perf_counter()
        lint_text(data, str(largest))
        timings.append((time.perf_counter() - wall, time.process_time() - cpu))
    wall, cpu = min(timings)
    print(
        f"largest example {largest.relative_to(examples)} ({len(data) / 1e6:.2f} MB): {wall:.2f} s wall, {cpu:.2f} s CPU "
        "(didChange budget 1.5 s)"
    )
    small, large = (_cpu_best(lint_text, _many_tests(n), args.repeat) for n in (300, 3000))
    print(
        f"3,000 model-graded tests: {large:.2f} s CPU; 300: {small:.3f} s CPU; ratio {large / small:.1f} "
        "(linear: about 10; didChange budget 1.5 s)"
    )
    return 0 if ratio <= 0.2 else 1


def _many_tests(count: int) -> str:
    tests = "".join(
        f"  - vars: {{question: 'q{i}'}}\n    assert:\n      - type: llm-rubric\n        value: Answers {{{{question}}}} well\n"
        f"        threshold: 0.5\n      - type: contains\n        value: x\n"
        for i in range(count)
    )
    head = "prompts: [a, b]\nproviders: [openai:gpt-5]\ndefaultTest:\n  options:\n    provider: openai:gpt-5-mini\ntests:\n"
    return head + tests


def _cpu_best(lint_text, text: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        lint_text(text, "promptfooconfig.yaml")
        best = min(best, time.process_time() - started)
    return best


if __name__ == "__main__":
    raise SystemExit(main())
