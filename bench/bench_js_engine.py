"""Benchmark: what promptfoo's JavaScript costs a grading (formats/promptfoo/grading/javascript.py).

Each figure is taken in a fresh interpreter: importing mini-racer, the first ``regex`` check (the
shared isolate and its sandbox made), each further check, one ``javascript`` assertion (a fresh
isolate each), and the resident memory before and after. Printed with the ratio to the floor, a
fresh interpreter that only imports the grading's deterministic checks.
A QuickJS binding (``--quickjs PYTHON``: an interpreter that has ``quickjs`` or ``quickjs-ng``
installed) is measured alike, for the choice the module's docstring records.

    python bench/bench_js_engine.py [--repeat 3] [--quickjs /path/to/venv/bin/python]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

PROBE = r"""
import json, time
def rss():
    with open('/proc/self/status') as f:
        return next(int(l.split()[1]) / 1024 for l in f if l.startswith('VmRSS'))
t0 = time.perf_counter()
from rubric_lsp.formats.promptfoo.grading import deterministic, javascript
base = rss(); t1 = time.perf_counter()
javascript._load(); t2 = time.perf_counter()
javascript.regex_test('^Paris$', 'Paris\n'); t3 = time.perf_counter()
for _ in range(200): javascript.regex_test('\\d+', 'abc 123')
t4 = time.perf_counter()
for _ in range(20): javascript.javascript_assertion('output.length > 3', 'hello', {})
t5 = time.perf_counter()
print(json.dumps({'floor_import_s': t1 - t0, 'engine_import_s': t2 - t1, 'first_regex_s': t3 - t2,
  'regex_call_ms': (t4 - t3) / 200 * 1000, 'script_ms': (t5 - t4) / 20 * 1000, 'rss_floor_mb': base, 'rss_mb': rss()}))
"""

QUICKJS = r"""
import json, time
def rss():
    with open('/proc/self/status') as f:
        return next(int(l.split()[1]) / 1024 for l in f if l.startswith('VmRSS'))
base = rss(); t0 = time.perf_counter()
import _quickjs
t1 = time.perf_counter()
ctx = _quickjs.Context(); ctx.eval("function t(p, s) { return new RegExp(p).test(s) }"); f = ctx.get('t')
f('^Paris$', 'Paris\n'); t2 = time.perf_counter()
for _ in range(200): f('\\d+', 'abc 123')
t3 = time.perf_counter()
print(json.dumps({'engine_import_s': t1 - t0, 'first_regex_s': t2 - t1, 'regex_call_ms': (t3 - t2) / 200 * 1000,
  'rss_floor_mb': base, 'rss_mb': rss()}))
"""


def measure(python: str, probe: str, repeat: int) -> dict[str, float]:
    runs = []
    for _ in range(repeat):
        done = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True, timeout=300)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return {key: min(run[key] for run in runs) for key in runs[0]}  # the best of each: load hits every run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quickjs", help="a python with quickjs or quickjs-ng installed, to compare")
    args = parser.parse_args(argv)
    v8 = measure(sys.executable, PROBE, args.repeat)
    print("mini-racer (V8):")
    for key, value in v8.items():
        print(f"  {key:16} {value:9.3f}")
    print(
        f"  start-up (import + first check) / floor import: {(v8['engine_import_s'] + v8['first_regex_s']) / v8['floor_import_s']:.1f}×"
    )
    print(
        f"  memory added by the engine: {v8['rss_mb'] - v8['rss_floor_mb']:.0f} MB over a {v8['rss_floor_mb']:.0f} MB floor"
    )
    if args.quickjs:
        quick = measure(args.quickjs, QUICKJS, args.repeat)
        print("QuickJS:")
        for key, value in quick.items():
            print(f"  {key:16} {value:9.3f}")
        print(f"  memory added by the engine: {quick['rss_mb'] - quick['rss_floor_mb']:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
