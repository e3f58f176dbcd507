"""Peak memory of linting a large file: JSON against the same content as YAML, and against clean files.

    python bench/bench_hostile.py [--megabytes 10]

Each lint runs in a fresh interpreter (``python -m rubric_lsp lint``), so the peak resident
set size (ru_maxrss of the child) is that one file's, start-up included; the start-up
alone is printed as the floor. Prints figures; asserts nothing (issue 13, item 15: the
JSON reader peaked at 1.26 GB for 10 MB of JSON while the same content as YAML took 75 MB).

"One long string" is a single 9 MiB requirement, the shape that took 1.26 GB.
"Findings" files are generated rubrics with a finding in every criterion (an unknown key);
"clean" files are the same shape without them, so the cost of the diagnostics shows apart
from the cost of reading.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
WORDS = ["answer", "cites", "source", "clear", "concise", "correct", "explains", "reasoning", "step", "final"]


def rubric(target_bytes: int, findings: bool) -> dict:
    """A rubric of about ``target_bytes`` once written as indented JSON (the largest of the three forms)."""
    criteria = []
    size = 20
    index = 0
    while size < target_bytes:
        criterion = {
            "name": f"c{index}",
            "weight": 1 + index % 5,
            "requirement": " ".join(WORDS[(index + k) % len(WORDS)] for k in range(8)).capitalize(),
        }
        if findings:
            criterion["requirment"] = "typo"  # unknown key: one finding per criterion
        criteria.append(criterion)
        size += len(json.dumps(criterion, indent=2)) + 6 * (len(criterion) + 2)
        index += 1
    return {"criteria": criteria}


def long_string(target_bytes: int) -> dict:
    """One criterion whose requirement is one long string (the fuzz campaign's 1.26 GB case)."""
    return {"criteria": [{"name": "long", "weight": 1, "requirement": "x" * (target_bytes - 100)}]}


def peak_rss(args: list[str]) -> tuple[float, float, int]:
    """(peak RSS in MB, wall seconds, exit code) of one child process."""
    script = (
        "import resource, subprocess, sys, time\n"
        "start = time.perf_counter()\n"
        "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
        "wall = time.perf_counter() - start\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, wall, code)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, env=env, check=True)
    kilobytes, wall, code = out.stdout.split()
    return int(kilobytes) / 1024, float(wall), int(code)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--megabytes", type=float, default=9.5, help="size of each file (the cap is 10 MiB)")
    args = parser.parse_args()
    target = int(args.megabytes * 1024 * 1024)
    print(f"Python {sys.version.split()[0]}, PyYAML {yaml.__version__}; peak RSS of `rubric-lint FILE` per file")
    floor, _wall, _code = peak_rss([sys.executable, "-c", "import rubric_lsp.lint"])
    print(f"{'interpreter + rubric_lsp.lint imported':44} {floor:8.0f} MB")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        shapes = {
            "findings": rubric(target, True),
            "clean": rubric(target, False),
            "one long string": long_string(target),
        }
        for label, data in shapes.items():
            files = {
                "json": json.dumps(data, indent=2),
                "json (one line)": json.dumps(data),
                "yaml": yaml.safe_dump(data, sort_keys=False, width=1000),
            }
            for kind, text in files.items():
                suffix = "json" if kind.startswith("json") else "yaml"
                path = folder / f"{label.replace(' ', '-')}-{kind.replace(' ', '-').strip('()')}.rubric.{suffix}"
                path.write_text(text)
                rss, wall, code = peak_rss([sys.executable, "-m", "rubric_lsp", "lint", "-q", str(path)])
                print(
                    f"{label + ', ' + kind:32} {path.stat().st_size / 1048576:5.1f} MiB  "
                    f"{len(data['criteria']):7,} criteria  peak {rss:6.0f} MB  {wall:6.1f} s  exit {code}"
                )


if __name__ == "__main__":
    main()
