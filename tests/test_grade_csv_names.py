"""``rubric grade --format csv`` names every row uniquely within its suite, and a promptfoo assertion's row
carries the keys a labels file names it by (``test``, ``assertion``): two llm-rubric assertions of one test were
both "test 1: llm-rubric", so the rows could not become a labels file (issue 33). Checked end to end: the CSV's
rows, with the people's verdicts added, are a labels file ``rubric calibrate`` reads, each row labelling the
assertion it came from."""

from __future__ import annotations

import csv
import io
import json

import pytest

from rubric_lsp.cli import main
from rubric_lsp.engine.result import Outcome, Unit
from rubric_lsp.reporters.grade.rows import rows
from tests.conftest import use_judge
from tests.judge_server import Reply

CONFIG = """\
prompts: ["Reply to {{name}}"]
providers: [echo]
tests:
  - vars: {name: Ann}
    assert:
      - type: llm-rubric
        value: Is polite
        metric: polite
      - type: contains
        value: Ann
      - type: llm-rubric
        value: Is short
      - type: llm-rubric
        value: Is kind
"""


def _judge(request) -> Reply:
    return Reply.json({"reason": "r", "pass": "short" not in request.text, "score": 1})


@pytest.fixture
def config(judge_server, tmp_path, monkeypatch):
    use_judge(monkeypatch, judge_server, "sk-test-csv-names", tmp_path / "cache")
    judge_server.handler = _judge
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(CONFIG)
    return path


def test_csv_rows_are_unique_and_become_a_labels_file(config, tmp_path, capfd):
    response = tmp_path / "response.txt"
    response.write_text("please sit, Ann")
    code = main(["grade", str(config), "--response", str(response), "--format", "csv"])
    out, err = capfd.readouterr()
    assert code in (0, 1), err
    table = list(csv.DictReader(io.StringIO(out)))
    names = [(row["suite"], row["name"]) for row in table]
    assert len(set(names)) == len(names) == 4
    assert [(row["test"], row["assertion"]) for row in table] == [
        ("1", "polite"),
        ("1", "assertion 2"),
        ("1", "assertion 3"),
        ("1", "assertion 4"),
    ]
    graded = [row for row in table if row["name"].startswith("test 1: llm-rubric")]
    assert [row["name"] for row in graded] == [
        "test 1: llm-rubric [test=1, assertion=polite]",
        "test 1: llm-rubric [test=1, assertion=assertion 3]",
        "test 1: llm-rubric [test=1, assertion=assertion 4]",
    ]
    # The model-graded rows, with an output and the people's verdicts, are a labels file.
    labels = tmp_path / "labels.csv"
    with labels.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["test", "assertion", "output", "verdict"])
        writer.writeheader()
        for row in graded:
            for output, verdict in (("please sit, Ann", "pass"), ("go, Ann", "fail")):
                writer.writerow(
                    {"test": row["test"], "assertion": row["assertion"], "output": output, "verdict": verdict}
                )
    code = main(["calibrate", str(labels), "--config", str(config)])
    out, err = capfd.readouterr()
    assert code == 0, err
    record = json.loads((tmp_path / "promptfooconfig.yaml.calibration.json").read_text())
    assert [(u["id"], u["figures"]["labels"]) for u in record["units"]] == [
        ("test 1 polite", 2),
        ("test 1 assertion 3", 2),
        ("test 1 assertion 4", 2),
    ]


def test_rows_told_apart_by_place_when_the_cells_do_not():
    class Result:
        def units(self):
            return [
                Unit("same", Outcome.PASS, group="g"),
                Unit("same", Outcome.FAIL, group="g"),
                Unit("same", group="h", outcome=Outcome.PASS),
            ]

    assert [(r.suite, r.name) for r in rows(Result())] == [("g", "same #1"), ("g", "same #2"), ("h", "same")]
