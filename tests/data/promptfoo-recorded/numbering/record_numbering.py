"""Record how promptfoo 0.123.1 numbers the tests of an eval (each result row's ``testIdx``), for
``tests/test_promptfoo_numbering.py``.

Not run by the suite (it needs Node and promptfoo): ``numbering.json`` beside this file is checked in. To
re-record (as tests/data/promptfoo-recorded/record.py, on Node 20 through ``dist/src/main.js``):

    PYTHONPATH=$PWD python3 tests/data/promptfoo-recorded/numbering/record_numbering.py /path/to/node_modules/promptfoo

Each case is a config run with the echo provider (one prompt, so one row per test), and ``files`` it reads;
recorded: per test number, its description, its vars and how many rows ran it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))
from record import eval_env  # noqa: E402  (tests/data/promptfoo-recorded/record.py: the recordings' environment)

HEAD = "prompts: ['{{q}}']\nproviders: [echo]\n"

CASES: dict[str, dict] = {
    # A list var expands its test; defaultTest's list expands every test; the first key varies slowest.
    "lists-and-default": {
        "config": HEAD + "defaultTest:\n  vars: {lang: [en, fr]}\n"
        "tests:\n  - description: one\n    vars: {q: paris}\n  - description: two\n    vars: {q: [rome, oslo]}\n"
        "  - description: three\n    vars: {q: bern, lang: de}\n",
    },
    # Only a list whose first element is a string expands; integer-like keys come first in JavaScript.
    "list-kinds-and-key-order": {
        "config": HEAD + "tests:\n  - description: numbers\n    vars: {q: a, n: [1, 2]}\n"
        "  - description: objects\n    vars: {q: b, o: [{a: 1}, {b: 2}]}\n"
        "  - description: empty\n    vars: {q: c, e: []}\n"
        "  - description: mixed\n    vars: {q: d, m: [x, 1]}\n"
        "  - description: keys\n    vars: {q: e, b: [b1, b2], '2': [p, r], '1': z}\n",
    },
    # Scenarios: after the tests, per scenario, per config entry, each of its tests.
    "scenarios": {
        "config": HEAD + "tests:\n  - description: plain\n    vars: {q: first}\n"
        "scenarios:\n  - config:\n      - vars: {lang: en}\n      - vars: {lang: [fr, de]}\n"
        "        assert:\n          - type: contains\n            value: x\n"
        "    tests:\n      - description: s1\n        vars: {q: hello}\n      - description: s2\n        vars: {q: bye}\n"
        "  - config:\n      - vars: {q: lone}\n",
    },
    # Repeats are outermost: test options, defaultTest options, evaluateOptions.
    "repeat": {
        "config": HEAD + "evaluateOptions: {repeat: 2}\n"
        "tests:\n  - description: own\n    options: {repeat: 3}\n    vars: {q: [a, b]}\n"
        "  - description: global\n    vars: {q: c}\n  - description: bad\n    options: {repeat: 1.5}\n    vars: {q: d}\n",
    },
    # disableVarExpansion in a test's options; the environment switch from the config's env.
    "disable-expansion": {
        "config": HEAD
        + "tests:\n  - description: kept\n    options: {disableVarExpansion: true}\n    vars: {q: [a, b]}\n"
        "  - description: expanded\n    vars: {q: [c, d]}\n",
    },
    "disable-expansion-env": {
        "config": HEAD + "env: {PROMPTFOO_DISABLE_VAR_EXPANSION: 'true'}\n"
        "tests:\n  - description: kept\n    vars: {q: [a, b]}\n",
    },
    # A file:// glob var: one test per file matched.
    "file-glob": {
        "config": HEAD + "tests:\n  - description: docs\n    vars: {q: x, doc: 'file://docs/*.txt'}\n"
        "  - description: one file\n    vars: {q: y, doc: 'file://docs/b.txt'}\n"
        "  - description: deep\n    vars: {q: z, doc: 'file://docs/**/*.txt'}\n"
        "  - description: braces\n    vars: {q: w, doc: 'file://docs/{c,a}.txt'}\n",
        "files": {
            **{f"docs/{n}.txt": n for n in ("a", "b", "c", "B", "_u")},
            **{"docs/sub/x.txt": "x", "docs/sub2/y.txt": "y", "docs/sub2/a.txt": "a", "docs/sub/deep/z.txt": "z"},
        },
    },
    # No tests: one test with defaultTest's assertions.
    "no-tests": {
        "config": HEAD + "defaultTest:\n  vars: {q: [a, b]}\n  assert:\n    - type: contains\n      value: a\n",
    },
    # Tests from the files a glob names, in the order promptfoo's glob returns them.
    "test-files-glob": {
        "config": HEAD + "tests: file://cases/*.yaml\n",
        "files": {f"cases/{n}.yaml": f"- description: {n}\n  vars: {{q: {n}}}\n" for n in ("a", "b", "c", "B")},
    },
    # Tests from a file, between inline ones.
    "test-file": {
        "config": HEAD + "tests:\n  - description: before\n    vars: {q: a}\n  - file://more.yaml\n",
        "files": {"more.yaml": "- description: from file\n  vars: {q: [b, c]}\n- description: last\n  vars: {q: d}\n"},
    },
}


def run(promptfoo: Path, name: str, case: dict, work: Path) -> dict:
    folder = work / name
    folder.mkdir()
    for relative, text in case.get("files", {}).items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text)
    (folder / "promptfooconfig.yaml").write_text(case["config"])
    env = eval_env(work)
    env.pop("PROMPTFOO_DISABLE_VAR_EXPANSION", None)
    main = promptfoo / "dist" / "src" / "main.js"
    args = ["node", str(main), "eval", "-c", "promptfooconfig.yaml", "--no-cache", "--no-write", "-j", "1"]
    subprocess.run([*args, "-o", "results.json"], env=env, cwd=folder, capture_output=True, timeout=300, check=False)
    rows = json.loads((folder / "results.json").read_text())["results"]["results"]
    tests: dict[int, dict] = {}
    for row in sorted(rows, key=lambda r: r["testIdx"]):
        entry = tests.setdefault(
            row["testIdx"],
            {
                "test": row["testIdx"] + 1,
                "description": row["testCase"].get("description"),
                "vars": row["vars"],
                "rows": 0,
            },
        )
        entry["rows"] += 1
    return {
        "promptfoo": "0.123.1",
        "config": case["config"],
        "files": case.get("files", {}),
        "tests": list(tests.values()),
    }


def main() -> int:
    promptfoo = Path(sys.argv[1]).resolve()
    recorded = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, case in CASES.items():
            recorded[name] = run(promptfoo, name, case, Path(tmp))
            print(name, len(recorded[name]["tests"]), "tests")
    (HERE / "numbering.json").write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
