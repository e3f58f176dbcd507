"""rubric grade's JavaScript-decided and deterministic assertions against promptfoo 0.123.1 itself.

The recording (tests/data/promptfoo-recorded/javascript/js-recorded.json, made by ``record_js.py``
beside it: ``promptfoo eval`` with the echo provider, and promptfoo's own ``runAssertion``) covers
regex and not-regex with JavaScript's RegExp, javascript values, inline transforms, levenshtein,
is-json / contains-json schemas and a test its threshold decides before every assertion is known.
Each recorded test is graded here with its recorded output; pass, score and reason must be
promptfoo's but for the differences the README lists (``REASON_DIFFERS``, ``NOT_KNOWN_SCORE``).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from rubric_lsp.document import parse_document
from rubric_lsp.engine import JudgeSettings
from rubric_lsp.engine.runner import GradingError
from rubric_lsp.formats.promptfoo.grading import javascript
from rubric_lsp.formats.promptfoo.grading.deterministic import check
from rubric_lsp.formats.promptfoo.grading.prompts import UNDEFINED
from rubric_lsp.formats.promptfoo.grading.response import grade_promptfoo
from tests.conftest import require


@pytest.fixture(autouse=True)
def _engine():
    require(importlib.util.find_spec("py_mini_racer") is not None, "mini-racer (the [grade] extra) runs the JavaScript")


RECORDED = json.loads(
    (Path(__file__).parent / "data" / "promptfoo-recorded" / "javascript" / "js-recorded.json").read_text()
)
RESULTS = {r["name"]: r for r in RECORDED["results"]}
# Reasons that differ on purpose (README): V8's stack trace names our sandbox, not promptfoo's files;
# a schema failure is described in jsonschema's words, where promptfoo quotes Ajv's.
REASON_DIFFERS = {"js-throws": "\nStack Trace:", "js-wrong-type": "\nStack Trace:", "is-json-yaml-schema": "Errors: "}
REASON_DIFFERS |= {"is-json-schema-invalid": "Errors: ", "contains-json-schema-none": "Errors: "}
# Decided without knowing every score: the result is promptfoo's, its score only bounded here.
NOT_KNOWN_SCORE = {"best-possible-under-threshold"}
# promptfoo errors these tests (Ajv refuses the schema; the transform throws).
ERRORED = {"transform-throws", "is-json-unknown-keyword", "is-json-draft-2020"}


def _config(name: str) -> str:
    test = RECORDED["config"]["tests"][RESULTS[name]["test"]]
    return json.dumps({"prompts": ["{{out}}"], "providers": ["echo"], "tests": [test]})


async def _grade(name: str, tmp_path):
    test = RECORDED["config"]["tests"][RESULTS[name]["test"]]
    doc = parse_document(_config(name), "promptfooconfig.json")
    settings = JudgeSettings(cache_dir=tmp_path / "cache", env={})
    # The output the eval graded (it trims the echoed prompt); an errored row has none: the var's.
    output = RESULTS[name]["output"]
    return await grade_promptfoo(doc, test["vars"]["out"] if output is None else output, None, settings)


@pytest.mark.parametrize("name", sorted(set(RESULTS) - ERRORED))
async def test_each_assertion_and_test_result_is_promptfoos(name, tmp_path):
    recorded = RESULTS[name]
    report = await _grade(name, tmp_path)
    ours = [(v.passed, v.score, v.reason) for v in report.verdicts]
    theirs = [(a["pass"], a["score"], a["reason"]) for a in recorded["assertions"]]
    if name in NOT_KNOWN_SCORE:  # latency is not run here: its verdict is unknown, the test's is not
        ours, theirs = ours[:2], theirs[:2]
    cut = REASON_DIFFERS.get(name)
    for (passed, score, reason), (their_pass, their_score, their_reason) in zip(ours, theirs, strict=True):
        assert (passed, score) == (their_pass, pytest.approx(their_score))
        if cut is None:
            assert reason == their_reason
        else:
            assert reason.split(cut)[0] == their_reason.split(cut)[0] and cut in reason
    [test] = report.tests
    assert test["passed"] is recorded["success"]
    if name in NOT_KNOWN_SCORE:
        assert test["score"] is None and recorded["score"] == pytest.approx(1 / 3)
        assert test["reason"].startswith("Aggregate score at most 0.67 < 0.6 threshold") is False
        assert "at most 0.33 < 0.6 threshold" in test["reason"]
    else:
        assert test["score"] == pytest.approx(recorded["score"])


async def test_a_transform_that_throws_is_an_error_as_in_promptfoo(tmp_path):
    recorded = RESULTS["transform-throws"]
    assert recorded["success"] is False and "Transform failed" in recorded["error"]
    report = await _grade("transform-throws", tmp_path)
    [verdict] = report.verdicts
    assert verdict.failed and verdict.passed is not True
    assert "Transform failed ([inline transform]: JSON.parse(output).a): Unexpected token 'o'" in verdict.reason
    assert report.passed is None  # an ERROR, never a verdict


@pytest.mark.parametrize("name", ["is-json-unknown-keyword", "is-json-draft-2020"])
async def test_a_schema_ajv_refuses_errors_the_test_as_in_promptfoo(name, tmp_path):
    recorded = RESULTS[name]
    said = recorded["error"].split("\n")[0].removeprefix("Error: ")
    with pytest.raises(GradingError) as refused:
        await _grade(name, tmp_path)
    assert said in str(refused.value)


@pytest.mark.parametrize(
    "entry", RECORDED["checks"], ids=[f"{c['assertion']['type']}-{i}" for i, c in enumerate(RECORDED["checks"])]
)
def test_runassertion_recordings(entry):
    """What an echoed output cannot carry (a trailing newline, astral characters), through runAssertion."""
    assertion = entry["assertion"]
    ours = check(assertion["type"], assertion.get("value", UNDEFINED), entry["output"], {}, _extras(assertion))
    recorded = entry["recorded"]
    assert ours is not None
    if assertion["value"] == "(?i:paris)":
        # Documented: recorded on Node 20 (V8 11), which refuses modifiers, as Node 22 does; the V8 14 here
        # accepts them, as Node 24 does.
        assert recorded["pass"] is False and "Invalid group" in recorded["reason"] and ours.passed is True
        return
    assert (ours.passed, ours.score, ours.reason) == (recorded["pass"], recorded["score"], recorded["reason"])


def _extras(assertion):
    from rubric_lsp.formats.promptfoo.grading.deterministic import Extras

    return Extras(threshold=assertion.get("threshold", UNDEFINED))


# -- the sandbox: bounds, and what it does not have


def _run(value, output="x", **extras):
    from rubric_lsp.formats.promptfoo.grading.deterministic import Extras

    return check("javascript", value, output, {"city": "Paris"}, Extras(**extras))


@pytest.mark.parametrize(
    "body",
    [
        "while (true) {}\nreturn true",  # a loop
        "const later = async () => { await null; while (true) {} };\nreturn later()",  # a loop after an await
        "const never = new Promise(() => {});\nreturn never",  # a promise that never settles
        "const text = 'a'.repeat(40) + 'b';\nreturn /(a+)+$/.test(text)",  # catastrophic backtracking
    ],
)
def test_a_runaway_script_is_an_error_never_a_pass_nor_a_hang(body, monkeypatch):
    from rubric_lsp.formats.promptfoo.grading.checked import Errored

    monkeypatch.setattr(javascript, "TIME_LIMIT", 0.3)
    with pytest.raises(Errored, match="time limit"):
        _run(body)
    assert _run("output === 'x'").passed  # the engine is still there


def test_a_script_past_the_memory_bound_is_an_error(monkeypatch):
    from rubric_lsp.formats.promptfoo.grading.checked import Errored

    monkeypatch.setattr(javascript, "MEMORY_LIMIT", 32 * 2**20)
    with pytest.raises(Errored, match="memory limit"):
        _run("const a = [];\nwhile (true) a.push(new Array(1e6).fill(1.5));\nreturn true")


def test_a_runaway_pattern_is_an_error(monkeypatch):
    from rubric_lsp.formats.promptfoo.grading.checked import Errored

    monkeypatch.setattr(javascript, "TIME_LIMIT", 0.3)
    with pytest.raises(Errored, match="time limit"):
        check("regex", "(a+)+$", "a" * 40 + "b", {})
    assert check("regex", "^a", "ab", {}).passed  # a fresh isolate takes its place


@pytest.mark.parametrize(
    ("value", "what"),
    [
        ("process.env.HOME.length > 0", "process"),
        ("require('fs') !== undefined", "require"),
        ("fetch !== undefined", "fetch"),
        ("Buffer.from(output).length === 1", "Buffer"),
        ("context.test.vars.city === 'Paris'", "context.test"),
        ("context.prompt.includes('x')", "context.prompt"),
        ("context.providerResponse.tokenUsage === undefined", "context.providerResponse.tokenUsage"),
        ("Object.keys(context).length > 0", "the keys of context"),
        ("(() => { try { return process.env.X } catch { return true } })()", "process"),
    ],
)
def test_what_the_sandbox_has_not_declines_the_assertion(value, what):
    """No file, network or process access, and no guess at what rubric grade does not know: not run."""
    from rubric_lsp.formats.promptfoo.grading.checked import Declined

    with pytest.raises(Declined, match=what.replace(".", r"\.")):
        _run(value)


def test_what_the_sandbox_has():
    assert _run("context.vars.city === 'Paris' && context.providerResponse.output === output").passed
    assert _run("context.config.n === 2", config={"n": 2}).passed
    assert _run("typeof context.config === 'undefined'").passed


def test_without_the_engine_javascript_and_regex_are_not_run(monkeypatch):
    """Where mini-racer is not installed: declined (NOT_RUN), never a pass or a guessed verdict."""
    from rubric_lsp.formats.promptfoo.grading.checked import Declined

    monkeypatch.setitem(sys.modules, "py_mini_racer", None)
    with pytest.raises(Declined, match="mini-racer"):
        check("regex", "^Paris$", "Paris\n", {})
    with pytest.raises(Declined, match="mini-racer"):
        _run("true")


async def test_without_the_engine_the_test_is_undecided(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "py_mini_racer", None)
    doc = parse_document(
        "prompts: ['{{out}}']\nproviders: [echo]\ntests:\n  - assert:\n      - type: regex\n        value: '^Paris$'\n",
        "promptfooconfig.yaml",
    )
    report = await grade_promptfoo(doc, "Paris", None, JudgeSettings(cache_dir=tmp_path / "c", env={}))
    [verdict] = report.verdicts
    assert verdict.verdict == "NOT_RUN" and "mini-racer" in verdict.reason
    assert report.passed is None


def test_an_engine_that_does_not_start_declines(monkeypatch):
    """mini-racer installed but V8 failing to start (a wheel for another platform): not run, never a crash."""
    import py_mini_racer

    from rubric_lsp.formats.promptfoo.grading.checked import Declined

    def broken():
        raise OSError("libmini_racer.so: cannot open shared object file")

    monkeypatch.setattr(py_mini_racer, "MiniRacer", broken)
    with pytest.raises(Declined, match="V8 does not start"):
        _run("true")
