"""What a model-graded assertion judges: the output as a test's ``options.transform`` (a scenario config entry's
options included) and the assertion's own ``transform`` make it, as promptfoo 0.123.1 judges it.

Replays ``tests/data/promptfoo-recorded/results/transforms.*`` (record_results.py: promptfoo's echo provider, its judge
answering PASS only to the transformed text): graded from the provider's raw output with ``--test N --response``
(the transforms run here, in the V8 sandbox) and from promptfoo's results file with ``--outputs`` (whose outputs
promptfoo already transformed: not transformed twice). Every test's pass, score and assertions are promptfoo's, and
the judge is sent what promptfoo sent.
"""

from __future__ import annotations

import importlib.util
import json

import pytest

from rubric_lsp.cli import main
from tests.conftest import REPO, require, use_judge
from tests.judge_server import Reply

HERE = REPO / "tests" / "data" / "promptfoo-recorded" / "results"
KEY = "sk-test-pftransforms-0123456789abcdef"
ROWS = json.loads((HERE / "transforms.results.json").read_text(encoding="utf-8"))["results"]["results"]


@pytest.fixture
def graded(judge_server, tmp_path, monkeypatch, capfd):
    require(importlib.util.find_spec("py_mini_racer") is not None, "mini-racer (the [grade] extra) runs transforms")
    use_judge(monkeypatch, judge_server, KEY, tmp_path / "cache")
    monkeypatch.delenv("RUBRIC_JUDGE_MODEL")
    script = json.loads((HERE / "transforms.judge.json").read_text(encoding="utf-8"))
    for match, text in script["rules"]:
        judge_server.when(match, Reply.text(text))
    judge_server.default = Reply.text(script["default"])
    config = (HERE / "transforms.config.yaml").read_text(encoding="utf-8").replace("{API}", judge_server.base_url)
    (tmp_path / "promptfooconfig.yaml").write_text(config, encoding="utf-8")

    def run(*flags: str) -> tuple[int, dict]:
        argv = ["grade", str(tmp_path / "promptfooconfig.yaml"), "--no-cache", "--format", "json", *flags]
        code = main(argv)
        out, err = capfd.readouterr()
        assert KEY not in out + err
        return code, json.loads(out)

    run.dir = tmp_path  # type: ignore[attr-defined]
    return run


@pytest.mark.parametrize("row", ROWS, ids=[r["testCase"]["description"] for r in ROWS])
def test_the_raw_output_is_transformed_before_the_judge_reads_it(graded, row):
    raw = row["prompt"]["raw"]  # the echo provider's output before any transform
    (graded.dir / "raw.txt").write_text(raw, encoding="utf-8")
    code, data = graded("--test", str(row["testIdx"] + 1), "--response", str(graded.dir / "raw.txt"))
    [test] = data["tests"]
    assert (test["passed"], test["score"]) == (row["success"], pytest.approx(row["score"]))
    assert code == (0 if row["success"] else 1)
    components = row["gradingResult"]["componentResults"]
    assert [(v["passed"], v["score"], v["reason"]) for v in data["verdicts"]] == [
        (c["pass"], pytest.approx(c["score"]), c["reason"]) for c in components
    ]
    for entry, component in zip(test["assertions"], components):
        sent = component.get("metadata", {}).get("renderedGradingPrompt")
        if sent is not None:  # the transformed output, byte for byte as promptfoo sent it
            assert entry["sent"] == [json.loads(sent)]


def test_a_results_files_outputs_are_not_transformed_twice(graded):
    (graded.dir / "results.json").write_text((HERE / "transforms.results.json").read_text("utf-8"), encoding="utf-8")
    code, data = graded("--outputs", str(graded.dir / "results.json"))
    assert code == 1 and data["differences"] == 0
    for cell, row in zip(data["cells"], ROWS):
        assert (cell["passed"], cell["score"]) == (row["success"], pytest.approx(row["score"]))
