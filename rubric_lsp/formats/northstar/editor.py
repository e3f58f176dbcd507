"""Editor hooks of a NorthStar EvalRunRequest: each grader can be graded, and a text graded against it."""

from __future__ import annotations

from rubric_lsp.formats.editor import EditorContext, GradableUnit, GradePlan


def gradable_units(ctx: EditorContext) -> list[GradableUnit]:
    """Each grader, named as the user wrote it; graded against the last response used."""
    view = ctx.view
    units = []
    for entry in getattr(view, "graders", None) or []:
        grader = entry.grader
        name, kind = getattr(grader, "name", None), getattr(grader, "type", None)
        if grader is None and entry.node.is_map:  # named as the grader reads it (graders.read_graders)
            name, kind = _scalar(entry.node, "name"), _scalar(entry.node, "type") or "rubric"
        if not isinstance(name, str) or not name:
            name = f"{kind or 'rubric'} grader {entry.index + 1}"
        units.append(
            GradableUnit(
                name,
                "grader",
                entry.node.span,
                GradePlan("response", units=(name,)),
                target=True,
                detail=f"NorthStar {kind} grader" if kind else "NorthStar grader",
            )
        )
    return units


def _scalar(node, key: str):
    value = node.get(key)
    return value.value if value is not None and value.is_scalar and isinstance(value.value, str) else None
