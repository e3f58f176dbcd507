"""rubric grade against recordings of promptfoo 0.123.1 itself (tests/data/promptfoo-recorded/).

Each recording is one config run with ``promptfoo eval`` against tests/judge_server.py
(``record.py`` there says how): every request promptfoo sent and every assertion's verdict.
Here the same config is graded through litellm's real HTTP path against the same scripted
judge, and what the judge receives must be what promptfoo sent — messages byte for byte,
``response_format``, and the model for promptfoo's default grader — and the verdicts must be
promptfoo's, but for the differences the README lists (``DOCUMENTED``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubric_lsp.document import parse_document
from rubric_lsp.formats.promptfoo.grading.outputs import grade_promptfoo_outputs
from rubric_lsp.formats.promptfoo.grading.response import grade_promptfoo
from rubric_lsp.formats.promptfoo.versions import inverts, release
from tests.judge_server import Reply
from tests.promptfoo_grading import settings

RECORDED = Path(__file__).parent / "data" / "promptfoo-recorded"
CASES = sorted(p.stem for p in RECORDED.glob("*.json"))

# (case, test index, prompt index, assertion type): what we decide differently, on purpose (README).
DOCUMENTED = {
    # Two objects in one reply: promptfoo reads the first, we the one the judge concluded with.
    ("rubric-sloppy-json", 5, 0, "llm-rubric"),
    # A judge failure is an ERROR here, a plain FAIL in promptfoo (same pass/score, not a verdict).
    ("rubric-sloppy-json", 4, 0, "llm-rubric"),
    ("server-error-no-retry", 0, 0, "llm-rubric"),
}


NOT_REPORTED = {
    "contains",
    "icontains",
    "icontains-any",
    "starts-with",
    "regex",
    "contains-json",
    "is-json",
    "equals",
    "javascript",
}


def load(name: str) -> dict:
    return json.loads((RECORDED / f"{name}.json").read_text())


def script(server, case: dict) -> None:
    for match, text in case["rules"]:
        server.when(match, Reply.text(text))
    server.default = Reply.text(case["default"])
    if case.get("first_status"):
        server.queue(Reply.server_error(case["first_status"]))


def canonical(body: dict, with_model: bool) -> str:
    kept = {"messages": body.get("messages"), "response_format": body.get("response_format")}
    if with_model:
        kept["model"] = body.get("model")
    return json.dumps(kept, ensure_ascii=False, sort_keys=True)


async def grade_case(server, tmp_path, name: str, case: dict) -> dict[tuple[int, int], list[dict]]:
    """Our verdicts per (test, prompt), as {type, pass, score, failed}."""
    env = {"OPENAI_API_KEY": "sk-test-recorded-0123456789"}
    env.update({k: v.replace("{API}", server.base_url) for k, v in case["env"].items() if k != "OPENAI_BASE_URL"})
    judge = settings(server, tmp_path, env=env, max_retries=4)
    doc = parse_document(case["config"].replace("{API}", server.base_url), f"{name}.yaml")
    outputs: dict[int, dict[int, str]] = {}
    for result in case["results"]:
        outputs.setdefault(result["test"], {})[result["prompt"]] = result["output"]
    ours: dict[tuple[int, int], list[dict]] = {}
    for test, by_prompt in sorted(outputs.items()):
        responses = [by_prompt[p] for p in sorted(by_prompt)]
        if len(responses) == 1:
            reports = [(await grade_promptfoo(doc, responses[0], None, judge, test_index=test)).to_json()]
        else:
            result = await grade_promptfoo_outputs(doc, responses, None, judge, test_index=test)
            reports = result["outputs"]
            for position, report in enumerate(reports):
                for selection in result["max_score"]:
                    report["verdicts"].append(
                        {
                            "name": "max-score",
                            "verdict": "PASS" if selection["passed"][position] else "FAIL",
                            "score": 1.0 if selection["passed"][position] else 0.0,
                        }
                    )
        for prompt, report in enumerate(reports):
            ours[(test, prompt)] = [
                {
                    "type": v["name"].split(": ", 1)[-1],
                    "pass": v["verdict"] == "PASS",
                    "score": v.get("score"),
                    "failed": v["verdict"] == "ERROR",
                }
                for v in report["verdicts"]
            ]
    return ours


@pytest.mark.parametrize("name", CASES)
async def test_the_judge_gets_what_promptfoo_sent(judge_server, tmp_path, name):
    case = load(name)
    script(judge_server, case)
    await grade_case(judge_server, tmp_path, name, case)
    default_grader = "OPENAI_BASE_URL" in case["env"]
    theirs = sorted(canonical(body, default_grader) for body in case["requests"])
    ours = sorted(canonical(r.body, default_grader) for r in judge_server.completions)
    assert ours == theirs


@pytest.mark.parametrize("name", CASES)
async def test_the_verdicts_are_promptfoos(judge_server, tmp_path, name):
    case = load(name)
    script(judge_server, case)
    ours = await grade_case(judge_server, tmp_path, name, case)
    for result in case["results"]:
        key = (result["test"], result["prompt"])
        mine = {v["type"]: v for v in ours[key]}
        for theirs in result["assertions"]:
            kind = theirs["type"]
            if kind.removeprefix("not-") in NOT_REPORTED:
                continue  # graded inside max-score here (javascript: left out), not reported one by one
            got = mine[kind]
            if (name, *key, kind) in DOCUMENTED:
                continue
            assert (got["pass"], got["score"], got["failed"]) == (
                theirs["pass"],
                pytest.approx(theirs["score"]),
                False,
            ), (
                key,
                kind,
            )


async def test_documented_differences_hold(judge_server, tmp_path):
    """The differences DOCUMENTED skips are still exactly these (a judge failure is an ERROR, the concluded object wins)."""
    case = load("rubric-sloppy-json")
    script(judge_server, case)
    ours = await grade_case(judge_server, tmp_path, "rubric-sloppy-json", case)
    assert ours[(4, 0)][0]["failed"]  # truncated object: no object at all
    assert ours[(5, 0)][0]["pass"] is True  # two objects: the last one


async def test_a_5xx_is_retried_only_with_promptfoo_retry_5xx(judge_server, tmp_path):
    case = load("server-error-no-retry")
    script(judge_server, case)
    ours = await grade_case(judge_server, tmp_path, "server-error-no-retry", case)
    assert ours[(0, 0)][0]["failed"] and judge_server.call_count == 1
    judge_server.reset()
    case = load("server-error-retry-5xx")
    script(judge_server, case)
    doc = parse_document(case["config"].replace("{API}", judge_server.base_url), "c.yaml")
    env = {"OPENAI_API_KEY": "sk-test-recorded-0123456789", "PROMPTFOO_RETRY_5XX": "true"}
    report = await grade_promptfoo(doc, "Answer: paris", None, settings(judge_server, tmp_path, env=env, max_retries=4))
    assert report.verdicts[0].verdict == "PASS" and judge_server.call_count == 2
    assert report.usage.retries == 1
    assert any("(retried 1×)" in line for line in report.text_lines())


async def test_max_score_counts_every_assertion_as_promptfoo_does(judge_server, tmp_path):
    """The judge alone prefers output 2 (0.7 vs 0.6); contains / icontains-any / not-contains / is-json and the
    javascript (selectMaxScore counts every componentResult) make output 1 promptfoo's winner, with promptfoo's
    scores and reasons."""
    case = load("max-score-deterministic")
    script(judge_server, case)
    doc = parse_document(case["config"].replace("{API}", judge_server.base_url), "c.yaml")
    outputs = [r["output"] for r in sorted(case["results"], key=lambda r: r["prompt"])]
    result = await grade_promptfoo_outputs(doc, outputs, None, settings(judge_server, tmp_path))
    [selection] = result["max_score"]
    assert selection["winner"] == 0 and selection["left_out"] == []
    assert selection["scores"] == [pytest.approx((0.6 + 1 + 1 + 1 + 0 + 1) / 6), pytest.approx((0.7 + 1) / 6)]
    assert [r["success"] for r in case["results"]] == [False, False]  # (is-json fails both in promptfoo)
    theirs = [r["assertions"][-1] for r in case["results"]]
    assert [t["pass"] for t in theirs] == selection["passed"] == [True, False]
    assert [t["reason"] for t in theirs] == selection["reasons"]


def test_which_release_a_version_grades_as():
    assert release(None).version == "0.123.1" and release("junk").version == "0.123.1"
    assert release("0.121.9").version == "0.121.9" and release("0.100.0").version == "0.121.9"
    assert release("0.122.5").version == "0.121.9" and release("v0.130.0").version == "0.123.1"
    assert inverts("llm-rubric") and inverts("g-eval") and not inverts("factuality")
    assert not inverts("model-graded-closedqa") and not inverts("llm-rubric", "0.121.9")


async def test_not_llm_rubric_is_graded_as_the_targeted_release_does(judge_server, tmp_path):
    config = (
        "prompts: ['Answer: {{q}}']\nproviders: [echo]\ndefaultTest:\n  options: {provider: openai:chat:judge}\n"
        "tests:\n  - vars: {q: paris}\n    assert:\n      - type: not-llm-rubric\n        value: is rude\n"
        "        threshold: 0.5\n"
    )
    judge_server.default = Reply.json({"reason": "Not rude.", "pass": False, "score": 0.2})
    doc = parse_document(config, "c.yaml")
    report = await grade_promptfoo(doc, "Answer: paris", None, settings(judge_server, tmp_path))
    assert [(v.verdict, v.score) for v in report.verdicts] == [("PASS", pytest.approx(0.8))]
    # 0.121.9 ignored the not- of llm-rubric: the judge's FAIL (0.2 under the 0.5 threshold) stays a FAIL.
    old = settings(judge_server, tmp_path, versions=(("promptfoo", "0.121.9"),), cache_dir=tmp_path / "old")
    report = await grade_promptfoo(doc, "Answer: paris", None, old)
    assert [(v.verdict, v.score) for v in report.verdicts] == [("FAIL", pytest.approx(0.2))]
    assert any("0.121.9 ignores its not-" in note for note in report.notes)
