"""Vendor "Rubrics task" JSON: threads → turns → messages with per-criterion human ratings."""

from __future__ import annotations

from rubric_lsp.document import Document
from rubric_lsp.formats.plugin import Format

TASK = "rubrics-task"


def detect_task(doc: Document) -> int:
    root = doc.root
    if root is None or not root.is_map or not root.has("task_id"):
        return 0
    if root.has("threads"):
        return 90
    # Tasks that are not completed carry no threads.
    return 60 if root.has("status") or root.has("project") else 0


def _task_schema() -> dict:
    from rubric_lsp.formats.rubrics_task.model import task_json_schema

    return task_json_schema()


def _read_task(doc: Document):
    if doc.root is None:  # FormatPlugin.build_view only calls a reader with a root
        return None
    from rubric_lsp.formats.rubrics_task.view import read_task

    return read_task(doc.root)


# Imported the first time a file of this kind is checked (keeps start-up cheap).
_CHECKERS = ("rubric_lsp.formats.rubrics_task.rules",)


# What the entry point in pyproject.toml names (formats/discovery.py).
FORMATS = (
    Format(
        checker_modules=_CHECKERS,
        name=TASK,
        grader="rubric_lsp.formats.rubrics_task.grader:GRADER",
        judge_panel=True,  # graded as its autorubric dataset (grading/preference.py): the same ensemble
        title="Rubrics task (vendor JSON with human ratings)",
        languages=("json",),
        schema_names=("rubrics-task.schema.json",),
        detect=detect_task,
        schema_file="rubrics-task.schema.json",
        json_schema=_task_schema,
        view_key="rubrics_task.view",
        criteria="rubric_lsp.formats.rubrics_task.criteria:task_criteria",  # the smell rules' texts (docs/smells.md)
        read_view=_read_task,
        editor="rubric_lsp.formats.rubrics_task.editor",
        rule_prefix="RT",
        rule_title="Rubrics tasks",
        converters={"autorubric-dataset": "rubric_lsp.formats.rubrics_task.convert:to_autorubric_dataset"},
        # Each criterion of the converted dataset, and the preference (docs/calibration.md): RL020, the hover,
        # rubric grade --require-calibrated.
        calibration="rubric_lsp.formats.rubrics_task.grading.calibration:CALIBRATION",
    ),
)
