"""Record promptfoo 0.123.1's own test results (``assertions.runAssertions``) for the outcome tests.

Not run by the suite (it needs Node and promptfoo): ``test-outcomes.json`` beside this file is
checked in and ``tests/test_grading_promptfoo_outcomes_recorded.py`` replays it. To re-record:

    PYTHONPATH=$PWD python3 tests/data/promptfoo-recorded/outcomes/record_outcomes.py /path/to/node_modules/promptfoo

Each case is a test (``assert``, ``threshold``, ``vars``) and an output; llm-rubric assertions are
graded by a provider object whose reply is the case's ``judge`` JSON (what the judge server replies
in the replay). Recorded: the test's pass, score, reason, namedScores and each component's result.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
JUDGE = {"reason": "Polite.", "pass": True, "score": 0.9}
CASES = [
    {
        "name": "failing-contains",
        "output": "We are sorry.",
        "assert": [{"type": "contains", "value": "refund"}, {"type": "llm-rubric", "value": "Is polite"}],
    },
    {
        "name": "threshold-overrides",
        "output": "We are sorry.",
        "threshold": 0.4,
        "assert": [{"type": "contains", "value": "refund"}, {"type": "llm-rubric", "value": "Is polite"}],
    },
    {
        "name": "threshold-fails",
        "output": "We are sorry.",
        "threshold": 0.5,
        "assert": [{"type": "contains", "value": "refund"}, {"type": "llm-rubric", "value": "Is polite"}],
    },
    {
        "name": "weights-and-metrics",
        "output": "Refund sent. Sorry!",
        "assert": [
            {"type": "icontains", "value": "REFUND", "weight": 3, "metric": "policy"},
            {"type": "not-contains", "value": "Sorry", "weight": 1, "metric": "tone"},
            {"type": "llm-rubric", "value": "Is polite", "weight": 2, "metric": "tone"},
            {"type": "starts-with", "value": "Refund", "weight": 0},
        ],
    },
    {
        "name": "assert-set",
        "output": "Refund sent in 5 days.",
        "assert": [
            {
                "type": "assert-set",
                "threshold": 0.5,
                "weight": 2,
                "metric": "set",
                "assert": [
                    {"type": "contains", "value": "refund"},
                    {"type": "regex", "value": "\\d+ days", "metric": "inner"},
                ],
            },
            {"type": "equals", "value": "nope"},
        ],
    },
    {
        "name": "templated-metric-and-any",
        "output": "Paris, France",
        "vars": {"city": "paris", "m": "geo"},
        "assert": [
            {"type": "icontains-any", "value": "{{city}}, rome", "metric": "{{m}}"},
            {"type": "contains-all", "value": ["Paris", "Spain"], "metric": "{{m}}"},
            {"type": "is-json"},
            {"type": "not-contains-json"},
        ],
    },
]

# Single deterministic assertions through promptfoo's runAssertion: (assertion, output, vars).
CHECKS = [
    [{"type": "contains", "value": 42}, "the answer is 42", {}],
    [{"type": "not-contains", "value": "x"}, "xyz", {}],
    [{"type": "icontains", "value": "{{w}}"}, "Hello World", {"w": "WORLD"}],
    [{"type": "contains-any", "value": '"a, b", c'}, "has a, b here", {}],
    [{"type": "contains-any", "value": '"a, b", c'}, "has a and b", {}],
    [{"type": "contains-all", "value": []}, "anything", {}],
    [{"type": "icontains-all", "value": ["X", "y"]}, "x only", {}],
    [{"type": "not-icontains-any", "value": ["sorry", "apolog"]}, "We apologise", {}],
    [{"type": "equals", "value": "hi"}, "hi", {}],
    [{"type": "equals", "value": {"a": 1}}, '{"a": 1.0}', {}],
    [{"type": "equals", "value": {"a": True}}, '{"a": 1}', {}],
    [{"type": "equals"}, "undefined", {}],
    [{"type": "not-equals", "value": 5}, "5", {}],
    [{"type": "starts-with", "value": "Dear"}, "Hi there", {}],
    [{"type": "regex", "value": "^\\d{3}-\\d{4}$"}, "555-1234", {}],
    [{"type": "not-regex", "value": "sorry"}, "so sorry", {}],
    [{"type": "is-json"}, '{"a": [1, 2]}', {}],
    [{"type": "is-json"}, "NaN", {}],
    [{"type": "not-is-json"}, "plain", {}],
    [{"type": "contains-json"}, 'Here: {"a": 1} done', {}],
    [{"type": "contains-json"}, "no json", {}],
]

SCRIPT = r"""
import promptfoo from '%s';
const cases = JSON.parse(process.argv[2]);
const judge = JSON.parse(process.argv[3]);
const provider = { id: () => 'recorded-judge', callApi: async () => ({ output: JSON.stringify(judge) }) };
const out = [];
for (const c of cases) {
  const test = { vars: c.vars || {}, assert: c.assert, options: { provider } };
  if (c.threshold !== undefined) test.threshold = c.threshold;
  const r = await promptfoo.assertions.runAssertions({ test, providerResponse: { output: c.output } });
  out.push({ pass: r.pass, score: r.score, reason: r.reason, namedScores: r.namedScores,
    components: r.componentResults.map((x) => ({ type: x.assertion?.type, pass: x.pass, score: x.score, reason: x.reason })) });
}
const checks = [];
for (const [assertion, output, vars] of JSON.parse(process.argv[4])) {
  const r = await promptfoo.assertions.runAssertion({ assertion, test: { vars }, providerResponse: { output } });
  checks.push({ pass: r.pass, score: r.score, reason: r.reason });
}
console.log(JSON.stringify({ out, checks }));
"""


def main() -> int:
    promptfoo = Path(sys.argv[1]).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "record.mjs"
        script.write_text(SCRIPT % (promptfoo / "dist" / "src" / "index.js"))
        done = subprocess.run(
            ["node", str(script), json.dumps(CASES), json.dumps(JUDGE), json.dumps(CHECKS)],
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
        )
    results = json.loads(done.stdout.strip().splitlines()[-1])
    recorded = {
        "promptfoo": "0.123.1",
        "judge": JUDGE,
        "cases": [dict(c, recorded=r) for c, r in zip(CASES, results["out"])],
        "checks": [
            {"assertion": a, "output": o, "vars": v, "recorded": r} for (a, o, v), r in zip(CHECKS, results["checks"])
        ],
    }
    (HERE / "test-outcomes.json").write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
