"""The vendor's published sample (seed 001), exactly as published: trailing commas and all.

The sample is read from the seed text at run time (never copied into the repository).
"""

from __future__ import annotations

import json
import re

import pytest

from rubric_lsp.fixes import apply_edits
from tests.conftest import SEEDS
from tests.helpers import lint

MARKER = "Sample Rubrics Task Output"


def published_sample() -> str:
    seeds = sorted(SEEDS.glob("001_*.txt")) if SEEDS.is_dir() else []
    if not seeds:
        pytest.skip(f"seed 001 not found in {SEEDS}")
    text = seeds[0].read_text(encoding="utf-8")
    start = text.index("{", text.index(MARKER))
    return text[start:].rstrip() + "\n"


def test_sample_as_published_is_not_json():
    with pytest.raises(json.JSONDecodeError):
        json.loads(published_sample())


def test_one_clear_error_at_the_first_trailing_comma():
    sample = published_sample()
    result = lint(sample, "sample_task.json")
    assert result.format is not None and result.format.name == "rubrics-task"
    [diag] = result.diagnostics
    first_comma = re.search(r",\s*[}\]]", sample).start()
    assert diag.code == "RL006" and diag.severity.label == "error"
    assert diag.span.start == first_comma
    assert diag.range.start.line == sample.count("\n", 0, first_comma)
    assert "Trailing comma" in diag.message and "more below" in diag.message
    assert diag.fix is not None and diag.fix.safe


def test_the_fix_makes_it_valid_and_clean():
    sample = published_sample()
    [diag] = lint(sample, "sample_task.json").diagnostics
    fixed = apply_edits(sample, diag.fix.edits)
    json.loads(fixed)  # valid JSON now
    assert len(fixed) == len(sample) - len(diag.fix.edits)  # only the commas went
    assert lint(fixed, "sample_task.json").diagnostics == []


def test_fixed_sample_converts_to_a_dataset_our_linter_accepts(tmp_path):
    from rubric_lsp.commands.convert import main

    sample = published_sample()
    [diag] = lint(sample, "sample_task.json").diagnostics
    task = tmp_path / "sample_task.json"
    task.write_text(apply_edits(sample, diag.fix.edits), encoding="utf-8")
    out = tmp_path / "sample.dataset.json"
    assert main([str(task), "--to", "autorubric-dataset", "-o", str(out)]) == 0
    result = lint(out.read_text(encoding="utf-8"), str(out))
    assert result.format is not None and result.format.name == "autorubric-dataset"
    assert result.diagnostics == []
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [c["name"] for c in data["rubric"]] == ["rubric_0_criteria_0", "rubric_0_criteria_1", "rubric_0_criteria_2"]
    assert [item["ground_truth"] for item in data["items"]] == [
        ["no_issues", "major_issues", "minor_issues"],
        ["no_issues", "no_issues", "major_issues"],
    ]


@pytest.mark.slow
def test_fixed_sample_conversion_loads_in_autorubric(tmp_path):
    from rubric_lsp.commands.convert import main

    sample = published_sample()
    [diag] = lint(sample, "sample_task.json").diagnostics
    task = tmp_path / "sample_task.json"
    task.write_text(apply_edits(sample, diag.fix.edits), encoding="utf-8")
    out = tmp_path / "sample.dataset.json"
    assert main([str(task), "--to", "autorubric-dataset", "-o", str(out)]) == 0

    from autorubric import RubricDataset

    dataset = RubricDataset.from_json(out.read_text(encoding="utf-8"))
    assert len(dataset.items) == 2
    assert dataset.items[1].ground_truth == ["no_issues", "no_issues", "major_issues"]
    assert [c.name for c in dataset.rubric.rubric] == [
        "rubric_0_criteria_0",
        "rubric_0_criteria_1",
        "rubric_0_criteria_2",
    ]
    assert [o.value for o in dataset.rubric.rubric[0].options] == [1.0, 0.5, 0.0]
