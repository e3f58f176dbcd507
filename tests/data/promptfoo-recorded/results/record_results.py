"""Record promptfoo 0.123.1's results files (``promptfoo eval -o results.json``) for ``rubric grade --outputs``
(``tests/test_promptfoo_results_grid.py``).

Not run by the suite (it needs Node and promptfoo): the ``<case>.config.yaml``, ``<case>.results.json`` and
``<case>.judge.json`` files beside this one are checked in. To re-record (as tests/data/promptfoo-recorded/record.py,
on Node 20 through ``dist/src/main.js``):

    PYTHONPATH=$PWD python3 tests/data/promptfoo-recorded/results/record_results.py /path/to/node_modules/promptfoo

Each case is a config (``{API}`` stands for the judge server's base URL) run with promptfoo's echo provider and
graded by tests/judge_server.py answering by the case's rules (first match by substring of the request's text).
The results file is kept as promptfoo wrote it but for its token-usage and HTTP blocks (``tokenUsage``, ``tokensUsed``, ``http``:
bulk no grading reads) and the judge server's address, written back as ``{API}``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.judge_server import JudgeServer, Reply

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from record import eval_env  # tests/data/promptfoo-recorded/record.py: the recordings' environment

HERE = Path(__file__).parent
GRADER = "  options:\n    provider:\n      id: openai:chat:judge\n      config: {apiBaseUrl: '{API}'}\n"
PASSES = {"pass": True, "score": 0.8, "reason": "Fits the rubric."}

CASES: dict[str, dict] = {
    # Two prompts × two providers; a defaultTest list var and a test's list var (promptfoo's numbering); a
    # threshold that rescues a failed assertion; an assert-set; llm-rubric passing and failing by the output.
    "grid": {
        "config": "prompts:\n  - 'Answer: {{q}}'\n  - 'Reply in {{lang}}: {{q}}'\n"
        "providers:\n  - echo\n  - id: echo\n    label: echo-2\n"
        "defaultTest:\n  vars:\n    lang: [en, fr]\n" + GRADER + "tests:\n"
        "  - description: capital\n    vars: {q: paris}\n    assert:\n"
        "      - type: contains\n        value: paris\n"
        "      - type: llm-rubric\n        value: 'mentions {{q}}'\n"
        "  - description: cities\n    vars: {q: [rome, oslo]}\n    threshold: 0.5\n    assert:\n"
        "      - type: icontains\n        value: ROME\n"
        "      - type: assert-set\n        threshold: 0.5\n        assert:\n"
        "          - type: contains\n            value: Answer\n"
        "          - type: contains\n            value: zzz\n"
        "      - type: llm-rubric\n        value: 'is an answer about {{q}}'\n",
        "rules": [["Reply in fr", json.dumps({"pass": False, "score": 0.1, "reason": "Not an answer."})]],
        "default": json.dumps(PASSES),
    },
    # A judge that fails (promptfoo records a FAIL, rubric-lsp an ERROR), a javascript assertion (not run here),
    # a provider-less row is not possible with echo; a not- form and a weight.
    "errors": {
        "config": "prompts: ['Answer: {{q}}']\nproviders: [echo]\ndefaultTest:\n" + GRADER + "tests:\n"
        "  - description: judge down\n    vars: {q: JUDGEDOWN}\n    assert:\n"
        "      - type: llm-rubric\n        value: is polite\n"
        "      - type: contains\n        value: Answer\n"
        "  - description: code\n    vars: {q: hello}\n    assert:\n"
        "      - type: javascript\n        value: output.length > 3\n"
        "      - type: not-llm-rubric\n        value: is rude\n        weight: 2\n",
        "rules": [["JUDGEDOWN", "!500"], ["is rude", json.dumps({"pass": False, "score": 0.2, "reason": "Not rude."})]],
        "default": json.dumps(PASSES),
    },
    # select-best and max-score across a test's columns: max-score sums every assertion's score (javascript,
    # levenshtein and an assert-set's children included, the set itself not); select-best's loser fails; a
    # max-score threshold no output reaches fails them all.
    "compare": {
        "config": "prompts:\n  - 'Answer: {{q}}'\n  - 'Reply: {{q}}'\nproviders: [echo]\ndefaultTest:\n"
        + GRADER
        + "tests:\n"
        "  - description: max-score counts every assertion\n    vars: {q: paris}\n    assert:\n"
        "      - type: llm-rubric\n        value: is good\n"
        "      - type: javascript\n        value: \"output.startsWith('Reply') ? 1 : 0\"\n"
        "      - type: levenshtein\n        value: 'Reply: paris'\n        threshold: 2\n"
        "      - type: assert-set\n        assert:\n          - type: contains\n            value: paris\n"
        "      - type: max-score\n"
        "  - description: select-best picks one\n    vars: {q: rome}\n    assert:\n"
        "      - type: contains\n        value: rome\n"
        "      - type: select-best\n        value: the most formal reply\n"
        "  - description: both, and a threshold no output reaches\n    vars: {q: oslo}\n    assert:\n"
        "      - type: icontains\n        value: OSLO\n"
        "      - type: select-best\n        value: the shortest reply\n"
        "      - type: max-score\n        value: {threshold: 2}\n",
        "rules": [
            ["the most formal reply", "1"],
            ["the shortest reply", "0"],
            ["Reply: paris", json.dumps({"pass": True, "score": 0.5, "reason": "Fine."})],
        ],
        "default": json.dumps({"pass": True, "score": 0.6, "reason": "Good."}),
    },
    # What a model-graded assertion judges: the test's options.transform output (a scenario config entry's
    # options too), an assertion's own transform; the judge fails whatever it is sent untransformed.
    "transforms": {
        "config": "prompts: ['Answer: {{q}}']\nproviders: [echo]\ndefaultTest:\n" + GRADER + "tests:\n"
        "  - description: the test's transform\n    vars: {q: paris}\n    options:\n      transform: output.toUpperCase()\n"
        "    assert:\n      - type: llm-rubric\n        value: is shouted\n"
        "      - type: contains\n        value: PARIS\n"
        "  - description: an assertion's transform\n    vars: {q: rome}\n    assert:\n"
        "      - type: llm-rubric\n        value: is shouted\n        transform: output.toUpperCase()\n"
        "      - type: llm-rubric\n        value: is shouted too\n"
        "scenarios:\n  - config:\n      - options:\n          transform: \"'<' + output + '>'\"\n"
        "    tests:\n      - description: a scenario entry's options\n        vars: {q: oslo}\n        assert:\n"
        "          - type: starts-with\n            value: '<Answer'\n"
        "          - type: llm-rubric\n            value: is bracketed\n",
        "rules": [
            ["ANSWER: PARIS", json.dumps(PASSES)],
            ["ANSWER: ROME", json.dumps(PASSES)],
            ["<Answer: oslo>", json.dumps(PASSES)],
        ],
        "default": json.dumps({"pass": False, "score": 0.0, "reason": "Judged untransformed."}),
    },
    # promptfoo errors a test whose cost/latency has no threshold (PF117) or whose context-* has no query (PF118).
    "needs": {
        "config": "prompts: ['Answer: {{q}}']\nproviders: [echo]\ndefaultTest:\n" + GRADER + "tests:\n"
        "  - description: latency without threshold\n    vars: {q: paris}\n    assert:\n      - type: latency\n"
        "  - description: context without query\n    vars: {q: rome, context: Rome is in Italy.}\n    assert:\n"
        "      - type: context-faithfulness\n        threshold: 0.5\n"
        "  - description: fine\n    vars: {q: oslo}\n    assert:\n      - type: contains\n        value: oslo\n",
        "rules": [],
        "default": json.dumps(PASSES),
    },
    # A threshold decides a test whatever its is-xml (not run by rubric grade) gives: promptfoo's score is known.
    "decided": {
        "config": "prompts: ['Answer: {{q}}']\nproviders: [echo]\ntests:\n"
        "  - description: at most 2/3 against 0.9\n    vars: {q: paris}\n    threshold: 0.9\n    assert:\n"
        "      - type: contains\n        value: paris\n      - type: contains\n        value: zzz\n"
        "      - type: is-xml\n",
        "rules": [],
        "default": json.dumps(PASSES),
    },
}


def reply(text: str) -> Reply:
    return Reply.server_error() if text == "!500" else Reply.text(text)


def strip(value):
    """The results file without its token-usage blocks."""
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k not in ("tokenUsage", "tokensUsed", "http")}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def run(promptfoo: Path, name: str, case: dict, work: Path) -> None:
    with JudgeServer() as server:
        api = server.base_url
        for match, text in case["rules"]:
            server.when(match, reply(text))
        server.default = Reply.text(case["default"])
        config = work / "promptfooconfig.yaml"
        config.write_text(case["config"].replace("{API}", api))
        env = eval_env(work)
        main = promptfoo / "dist" / "src" / "main.js"
        args = ["node", str(main), "eval", "-c", str(config), "--no-cache", "--no-write", "-j", "1"]
        subprocess.run([*args, "-o", str(work / "results.json")], env=env, cwd=work, capture_output=True, timeout=300)
        data = strip(json.loads((work / "results.json").read_text()))
    text = json.dumps(data, indent=1, ensure_ascii=False).replace(api, "{API}")
    (HERE / f"{name}.results.json").write_text(text + "\n")
    (HERE / f"{name}.config.yaml").write_text(case["config"])
    judge = {"rules": case["rules"], "default": case["default"]}
    (HERE / f"{name}.judge.json").write_text(json.dumps(judge, indent=1) + "\n")


def main() -> int:
    promptfoo = Path(sys.argv[1]).resolve()
    only = sys.argv[2:]
    for name, case in CASES.items():
        if only and name not in only:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            run(promptfoo, name, case, Path(tmp))
        print(name, "recorded")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
