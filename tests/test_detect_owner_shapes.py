"""Detection (issue 15, item 15): what the owners load is recognised, so a folder walk reports it
rather than skipping it; a promptfoo results file is never taken for a config."""

from __future__ import annotations

import json

import pytest

from rubric_lsp.diagnostics import Severity
from rubric_lsp.lint import lint_path
from tests.conftest import import_or_require


def walk(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return lint_path(path, root_dir=tmp_path, explicit=False)


def kind(result) -> str | None:
    return result.format.name if result.format is not None else None


def autorubric():
    """Imported by the tests that use it, not at collection: it imports litellm (seconds of CPU per worker)."""
    return import_or_require("autorubric")


def test_a_dataset_autorubric_writes_with_no_items_is_a_dataset(tmp_path):
    owner = autorubric()
    dataset = owner.RubricDataset(
        prompt="p", rubric=owner.Rubric.from_dict([{"requirement": "x", "weight": 1}]), name="n"
    )
    assert kind(walk(tmp_path, "empty.json", dataset.to_json())) == "autorubric-dataset"


def test_a_dataset_without_items_or_rubric_is_a_dataset(tmp_path):
    text = json.dumps({"name": "n", "prompt": "p", "rubric": None})
    autorubric().RubricDataset.from_json(text)  # autorubric loads it: no items, no global rubric
    assert kind(walk(tmp_path, "d.json", text)) == "autorubric-dataset"


@pytest.mark.parametrize(
    "name, text",
    [
        ("a.json", '{"criteria": {"a": {"requirement": "x"}}}'),
        ("b.json", '{"criteria": []}'),
        ("c.json", '[{"criteria": []}]'),
        ("d.yaml", "- criteria: []\n"),
        ("grading-rubric.json", "[]"),
    ],
)
def test_rubrics_autorubric_refuses_are_reported_not_skipped(tmp_path, name, text):
    with pytest.raises(ValueError):
        autorubric().Rubric.from_dict(json.loads(text) if name.endswith(".json") else [{"criteria": []}])
    result = walk(tmp_path, name, text)
    assert kind(result) == "autorubric-rubric"
    assert any(d.severity == Severity.ERROR for d in result.diagnostics)


def test_an_empty_list_says_nothing_without_a_rubric_name(tmp_path):
    assert kind(walk(tmp_path, "fixtures.json", "[]")) is None


@pytest.mark.parametrize(
    "head",
    [
        {"evalId": "eval-1", "shareableUrl": None},  # promptfoo eval -o output.json (0.123.1)
        {"createdAt": "2026-01-01T00:00:00Z", "version": 3},  # older results and exports
    ],
)
def test_a_promptfoo_results_file_is_not_a_config(tmp_path, head):
    config = {"prompts": ["p"], "providers": ["echo"], "tests": [{"assert": [{"type": "contians"}]}]}
    data = {**head, "results": {"results": []}, "config": config, "prompts": ["p"], "tests": config["tests"]}
    text = json.dumps(data)
    result = walk(tmp_path, "output.json", text)
    assert kind(result) is None and result.diagnostics == []
    assert (tmp_path / "output.json").read_text(encoding="utf-8") == text
