"""Editor hooks of a Rubrics task: Grade Examples grades its conversion to an autorubric dataset."""

from __future__ import annotations

from rubric_lsp.formats.editor import EditorContext, GradableUnit, GradePlan


def examples_plan(ctx: EditorContext) -> GradePlan | None:
    """The task as a dataset (``rubric convert``): the judge measured against the human ratings. A task
    where no response rates every criterion has none to measure against (grading and ``rubric calibrate``
    refuse it: autorubric's "No valid items with ground truth"), so no plan: no lens offers it."""
    if ctx.view is None:
        return None
    from rubric_lsp.formats.rubrics_task.convert import dataset_json, task_to_dataset

    dataset, _ = task_to_dataset(ctx.view)
    if dataset is None or all(item.ground_truth is None for item in dataset.items):
        return None
    path = ctx.document.path or "task.json"
    return GradePlan("dataset", text=dataset_json(dataset), path=path.rsplit(".", 1)[0] + ".dataset.json")


def gradable_units(ctx: EditorContext) -> list[GradableUnit]:
    plan = examples_plan(ctx)
    root = ctx.root
    if plan is None or root is None:
        return []
    return [GradableUnit("the task's ratings", "task", root.span, plan, named=False)]
