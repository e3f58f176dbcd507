"""Editor hooks of an autorubric rubric: criteria and sections in the outline, a criterion's share of the score."""

from __future__ import annotations

from dataclasses import replace

from rubric_lsp.document import Node
from rubric_lsp.document.positions import Span
from rubric_lsp.formats.autorubric.view import RubricView
from rubric_lsp.formats.editor import EditorContext, GradableUnit, GradePlan, OutlineItem, key_and_value, short

DEFAULT_STRATEGY = "skip"


def outline(ctx: EditorContext) -> list[OutlineItem]:
    view: RubricView | None = ctx.view
    root = ctx.root
    if view is None or root is None:
        return []
    sections: dict[int, OutlineItem] = {}
    out: list[OutlineItem] = []
    for entry in view.entries:
        item = _criterion(entry)
        if entry.section is None:
            out.append(item)
            continue
        section = sections.get(id(entry.section))
        if section is None:
            title = entry.section.get("name")
            name = str(title.value) if title is not None and title.is_scalar else "section"
            section = sections[id(entry.section)] = OutlineItem(name, "Namespace", entry.section.span)
            out.append(section)
        section.children.append(item)
    examples = root.get("examples") if root.is_map else None
    if examples is not None and examples.is_seq:
        children = []
        for i, example in enumerate(examples.elements()):
            title = example.get("name") if example.is_map else None
            label = str(title.value) if title is not None and title.is_scalar else f"example {i + 1}"
            children.append(OutlineItem(label, "Event", example.span))
        out.append(OutlineItem("examples", "Array", examples.span, children=children))
    return out


def _criterion(entry) -> OutlineItem:
    node: Node = entry.node
    requirement = node.get("requirement") if node.is_map else None
    weight = entry.criterion.weight if entry.criterion is not None else None
    detail = (f"weight {weight:g}" if weight is not None else "invalid") + (
        f" · {short(requirement.value, 40)}"
        if requirement is not None and requirement.is_scalar and requirement.value
        else ""
    )
    select = (node.key_node("name") or node.key_node("requirement")) if node.is_map else None
    return OutlineItem(entry.label or "(unnamed)", "Property", node.span, select.span if select else None, detail)


def hover(ctx: EditorContext, offset: int) -> list[str]:
    """On a criterion: its share of the score and what each verdict does to it."""
    view: RubricView | None = ctx.view
    if view is None:
        return []
    entry = next((e for e in view.entries if e.node.start <= offset <= e.node.end), None)
    if entry is None or entry.criterion is None:
        return []
    from rubric_lsp.formats.autorubric import score_hover

    return [score_hover.describe(view, entry, ctx.options.get("cannot_assess") or DEFAULT_STRATEGY)]


# -- grading from the editor ------------------------------------------------------------------------
def _rubric_plan(ctx: EditorContext) -> GradePlan:
    """A rubric's criteria are scored together: its examples if it has any, else the last response used."""
    return examples_plan(ctx) or GradePlan("response")


def examples_plan(ctx: EditorContext) -> GradePlan | None:
    root = ctx.root
    examples = root.get("examples") if root is not None and root.is_map else None
    return GradePlan("examples") if examples is not None and examples.is_seq and examples.value else None


def gradable_units(ctx: EditorContext) -> list[GradableUnit]:
    """The rubric (a target for selected text), its examples block, and each criterion (no lens of its own)."""
    view: RubricView | None = ctx.view
    root = ctx.root
    if view is None or root is None or not view.entries:
        return []
    plan = _rubric_plan(ctx) if root.is_map else GradePlan("response")
    units = []
    where = _criteria_span(root)
    if where is not None:
        count = len(view.entries)
        units.append(GradableUnit("", "rubric", where, plan, target=True, detail=f"{count} criteria"))
    examples_key, examples = (root.key_node("examples"), root.get("examples")) if root.is_map else (None, None)
    if examples_key is not None and examples is not None and examples.is_seq and examples.value:
        units.append(GradableUnit("examples", "examples", key_and_value(examples_key, examples), GradePlan("examples")))
    for entry in view.entries:
        name = entry.label or "(unnamed)"
        units.append(GradableUnit(name, "criterion", entry.node.span, replace(plan, units=(name,)), lens=False))
    return units


def _criteria_span(root: Node) -> Span | None:
    """Where the criteria are written: the ``rubric``, ``sections`` or ``criteria`` entry (as
    autorubric reads them, in that order), or the whole file when it is a list of criteria."""
    if root.is_seq:
        return root.span
    for key in ("rubric", "sections", "criteria"):
        key_node, value = root.key_node(key), root.get(key)
        if key_node is not None and value is not None:
            return key_and_value(key_node, value)
    return None
