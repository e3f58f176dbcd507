"""A Rubrics task graded against its human ratings (``rubric calibrate TASK.json``, ``rubric grade TASK.json``).

The task is converted to an autorubric dataset (``convert.py``: one ordinal criterion per turn criterion,
one item per response, the ratings as ground truth) and graded by that format's dataset grader, so each
criterion's figures are exactly those of ``rubric grade`` on the converted file. On top, the **preference**:
per turn, the judge's pick is the response with the highest judged score (the dataset's per-item score), the
human pick is the turn's ``selected_model_id``, and their agreement is one more calibration unit (nominal,
its categories the responses' positions in the turn). A tie for the highest score is no pick (the judge
abstains); a response whose grading failed makes the turn's pick a failed call; a turn without a
``selected_model_id`` naming one of its responses has no human pick (the label abstains).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from rubric_lsp.calibration.stats import proportion
from rubric_lsp.calibration.units import Labelled, UnitSamples
from rubric_lsp.document import Document
from rubric_lsp.engine.request import GradeRequest
from rubric_lsp.engine.result import Unit
from rubric_lsp.engine.runner import Grading, GradingError
from rubric_lsp.formats.autorubric.grading.agreement import grade as grade_dataset
from rubric_lsp.formats.autorubric.grading.calibration import prompt_fingerprint, units
from rubric_lsp.formats.rubrics_task.grading.calibration import turn_marks
from rubric_lsp.formats.rubrics_task.grading.converted import (
    PREFERENCE,
    PREFERENCE_TITLE,
    Turn,
    convert_task,
    preference_settings,
    preference_text,
)

NO_PICK = "no pick"  # a tie for the highest score, or no selected_model_id naming a response


@dataclass
class TaskRatingsResult:
    """The converted dataset's result (every figure per criterion) and the preference agreement."""

    dataset: Any  # the autorubric DatasetResult
    dataset_doc: Document
    turns: list[Turn]
    kind = "dataset"

    def units(self) -> list[Unit]:
        return self.dataset.units()

    @property
    def failed(self) -> bool:
        return False  # agreement is a measurement, not a pass/fail

    @property
    def incomplete(self) -> str | None:
        return self.dataset.incomplete

    def picks(self) -> list[dict[str, Any]]:
        """Per turn: the responses' judged scores, the judge's pick and the human one (positions or None)."""
        scores = {row["index"]: row for row in self.dataset.items}
        out = []
        for turn in self.turns:
            rows = [scores.get(turn.first + i) for i in range(len(turn.sources))]
            if any(row is None for row in rows):  # left out by --limit
                continue
            values = [row["score"] if not row["error"] else None for row in rows]  # type: ignore[index]
            pick: int | None = None
            failed = any(v is None for v in values)
            if not failed:
                best = max(values)  # type: ignore[type-var]
                top = [i for i, v in enumerate(values) if v == best]
                pick = top[0] if len(top) == 1 else None
            out.append({"turn": turn.name, "scores": values, "judge": pick, "human": turn.selected, "failed": failed})
        return out

    def preference(self) -> dict[str, Any]:
        """The agreement of the judge's pick with the human one, over turns with both (Wilson interval)."""
        picks = self.picks()
        both = [p for p in picks if p["judge"] is not None and p["human"] is not None]
        return {
            "turns": picks,
            "agreement": proportion(sum(p["judge"] == p["human"] for p in both), len(both)),
        }

    def to_json(self) -> dict[str, Any]:
        return {**self.dataset.to_json(), PREFERENCE: self.preference()}

    def text_lines(self) -> list[str]:
        agreement = self.preference()["agreement"]
        line = f"preference (judge's highest-scored response vs selected_model_id): {agreement['successes']} of {agreement['n']} turn(s) agree"
        if agreement["n"]:
            low, high = agreement["interval"]
            line += f" ({agreement['value']:.0%}, 95 % [{low:.0%}, {high:.0%}])"
        return [*self.dataset.text_lines(), line]

    def calibration_units(self, doc: Document, options: Mapping[str, Any]) -> list[UnitSamples]:
        """Each criterion of the converted dataset, then the preference (``doc``: the task; the criteria's
        units are the dataset's own, so a record made here applies to the converted file too)."""
        criteria = units(self.dataset, self.dataset_doc, options)
        return [*criteria, self._preference_unit(criteria)]

    def _preference_unit(self, criteria: list[UnitSamples]) -> UnitSamples:
        picks = self.picks()
        size = max((len(t.sources) for t in self.turns), default=0)
        abstained = {"both": 0, "judge_only": 0, "truth_only": 0}
        pairs = []
        for p in picks:
            if p["failed"]:
                continue
            judge, human = p["judge"] is None, p["human"] is None
            if judge or human:
                abstained["both" if judge and human else "judge_only" if judge else "truth_only"] += 1
            else:
                pairs.append((p["human"], p["judge"]))
        marks = dict(zip((t.name for t in self.turns), turn_marks(self.dataset_doc, self.turns)))
        labelled = {
            n: Labelled(*marks[p["turn"]], NO_PICK if p["human"] is None else p["human"])
            for n, p in enumerate(picks)
            if p["turn"] in marks
        }
        return UnitSamples(
            id=PREFERENCE,
            title=PREFERENCE_TITLE,
            kind="nominal",
            text=preference_text(criteria),
            prompt=prompt_fingerprint(),
            settings=preference_settings(criteria),
            categories=tuple(range(size)),
            names={**{i: f"response {i + 1}" for i in range(size)}, NO_PICK: NO_PICK},
            pairs=pairs,
            abstained=abstained,
            failed=sum(p["failed"] for p in picks),
            # A failed pick is a failed ask (None); a tie is no pick, an answer the asks can agree on.
            judged={
                n: None if p["failed"] else NO_PICK if p["judge"] is None else p["judge"] for n, p in enumerate(picks)
            },
            reasons={
                n: "scores " + ", ".join(f"{s:.3g}" for s in p["scores"])
                for n, p in enumerate(picks)
                if not p["failed"]
            },
            labelled=labelled,
        )


async def grade_ratings(doc: Document, request: GradeRequest, grading: Grading) -> TaskRatingsResult:
    """The task converted and graded as a dataset; GradingError when it has nothing to convert."""
    converted = convert_task(doc)
    if isinstance(converted, str):
        raise GradingError(f"The Rubrics task cannot be graded against its ratings: {converted}")
    dataset = converted.dataset
    result = await grade_dataset(dataset, replace(request, text=dataset.text, path=dataset.path), grading)
    return TaskRatingsResult(result, dataset, converted.turns)
