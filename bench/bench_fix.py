"""`--fix` on a file with 20,000 fixable findings, and peak RSS of a 10,000-file folder lint.

    python bench/bench_fix.py [--tree PATH] [--fixes 20000] [--files 10000] [--format text json sarif]

Each figure is one ``rubric-lint`` process (``--tree`` picks the checkout it imports, so the
same script measures main and a branch), timed by wall clock, its peak RSS read from
``wait4``. Every figure is printed beside its baseline: the same file with nothing to fix
(the cost of linting alone), the same folder with every file clean (the cost of the walk).
It bounds no time (the tests bound behaviour, not speed), but it checks its own premise: the
fixable file must have findings and ``--fix`` must leave none (else it exits 1).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def fixable_rubric(count: int, key: str) -> str:
    """An autorubric rubric with ``count`` criteria, each with ``key`` for its weight.

    ``wieght`` is AR001 with a safe fix (the rename to ``weight``); ``weight`` is the same file clean.
    Equal weights, so nothing else is reported.
    """
    lines = ["criteria:"]
    for index in range(count):
        lines += [f"  - name: criterion_{index}", f"    requirement: States fact {index} correctly", f"    {key}: 1"]
    return "\n".join(lines) + "\n"


def rubric(index: int, bad: bool) -> str:
    # The bad one: a misspelt key, a YAML 1.1 boolean and a negative weight without a label.
    key = "requirment" if bad else "requirement"
    label = "yes" if bad else '"yes"'
    return (
        "criteria:\n"
        f"  - name: accuracy_{index}\n    weight: 5\n    {key}: States the correct final answer\n"
        f"  - name: sources_{index}\n    weight: 3\n    requirement: Cites at least one source\n"
        f"    scale_type: ordinal\n    options:\n      - {{label: {label}, value: 1.0}}\n"
        "      - {label: Fair, value: 0.5}\n"
    )


def run(tree: Path, args: list[str], cwd: Path) -> tuple[float, float, int]:
    """Wall seconds, peak RSS in MiB and exit code of one rubric-lint run."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; from rubric_lsp.cli import lint_main; sys.exit(lint_main())", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _pid, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    return elapsed, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def bench_fix(tree: Path, work: Path, count: int) -> bool:
    """Times --fix; False when its premise fails (the findings are not there, or not all fixed)."""
    print(f"\n## --fix on a file with {count} fixable findings (tree: {tree})")
    ok = True
    for label, key in (("fixable", "wieght"), ("clean", "weight")):
        folder = work / f"fix-{label}"
        folder.mkdir()
        path = folder / "bench.rubric.yaml"
        path.write_text(fixable_rubric(count, key))
        size = path.stat().st_size
        lint_s, lint_mb, lint_code = run(tree, [str(path)], folder)
        fix_s, fix_mb, code = run(tree, ["--fix", str(path)], folder)
        left = path.read_text().count("wieght:")
        print(
            f"{label:8} {size / 1e6:.2f} MB   lint {lint_s:6.2f} s {lint_mb:6.0f} MiB   "
            f"--fix {fix_s:6.2f} s {fix_mb:6.0f} MiB   exit {code}   unfixed after: {left}"
        )
        # The premise: the fixable file has findings (exit 1) and --fix leaves none; the clean one has none.
        expected_lint = 1 if label == "fixable" else 0
        if lint_code != expected_lint or left or code != 0:
            print(
                f"  premise failed: lint exit {lint_code} (expected {expected_lint}), fix exit {code}, {left} unfixed"
            )
            ok = False
    return ok


def bench_folder(tree: Path, work: Path, files: int, formats: list[str]) -> None:
    print(f"\n## a folder of {files} rubrics: peak RSS (tree: {tree})")
    for label, bad in (("findings", True), ("clean", False)):
        folder = work / f"folder-{label}"
        folder.mkdir()
        for index in range(files):
            (folder / f"r{index}.rubric.yaml").write_text(rubric(index, bad))
        for fmt in formats:
            seconds, mib, code = run(tree, ["--format", fmt, str(folder)], work)
            print(f"{label:8} --format {fmt:5}  {seconds:6.2f} s  peak {mib:6.0f} MiB  exit {code}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=REPO, help="the checkout to measure (default: this one)")
    parser.add_argument("--fixes", type=int, default=20000)
    parser.add_argument("--files", type=int, default=10000)
    parser.add_argument("--format", nargs="+", default=["text", "json", "sarif"])
    parser.add_argument("--skip-fix", action="store_true")
    parser.add_argument("--skip-folder", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench_fix_"))
    ok = True
    try:
        if not args.skip_fix:
            ok = bench_fix(args.tree.resolve(), work, args.fixes)
        if not args.skip_folder:
            bench_folder(args.tree.resolve(), work, args.files, args.format)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
