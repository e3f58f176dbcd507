"""Record what promptfoo 0.123.1 does with the configs of issue 34's lint gaps, for tests/test_promptfoo_lint_gaps.py.

Not run by the suite (it needs Node and promptfoo): ``recorded.json`` beside this file is checked in
and the test reads it. To re-record (the echo provider answers with the prompt it is sent, so no model
and no key is involved):

    PYTHONPATH=$PWD python3 tests/data/promptfoo-lint-gaps/record.py test-artifacts/promptfoo/node_modules/promptfoo [CASE…]

(naming cases re-records only those, keeping the others).

Each case is a config (and the files it reads), run with ``promptfoo eval`` (or ``validate``). What is
recorded: the exit status, the first line naming the error when the config is refused, and per result
row the test's description, the prompt sent, the output and the error's first line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
ECHO = "providers: [echo]\n"
FILES = {"prompt.txt": "The real prompt about {{topic}}\n", "other.txt": "Another prompt about {{topic}}\n"}

CASES: dict[str, dict] = {
    # PF111 (meteor, search-rubric, skill-used without value), PF117 (cost, latency without threshold),
    # PF118 (context-* without a string query var); "ok-" rows are the controls.
    "assertion-needs": {
        "command": "eval",
        "config": "prompts: ['Q {{topic}}']\n" + ECHO + "defaultTest:\n  options:\n    provider: echo\ntests:\n"
        "  - description: meteor\n    vars: {topic: a}\n    assert:\n      - type: meteor\n"
        "  - description: search-rubric\n    vars: {topic: a}\n    assert:\n      - type: search-rubric\n"
        "  - description: skill-used\n    vars: {topic: a}\n    assert:\n      - type: skill-used\n"
        "  - description: cost\n    vars: {topic: a}\n    assert:\n      - type: cost\n"
        "  - description: latency\n    vars: {topic: a}\n    assert:\n      - type: latency\n"
        "  - description: not-latency\n    vars: {topic: a}\n    assert:\n      - type: not-latency\n"
        "  - description: ok-cost-zero\n    vars: {topic: a}\n    assert:\n      - type: cost\n        threshold: 0\n"
        "  - description: context-faithfulness\n    vars: {topic: a, context: c}\n    assert:\n"
        "      - type: context-faithfulness\n"
        "  - description: context-relevance\n    vars: {topic: a, context: c}\n    assert:\n"
        "      - type: context-relevance\n"
        "  - description: numeric-query\n    vars: {topic: a, context: c, query: 5}\n    assert:\n"
        "      - type: context-faithfulness\n"
        "  - description: no-vars\n    assert:\n      - type: context-relevance\n"
        "  - description: ok-query\n    vars: {topic: a, context: c, query: what is a}\n    assert:\n"
        "      - type: context-relevance\n",
        "files": {},
    },
    # PF119: a prompt object's `file`/`template` is dropped and its id is sent; the controls read a file
    # named by the id, send a prompt text written in the id, or read `raw`.
    "prompt-objects": {
        "command": "eval",
        "config": "prompts:\n"
        "  - id: chartwright\n    label: Chart writer\n    file: file://prompt.txt\n"
        "  - id: summary\n    label: Summary\n    template: 'Summarize {{topic}}'\n"
        "  - id: file://prompt.txt\n    label: ok-id-is-a-file\n    file: file://other.txt\n"
        "  - id: 'Tell me about {{topic}}'\n    label: ok-id-is-the-text\n    note: kept for the team\n"
        "  - id: plain\n    label: ok-raw\n    raw: 'Raw {{topic}}'\n    file: file://other.txt\n"
        + ECHO
        + "tests:\n  - vars: {topic: charts}\n",
        "files": FILES,
    },
    # PF109: an object without an id must have both raw and label.
    "prompt-object-without-id": {
        "command": "eval",
        "config": "prompts:\n  - label: Chart writer\n    file: file://prompt.txt\n"
        + ECHO
        + "tests:\n  - vars: {topic: a}\n",
        "files": FILES,
    },
    "prompt-object-raw-only": {
        "command": "eval",
        "config": "prompts:\n  - raw: 'Say {{topic}}'\n" + ECHO + "tests:\n  - vars: {topic: a}\n",
        "files": {},
    },
    # PF121: no prompts, and no test sets a `prompt` var; a misspelt prompts key; the control sets `prompt`.
    "no-prompts": {
        "command": "eval",
        "config": ECHO + "tests:\n  - vars: {topic: a}\n    assert:\n      - type: contains\n        value: a\n",
        "files": {},
    },
    "misspelt-prompts": {
        "command": "eval",
        "config": "promts: ['Say {{topic}}']\n" + ECHO + "tests:\n  - vars: {topic: a}\n",
        "files": {},
    },
    "no-prompts-csv": {
        "command": "eval",
        "config": ECHO + "tests: file://cases.csv\n",
        "files": {"cases.csv": "topic,__expected\na,contains:a\nb,contains:b\n"},
    },
    "no-prompts-prompt-var": {
        "command": "eval",
        "config": ECHO + "tests:\n  - vars: {prompt: Name a fjord}\n",
        "files": {},
    },
    # PF100: agent-rubric is a type of 0.123.1 (validate accepts it; eval would start a Codex agent).
    "agent-rubric": {
        "command": "validate",
        "config": "prompts: ['Write a chart of {{topic}}']\nproviders: [openai:gpt-4.1-mini]\ntests:\n"
        "  - vars: {topic: sales}\n    assert:\n      - type: agent-rubric\n        value: The chart file exists\n"
        "        provider: openai:codex-sdk\n",
        "files": {},
    },
    # PF100: a select-* typo is skipped by runAssertions (no error, no result), not refused.
    "select-typo": {
        "command": "eval",
        "config": "prompts: ['A {{topic}}', 'B {{topic}}']\n" + ECHO + "tests:\n  - vars: {topic: a}\n    assert:\n"
        "      - type: select-bset\n        value: the best\n",
        "files": {},
    },
}

_NOISE = re.compile(r"ExperimentalWarning|--trace-warnings|^\s+at |^\s*$|^file://|^\s*\^|^Node\.js v")


def run(main: Path, name: str, case: dict, work: Path) -> dict:
    folder = work / name
    folder.mkdir()
    for file, text in case["files"].items():
        (folder / file).write_text(text)
    (folder / "promptfooconfig.yaml").write_text(case["config"])
    env = {k: v for k, v in os.environ.items() if not re.search(r"API_KEY|TOKEN|SECRET", k)}
    env.update(
        PROMPTFOO_DISABLE_TELEMETRY="1", PROMPTFOO_DISABLE_UPDATE="1", PROMPTFOO_CONFIG_DIR=str(work / ".promptfoo")
    )
    out = folder / "out.json"
    args = ["node", str(main), case["command"], "-c", "promptfooconfig.yaml"]
    if case["command"] == "eval":
        args += ["--no-cache", "--no-write", "--no-table", "-j", "1", "-o", str(out)]
    done = subprocess.run(args, env=env, cwd=folder, capture_output=True, text=True, timeout=300, check=False)
    lines = [line for line in (done.stdout + done.stderr).splitlines() if not _NOISE.search(line)]
    recorded: dict = {
        "promptfoo": "0.123.1",
        "command": case["command"],
        "config": case["config"],
        "files": case["files"],
        "status": done.returncode,
    }
    if case["command"] == "validate":
        recorded["said"] = lines[-1] if lines else ""
        return recorded
    if not out.is_file():
        recorded["refused"] = next((line.removeprefix("Error: ") for line in lines if line.startswith("Error: ")), "")
        return recorded
    rows = json.loads(out.read_text())["results"]["results"]
    recorded["results"] = [
        {
            "test": row["testIdx"],
            "description": (row.get("testCase") or {}).get("description"),
            "prompt_label": row["prompt"].get("label"),
            "prompt": row["prompt"]["raw"],
            "output": (row.get("response") or {}).get("output"),
            "error": (row.get("error") or "").split("\n")[0].removeprefix("Error: ") or None,
            "assertions": [
                (c.get("assertion") or {}).get("type")
                for c in (row.get("gradingResult") or {}).get("componentResults") or []
            ],
        }
        for row in sorted(rows, key=lambda r: (r["testIdx"], r["promptIdx"]))
    ]
    return recorded


def main() -> int:
    promptfoo = Path(sys.argv[1]).resolve()
    only = sys.argv[2:]
    main_js = promptfoo / "dist" / "src" / "main.js"
    path = HERE / "recorded.json"
    kept = json.loads(path.read_text()) if only and path.is_file() else {}
    with tempfile.TemporaryDirectory() as tmp:
        fresh = {name: run(main_js, name, case, Path(tmp)) for name, case in CASES.items() if not only or name in only}
    recorded = {name: fresh.get(name, kept.get(name)) for name in CASES if name in fresh or name in kept}
    path.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")
    for name, case in fresh.items():
        print(name, case["status"], case.get("refused") or case.get("said") or len(case.get("results", [])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
