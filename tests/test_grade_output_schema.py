"""``rubric grade --format json``: every request kind's real output validates against
schemas/rubric-grade-output.schema.json, and tests are numbered from 1 everywhere (as ``--test``).

Graded through litellm's real HTTP path against tests/judge_server.py.
"""

from __future__ import annotations

import json

import jsonschema
import pytest

from rubric_lsp.cli import main
from tests.configs import SELECT_BEST
from tests.conftest import REPO, SAMPLES, use_judge
from tests.judge_server import Reply

SCHEMA = json.loads((REPO / "schemas" / "rubric-grade-output.schema.json").read_text(encoding="utf-8"))


def judge(request) -> Reply:
    """A judge that answers each format's prompt in the shape that format asks for."""
    text = request.text
    if "<Candidate" in text or "Pick one:" in text:
        return Reply.json({"best": 1, "reason": "politer"})
    if "<options>" in text:
        return Reply.json({"selected_option": 1, "explanation": "fits"})
    if "criterion_status" in text:
        return Reply.json({"criterion_status": "MET", "explanation": "ok"})
    if '"score"' in text and "feedback" in text:  # NorthStar's RubricJudge
        return Reply.json({"score": 5, "reason": "right", "feedback": "none", "confidence": 0.9, "evidence": []})
    return Reply.json({"pass": True, "score": 1, "reason": "ok"})


@pytest.fixture
def grade(judge_server, tmp_path, monkeypatch, capfd):
    use_judge(monkeypatch, judge_server, "sk-test-schema-0123456789abcdef", tmp_path / "cache")
    judge_server.handler = judge
    (tmp_path / "answer.txt").write_text("Your refund is on its way.")
    (tmp_path / "other.txt").write_text("Refund sent.")

    def run(*argv: str) -> tuple[int, object]:
        code = main(["grade", *argv, "--format", "json", "--no-cache", "--retries", "0"])
        out, err = capfd.readouterr()
        assert code in (0, 1, 2), err
        data = json.loads(out)
        jsonschema.validate(data, SCHEMA, cls=jsonschema.Draft202012Validator)
        return code, data

    run.dir = tmp_path  # type: ignore[attr-defined]
    return run


def test_the_schema_is_a_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_a_response_report_validates(grade):
    _code, data = grade(
        str(SAMPLES / "autorubric" / "refund-reply.rubric.yaml"), "--response", str(grade.dir / "answer.txt")
    )
    assert data["format"] == "autorubric"
    assert len(data["verdicts"]) == 6


def test_a_northstar_report_validates(grade):
    _code, data = grade(
        str(SAMPLES / "northstar" / "eval_run_request.json"),
        "--response",
        str(grade.dir / "answer.txt"),
        "--query",
        "q",
    )
    assert data["format"] == "northstar"


def test_a_failed_judgment_validates_and_is_never_a_pass(grade, judge_server):
    judge_server.handler = lambda request: Reply.server_error()
    code, data = grade(
        str(SAMPLES / "autorubric" / "refund-reply.rubric.yaml"), "--response", str(grade.dir / "answer.txt")
    )
    assert code == 2  # no judgment: incomplete, never a pass nor a plain failure
    assert {v["verdict"] for v in data["verdicts"]} == {"ERROR"}
    assert all(v["error"] and v["counted_as"] for v in data["verdicts"])


def test_examples_validate(grade):
    _code, data = grade(str(SAMPLES / "autorubric" / "refund-reply.rubric.yaml"), "--examples")
    assert isinstance(data, list) and data
    assert all(example["report"] is not None for example in data)


def test_a_dataset_validates(grade):
    _code, data = grade(str(SAMPLES / "autorubric" / "refund-replies.dataset.json"), "--limit", "2")
    assert [item["index"] for item in data["items"]] == [0, 1]
    assert data["agreement"]


def test_rescored_verdicts_validate(grade):
    verdicts = grade.dir / "verdicts.json"
    verdicts.write_text(json.dumps(["MET", "MET", "UNMET", "Rude", "No next step", "UNMET"]))
    _code, data = grade(str(SAMPLES / "autorubric" / "refund-reply.rubric.yaml"), "--verdicts", str(verdicts))
    assert data["cannot_assess"] == "skip"
    assert data["score"] is not None


def test_a_promptfoo_test_is_numbered_as_test_takes_it(grade):
    _code, data = grade(
        str(SAMPLES / "promptfoo" / "promptfooconfig.yaml"), "--response", str(grade.dir / "answer.txt"), "--test", "2"
    )
    assert data["test"] == 2
    assert all(v["name"].startswith("test 2:") for v in data["verdicts"])


def test_outputs_number_their_tests_from_1_everywhere(grade):
    # The README's example: --test 3 with several outputs (max-score) once gave outputs[].test 2, max_score[].test 3.
    _code, data = grade(
        str(SAMPLES / "promptfoo" / "promptfooconfig.yaml"),
        "--test",
        "3",
        "--response",
        str(grade.dir / "answer.txt"),
        "--response",
        str(grade.dir / "other.txt"),
    )
    assert [o["test"] for o in data["outputs"]] == [3, 3]
    assert [s["test"] for s in data["max_score"]] == [3]
    assert all(v["name"].startswith("test 3:") for o in data["outputs"] for v in o["verdicts"])


def test_select_best_validates_and_numbers_its_test_from_1(grade):
    config = grade.dir / "promptfooconfig.yaml"
    config.write_text(SELECT_BEST)
    _code, data = grade(
        str(config), "--response", str(grade.dir / "answer.txt"), "--response", str(grade.dir / "other.txt")
    )
    assert [s["test"] for s in data["select_best"]] == [2]
    assert data["select_best"][0]["winner"] == 1
    _code, data = grade(
        str(config),
        "--test",
        "2",
        "--response",
        str(grade.dir / "answer.txt"),
        "--response",
        str(grade.dir / "other.txt"),
    )
    assert [o["test"] for o in data["outputs"]] == [2, 2]
    assert [s["test"] for s in data["select_best"]] == [2]


def test_the_docs_document_the_report_as_the_schema_has_it():
    import re

    readme = (REPO / "docs" / "grading.md").read_text(encoding="utf-8")
    shape = re.search(r"`--format json` prints, for one response,\s*`(\{.*?\})`;", readme, re.S)
    assert shape, "docs/grading.md's `rubric grade --format json` shape is gone"
    top = re.sub(r"\[\{.*?\}\]", "[]", shape.group(1))
    verdict = re.search(r"\[\{(.*?)\}\]", shape.group(1)).group(1)
    keys = lambda text: {m.group(1): m.group(2) == "?" for m in re.finditer(r'"(\w+)"(\??)', text)}  # noqa: E731
    report, verdicts = SCHEMA["$defs"]["report"], SCHEMA["$defs"]["verdict"]
    for documented, schema in ((keys(top), report), (keys(verdict), verdicts)):
        assert set(documented) <= set(schema["properties"])
        # what the README marks optional (`?`) is exactly what the schema does not require
        assert {k for k, optional in documented.items() if not optional} == set(schema["required"]) & set(documented)
