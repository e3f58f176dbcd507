"""What the "▶ Grade" lenses and the outline call each gradable unit: the name the user gave it."""

from __future__ import annotations

from pathlib import Path

from rubric_lsp.lint import lint_text
from rubric_lsp.server.grading_plan import Read

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def _units(text: str, name: str):
    result = lint_text(text, name, explicit=True)
    return Read("file:///x", text, result.document, result.format, result.view).units()


def test_a_northstar_lens_names_its_grader():
    text = (SAMPLES / "northstar" / "eval_run_request.json").read_text(encoding="utf-8")
    titles = [u.title for u in _units(text, "eval_run_request.json") if u.noun == "grader"]
    assert titles and all(t.startswith("▶ Grade grader '") for t in titles), titles
    assert len(set(titles)) == len(titles), f"two lenses read the same: {titles}"


def test_a_promptfoo_lens_names_its_test_and_a_task_lens_its_noun():
    config = "prompts: ['{{q}}']\nproviders: [echo]\ntests:\n  - description: capital\n    assert:\n      - type: llm-rubric\n        value: Names Paris\n"
    assert [u.title for u in _units(config, "promptfooconfig.yaml")] == ["▶ Grade test 'capital'"]
    text = (SAMPLES / "rubrics-task" / "task.json").read_text(encoding="utf-8")
    assert [u.title for u in _units(text, "task.json")] == ["▶ Grade task"]


def test_an_invalid_criterion_keeps_its_name():
    rubric = (
        "criteria:\n"
        "  - name: accuracy\n    requirement: States the answer\n    weight: 1\n"
        "  - name: tone\n    weight: 1\n"  # no requirement: autorubric refuses this criterion
    )
    result = lint_text(rubric, "r.rubric.yaml", explicit=True)
    assert [e.label for e in result.view.entries] == ["accuracy", "tone"]
