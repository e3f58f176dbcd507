"""samples/rubrics-task: a task that lints clean, and its conversion kept up to date."""

from __future__ import annotations

from rubric_lsp.document import parse_document
from rubric_lsp.formats.rubrics_task.convert import dataset_json, task_to_dataset
from rubric_lsp.formats.rubrics_task.view import read_task
from rubric_lsp.lint import lint_path
from tests.conftest import SAMPLES

FOLDER = SAMPLES / "rubrics-task"


def test_task_sample_lints_clean():
    result = lint_path(FOLDER / "task.json")
    assert result.format is not None and result.format.name == "rubrics-task"
    assert result.diagnostics == []


def test_converted_sample_is_current_and_clean():
    task = FOLDER / "task.json"
    dataset, notes = task_to_dataset(read_task(parse_document(task.read_bytes(), str(task)).root))
    assert notes == []
    expected = dataset_json(dataset)
    assert (FOLDER / "task.dataset.json").read_text(encoding="utf-8") == expected, (
        "samples/rubrics-task/task.dataset.json is stale: run "
        "rubric convert samples/rubrics-task/task.json --to autorubric-dataset -o samples/rubrics-task/task.dataset.json"
    )
    result = lint_path(FOLDER / "task.dataset.json")
    assert result.format is not None and result.format.name == "autorubric-dataset"
    assert result.diagnostics == []
