"""An autorubric dataset's labelling (``Format.labelling``, docs/labelling.md): each item is labelled on every
criterion of its rubric (its own, else the dataset's), in autorubric's words.

A binary criterion takes MET, UNMET or CANNOT_ASSESS; a multi-choice one the labels of its authored options
(an option marked ``na`` abstains). The labels go where autorubric 1.6.1 reads them (dataset.py,
``RubricDataset.from_json``): the item's ``ground_truth``, one entry per criterion in the rubric's order, and
a note per label in ``ground_truth_reasons``, aligned with it. autorubric refuses a ground truth that names
fewer criteria than the rubric has, so an item's list is written once every criterion has a label, and
taken out again when one is withdrawn (undo): the labels given so far wait in the labels log meanwhile
(``labelling/log.py``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rubric_lsp.document import Document, Node
from rubric_lsp.document.issues import TextEdit
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.autorubric.loading import ground_truth_entries
from rubric_lsp.formats.autorubric.model import VERDICTS
from rubric_lsp.formats.autorubric.view import read_rubric
from rubric_lsp.labelling import edits
from rubric_lsp.labelling.hook import (
    ABSTAIN,
    FAIL,
    PASS,
    Choice,
    JudgeSaid,
    Label,
    LabelItem,
    Labelling,
    LabellingHook,
    LabelUnit,
    Part,
    Sheet,
    Slot,
    SourceError,
    item_keys,
)

TRUTH, REASONS = "ground_truth", "ground_truth_reasons"
MET, UNMET, CANNOT_ASSESS = VERDICTS
FAILED_VERDICT = "ERROR"  # the grade JSON's word for a failed judgment (engine/report.py)


def _choices(criterion: Any) -> tuple[Choice, ...]:
    if criterion.options is None:
        flaw = criterion.weight < 0
        return (
            Choice(MET, PASS, "the flaw is there" if flaw else "the response does this"),
            Choice(UNMET, FAIL, "no such flaw" if flaw else "it does not"),
            Choice(CANNOT_ASSESS, ABSTAIN, "cannot tell from the response"),
        )
    return tuple(Choice(o.label, ABSTAIN if o.na else "option") for o in criterion.options)


def _units(node: Node | None) -> list[LabelUnit] | None:
    """The units of one rubric (shared or an item's own); None when autorubric would refuse it."""
    if node is None or (node.is_scalar and node.value is None):
        return None
    view = read_rubric(node)
    if view.problems or not view.entries or any(e.criterion is None for e in view.entries):
        return None
    return [
        LabelUnit(
            id=entry.label,
            title=entry.criterion.requirement,
            choices=_choices(entry.criterion),
            where=entry.node.span,
            ordinal=entry.criterion.options is not None and entry.criterion.scale_type == "ordinal",
        )
        for entry in view.entries
        if entry.criterion is not None
    ]


def _text(node: Node | None) -> str | None:
    if node is None or node.value is None:
        return None
    value = to_plain(node)
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2)


def _items(doc: Document) -> list[Node]:
    root = doc.root
    items = root.get("items") if root is not None and root.is_map else None
    return [i for i in items.value] if items is not None and items.is_seq else []


def sheet(doc: Document) -> Sheet:
    root = doc.root
    out = Sheet([], in_file=True)
    if root is None or not root.is_map:
        return out
    shared = _units(root.get("rubric"))
    prompt, reference = _text(root.get("prompt")), _text(root.get("reference_submission"))
    nodes = _items(doc)
    contents: list[dict[str, str | None] | None] = []
    for node in nodes:
        if node.is_map:
            query = _text(node.get("prompt")) or prompt
            contents.append({"response": _text(node.get("submission")), "query": query})
        else:
            contents.append(None)
    for number, (node, key) in enumerate(zip(nodes, item_keys(contents)), 1):
        if not node.is_map:
            continue
        own = node.get("rubric")
        units = _units(own) if own is not None and own.value is not None else shared
        if units is None:
            out.notes.append(f"item {number}: its rubric is not one autorubric reads (the lint says why); left out")
            continue
        inputs = [Part("prompt", q) for q in [_text(node.get("prompt")) or prompt] if q]
        inputs += [Part("reference", r) for r in [_text(node.get("reference_submission")) or reference] if r]
        item = LabelItem(
            key=key,
            number=number,
            title=_text(node.get("description")) or f"item {number}",
            inputs=inputs,
            response=_text(node.get("submission")) or "",
            units=units,
            span=node.span,
        )
        _read_labels(node, item)
        out.items.append(item)
    return out


