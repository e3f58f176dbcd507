"""Record promptfoo 0.123.1's own verdicts on JavaScript-decided and deterministic assertions.

Not run by the suite (it needs Node and promptfoo): ``js-recorded.json`` beside this file is
checked in and ``tests/test_grading_promptfoo_js_recorded.py`` replays it. To re-record:

    PYTHONPATH=$PWD python3 tests/data/promptfoo-recorded/javascript/record_js.py /path/to/node_modules/promptfoo

One config, ``promptfoo eval`` with the echo provider (so each test's output is its ``out`` var
echoed by the prompt ``{{out}}``), no judge: regex and not-regex (JavaScript's RegExp: the
issue's evidence), javascript values (expression, declarations, a function body, numbers and
thresholds, GradingResult objects, errors, context.vars, async), inline transforms, levenshtein
(UTF-16 code units), is-json / contains-json with schemas (Ajv's strict draft-07), and a test
whose threshold its best possible score cannot reach. Recorded per test: the output, success,
score, error and each assertion's pass, score and reason. Recorded with Node 20.20.2 running
``dist/src/main.js`` (the CLI's own check asks for Node 22; tests/data/promptfoo-recorded/record.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))
from record import recorded_row  # noqa: E402  (tests/data/promptfoo-recorded/record.py: the rows it keeps)

# (name, output, assertions, test threshold or None)
CASES: list[tuple[str, str, list[dict], float | None]] = [
    ("regex-python-named-group", "abc 12", [{"type": "regex", "value": "(?P<n>\\d+)"}], None),
    ("regex-inline-flag", "Paris", [{"type": "regex", "value": "(?i)paris"}], None),
    ("regex-possessive", "aaa", [{"type": "regex", "value": "a++"}], None),
    ("regex-braced-literal", "baaa", [{"type": "regex", "value": "ba{,3}$"}], None),
    ("regex-backslash-Z", "Paris", [{"type": "regex", "value": "Paris\\Z"}], None),
    ("not-regex-refused", "x", [{"type": "not-regex", "value": "(?P<n>x)"}], None),
    ("regex-dollar-newline", "Paris\n", [{"type": "regex", "value": "^Paris$"}], None),
    ("regex-js-named-group", "abc 12", [{"type": "regex", "value": "(?<n>\\d+)"}], None),
    ("not-regex-match", "so sorry", [{"type": "not-regex", "value": "sorr(y|ies)"}], None),
    ("js-expression", "hello world", [{"type": "javascript", "value": "output.trim().length > 5"}], None),
    ("js-declaration", "hi", [{"type": "javascript", "value": "const n = output.length; n > 5"}], None),
    (
        "js-function-body",
        '{"score": 0.7}',
        [{"type": "javascript", "value": "const data = JSON.parse(output);\nreturn data.score > 0.5;\n"}],
        None,
    ),
    ("js-number", "abc", [{"type": "javascript", "value": "output.length / 10"}], None),
    ("js-number-threshold", "abc", [{"type": "javascript", "value": "output.length / 10", "threshold": 0.5}], None),
    ("not-js-number", "abc", [{"type": "not-javascript", "value": "output.length / 10"}], None),
    (
        "js-grading-result",
        "abc",
        [{"type": "javascript", "value": "({pass: output.includes('b'), score: 0.25, reason: 'has b'})"}],
        None,
    ),
    (
        "not-js-grading-result",
        "abc",
        [{"type": "not-javascript", "value": "({pass: true, score: 0.25, reason: 'has b'})"}],
        None,
    ),
    ("js-throws", "not json", [{"type": "javascript", "value": "JSON.parse(output).a === 1"}], None),
    ("js-wrong-type", "abc", [{"type": "javascript", "value": "'yes'"}], None),
    ("js-context-vars", "Paris", [{"type": "javascript", "value": "output === context.vars.out"}], None),
    ("js-async", "abc", [{"type": "javascript", "value": "Promise.resolve(output.length === 3)"}], None),
    (
        "transform-then-contains",
        "hello",
        [{"type": "contains", "value": "HELLO", "transform": "output.toUpperCase()"}],
        None,
    ),
    (
        "transform-then-javascript",
        '{"a": {"b": 2}}',
        [{"type": "javascript", "value": "output.b === 2", "transform": "JSON.parse(output).a"}],
        None,
    ),
    (
        "transform-object-then-equals",
        '{"a": {"b": 2}}',
        [{"type": "equals", "value": '{"b":2}', "transform": "JSON.parse(output).a"}],
        None,
    ),
    ("transform-throws", "not json", [{"type": "contains", "value": "x", "transform": "JSON.parse(output).a"}], None),
    ("levenshtein-default", "kitten", [{"type": "levenshtein", "value": "sitting"}], None),
    ("levenshtein-threshold", "kitten", [{"type": "levenshtein", "value": "sitting", "threshold": 2}], None),
    ("not-levenshtein", "kitten", [{"type": "not-levenshtein", "value": "sitting", "threshold": 2}], None),
    ("levenshtein-emoji", "a😀", [{"type": "levenshtein", "value": "a", "threshold": 1}], None),
    (
        "is-json-schema-valid",
        '{"name": "Ada", "age": 36}',
        [
            {
                "type": "is-json",
                "value": {"type": "object", "required": ["name"], "properties": {"age": {"type": "integer"}}},
            }
        ],
        None,
    ),
    (
        "is-json-schema-invalid",
        '{"age": 36}',
        [{"type": "is-json", "value": {"type": "object", "required": ["name"]}}],
        None,
    ),
    (
        "not-is-json-schema",
        '{"name": "Ada"}',
        [{"type": "not-is-json", "value": {"type": "object", "required": ["name"]}}],
        None,
    ),
    (
        "is-json-yaml-schema",
        '{"name": 3}',
        [{"type": "is-json", "value": "type: object\nproperties:\n  name:\n    type: string\n"}],
        None,
    ),
    (
        "is-json-schema-pattern",
        '{"id": "AB-12"}',
        [{"type": "is-json", "value": {"properties": {"id": {"type": "string", "pattern": "^[A-Z]{2}-\\d+$"}}}}],
        None,
    ),
    (
        "contains-json-schema",
        'Here: {"a": 1} and {"b": "x"}',
        [{"type": "contains-json", "value": {"type": "object", "required": ["b"]}}],
        None,
    ),
    (
        "contains-json-schema-none",
        'Here: {"a": 1}',
        [{"type": "contains-json", "value": {"type": "object", "required": ["b"]}}],
        None,
    ),
    (
        "is-json-unknown-keyword",
        '{"a": 1}',
        [{"type": "is-json", "value": {"type": "object", "requird": ["a"]}}],
        None,
    ),
    (
        "is-json-draft-2020",
        '{"a": 1}',
        [{"type": "is-json", "value": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}}],
        None,
    ),
    (
        "best-possible-under-threshold",
        "We are sorry.",
        [
            {"type": "contains", "value": "refund"},
            {"type": "icontains", "value": "REFUND"},
            {"type": "latency", "threshold": 100000},
        ],
        0.6,
    ),
]


# Outputs no echoed prompt can carry (a trailing newline: the eval trims it), through promptfoo's own
# runAssertion: (assertion, output).
CHECKS: list[tuple[dict, str]] = [
    ({"type": "regex", "value": "^Paris$"}, "Paris\n"),
    ({"type": "regex", "value": "^Paris$"}, "Paris"),
    ({"type": "regex", "value": "Paris\\Z"}, "ParisZ"),
    ({"type": "regex", "value": "ba{,3}$"}, "ba{,3}"),
    ({"type": "not-regex", "value": "^Paris$"}, "Paris\n"),
    ({"type": "regex", "value": "(?i:paris)"}, "PARIS"),
    ({"type": "regex", "value": "\\bcaf\\u00e9\\b"}, "café!"),
    ({"type": "regex", "value": "^.$"}, "😀"),
    ({"type": "javascript", "value": "output.endsWith('\\n')"}, "Paris\n"),
    ({"type": "levenshtein", "value": "Paris", "threshold": "1"}, "Parus"),
]
CHECK_SCRIPT = r"""
import promptfoo from '%s';
const out = [];
for (const [assertion, output] of JSON.parse(process.argv[2])) {
  try {
    const r = await promptfoo.assertions.runAssertion({ assertion, test: { vars: {} }, providerResponse: { output } });
    out.push({ pass: r.pass, score: r.score, reason: r.reason });
  } catch (e) { out.push({ error: String(e.message) }); }
}
console.log(JSON.stringify(out));
"""


def run_checks(promptfoo: Path, work: Path) -> list[dict]:
    script = work / "checks.mjs"
    script.write_text(CHECK_SCRIPT % (promptfoo / "dist" / "src" / "index.js"))
    done = subprocess.run(
        ["node", str(script), json.dumps(CHECKS)], capture_output=True, text=True, check=True, timeout=300
    )
    results = json.loads(done.stdout.strip().splitlines()[-1])
    return [{"assertion": a, "output": o, "recorded": r} for (a, o), r in zip(CHECKS, results)]


def config() -> dict:
    tests = []
    for name, output, asserts, threshold in CASES:
        test: dict = {"description": name, "vars": {"out": output}, "assert": asserts}
        if threshold is not None:
            test["threshold"] = threshold
        tests.append(test)
    return {"prompts": ["{{out}}"], "providers": ["echo"], "tests": tests}


def main() -> int:
    promptfoo = Path(sys.argv[1]).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "promptfooconfig.json").write_text(json.dumps(config(), indent=1))
        out = work / "out.json"
        env = dict(os.environ)
        env.update(
            PROMPTFOO_DISABLE_TELEMETRY="1",
            PROMPTFOO_DISABLE_UPDATE="1",
            PROMPTFOO_CONFIG_DIR=str(work / ".promptfoo"),
        )
        main_js = promptfoo / "dist" / "src" / "main.js"
        args = ["node", str(main_js), "eval", "-c", "promptfooconfig.json", "--no-cache", "--no-write", "-j", "1"]
        subprocess.run([*args, "-o", str(out)], env=env, cwd=work, capture_output=True, timeout=600, check=False)
        data = json.loads(out.read_text())
        checks = run_checks(promptfoo, work)
    results = [
        {"test": r["testIdx"], "name": CASES[r["testIdx"]][0]} | recorded_row(r)
        for r in sorted(data["results"]["results"], key=lambda r: r["testIdx"])
    ]
    recorded = {"promptfoo": "0.123.1", "config": config(), "results": results, "checks": checks}
    (HERE / "js-recorded.json").write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")
    print(len(results), "results")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
