"""Editor hooks of an autorubric dataset: Grade Examples measures the judge against its labels, per criterion."""

from __future__ import annotations

from rubric_lsp.formats.editor import EditorContext, GradableUnit, GradePlan, key_outline

outline = key_outline


def examples_plan(ctx: EditorContext) -> GradePlan | None:
    root = ctx.root
    items = root.get("items") if root is not None and root.is_map else None
    return GradePlan("dataset") if items is not None and items.is_seq and items.value else None


def gradable_units(ctx: EditorContext) -> list[GradableUnit]:
    """Each criterion of the shared rubric: where its agreement with the labels is shown."""
    plan = examples_plan(ctx)
    root = ctx.root
    rubric = root.get("rubric") if root is not None and root.is_map else None
    if plan is None or rubric is None:
        return []
    from rubric_lsp.formats.autorubric.view import read_rubric

    return [
        GradableUnit(entry.label or f"criterion {entry.index + 1}", "criterion", entry.node.span, plan)
        for entry in read_rubric(rubric).entries
    ]
