"""Lint speed: start-up on a small file, throughput, and the cost over raw YAML compose.

    python bench/bench_lint.py [--quick]

Prints figures; it asserts nothing (the tests bound behaviour, not speed). Targets from
the issue: a small file lints in <= 0.3 s wall including interpreter start-up; the
throughput figures are compared with libyaml's compose of the same text (the floor for
any YAML tool that keeps positions).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

SMALL = """\
criteria:
  - name: accuracy
    weight: 5
    requirement: States the correct final answer
  - name: sources
    weight: 5
    requirement: Cites at least one source
"""

WORDS = [
    "answer",
    "cites",
    "source",
    "clear",
    "concise",
    "correct",
    "explains",
    "reasoning",
    "step",
    "final",
    "units",
    "table",
    "code",
    "example",
]


def generated_rubric(rng: random.Random, criteria: int) -> str:
    lines = ["# generated for bench_lint", "criteria:"]
    for index in range(criteria):
        requirement = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 12))).capitalize()
        lines += [
            f"  - name: c{index}_{rng.choice(WORDS)}",
            f"    weight: {rng.choice([1, 2, 3, 5, 8, -2])}",
            f'    requirement: "{requirement}"',
        ]
        if index % 4 == 3:
            lines += [
                "    scale_type: ordinal",
                "    options:",
                "      - {label: Poor, value: 0.0}",
                "      - {label: Fair, value: 0.5}",
                "      - {label: Good, value: 1.0}",
            ]
    return "\n".join(lines) + "\n"


def timed_together(functions: dict, repeat: int) -> dict:
    """Best of ``repeat`` runs of each, in seconds, run in interleaved rounds so that a
    burst of load from other processes does not favour one of them."""
    best = {name: float("inf") for name in functions}
    for _ in range(repeat):
        for name, fn in functions.items():
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def _without_gc(fn) -> None:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        fn()
    finally:
        if was_enabled:
            gc.enable()


def raw_compose(texts: list[str]) -> None:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for text in texts:
        yaml.compose(text, Loader=loader)


def bench_startup(folder: Path, runs: int) -> None:
    small = folder / "small.rubric.yaml"
    small.write_text(SMALL)
    commands = {
        "python -m rubric_lsp lint small.rubric.yaml": [sys.executable, "-m", "rubric_lsp", "lint", str(small)],
        "python -c pass (interpreter alone)": [sys.executable, "-c", "pass"],
        "python -c 'import yaml' (floor with PyYAML)": [sys.executable, "-c", "import yaml"],
    }
    # pip byte-compiles an installed package; an editable checkout gets its .pyc files on first
    # import, unless PYTHONDONTWRITEBYTECODE is set (as on some CI machines): then every run
    # compiles every module again. Measure the installed case, and show the other beside it.
    import compileall
    import shutil

    package = Path(__file__).resolve().parent.parent / "rubric_lsp"
    no_pyc = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    print(f"\n## Start-up, small file (wall, {runs} runs; rubric_lsp byte-compiled, as pip install does)")
    runs_of = [(label, command, None) for label, command in commands.items()]
    runs_of.insert(
        1, ("  same, rubric_lsp without .pyc files", commands["python -m rubric_lsp lint small.rubric.yaml"], no_pyc)
    )
    for label, command, env in runs_of:
        if env is None:
            compileall.compile_dir(str(package), quiet=1)
        else:
            for cache in package.rglob("__pycache__"):
                shutil.rmtree(cache, ignore_errors=True)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run(command, capture_output=True, check=False, env=env)
            times.append(time.perf_counter() - start)
        print(f"{label:48} min {min(times):.3f} s  median {statistics.median(times):.3f} s")
    compileall.compile_dir(str(package), quiet=1)
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "rubric_lsp", "lint", str(small)], capture_output=True, text=True
    )
    rows = []
    for line in proc.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    print("largest cumulative imports (µs):")
    top_level = [row for row in rows if not row[1].startswith("  ")]
    for micros, name in sorted(top_level, reverse=True)[:8]:
        print(f"  {micros:>8}  {name.strip()}")


def bench_many(folder: Path, count: int, repeat: int) -> None:
    from rubric_lsp.document import parse_document
    from rubric_lsp.lint import lint_text

    rng = random.Random(1)
    texts = [generated_rubric(rng, rng.randint(5, 15)) for _ in range(count)]
    names = [f"r{i}.rubric.yaml" for i in range(count)]
    size = sum(map(len, texts))
    lint_text(texts[0], names[0])  # load the format modules outside the timing

    times = timed_together(
        {
            "compose": lambda: raw_compose(texts),
            "compose_no_gc": lambda: _without_gc(lambda: raw_compose(texts)),
            "parse": lambda: [parse_document(t, n) for t, n in zip(texts, names)],
            "lint": lambda: [lint_text(t, n) for t, n in zip(texts, names)],
        },
        repeat,
    )
    compose, compose_no_gc, parse, lint = times["compose"], times["compose_no_gc"], times["parse"], times["lint"]
    print(f"\n## {count} generated rubrics ({size / 1024:.0f} KiB, best of {repeat})")
    print(f"raw libyaml compose        {compose:.3f} s")
    print(f"document (parse_document)  {parse:.3f} s   {parse / compose:.2f}x compose")
    print(f"lint (all checks)          {lint:.3f} s   {lint / compose:.2f}x compose   {count / lint:.0f} files/s")
    print(
        f"(raw compose with the garbage collector paused, as parse_document does: {compose_no_gc:.3f} s; "
        f"lint is {lint / compose_no_gc:.2f}x that)"
    )

    rubrics = folder / "many"
    rubrics.mkdir()
    for name, text in zip(names, texts):
        (rubrics / name).write_text(text)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "rubric_lsp", "lint", "-q", str(rubrics)], capture_output=True)
    print(f"CLI on the folder          {time.perf_counter() - start:.3f} s wall (start-up and folder walk included)")


def bench_large(criteria: int, repeat: int) -> None:
    from rubric_lsp.document import parse_document
    from rubric_lsp.lint import lint_text

    text = generated_rubric(random.Random(2), criteria)
    lint_text(SMALL, "warm.rubric.yaml")
    times = timed_together(
        {
            "compose": lambda: raw_compose([text]),
            "compose_no_gc": lambda: _without_gc(lambda: raw_compose([text])),
            "parse": lambda: parse_document(text, "big.rubric.yaml"),
            "lint": lambda: lint_text(text, "big.rubric.yaml"),
        },
        repeat,
    )
    compose, compose_no_gc, parse, lint = times["compose"], times["compose_no_gc"], times["parse"], times["lint"]
    result = lint_text(text, "big.rubric.yaml")
    print(f"\n## One rubric with {criteria} criteria ({len(text) / 1024:.0f} KiB, best of {repeat})")
    print(f"raw libyaml compose        {compose:.3f} s")
    print(f"document (parse_document)  {parse:.3f} s   {parse / compose:.2f}x compose")
    print(
        f"lint (all checks)          {lint:.3f} s   {lint / compose:.2f}x compose   ({len(result.diagnostics)} findings)"
    )
    print(
        f"(raw compose with the garbage collector paused, as parse_document does: {compose_no_gc:.3f} s; "
        f"lint is {lint / compose_no_gc:.2f}x that)"
    )


def bench_owner_loader(count: int, repeat: int) -> None:
    """AR109's cost: autorubric's pure-Python SafeLoader runs only when a cheap scan finds a construct it may refuse."""
    from rubric_lsp.document.pure_yaml import suspicious
    from rubric_lsp.lint import lint_text

    rng = random.Random(3)
    texts = [generated_rubric(rng, rng.randint(5, 15)) for _ in range(count)]
    # The same rubrics with one unquoted question in a flow mapping: the scan flags each, the pure loader runs.
    flagged = [t + "  - {requirement: Is it clear?, weight: 1}\n" for t in texts]
    names = [f"r{i}.rubric.yaml" for i in range(count)]
    lint_text(texts[0], names[0])
    times = timed_together(
        {
            "scan": lambda: [suspicious(t) for t in texts],
            "lint": lambda: [lint_text(t, n) for t, n in zip(texts, names)],
            "lint_flagged": lambda: [lint_text(t, n) for t, n in zip(flagged, names)],
            "pure_load": lambda: [yaml.load(t, Loader=yaml.SafeLoader) for t in texts],
        },
        repeat,
    )
    print(f"\n## autorubric's loader check (AR109), {count} generated rubrics (best of {repeat})")
    print(f"cheap scan alone                {times['scan']:.3f} s")
    print(f"lint, nothing suspicious        {times['lint']:.3f} s")
    print(
        f"lint, every file flagged        {times['lint_flagged']:.3f} s   "
        f"{times['lint_flagged'] / times['lint']:.2f}x (the pure loader runs on each)"
    )
    print(f"pure SafeLoader alone, all files {times['pure_load']:.3f} s (what running it unconditionally would add)")


def generated_config(rng: random.Random, tests: int) -> str:
    lines = ["prompts:", "  - 'Answer briefly: {{question}}'", "providers:", "  - openai:gpt-4.1-mini", "tests:"]
    for _ in range(tests):
        words = " ".join(rng.choice(WORDS) for _ in range(8))
        lines += ["  - vars:", f"      question: {words}", "    assert:", "      - type: llm-rubric"]
        lines += [f"        value: {words}", "        threshold: 0.7"]
    return "\n".join(lines) + "\n"


def bench_promptfoo_loader(count: int, repeat: int) -> None:
    """PF116's cost: the port of js-yaml's parser runs only when a cheap scan finds a construct it may refuse."""
    from rubric_lsp.document import parse_document
    from rubric_lsp.document.js_yaml_refusals import js_yaml_refusal, suspicious
    from rubric_lsp.lint import lint_text

    rng = random.Random(3)
    texts = [generated_config(rng, rng.randint(5, 15)) for _ in range(count)]
    # The same configs with a flow sequence over two lines (js-yaml reads it): the scan flags each, the port runs.
    flagged = [t + "  - vars:\n      tags: [billing,\n        refunds]\n" for t in texts]
    docs = [parse_document(t, "promptfooconfig.yaml") for t in texts]
    lint_text(texts[0], "promptfooconfig.yaml")
    times = timed_together(
        {
            "scan": lambda: [suspicious(d.text, d.flow_lines, d.block_scalars, d.root) for d in docs],
            "lint": lambda: [lint_text(t, "promptfooconfig.yaml") for t in texts],
            "lint_flagged": lambda: [lint_text(t, "promptfooconfig.yaml") for t in flagged],
            "port": lambda: [js_yaml_refusal(t) for t in texts],
        },
        repeat,
    )
    print(f"\n## promptfoo's loader check (PF116), {count} generated configs (best of {repeat})")
    print(f"cheap scan alone                {times['scan']:.3f} s")
    print(f"lint, nothing suspicious        {times['lint']:.3f} s")
    print(
        f"lint, every file flagged        {times['lint_flagged']:.3f} s   "
        f"{times['lint_flagged'] / times['lint']:.2f}x (the js-yaml port runs on each)"
    )
    print(f"js-yaml port alone, all files   {times['port']:.3f} s (what running it unconditionally would add)")


def bench_hostile(folder: Path) -> None:
    cases = {
        "billion laughs": (
            "laughs.yaml",
            "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
            + "".join(f"{c}: &{c} [" + ", ".join([f"*{p}"] * 9) + "]\n" for p, c in zip("abcdefgh", "bcdefghi")),
        ),
        "50,000 levels, block": ("block.yaml", "- " * 50_000 + "x\n"),
        "50,000 levels, flow": ("flow.yaml", "[" * 50_000 + "]" * 50_000 + "\n"),
        "50,000 levels, JSON": ("deep.json", "[" * 50_000 + "]" * 50_000),
        "random bytes (1 MiB)": ("noise.yaml", random.Random(3).randbytes(1 << 20)),
    }
    from rubric_lsp.lint import lint_path

    print("\n## Hostile input (CLI in a subprocess, wall with start-up; and lint_path in process)")
    for label, (name, content) in cases.items():
        path = folder / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "rubric_lsp", "lint", "--format", "json", str(path)], capture_output=True, text=True
        )
        wall = time.perf_counter() - start
        start = time.perf_counter()
        found = [d.code for d in lint_path(path).diagnostics]
        print(
            f"{label:24} {wall:.3f} s  exit {proc.returncode}   in process {time.perf_counter() - start:.4f} s {found}"
        )
    big = folder / "big.yaml"
    with big.open("wb") as handle:
        line = b"key: " + b"x" * 100 + b"\n"
        for _ in range(50 * 1024 * 1024 // len(line) + 1):
            handle.write(line)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "rubric_lsp", "lint", str(big)], capture_output=True)
    print(f"{'50 MB file':24} {time.perf_counter() - start:.3f} s  exit {proc.returncode}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs and smaller inputs")
    args = parser.parse_args()
    runs, repeat = (3, 1) if args.quick else (10, 5)
    print(f"Python {sys.version.split()[0]}, PyYAML {yaml.__version__} (libyaml: {hasattr(yaml, 'CSafeLoader')})")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        bench_startup(folder, runs)
        bench_many(folder, 200 if args.quick else 1000, repeat)
        bench_large(1000 if args.quick else 5000, repeat)
        bench_owner_loader(200 if args.quick else 1000, repeat)
        bench_promptfoo_loader(200 if args.quick else 1000, repeat)
        bench_hostile(folder)


if __name__ == "__main__":
    main()
