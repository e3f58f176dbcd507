"""An autorubric rubric's (or dataset's) criteria as the smell rules read them (``Format.criteria``,
docs/smells.md): each requirement and its options' labels, a negative weight as a penalty. autorubric scores
penalties, so a rubric without one is a no-penalties finding; a double-barrelled criterion can be split in two."""

from __future__ import annotations

import json
from typing import Any

from rubric_lsp.document import Document, Node
from rubric_lsp.document.issues import TextEdit
from rubric_lsp.formats.autorubric.edits import scalar_text
from rubric_lsp.formats.autorubric.view import CriterionEntry, RubricView, read_rubric
from rubric_lsp.rules.smells.criteria import CriterionText, Piece, RubricTexts


def rubric_criteria(doc: Document, view: Any) -> list[RubricTexts]:
    """The criteria of a rubric file (``view``: its RubricView when the lint built one)."""
    if doc.root is None:
        return []
    read = view if isinstance(view, RubricView) else read_rubric(doc.root)
    return [_rubric(doc, read, "the rubric", doc.root)]


def dataset_criteria(doc: Document, view: Any) -> list[RubricTexts]:
    """The shared rubric of a dataset file and each item's own rubric."""
    root = doc.root
    if root is None or not root.is_map:
        return []
    out = []
    shared = root.get("rubric")
    if shared is not None and (shared.is_seq or shared.is_map):
        out.append(_rubric(doc, read_rubric(shared), "the dataset's rubric", shared))
    items = root.get("items")
    for number, item in enumerate(items.value if items is not None and items.is_seq else (), start=1):
        own = item.get("rubric") if item.is_map else None
        if own is not None and (own.is_seq or own.is_map):
            out.append(_rubric(doc, read_rubric(own), f"item {number}'s rubric", own))
    return out


def _rubric(doc: Document, view: RubricView, name: str, node: Node) -> RubricTexts:
    criteria = tuple(c for c in (_criterion(doc, entry) for entry in view.entries) if c is not None)
    anchor = view.container.span if view.container is not None else node.span
    lines = doc.lines
    first_line = lines.single_line_span(anchor.start)
    return RubricTexts(name, first_line, criteria, penalties=True)


def _criterion(doc: Document, entry: CriterionEntry) -> CriterionText | None:
    criterion = entry.criterion
    node = entry.node.get("requirement") if entry.node.is_map else None
    if criterion is None or node is None or not node.is_scalar:
        return None
    levels = []
    options = entry.node.get("options")
    if criterion.options and options is not None and options.is_seq:
        for option_node, option in zip(options.value, criterion.options):
            label = option_node.get("label") if option_node.is_map else None
            if label is not None and label.is_scalar:
                levels.append(Piece.of(label, str(option.label), doc.text))
            else:
                levels.append(Piece.elsewhere(str(option.label), option_node.span))
    return CriterionText(
        f"'{entry.label}'",
        Piece.of(node, criterion.requirement, doc.text),
        tuple(levels),
        penalty=criterion.weight < 0,
        weight=criterion.weight,
        split=_splitter(doc, entry) if criterion.options is None else None,
    )


def _splitter(doc: Document, entry: CriterionEntry) -> Any:
    """Writes the binary criterion as two, each with half its weight (None when no clean edit exists)."""
    node, criterion = entry.node, entry.criterion
    assert criterion is not None
    keys = {k.value for k, _ in node.pairs() if k.is_scalar}
    if not keys <= {"name", "requirement", "weight"}:
        return None  # other keys (options, aggregation) would have to be copied: leave it to the author
    text = doc.text
    json_doc = doc.language == "json"
    if not json_doc and text[max(0, node.start - 2) : node.start] != "- ":
        return None

    def split(first: str, second: str) -> list[TextEdit]:
        halves = []
        for suffix, requirement in (("_1", first), ("_2", second)):
            fields: dict[str, Any] = {}
            if criterion.name:
                fields["name"] = criterion.name + suffix
            fields["requirement"] = requirement
            fields["weight"] = criterion.weight / 2
            halves.append(fields)
        if json_doc:
            new = ", ".join(json.dumps(h, ensure_ascii=False) for h in halves)
        else:
            column = doc.lines.position(node.start).character
            indent = "\n" + " " * column
            written = [
                indent.join(
                    f"{k}: {json.dumps(v, ensure_ascii=False) if isinstance(v, str) else scalar_text(v)}"
                    for k, v in h.items()
                )
                for h in halves
            ]
            new = written[0] + "\n" + " " * (column - 2) + "- " + written[1]
        return [TextEdit(node.span, new)]

    return split
