"""``rubric convert TASK.json --to autorubric-dataset``."""

from __future__ import annotations

import json

import pytest

from rubric_lsp.cli import main as cli_main
from rubric_lsp.commands.convert import main
from tests.conftest import CORPUS
from tests.helpers import lint
from tests.rubrics_task_cases import RATING_B1, TASK


def convert(tmp_path, text: str, capsys=None):
    task = tmp_path / "task.json"
    task.write_text(text, encoding="utf-8")
    out = tmp_path / "out.dataset.json"
    code = main([str(task), "--to", "autorubric-dataset", "-o", str(out)])
    return code, (json.loads(out.read_text(encoding="utf-8")) if out.exists() else None)


def test_criteria_items_and_ground_truth(tmp_path):
    code, data = convert(tmp_path, TASK)
    assert code == 0
    assert data["name"] == "t1"
    assert data["prompt"] == "List three primes."
    assert [(c["name"], c["requirement"], c["scale_type"]) for c in data["rubric"]] == [
        ("rubric_0_criteria_0", "Lists three numbers.", "ordinal"),
        ("rubric_0_criteria_1", "All numbers are prime.", "ordinal"),
    ]
    assert [(o["label"], o["value"]) for o in data["rubric"][0]["options"]] == [
        ("no_issues", 1.0),
        ("minor_issues", 0.5),
        ("major_issues", 0.0),
    ]
    assert [(i["submission"], i["description"], i["ground_truth"]) for i in data["items"]] == [
        ("2, 3, 5", "thread_0/turn_0: model_a (preferred)", ["no_issues", "no_issues"]),
        ("1, 2, 3", "thread_0/turn_0: model_b", ["no_issues", "major_issues"]),
    ]


def test_output_is_a_clean_autorubric_dataset(tmp_path):
    convert(tmp_path, TASK)
    out = tmp_path / "out.dataset.json"
    result = lint(out.read_text(encoding="utf-8"), str(out))
    assert result.format.name == "autorubric-dataset" and result.diagnostics == []


def test_ground_truth_follows_the_criteria_order_not_the_rating_order(tmp_path):
    rating_b0 = (
        RATING_B1.replace("criteria_1", "criteria_0")
        .replace("All numbers are prime.", "Lists three numbers.")
        .replace("major_issues", "minor_issues")
    )
    swapped = TASK.replace(
        '{"id": "rubric_0_criteria_0_rating", "title": "Lists three numbers.", "value": "no_issues", "metadata": {"criteria": "rubric_0_criteria_0"}},\n                '
        + RATING_B1,
        RATING_B1 + ",\n                " + rating_b0,
    )
    assert swapped != TASK
    _code, data = convert(tmp_path, swapped)
    assert data["items"][1]["ground_truth"] == ["minor_issues", "major_issues"]


def test_unrated_response_gets_no_ground_truth(tmp_path, capsys):
    code, data = convert(tmp_path, TASK.replace(",\n                " + RATING_B1, ""))
    assert code == 0
    assert "ground_truth" not in data["items"][1]
    assert "does not rate every criterion" in capsys.readouterr().err


def test_second_turn_with_other_criteria_gets_its_own_rubric_and_prompt(tmp_path):
    turn = TASK[TASK.index('        {\n          "id": "turn_0"') : TASK.index('\n      ],\n      "annotations"')]
    second = (
        turn.replace("turn_0", "turn_1")
        .replace("List three primes.", "And three squares?")
        .replace("All numbers are prime.", "All numbers are squares.")
    )
    text = TASK.replace(turn, turn + ",\n" + second)
    assert lint(text, "task.json").diagnostics == []
    code, data = convert(tmp_path, text)
    assert code == 0
    assert len(data["items"]) == 4
    assert "rubric" not in data["items"][0] and "prompt" not in data["items"][0]
    assert data["items"][2]["prompt"] == "And three squares?"
    assert data["items"][2]["rubric"][1]["requirement"] == "All numbers are squares."
    result = lint((tmp_path / "out.dataset.json").read_text(encoding="utf-8"), "out.dataset.json")
    assert result.diagnostics == []


def test_task_with_errors_is_not_converted(tmp_path, capsys):
    code, data = convert(tmp_path, TASK.replace('"value": "model_a"}', '"value": "model_a",}'))
    assert code == 1 and data is None
    err = capsys.readouterr().err
    assert "RL006" in err and "rubric lint --fix" in err


def test_task_without_turns_is_not_converted(tmp_path, capsys):
    code, data = convert(
        tmp_path, '{"task_id": "t", "project": "p", "status": "pending", "created_at": "2025-01-01"}\n'
    )
    assert code == 1 and data is None
    assert "nothing to convert" in capsys.readouterr().err


def test_stdout_and_cli_dispatch(tmp_path, capsys):
    task = tmp_path / "task.json"
    task.write_text(TASK, encoding="utf-8")
    assert cli_main(["convert", str(task), "--to", "autorubric-dataset"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "t1"


def test_usage_errors(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main([str(tmp_path / "task.json"), "--to", "promptfoo"])
    assert exc.value.code == 2
    assert main([str(tmp_path / "missing.json"), "--to", "autorubric-dataset"]) == 2
    assert "cannot read" in capsys.readouterr().err
    # --from names the source's format; one that has no converter to the target is a usage error.
    assert main([str(tmp_path / "missing.json"), "--to", "autorubric-dataset", "--from", "promptfoo-config"]) == 2
    assert "does not convert to autorubric-dataset" in capsys.readouterr().err


def test_converters_come_from_the_formats(tmp_path):
    from rubric_lsp.commands.convert import sources_for

    assert [fmt.name for fmt in sources_for("autorubric-dataset")] == ["rubrics-task"]
    code, data = convert(tmp_path, TASK)
    assert code == 0 and data["name"] == "t1"


def test_corpus_sample_converts(tmp_path, corpus):
    code, data = convert(tmp_path, (corpus / "rubrics-task" / "sample_task.json").read_text(encoding="utf-8"))
    assert code == 0 and len(data["items"]) == 2
    assert CORPUS.is_dir()
