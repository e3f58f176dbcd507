"""Rubrics task rules: one checker that runs each theme's checks (task.py, ratings.py) in order."""

from __future__ import annotations

from rubric_lsp.formats.registry import checker
from rubric_lsp.formats.rubrics_task import TASK
from rubric_lsp.formats.rubrics_task.rules.ratings import check_turn
from rubric_lsp.formats.rubrics_task.rules.task import TASK_FIELD, report_problem, unfinished, unique_ids
from rubric_lsp.formats.rubrics_task.view import TaskView, read_task
from rubric_lsp.rules.context import CheckContext


def task_view(ctx: CheckContext) -> TaskView | None:
    return ctx.view("rubrics_task.view", read_task)


@checker(TASK)
def check_task(ctx: CheckContext) -> None:
    view = task_view(ctx)
    if view is None:
        ctx.report(
            TASK_FIELD,
            ctx.document.lines.single_line_span(0),
            "The file is empty: a Rubrics task is a JSON object with 'task_id', 'status' and 'threads'.",
        )
        return
    for problem in view.problems:
        report_problem(ctx, problem)
    root = view.root
    if root.is_map:
        unfinished(ctx, root)
        unique_ids(ctx, root)
    for turn in view.turns:
        check_turn(ctx, turn)
