"""The lint's figures as ratios to their floors, and to the last release, measured in turns in one run.

    python bench/bench_ratios.py [--base-path ../afeea5f --base-python ../afeea5f/.venv/bin/python] [--runs 7]

On a shared machine only ratios measured in the same run mean anything: each round runs every command
once, in turn, and the medians of the rounds are compared. Printed, with the load average:

- promptfoo's example configs (../shared/corpus/promptfoo/examples): `rubric-lint --format json` over all
  of them, its CPU time with start-up (what another process's load moves least), against libyaml's
  compose of the same files in one process (the floor: timed inside a process that imported only yaml) and check-jsonschema with promptfoo's schema;
- the read path alone, in process: each config read as promptfoo reads it (the document, js-yaml's scalars,
  the js-yaml port where its scan sends it), CPU time against compose's in the same process;
- one small file (a promptfoo config, an autorubric rubric): `rubric-lint`'s CPU time against
  `python -c 'import yaml'` and check-jsonschema on the same config.

With ``--base-path``/``--base-python`` (a clone of the last release and its own venv) each figure is also
given for it and as this checkout's ratio to it. bench_server.py --compare and bench_scale.py give the
server's and the grading's figures the same way.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("RUBRIC_SHARED_DIR", REPO.parent / "shared"))
CONFIG = "prompts: [a]\nproviders: [openai:gpt-4.1-mini]\ntests:\n  - vars: {q: x}\n    assert:\n      - type: llm-rubric\n        value: good\n"
RUBRIC = "criteria:\n  - name: accuracy\n    weight: 5\n    requirement: States the correct final answer\n"

COMPOSE = """
import sys, time, yaml
texts = [open(p, encoding='utf-8-sig').read() for p in sys.argv[1:]]
started = time.process_time()
for text in texts:
    yaml.compose(text, Loader=yaml.CSafeLoader)
print(time.process_time() - started)
"""
# The read path in process, against compose in the same process (CPU time, the median of 3).
READ = """
import statistics, sys, time, yaml
from rubric_lsp.document import parse_document
from rubric_lsp.document.js_yaml import read_as_js_yaml
from rubric_lsp.document.js_yaml_refusals import js_yaml_refusal, suspicious
datas = [(open(p, 'rb').read(), p) for p in sys.argv[1:]]
texts = [data.decode('utf-8-sig') for data, _ in datas]
def read():
    for data, name in datas:
        doc = parse_document(data, name)
        read_as_js_yaml(doc)
        blocks = [getattr(doc, 'block_scalars')] if hasattr(doc, 'block_scalars') else []
        root = [doc.root] if blocks and 'root' in suspicious.__code__.co_varnames else []
        if doc.root is not None and suspicious(doc.text, doc.flow_lines, *blocks, *root):
            js_yaml_refusal(doc.text)
def compose():
    for text in texts:
        yaml.compose(text, Loader=yaml.CSafeLoader)
def cpu(work):
    started = time.process_time(); work(); return time.process_time() - started
