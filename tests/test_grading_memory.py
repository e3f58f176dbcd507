"""A grading's memory does not grow with its number of criteria (issue 26, item 17).

Every judge prompt embeds the graded response. They were all built up front, one per criterion,
and waited for the concurrency limit holding it (and a failed call's traceback kept its prompt
for the rest of the grading): 600 criteria and a 4 MB response reached 2.5 GB. Now a prompt is
built inside the judge's prompt window (``RateLimiter.prompts``, 2 × concurrency) and dropped
with its call. Measured here with tracemalloc in a fresh process, on the direct route (no
litellm import in the figure): 100 criteria × 1 MB at concurrency 4 peaked at 110 MB (autorubric,
every reply unparseable) and 113 MB (promptfoo) before, 18 and 21 MB after.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.judge_server import JudgeServer, Reply

CRITERIA = 100
RESPONSE_CHARS = 1_000_000
CONCURRENCY = 4
# Allowed peak, in copies of the response: the window's 2 × CONCURRENCY prompts, the CONCURRENCY request
# bodies in flight, the transient copies of building one prompt and hashing its key, and the modules
# imported on the way (a few MB). Before the fix the peak was over CRITERIA copies.
ALLOWED_COPIES = 30

# Runs `rubric grade` in this process, tracing allocations from the point the grading starts.
CHILD = """
import json, sys, tracemalloc
import aiohttp, rubric_lsp.engine.runner, rubric_lsp.engine.judge  # not the grading's own memory
from rubric_lsp.cli import main
tracemalloc.start()
code = main(sys.argv[2:])
peak = tracemalloc.get_traced_memory()[1]
with open(sys.argv[1], "w") as out:
    json.dump({"code": code, "peak": peak, "litellm": "litellm" in sys.modules}, out)
"""


def _response() -> str:
    words = ["refund", "order", "days", "business", "policy", "payment", "reply", "customer", "within", "the", "a"]
    rng = random.Random(26)
    text = " ".join(rng.choice(words) for _ in range(RESPONSE_CHARS // 5))
    return text[:RESPONSE_CHARS]


def _autorubric(folder: Path) -> Path:
    path = folder / "many.rubric.yaml"
    criteria = "".join(
        f"  - name: c{i}\n    requirement: The reply states fact number {i}\n    weight: 1\n" for i in range(CRITERIA)
    )
    path.write_text("rubric:\n" + criteria, encoding="utf-8")
    return path


def _promptfoo(folder: Path) -> Path:
    path = folder / "promptfooconfig.yaml"
    asserts = "".join(
        f"      - type: llm-rubric\n        value: The reply states fact number {i}\n" for i in range(CRITERIA)
    )
    path.write_text(
        "prompts: ['Answer {{question}}']\nproviders: [openai:gpt-4.1-mini]\n"
        f"tests:\n  - vars: {{question: refund}}\n    assert:\n{asserts}",
        encoding="utf-8",
    )
    return path


# autorubric with replies that do not parse (every call a failure the grader keeps); promptfoo with good ones.
CASES = {
    "autorubric-failing": (_autorubric, Reply.text("no verdict in this reply")),
    "promptfoo": (_promptfoo, Reply.json({"pass": True, "score": 1, "reason": "ok"})),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_peak_memory_does_not_grow_with_the_criteria(tmp_path, case):
    write, reply = CASES[case]
    config = write(tmp_path)
    response = tmp_path / "response.txt"
    response.write_text(_response(), encoding="utf-8")
    measured = tmp_path / "measured.json"
    with JudgeServer(default=reply) as server:
        server.keep_requests = False  # a megabyte each: this process must not hold them either
        env = {k: v for k, v in os.environ.items() if not k.startswith("RUBRIC_")}
        env.update(
            OPENAI_API_KEY="sk-test-memory-0123456789",
            RUBRIC_JUDGE_API_BASE=server.base_url,
            RUBRIC_JUDGE_MODEL="openai/judge",
            RUBRIC_CACHE_DIR=str(tmp_path / "cache"),
        )
        args = [str(config), "--response", str(response), "--format", "json", "--concurrency", str(CONCURRENCY)]
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(measured), "grade", *args],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        calls = server._arrivals
    assert measured.exists(), done.stderr[-2000:]
    result = json.loads(measured.read_text())
    assert not result["litellm"], "the grading went through litellm, whose import would be in the figure"
    out = json.loads(done.stdout)
    assert calls == CRITERIA, (calls, done.stderr[-2000:])
    verdicts = out.get("verdicts") or [v for test in out.get("tests", []) for v in test.get("verdicts", [])]
    assert len(verdicts) == CRITERIA, out
    copies = result["peak"] / RESPONSE_CHARS
    assert copies < ALLOWED_COPIES, f"peak {result['peak'] / 1e6:.0f} MB: {copies:.0f} copies of the response"
