"""Record what promptfoo 0.123.1 sends to a judge and what it concludes, for the fidelity tests.

Not run by the suite (it needs Node and promptfoo): the recordings beside this file are
checked in and ``tests/test_grading_promptfoo_recorded.py`` replays them. To re-record:

    npm install --ignore-scripts promptfoo@0.123.1 @libsql/linux-x64-gnu   # in some folder
    PYTHONPATH=$PWD python3 tests/data/promptfoo-recorded/record.py /path/to/node_modules/promptfoo

promptfoo 0.123.1 declares Node >= 22.22; its CLI entry point refuses older Node, but its
``dist/src/main.js`` runs on Node 20 (how these were recorded: Node 20.20.2). Each case is
a config (``{API}`` stands for the judge server's base URL), the judge's scripted replies
(first matching rule by substring of the request's message text), and what was recorded:
every request body in order (``-j 1``), and per result the output, the prompt and each
assertion's pass, score and reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.judge_server import JudgeServer, Reply

HERE = Path(__file__).parent
RUBRIC = {"reason": "Fits the rubric.", "pass": True, "score": 0.8}
PF = "providers: [echo]\n"
OWN = "  options:\n    provider:\n      id: openai:chat:judge\n      config: {apiBaseUrl: '{API}'}\n"

CASES: dict[str, dict] = {
    # The default grader with only an OpenAI key: promptfoo's model, JSON mode; a Nunjucks filter.
    "rubric-default-grader": {
        "config": "prompts: ['Answer: {{q}}']\n" + PF + "tests:\n  - vars: {q: paris}\n    assert:\n"
        "      - type: llm-rubric\n        value: 'mentions {{ q | upper }} and {{ n | round }}'\n"
        "    options: {}\n  - vars: {q: rome, n: 2.6}\n    assert:\n      - type: llm-rubric\n        value: 'says {{ q | title }} {{ n | round }}'\n",
        "env": {"OPENAI_BASE_URL": "{API}"},
        "rules": [],
        "default": json.dumps(RUBRIC),
    },
    # A grader the config names: no JSON mode; a test var named output/rubric does not replace them; not-.
    "rubric-own-grader": {
        "config": "prompts: ['Answer: {{q}}']\n" + PF + "defaultTest:\n" + OWN + "tests:\n"
        "  - vars: {q: paris, output: 'a var named output', rubric: 'a var named rubric', obj: {a: 1}, list: [1, {b: 2}]}\n"
        "    assert:\n      - type: llm-rubric\n        value: 'is about {{ q }} {{ obj }} {{ list }}'\n"
        "      - type: not-llm-rubric\n        value: 'is rude'\n        threshold: 0.5\n",
        "env": {},
        "rules": [["is rude", json.dumps({"reason": "Not rude.", "pass": False, "score": 0.2})]],
        "default": json.dumps(RUBRIC),
    },
    # Sloppy judge JSON, read by promptfoo's YAML-based extraction.
    "rubric-sloppy-json": {
        "config": "prompts: ['Answer: {{q}}']\n"
        + PF
        + "defaultTest:\n"
        + OWN
        + "tests:\n"
        + "".join(
            f"  - vars: {{q: case{n}}}\n    assert:\n      - type: llm-rubric\n        value: 'reply {n}'\n"
            for n in range(1, 7)
        ),
        "env": {},
        "rules": [
            ["reply 1", "{pass: true, score: 0.7, reason: unquoted keys}"],
            ["reply 2", "{'pass': True, 'score': 0.6, 'reason': 'a Python dict'}"],
            ["reply 3", '{\n  // a comment\n  "pass": false,\n  "score": 0.1,\n  "reason": "commented"\n}'],
            ["reply 4", '{"pass": true, "score": 0.9, "reason": "trailing comma",}'],
            ["reply 5", '{"pass": true, "score": 0.9, "reason": "truncat'],
            [
                "reply 6",
                'Thinking... {"pass": false, "score": 0, "reason": "first"} then {"pass": true, "score": 1, "reason": "second"}',
            ],
        ],
        "default": json.dumps(RUBRIC),
    },
    "rubric-custom-prompt": {
        "config": "prompts: ['Answer: {{q}}']\n"
        + PF
        + "defaultTest:\n"
        + OWN
        + '    rubricPrompt: \'[{"role": "system", "content": "Grade {{ output }} by {{ rubric | upper }} for {{ q }}"}]\'\n'
        "tests:\n  - vars: {q: paris}\n    assert:\n      - type: llm-rubric\n        value: is short\n",
        "env": {},
        "rules": [],
        "default": json.dumps(RUBRIC),
    },
    # factuality / closedqa: each prompt's own text as input; not- ignored in 0.123.1; test vars spread first.
    "factuality-closedqa": {
        "config": "prompts: ['Answer: {{q}}', 'Reply briefly: {{q}}']\n" + PF + "defaultTest:\n" + OWN + "tests:\n"
        "  - vars: {q: paris, input: 'a var named input', completion: 'a var named completion'}\n    assert:\n"
        "      - type: factuality\n        value: 'The answer is {{ q | capitalize }}'\n"
        "      - type: not-factuality\n        value: 'Rome'\n"
        "      - type: model-graded-closedqa\n        value: 'names a city'\n"
        "      - type: not-model-graded-closedqa\n        value: 'is in French'\n",
        "env": {},
        "rules": [
            ["<expert_answer>\nRome", json.dumps({"category": "D", "reason": "Different city."})],
            ["expert_answer", json.dumps({"category": "C", "reason": "Same facts."})],
            ["is in French", "The submission is English.\nN\nN"],
            ["names a city", "It names Paris.\nY\nY"],
        ],
        "default": json.dumps(RUBRIC),
    },
    "g-eval": {
        "config": "prompts: ['Answer: {{q}}', 'Say: {{q}}']\n" + PF + "defaultTest:\n" + OWN + "tests:\n"
        "  - vars: {q: paris}\n    assert:\n      - type: g-eval\n        value: 'Is it about {{ q }}?'\n"
        "      - type: not-g-eval\n        value: 'Is it rude?'\n        threshold: 0.5\n",
        "env": {},
        "rules": [
            ["generate 3-4 concise evaluation steps", '{"steps":["Read it.","Check it."]}'],
            ["Is it rude?", '{"score":2,"reason":"Polite."}'],
            ["**Evaluation Steps**", '{"score":8,"reason":"On topic."}'],
        ],
        "default": json.dumps(RUBRIC),
    },
    "select-best": {
        "config": "prompts: ['Answer: {{q}}', 'Shout: {{q}}']\n" + PF + "defaultTest:\n" + OWN + "tests:\n"
        "  - vars: {q: paris}\n    assert:\n      - type: select-best\n        value: 'the calmest {{ q }}'\n",
        "env": {},
        "rules": [],
        "default": "After comparing, the best is 1.",
    },
    # max-score over deterministic assertions and an llm-rubric.
    "max-score": {
        "config": "prompts: ['Answer: {{q}}', 'ANSWER {\"city\": \"{{q}}\"}']\n"
        + PF
        + "defaultTest:\n"
        + OWN
        + "tests:\n"
        "  - vars: {q: paris}\n    assert:\n"
        "      - type: contains\n        value: 'Answer'\n"
        "      - type: icontains\n        value: 'PARIS'\n"
        "      - type: starts-with\n        value: 'ANSWER'\n"
        "      - type: regex\n        value: '^Answer: \\w+$'\n"
        "      - type: contains-json\n"
        "      - type: equals\n        value: 'Answer: paris'\n"
        "      - type: llm-rubric\n        value: 'is calm'\n"
        "      - type: max-score\n",
        "env": {},
        "rules": [["ANSWER {", json.dumps({"reason": "Shouts.", "pass": False, "score": 0.0})]],
        "default": json.dumps({"reason": "Calm.", "pass": True, "score": 1.0}),
    },
    # Deterministic checks decide the winner (the judge alone prefers output 2); javascript is left out here.
    "max-score-deterministic": {
        "config": "prompts: ['Answer: {{q}}', 'Reply: {{q}}']\n" + PF + "defaultTest:\n" + OWN + "tests:\n"
        "  - vars: {q: paris, word: answer}\n    assert:\n"
        "      - type: llm-rubric\n        value: 'is good'\n"
        "      - type: contains\n        value: 'Answer'\n"
        "      - type: icontains-any\n        value: '{{ word }}, \"x, y\"'\n"
        "      - type: not-contains\n        value: 'Reply'\n"
        "      - type: is-json\n"
        "      - type: javascript\n        value: 'output.length > 0'\n"
        "      - type: max-score\n",
        "env": {},
        "rules": [["Reply: paris", json.dumps({"reason": "Better.", "pass": True, "score": 0.7})]],
        "default": json.dumps({"reason": "Fine.", "pass": True, "score": 0.6}),
    },
    # A 500 then a good answer: promptfoo does not retry 5xx unless PROMPTFOO_RETRY_5XX is set.
    "server-error-no-retry": {
        "config": "prompts: ['Answer: {{q}}']\n"
        + PF
        + "defaultTest:\n"
        + OWN
        + "tests:\n  - vars: {q: paris}\n    assert:\n      - type: llm-rubric\n        value: is short\n",
        "env": {},
        "rules": [],
        "default": json.dumps(RUBRIC),
        "first_status": 500,
    },
    "server-error-retry-5xx": {
        "config": "prompts: ['Answer: {{q}}']\n"
        + PF
        + "defaultTest:\n"
        + OWN
        + "tests:\n  - vars: {q: paris}\n    assert:\n      - type: llm-rubric\n        value: is short\n",
        "env": {"PROMPTFOO_RETRY_5XX": "true"},
        "rules": [],
        "default": json.dumps(RUBRIC),
        "first_status": 500,
    },
}


def eval_env(work: Path) -> dict[str, str]:
    """The environment a recorded ``promptfoo eval`` runs in: a dummy key, no telemetry or update check, its
    own config folder under ``work``, short retry back-offs, no 5xx retry unless a case sets it."""
    env = dict(os.environ)
    env.update(
        OPENAI_API_KEY="sk-recording-dummy",
        PROMPTFOO_DISABLE_TELEMETRY="1",
        PROMPTFOO_DISABLE_UPDATE="1",
        PROMPTFOO_CONFIG_DIR=str(work / ".promptfoo"),
        # Retries back off for seconds; the count is what matters here.
        PROMPTFOO_REQUEST_BACKOFF_MS="10",
    )
    env.pop("PROMPTFOO_RETRY_5XX", None)
    return env


def run(promptfoo: Path, name: str, case: dict, work: Path) -> dict:
    with JudgeServer() as server:
        api = server.base_url
        for match, text in case["rules"]:
            server.when(match, Reply.text(text))
        server.default = Reply.text(case["default"])
        if case.get("first_status"):
            server.queue(Reply.server_error(case["first_status"]))
        config = work / f"{name}.yaml"
        config.write_text(case["config"].replace("{API}", api))
        out = work / f"{name}.json"
        env = eval_env(work)
        env.update({k: v.replace("{API}", api) for k, v in case["env"].items()})
        main = promptfoo / "dist" / "src" / "main.js"
        args = ["node", str(main), "eval", "-c", str(config), "--no-cache", "--no-write", "-j", "1", "-o", str(out)]
        subprocess.run(args, env=env, cwd=work, capture_output=True, timeout=300, check=False)
        data = json.loads(out.read_text())
        requests = [r.body for r in server.completions if isinstance(r.body, dict)]
    results = [
        {"test": r["testIdx"], "prompt": r["promptIdx"]} | recorded_row(r)
        for r in sorted(data["results"]["results"], key=lambda r: (r["testIdx"], r["promptIdx"]))
    ]
    return {
        "promptfoo": "0.123.1",
        "config": case["config"],
        "env": case["env"],
        "rules": case["rules"],
        "default": case["default"],
        "first_status": case.get("first_status"),
        "requests": requests,
        "results": results,
    }


def recorded_row(result: dict) -> dict:
    """One row of ``promptfoo eval -o``'s results as the recordings keep it: output, result, each assertion's."""
    grading = result.get("gradingResult") or {}
    return {
        "output": (result.get("response") or {}).get("output"),
        "success": result["success"],
        "score": result["score"],
        "error": result.get("error"),
        "assertions": [
            {
                "type": (c.get("assertion") or {}).get("type"),
                "pass": c.get("pass"),
                "score": c.get("score"),
                "reason": c.get("reason"),
            }
            for c in grading.get("componentResults") or []
        ],
    }


def main() -> int:
    promptfoo = Path(sys.argv[1]).resolve()
    only = sys.argv[2:]
    with tempfile.TemporaryDirectory() as tmp:
        for name, case in CASES.items():
            if only and name not in only:
                continue
            recorded = run(promptfoo, name, case, Path(tmp))
            (HERE / f"{name}.json").write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")
            print(name, len(recorded["requests"]), "requests")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