read()
rounds = [(cpu(compose), cpu(read)) for _ in range(3)]
print(statistics.median(r / c for c, r in rounds))
"""


def wall(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    """The command's CPU time (user + system, its children included): what another process's load moves
    least (the issue's table was wall time, which a load of 10 on 2 cores makes meaningless)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, cwd=cwd, env=env, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def byte_compile(python: Path, checkout: Path) -> None:
    """Byte-compile a checkout's package, as pip does an installed one: with PYTHONDONTWRITEBYTECODE set (this
    machine sets it) a fresh clone otherwise compiles every module it imports on every run, and a base
    measured so looks ~1.5x slower at start-up than it is."""
    subprocess.run(
        [str(python), "-m", "compileall", "-q", str(checkout / "rubric_lsp")], capture_output=True, check=False
    )


def output(command: list[str], cwd: Path, env: dict[str, str]) -> list[float]:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return [float(x) for x in done.stdout.split()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="rounds; the medians count (default 7)")
    parser.add_argument("--base-path", type=Path, help="a checkout of the last release")
    parser.add_argument("--base-python", type=Path, help="the Python of that checkout's own venv")
    args = parser.parse_args(argv)
    examples = SHARED / "corpus" / "promptfoo" / "examples"
    schema = SHARED / "corpus" / "promptfoo" / "config-schema.json"
    files = sorted(str(p.relative_to(examples)) for p in [*examples.rglob("*.yaml"), *examples.rglob("*.yml")])
    versions = {"this": (Path(sys.executable), REPO)}
    if args.base_path is not None:
        versions["base"] = (args.base_python or Path(sys.executable), args.base_path)
    env_of = {name: {**os.environ, "PYTHONPATH": str(path)} for name, (_, path) in versions.items()}
    for python, path in versions.values():  # see byte_compile
        byte_compile(python, path)
    checker = shutil.which("check-jsonschema")
    loads = [os.getloadavg()[0]]
    times: dict[str, list[float]] = {}

    def add(name: str, value: float) -> None:
        times.setdefault(name, []).append(value)

    with tempfile.TemporaryDirectory() as folder:
        small = Path(folder)
        (small / "promptfooconfig.yaml").write_text(CONFIG)
        (small / "small.rubric.yaml").write_text(RUBRIC)
        for _ in range(args.runs):
            add("compose", output([sys.executable, "-c", COMPOSE, *files], examples, dict(os.environ))[0])
            add("import yaml", wall([sys.executable, "-c", "import yaml"], small, dict(os.environ)))
            if checker:
                add("check-jsonschema corpus", wall([checker, "--schemafile", str(schema), *files], examples, {}))
                add(
                    "check-jsonschema small",
                    wall([checker, "--schemafile", str(schema), "promptfooconfig.yaml"], small, dict(os.environ)),
                )
            for name, (python, _) in versions.items():
                env = env_of[name]
                lint = [str(python), "-m", "rubric_lsp", "lint"]
                add(f"{name} corpus", wall([*lint, "--format", "json", *files], examples, env))
                add(f"{name} small config", wall([*lint, "promptfooconfig.yaml"], small, env))
                add(f"{name} small rubric", wall([*lint, "small.rubric.yaml"], small, env))
            for name, (python, _) in versions.items():  # in process: compose beside it
                add(f"{name} read/compose", output([str(python), "-c", READ, *files], examples, env_of[name])[0])
            loads.append(os.getloadavg()[0])

    m = {name: statistics.median(values) for name, values in times.items()}
    print(f"{len(files)} promptfoo example configs; {args.runs} rounds in turn; load {min(loads):.1f}-{max(loads):.1f}")
    print("CPU time (user + system) of each command, medians; the compose floor timed inside its process")
    print(f"floors: compose {m['compose']:.3f} s, import yaml {m['import yaml'] * 1000:.0f} ms")
    for name in versions:
        base = "base" in versions and name == "this"

        def vs(key: str, base: bool = base) -> str:
            return f", {m[f'this {key}'] / m[f'base {key}']:.2f}x base" if base else ""

        print(f"[{name}]")
        print(
            f"  corpus lint    {m[f'{name} corpus']:.2f} s = {m[f'{name} corpus'] / m['compose']:.1f}x compose"
            + (f", {m[f'{name} corpus'] / m['check-jsonschema corpus']:.2f}x check-jsonschema" if checker else "")
            + vs("corpus")
        )
        print(f"  read path      {m[f'{name} read/compose']:.2f}x compose (CPU, in process)" + vs("read/compose"))
        for kind in ("small config", "small rubric"):
            print(
                f"  {kind:<14} {m[f'{name} {kind}'] * 1000:.0f} ms = {m[f'{name} {kind}'] / m['import yaml']:.1f}x import yaml"
                + (
                    f", {m[f'{name} {kind}'] / m['check-jsonschema small']:.2f}x check-jsonschema"
                    if checker and kind == "small config"
                    else ""
                )
                + vs(kind)
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
