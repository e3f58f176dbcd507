"""A Rubrics task as an autorubric dataset (``rubric convert TASK.json --to autorubric-dataset``).

A vendor Rubrics task becomes an autorubric dataset: one ordinal criterion per
``rubric_<r>_criteria_<n>`` (no_issues 1.0, minor_issues 0.5, major_issues 0.0), one
item per assistant response, and the human ratings as ground truth, so the grading
engine can measure how well a judge agrees with the humans.

The task is read with the same parser and view the linter uses (the ``convert``
command hands over the lint's view); a task the linter finds errors in is not converted
(the output would carry them silently).
"""

from __future__ import annotations

import json

from rubric_lsp.formats.autorubric.model import Criterion, CriterionOption, Dataset, DatasetItem
from rubric_lsp.formats.plugin import Conversion
from rubric_lsp.formats.rubrics_task.model import RATING_SCORES
from rubric_lsp.formats.rubrics_task.view import TaskView, TurnView


def to_autorubric_dataset(view: TaskView) -> Conversion:
    """The converter the format registers for the target ``autorubric-dataset``."""
    dataset, notes = task_to_dataset(view)
    if dataset is None:
        return Conversion(None, notes)
    return Conversion(dataset_json(dataset), notes, f"{len(dataset.items)} item(s)")


def rubric_for(turn: TurnView) -> list[Criterion]:
    """One ordinal criterion per turn-level criterion, in the turn's order."""
    options = [CriterionOption(label=label, value=score) for label, score in RATING_SCORES.items()]
    return [
        Criterion(name=c.key, requirement=c.title or c.key, options=options, scale_type="ordinal")
        for c in turn.criteria
    ]


def _prompt(turn: TurnView) -> str:
    parts = [(role, text) for role, text in turn.prompt if text]
    if len(parts) == 1:
        return parts[0][1]
    return "\n\n".join(f"{role}: {text}" for role, text in parts)


def task_to_dataset(view: TaskView) -> tuple[Dataset | None, list[str]]:
    """The dataset for ``view``, and notes about what could not be carried over."""
    notes: list[str] = []
    turns = [t for t in view.turns if t.criteria and t.responses]
    if not turns:
        return None, ["the task has no turn with both criteria and assistant responses; nothing to convert."]
    first = turns[0]
    rubric = rubric_for(first)
    prompt = _prompt(first)
    items: list[DatasetItem] = []
    for turn in turns:
        turn_rubric = rubric_for(turn)
        turn_prompt = _prompt(turn)
        same_rubric = [c.model_dump() for c in turn_rubric] == [c.model_dump() for c in rubric]
        selected = turn.preferences.get("selected_model_id", (None, None))[1]
        where = "/".join(part for part in (turn.thread_id, turn.id) if part)
        for response in turn.responses:
            by_criterion = {r.criterion: r.value for r in response.ratings}
            truth = [by_criterion.get(c.key) for c in turn.criteria]
            ground_truth = truth if all(v in RATING_SCORES for v in truth) else None
            if ground_truth is None:
                notes.append(
                    f"{where}: response '{response.source_id}' does not rate every criterion; its item has no ground truth."
                )
            description = f"{where}: {response.source_id}" + (" (preferred)" if response.source_id == selected else "")
            items.append(
                DatasetItem(
                    submission=response.text or "",
                    description=description,
                    ground_truth=ground_truth,
                    rubric=None if same_rubric else turn_rubric,
                    prompt=None if turn_prompt == prompt else turn_prompt,
                )
            )
    name = view.task.task_id if view.task is not None else None
    return Dataset(name=name, prompt=prompt or None, rubric=rubric, items=items), notes


def dataset_json(dataset: Dataset) -> str:
    data = dataset.model_dump(mode="json", exclude_none=True)
    data["rubric"] = [c.model_dump(mode="json", exclude_none=True) for c in dataset.rubric]  # type: ignore[union-attr]
    for item, model in zip(data["items"], dataset.items):
        if model.rubric is not None:
            item["rubric"] = [c.model_dump(mode="json", exclude_none=True) for c in model.rubric]  # type: ignore[union-attr]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
