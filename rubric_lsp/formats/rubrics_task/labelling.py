"""A Rubrics task's labelling (``Format.labelling``, docs/labelling.md): each assistant response rated on its
turn's criteria, and each turn's pick among its responses, written where the task keeps them.

A rating is an annotation of the response's message, ``{"id": "<criterion>_rating", "title": …, "value":
"no_issues" | "minor_issues" | "major_issues", "metadata": {"criteria": "<criterion>"}}`` (the shape the task's
own ratings have, and ``rubric convert`` reads): a new one is appended to the message's ``annotations``, a changed
one has its ``value`` replaced, a withdrawn one is removed. A turn's pick is its ``selected_model_id`` annotation,
the ``source_id`` of the chosen response. The units are the ones ``rubric calibrate task.json`` measures: each
criterion by its key (the converted dataset's criterion), and ``preference``. A task holds no notes: a note
stays in the labels log.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rubric_lsp.document import Document, Node
from rubric_lsp.document.issues import TextEdit
from rubric_lsp.formats.rubrics_task.model import RATING_SCORES
from rubric_lsp.formats.rubrics_task.view import TurnView, read_task
from rubric_lsp.labelling import edits
from rubric_lsp.labelling.hook import (
    OPTION,
    Choice,
    Label,
    LabelItem,
    Labelling,
    LabellingHook,
    LabelUnit,
    Part,
    Sheet,
    Slot,
    item_keys,
)

PREFERENCE, SELECTED = "preference", "selected_model_id"
HINTS = {"no_issues": "meets it fully", "minor_issues": "meets it with small problems", "major_issues": "fails it"}


def _criteria(turn: TurnView) -> list[LabelUnit]:
    return [
        LabelUnit(
            id=c.key,
            title=c.title or c.key,
            choices=tuple(Choice(word, OPTION, HINTS[word]) for word in RATING_SCORES),
            where=c.node.span,
            ordinal=True,
        )
        for c in turn.criteria
    ]


def _place(turn: TurnView) -> str:
    return "/".join(p for p in (turn.thread_id, turn.id) if p) or "turn"


def _turns(doc: Document) -> list[TurnView]:
    return [t for t in read_task(doc.root).turns if t.criteria and t.responses] if doc.root is not None else []


def sheet(doc: Document) -> Sheet:
    out = Sheet([], in_file=True)
    found: list[tuple[Any, ...]] = []  # (kind, turn, response)
    for turn in _turns(doc):
        found += [("response", turn, response) for response in turn.responses]
        if len(turn.responses) > 1:
            found.append(("pick", turn, None))
    keys = item_keys([_content(kind, turn, response) for kind, turn, response in found])
    for number, ((kind, turn, response), key) in enumerate(zip(found, keys), 1):
        prompt = [Part(role, text) for role, text in turn.prompt if text]
        if kind == "response":
            units = _criteria(turn)
            item = LabelItem(
                key,
                number,
                f"{_place(turn)}: {response.source_id}",
                prompt,
                response.text or "",
                units,
                span=response.node.span,
            )
            for rating in response.ratings:
                unit = item.unit(rating.criterion or "")
                value = rating.field("value")
                if unit is not None and value is not None and rating.value in RATING_SCORES:
                    item.labels[unit.id] = Label(rating.value)
                    item.slots.append(Slot(unit, value.span))
        else:
            choices = tuple(Choice(r.source_id or f"response {i}", OPTION) for i, r in enumerate(turn.responses, 1))
            unit = LabelUnit(PREFERENCE, "Which response is best?", choices, noun="pick")
            shown = "\n\n".join(f"── {r.source_id} ──\n{r.text or ''}" for r in turn.responses)
            item = LabelItem(key, number, f"{_place(turn)}: the pick", prompt, shown, [unit], span=turn.node.span)
            picked = turn.preferences.get(SELECTED)
            if picked is not None and picked[1] in {c.word for c in choices}:
                item.labels[PREFERENCE] = Label(str(picked[1]))
                value = picked[0].get("value")
                if value is not None:
                    item.slots.append(Slot(unit, value.span))
        out.items.append(item)
    return out


def _content(kind: str, turn: TurnView, response: Any) -> Any:
    if kind == "response":
        return {"turn": _place(turn), "response": response.text, "source": response.source_id}
    return {"turn": _place(turn), "pick": [r.text for r in turn.responses]}


def write(doc: Document, item: LabelItem, labels: Mapping[str, Label]) -> list[TextEdit]:
    for turn in _turns(doc):
        if item.unit(PREFERENCE) is not None and turn.node.span == item.span:
            return _write_pick(doc, turn, labels.get(PREFERENCE))
        for response in turn.responses:
            if response.node.span == item.span:
                return _write_ratings(doc, response, item, labels)
    return []


def _write_ratings(doc: Document, response: Any, item: LabelItem, labels: Mapping[str, Label]) -> list[TextEdit]:
    message: Node = response.node
    annotations = message.get("annotations")
    out: list[TextEdit] = []
    new = []
    held = {r.criterion: r for r in response.ratings}
    for unit in item.units:
        label, rating = labels.get(unit.id), held.get(unit.id)
        if rating is not None and label is None and annotations is not None:  # a rating sits in its annotations
            out += edits.remove_entry(doc, annotations, rating.node)
        elif rating is not None and label is not None:
            value = rating.field("value")
            out += (
                edits.set_node(value, label.word)
                if value is not None
                else edits.set_keys(doc, rating.node, [("value", label.word)])
            )
        elif label is not None:
            new.append(
                {"id": f"{unit.id}_rating", "title": unit.title, "value": label.word, "metadata": {"criteria": unit.id}}
            )
    if new and annotations is not None and annotations.is_seq and not annotations.value:
        out += edits.set_node(annotations, new)
    elif new and annotations is not None and annotations.is_seq:
        for annotation in new:  # one insertion point: their text joined, in order
            out += edits.append(doc, annotations, annotation)
        out = _joined(out)
    elif new:
        out += edits.set_keys(doc, message, [("annotations", new)])
    return out


def _joined(found: list[TextEdit]) -> list[TextEdit]:
    """Insertions at one point as one edit (their order kept)."""
    out: list[TextEdit] = []
    for edit in found:
        if out and edit.span == out[-1].span and edit.span.start == edit.span.end:
            out[-1] = TextEdit(edit.span, out[-1].new_text + edit.new_text)
        else:
            out.append(edit)
    return out


def _write_pick(doc: Document, turn: TurnView, label: Label | None) -> list[TextEdit]:
    held = turn.preferences.get(SELECTED)
    annotations = turn.node.get("annotations")
    if label is None:
        return edits.remove_entry(doc, annotations, held[0]) if held is not None and annotations is not None else []
    if held is not None:
        value = held[0].get("value")
        return (
            edits.set_node(value, label.word)
            if value is not None
            else edits.set_keys(doc, held[0], [("value", label.word)])
        )
    entry = {"key": SELECTED, "value": label.word}
    if annotations is not None and annotations.is_seq:
        return edits.append(doc, annotations, entry)
    return edits.set_keys(doc, turn.node, [("annotations", [entry])])


def read_source(doc: Document, data: Any, path: Path) -> Sheet | None:
    return None  # the task holds its responses; a grading of it is read by its converted dataset's format


def item_for(doc: Document, fields: Mapping[str, str], number: int) -> LabelItem | None:
    return None  # the task holds its items


LABELLING: LabellingHook = Labelling(sheet, write, read_source, item_for)
