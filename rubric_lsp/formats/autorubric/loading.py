"""How autorubric 1.6.1 opens a file, where that differs from how we read it.

``Rubric.from_file`` reads YAML with ``yaml.safe_load`` (PyYAML's pure-Python loader, which
refuses some text libyaml accepts) and JSON with ``json.load`` (which refuses a UTF-8 BOM);
``RubricDataset.from_file`` parses every dataset with ``json.loads``, whatever its extension.
The rules (AR109, AR110, RL007) and the graders ask the same questions here, so ``rubric-lint``
reports an error exactly where ``rubric grade`` refuses to grade.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rubric_lsp.document import Document, Node, Span
from rubric_lsp.document.nodes import to_plain


@dataclass(frozen=True)
class LoadRefusal:
    span: Span
    message: str


def yaml_refusal(doc: Document) -> LoadRefusal | None:
    """What autorubric's ``yaml.safe_load`` refuses in a YAML file our reader composed."""
    if doc.language != "yaml" or doc.root is None:
        return None
    from rubric_lsp.document.pure_yaml import pure_loader_refusal

    refusal = pure_loader_refusal(doc.text)
    if refusal is None:
        return None
    offset = min(refusal.offset, len(doc.text))
    line = doc.lines.position(offset).line
    span = Span(offset, max(offset, min(doc.lines.line_end(line), offset + 40)))
    return LoadRefusal(
        span,
        f"autorubric cannot load this file: PyYAML's SafeLoader (yaml.safe_load, which autorubric uses) "
        f"refuses it here: {refusal.problem}. libyaml-based tools read it, autorubric's Rubric.from_file raises.",
    )


def dataset_not_json(doc: Document) -> LoadRefusal | None:
    if doc.language == "json":
        return None
    return LoadRefusal(
        doc.lines.single_line_span(0),
        "autorubric reads datasets only as JSON (RubricDataset.from_file parses every dataset with "
        f"json.loads, whatever its extension), so this {doc.language.upper()} dataset does not load. Write it as JSON.",
    )


def bom_refusal(doc: Document) -> LoadRefusal | None:
    if doc.language not in ("json", "jsonl") or not doc.text.startswith("\ufeff"):
        return None
    return LoadRefusal(
        Span(0, 1),
        "autorubric cannot load this file: json refuses its UTF-8 byte-order mark "
        '("Unexpected UTF-8 BOM (decode using utf-8-sig)"). Save it without the BOM (rubric-lint --fix drops it).',
    )


def load_refusal(doc: Document, *, dataset: bool) -> LoadRefusal | None:
    """The first reason autorubric would refuse to open ``doc``, or None."""
    if dataset:
        return bom_refusal(doc) or dataset_not_json(doc)
    return bom_refusal(doc) or yaml_refusal(doc)


def ground_truth_entries(node: Node) -> list[tuple[Node, Any]] | None:
    """An item's ground truth as ``RubricDataset.from_json`` reads it: ``for j, v in
    enumerate(item_data["ground_truth"])`` (autorubric 1.6.1, dataset.py). A list gives its
    entries, an object its keys, a string its characters — each (node to point at, value) —;
    None for what cannot be iterated (a number, a boolean: autorubric raises TypeError)."""
    if node.is_seq:
        return [(child, child.value if child.is_scalar else to_plain(child)) for child in node.value]
    if node.is_map:
        return [(key, key.value) for key, _value in node.value]
    if isinstance(node.value, str):
        return [(node, char) for char in node.value]
    return None
