"""Record a promptfoo 0.123.1 results file holding ratings given in its viewer (the thumbs up and down), for
``rubric label CONFIG --from results.json`` (``tests/test_labelling_promptfoo.py``).

Not run by the suite (it needs Node and promptfoo): ``ratings.config.yaml`` and ``ratings.results.json`` beside
this file are checked in. To re-record (on Node 20, through ``dist/src/main.js``):

    PYTHONPATH=$PWD python3 tests/data/promptfoo-recorded/ratings/record_ratings.py /path/to/node_modules/promptfoo

The steps are a person's: ``promptfoo eval`` (graded by tests/judge_server.py: the reply to Bob fails), then
``promptfoo view``, whose page posts each rating to ``POST /api/eval/:evalId/results/:id/rating`` with the
grading result its own code builds (``dist/src/app/assets/index-*.js``: a thumb appends, or replaces, a component
``{pass, score, reason: "Manual result (overrides all other grading results)", comment, assertion: {type:
"human"}}`` and sets the row's pass and score to the thumb's); this script posts the same bodies. Then
``promptfoo export eval <id> -o ratings.results.json`` writes the results file as ``promptfoo eval -o`` does
(``writeOutput``). Token usage and HTTP blocks are dropped, and the judge server's address written as ``{API}``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from tests.judge_server import JudgeServer, Reply

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from record import eval_env  # tests/data/promptfoo-recorded/record.py: the recordings' environment

HERE = Path(__file__).parent
MANUAL = "Manual result (overrides all other grading results)"
CONFIG = """\
prompts: ['Reply to {{name}}']
providers: [echo]
defaultTest:
  options:
    provider:
      id: openai:chat:judge
      config: {apiBaseUrl: '{API}'}
tests:
  - description: greeting
    vars: {name: Ann}
    assert:
      - type: llm-rubric
        value: Is polite
        metric: polite
  - description: farewell
    vars: {name: Bob}
    assert:
      - type: contains
        value: Bob
      - type: llm-rubric
        value: Is polite
        metric: polite
  - description: two rubrics
    vars: {name: Cy}
    assert:
      - type: llm-rubric
        value: Is polite
        metric: polite
      - type: llm-rubric
        value: Is short
  - description: unrated
    vars: {name: Di}
    assert:
      - type: llm-rubric
        value: Is polite
        metric: polite
"""
# name → (thumb up?, comment): Bob's is the judge's fail, overturned; Cy's thumb rates two rubrics at once.
RATINGS = {"Ann": (True, "friendly enough"), "Bob": (True, "polite, if short"), "Cy": (False, "")}
PASSES = {"pass": True, "score": 1, "reason": "Polite."}
FAILS = {"pass": False, "score": 0, "reason": "Curt."}


def rated(output: dict, up: bool, comment: str) -> dict:
    """The grading result promptfoo's viewer posts for a thumb (its ``ZJ`` then ``QJ``, read in index-*.js)."""
    existing = output.get("gradingResult") or {}
    components = [
        c for c in existing.get("componentResults") or [] if (c.get("assertion") or {}).get("type") != "human"
    ]
    score = 1 if up else 0
    components.append(
        {"pass": up, "score": score, "reason": MANUAL, "comment": comment, "assertion": {"type": "human"}}
    )
    body = {k: v for k, v in existing.items() if k != "componentResults"}
    body.update({"pass": up, "score": score, "reason": MANUAL, "comment": comment, "componentResults": components})
    return body


def call(url: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"} if body is not None else {}
    with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers), timeout=60) as answer:
        return json.loads(answer.read())


def main() -> int:
    promptfoo = Path(sys.argv[1]).resolve() / "dist" / "src" / "main.js"
    with tempfile.TemporaryDirectory() as tmp, JudgeServer() as judge:
        work = Path(tmp)
        judge.when("Reply to Bob", Reply.text(json.dumps(FAILS)))
        judge.default = Reply.text(json.dumps(PASSES))
        api = judge.base_url
        (work / "promptfooconfig.yaml").write_text(CONFIG.replace("{API}", api))
        env = eval_env(work)
        subprocess.run(
            ["node", str(promptfoo), "eval", "-c", "promptfooconfig.yaml", "--no-cache", "-j", "1"],
            env=env,
            cwd=work,
            capture_output=True,
            timeout=300,
            check=False,  # 100: a test failed (Bob's)
        )
        port = 15700
        view = subprocess.Popen(
            ["node", str(promptfoo), "view", "-p", str(port), "-n"],
            env=env,
            cwd=work,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            base = f"http://127.0.0.1:{port}/api"
            for _ in range(240):
                try:
                    evals = call(f"{base}/results")["data"]
                    break
                except OSError:
                    time.sleep(0.5)
            eval_id = evals[0]["evalId"]
            table = call(f"{base}/eval/{eval_id}/table?limit=50")["table"]
            for row in table["body"]:
                name = row["test"]["vars"]["name"]
                if name in RATINGS:
                    output = row["outputs"][0]
                    call(f"{base}/eval/{eval_id}/results/{output['id']}/rating", rated(output, *RATINGS[name]))
            out = work / "ratings.results.json"
            subprocess.run(
                ["node", str(promptfoo), "export", "eval", eval_id, "-o", str(out)],
                env=env,
                cwd=work,
                capture_output=True,
                timeout=300,
                check=True,
            )
        finally:
            view.terminate()
            view.wait(timeout=30)
        data = _strip(json.loads(out.read_text()))
    (HERE / "ratings.results.json").write_text(
        json.dumps(data, indent=1, ensure_ascii=False).replace(api, "{API}") + "\n"
    )
    (HERE / "ratings.config.yaml").write_text(CONFIG)
    print("recorded", eval_id)
    return 0


def _strip(value):
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in ("tokenUsage", "tokensUsed", "http")}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


if __name__ == "__main__":
    raise SystemExit(main())