def _read_labels(node: Node, item: LabelItem) -> None:
    truth = node.get(TRUTH)
    entries = ground_truth_entries(truth) if truth is not None and truth.value is not None else None
    if truth is None or not truth.is_seq or entries is None:
        return
    item.label_list = truth.span
    reasons = node.get(REASONS)
    notes = [to_plain(r) for r in reasons.value] if reasons is not None and reasons.is_seq else []
    for position, ((entry, value), unit) in enumerate(zip(entries, item.units)):
        item.slots.append(Slot(unit, entry.span))
        if not isinstance(value, str):
            continue
        chosen = _as_written(unit, value)
        note = notes[position] if position < len(notes) and isinstance(notes[position], str) else ""
        item.labels[unit.id] = Label(chosen, note)


def _as_written(unit: LabelUnit, value: str) -> str:
    """An option's label as the criterion writes it (autorubric matches them ignoring case and spaces)."""
    wanted = value.strip().casefold()
    return next((c.word for c in unit.choices if c.word.strip().casefold() == wanted), value)


def write(doc: Document, item: LabelItem, labels: Mapping[str, Label]) -> list[TextEdit]:
    nodes = _items(doc)
    node = nodes[item.number - 1] if 0 < item.number <= len(nodes) else None
    if node is None or not node.is_map:
        return []
    if not all(u.id in labels for u in item.units):  # autorubric reads no partial list: none until whole
        return edits.remove_key(doc, node, TRUTH) + edits.remove_key(doc, node, REASONS)
    words = [labels[u.id].word for u in item.units]
    notes = [labels[u.id].note or None for u in item.units]
    values: list[tuple[str, Any]] = [(TRUTH, words)]
    if any(notes) or node.get(REASONS) is not None:
        values.append((REASONS, notes))
    return edits.set_keys(doc, node, values)


def read_source(doc: Document, data: Any, path: Path) -> Sheet | None:
    """A ``rubric grade DATASET --format json`` output: each item's verdict and reason per criterion."""
    if not (isinstance(data, dict) and isinstance(data.get("items"), list) and isinstance(data.get("agreement"), list)):
        return None
    mine = sheet(doc)
    by_number = {item.number: item for item in mine.items}
    found = Sheet([], in_file=True)
    for graded in data["items"]:
        if not isinstance(graded, dict) or not isinstance(graded.get("index"), int):
            raise SourceError(f"{path}: an item of its 'items' has no 'index': not a rubric grade output")
        item = by_number.get(graded["index"] + 1)
        if item is None:
            continue
        if (graded.get("description") or f"item {item.number}") != item.title:
            found.notes.append(
                f"{path}: item {item.number} is described otherwise than when it was graded; its verdicts left out"
            )
            continue
        verdicts, reasons = graded.get("verdicts") or [], graded.get("reasons") or []
        for position, unit in enumerate(item.units):
            if position >= len(verdicts) or not isinstance(verdicts[position], str):
                continue
            word = verdicts[position]
            reason = reasons[position] if position < len(reasons) and isinstance(reasons[position], str) else ""
            found.judged[(item.key, unit.id)] = JudgeSaid(None if word == FAILED_VERDICT else word, reason)
    return found


def item_for(doc: Document, fields: Mapping[str, str], number: int) -> LabelItem | None:
    return None  # the dataset holds its items


LABELLING: LabellingHook = Labelling(sheet, write, read_source, item_for)
