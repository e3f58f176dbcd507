"""A Rubrics task as the autorubric dataset it is graded and calibrated as (``convert.py``), read once for every
face: the grading (``preference.py``), and the calibration hook (``calibration.py``: RL020, the hover, ``rubric
grade --require-calibrated``), so a criterion's unit is the converted dataset's own wherever it is asked for."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rubric_lsp.document import Document, parse_document
from rubric_lsp.formats.rubrics_task.convert import dataset_json, task_to_dataset
from rubric_lsp.formats.rubrics_task.view import CriterionDef, TaskView, TurnView, read_task

PREFERENCE = "preference"
# What the judge reads to make its pick: the rule above (the criteria's own text is in their units).
PREFERENCE_TEXT = {"pick": "the response with the highest judged score; a tie is no pick", "human": "selected_model_id"}


PREFERENCE_TITLE = "the preferred response (selected_model_id)"


def preference_text(criteria: Sequence[Any]) -> dict[str, Any]:
    """The preference unit's text: its rule and the criteria it sums over (``criteria``: their units, samples
    or current ones, in the dataset's order), each by name and wording: the pick rests on their verdicts, so
    rewording one makes the preference's record stale too."""
    return {**PREFERENCE_TEXT, "criteria": [{"id": c.id, "text": c.text} for c in criteria]}


def preference_settings(criteria: Sequence[Any]) -> dict[str, Any]:
    """The preference unit's settings: the pick rests on the criteria's verdicts, so on what changes them (the
    options every criterion of the dataset shares: ``criteria`` are its units, samples or current ones)."""
    return dict(criteria[0].settings) if criteria else {}


@dataclass
class Turn:
    """One converted turn: where its responses are among the dataset's items, and the human pick."""

    name: str
    first: int  # the dataset item of its first response
    sources: list[str | None]
    selected: int | None  # the position of the human pick among its responses
    view: TurnView | None = None  # the task's turn (its criteria, where they are written)


@dataclass
class ConvertedTask:
    """A task, its conversion and the converted dataset as a document (its text is ``rubric convert``'s)."""

    view: TaskView
    dataset: Document  # the converted dataset, parsed
    turns: list[Turn]

    def criterion_at(self, offset: int) -> CriterionDef | None:
        """The task's criterion a criterion of the converted dataset (its node starting at ``offset``) came from:
        the shared rubric is the first turn's, an item's own rubric its turn's."""
        return self._criteria().get(offset)

    def _criteria(self) -> dict[int, CriterionDef]:
        root = self.dataset.root
        if root is None or not root.is_map or not self.turns:
            return {}
        found: dict[int, CriterionDef] = {}
        _place(found, root.get("rubric"), self.turns[0])
        items = root.get("items")
        for turn in self.turns:
            for index in range(turn.first, turn.first + len(turn.sources)):
                item = items.value[index] if items is not None and items.is_seq and index < len(items.value) else None
                if item is not None and item.is_map:
                    _place(found, item.get("rubric"), turn)
        return found


def _place(found: dict[int, CriterionDef], rubric: Any, turn: Turn) -> None:
    """Each criterion node of a converted rubric, by its start, to the turn's criterion it converts (in order)."""
    if rubric is None or not rubric.is_seq or turn.view is None:
        return
    for node, criterion in zip(rubric.value, turn.view.criteria):
        found.setdefault(node.start, criterion)


def turns_of(view_turns: list[TurnView]) -> list[Turn]:
    """The converted turns (those with criteria and responses, as ``task_to_dataset`` keeps them)."""
    turns, first = [], 0
    for turn in view_turns:
        if not (turn.criteria and turn.responses):
            continue
        sources = [r.source_id for r in turn.responses]
        selected = turn.preferences.get("selected_model_id", (None, None))[1]
        position = sources.index(selected) if selected is not None and selected in sources else None
        name = "/".join(part for part in (turn.thread_id, turn.id) if part)
        turns.append(Turn(name, first, sources, position, turn))
        first += len(sources)
    return turns


def convert_task(doc: Document, view: TaskView | None = None) -> ConvertedTask | str:
    """The task ``doc`` converted (``view``: the lint's, when it built one), or why it cannot be (a note)."""
    if doc.root is None:
        return "the file is empty."
    view = view if view is not None else read_task(doc.root)
    dataset, notes = task_to_dataset(view)
    if dataset is None:
        return notes[0]
    path = (doc.path or "task.json").rsplit(".", 1)[0] + ".dataset.json"
    converted = parse_document(dataset_json(dataset), path)
    if converted.root is None:  # the conversion writes JSON: never, but a grading must not read nothing
        return "the converted dataset cannot be read."
    return ConvertedTask(view, converted, turns_of(view.turns))
