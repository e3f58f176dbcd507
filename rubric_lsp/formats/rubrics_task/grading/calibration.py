"""A Rubrics task's calibration units (docs/calibration.md): each criterion of the autorubric dataset the task
converts to (``converted.py``), then the ``preference``, as ``rubric calibrate TASK.json`` writes them.

A criterion's unit is the converted dataset's own: its id, text and prompt fingerprint come from the autorubric
dataset's hook run on the conversion (the record's come from the same conversion, graded), and the lint reports
it on the task's criterion (its ``title``, the text the judge reads) instead of on the dataset's copy. The
preference rests on every criterion's verdicts: its text names them, its settings are theirs.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rubric_lsp.calibration import evidence
from rubric_lsp.calibration.check import CalibrationUnit
from rubric_lsp.calibration.hook import CalibrationHook, Graded
from rubric_lsp.calibration.units import CurrentUnit
from rubric_lsp.document import Document, Node
from rubric_lsp.formats.autorubric.grading.calibration import (
    DATASET_CALIBRATION,
    dataset_labels,
    item_marks,
    prompt_fingerprint,
)
from rubric_lsp.formats.rubrics_task.grading.converted import (
    PREFERENCE,
    PREFERENCE_TITLE,
    ConvertedTask,
    Turn,
    convert_task,
    preference_settings,
    preference_text,
)
from rubric_lsp.formats.rubrics_task.view import TaskView

PREFERENCE_CARD = (
    "the judge's pick per turn is the response with the highest judged score (a tie is no pick), compared "
    "with the turn's selected_model_id; a turn without one has no human pick, a failed grading none either"
)


def _converted(doc: Document, view: Any = None) -> ConvertedTask | None:
    found = convert_task(doc, view if isinstance(view, TaskView) else None)
    return None if isinstance(found, str) else found


def _criteria(converted: ConvertedTask, graded: Graded) -> list[CurrentUnit]:
    return DATASET_CALIBRATION.current_units(converted.dataset, graded)


def turn_marks(dataset: Document, turns: list[Turn]) -> list[tuple[str, str]]:
    """Each turn's (item mark, label mark) in a record's evidence of the preference: the item is the turn's
    responses (the converted items the judge read), the label the human pick."""
    items = item_marks(dataset)
    return [
        (
            evidence.item_mark([turn.name, [items.get(turn.first + i) for i in range(len(turn.sources))]]),
            evidence.label_mark(turn.selected),
        )
        for turn in turns
    ]


def _preference_node(converted: ConvertedTask) -> Node | None:
    """Where the preference is written: the first converted turn's ``selected_model_id``, else the task's id."""
    for turn in converted.turns:
        found = turn.view.preferences.get("selected_model_id") if turn.view is not None else None
        if found is not None:
            return found[0]
    root = converted.view.root
    return root.get("task_id") if root.is_map else None


class _Calibration:
    """``Format.calibration`` of a Rubrics task."""

    def document_units(self, doc: Document, view: Any) -> list[CalibrationUnit]:
        converted = _converted(doc, view)
        if converted is None:
            return []
        criteria = DATASET_CALIBRATION.document_units(converted.dataset, None)
        out = []
        for unit in criteria:
            criterion = converted.criterion_at((unit.extent or unit.span).start)
            if criterion is None:
                continue
            written = criterion.field("title") or criterion.key_node
            out.append(replace(unit, span=written.span, extent=criterion.node.span))
        where = _preference_node(converted)
        if where is not None:
            named = (where.get("value") if where.is_map else None) or where
            text = preference_text(criteria)
            out.append(CalibrationUnit(PREFERENCE, text, prompt_fingerprint(), named.span, "unit", where.span))
        return out

    def current_units(self, doc: Document, graded: Graded) -> list[CurrentUnit]:
        converted = _converted(doc)
        if converted is None:
            return []
        criteria = _criteria(converted, graded)
        preference = CurrentUnit(
            PREFERENCE,
            PREFERENCE_TITLE,
            preference_text(criteria),
            prompt_fingerprint(),
            preference_settings(criteria),
            binary=False,
        )
        return [*criteria, preference]

    def judge_card(self, doc: Document, graded: Graded, units: list[CurrentUnit]) -> list[tuple[str, str]]:
        """autorubric's part for the converted dataset's criteria (ordinal, no_issues … major_issues), and the
        preference's rule."""
        converted = _converted(doc)
        if converted is None:
            return []
        criteria = [u for u in units if u.id != PREFERENCE]
        return [*DATASET_CALIBRATION.judge_card(converted.dataset, graded, criteria), ("preference", PREFERENCE_CARD)]

    def labelled(self, doc: Document) -> dict[str, dict[str, str]]:
        """The converted dataset's labels per criterion, and each turn's human pick."""
        converted = _converted(doc)
        if converted is None:
            return {}
        picks: dict[str, list[str]] = {}
        for item, label in turn_marks(converted.dataset, converted.turns):
            picks.setdefault(item, []).append(label)
        labels = dataset_labels(converted.dataset)
        return {**labels, PREFERENCE: {item: "+".join(sorted(marks)) for item, marks in picks.items()}}


# What the format's ``calibration`` names (annotated: mypy checks it against the protocol).
CALIBRATION: CalibrationHook = _Calibration()
