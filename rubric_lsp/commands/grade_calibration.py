"""``rubric grade``'s calibration: the check ``--require-calibrated`` makes before any judge call, and the
judge card and corrected pass rates every report carries (docs/calibration.md, docs/grading.md).

A format takes part through two functions of its grader's module (``Format.grader``): the units a request
grades as they are now, ``current_calibration_units(doc, options) -> list[CurrentUnit]``, and its part of
the card, ``judge_card(doc, options, units) -> [(label, value), …]``; a result with many items may give
``pass_counts() -> {unit: (passed, judged)}``. A format with none of them gets the card's generic parts.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rubric_lsp.calibration import card as judge_card
from rubric_lsp.calibration import record, status
from rubric_lsp.calibration.measure import judge_of
from rubric_lsp.engine.result import Outcome, counts
from rubric_lsp.engine.runner import grader_for, read
from rubric_lsp.engine.settings import JudgeSettings, MissingCredentials


class NotCalibrated(Exception):
    """``--require-calibrated`` refuses: the message names each unit without a fresh record and why."""


@dataclass
class Calibration:
    """What the grading's reports say about the judge and its calibration."""

    models: list[str] = field(default_factory=list)
    units: list[Any] = field(default_factory=list)  # CurrentUnit
    parts: list[tuple[str, str]] = field(default_factory=list)
    where: Path | None = None
    statuses: list[dict[str, Any]] = field(default_factory=list)
    record_error: str | None = None
    doc: Any = None  # the file as read: the grading reuses it (a large dataset is not parsed twice)

    def card(self, result: Any) -> dict[str, Any]:
        """The judge card of ``result`` (its coverage counted from the result's units)."""
        units = result.units()
        found = counts(units)
        coverage = {
            "groups": len({u.group for u in units}),
            "units": len(units),
            "graded": len(units) - found[Outcome.NOT_RUN],
            "errors": found[Outcome.ERROR],
            "abstained": found[Outcome.ABSTAIN],
            "not_run": found[Outcome.NOT_RUN],
        }
        prompts = sorted({u.prompt for u in self.units})
        return judge_card.build(
            models=self.models,
            prompt=", ".join(prompts) or None,
            parts=self.parts,
            coverage=coverage,
            record=None if self.where is None else str(self.where),
            units=self.statuses,
            record_error=self.record_error,
        )

    def pass_rates(self, result: Any) -> list[dict[str, Any]] | None:
        """Each unit's pass rate raw and corrected, when the result grades many items (None otherwise)."""
        pass_counts = getattr(result, "pass_counts", None)
        return None if pass_counts is None else status.pass_rates(pass_counts(), self.statuses)


def prepare(
    path: Path, text: str, options: dict[str, Any], settings: JudgeSettings | None, given: Path | None
) -> Calibration:
    """The file's units, their records and statuses, before any judge call (``settings``: None when no
    judge is asked, e.g. given verdicts rescored).

    Raises NotCalibrated only through :func:`require`; a record that cannot be read is kept as an error
    on the card (and refuses under ``--require-calibrated``)."""
    doc = read(text, str(path))
    module = inspect.getmodule(grader_for(doc))
    units_of = getattr(module, "current_calibration_units", None)
    parts_of = getattr(module, "judge_card", None)
    try:
        resolved = None if settings is None else settings.resolved()
    except MissingCredentials:  # the grading refuses with its own message
        resolved = None
    models = [] if resolved is None else list(resolved.judge_models())
    found = Calibration(models=models, doc=doc)
    if units_of is not None:
        found.units = list(units_of(doc, options))
    if parts_of is not None:
        found.parts = list(parts_of(doc, options, found.units))
    try:
        found.where, data = status.find_record(path, given)
    except record.RecordError as exc:
        found.where, data, found.record_error = given or record.record_path(path), None, str(exc)
    judge = judge_of(resolved, "") if resolved is not None else record.JudgeDescription((), "", {})
    found.statuses = status.statuses(found.units, data, judge)
    return found


def require(found: Calibration) -> None:
    """NotCalibrated when a graded unit has no fresh record (or the record cannot be read)."""
    if found.record_error is not None:
        raise NotCalibrated(f"--require-calibrated: {found.record_error}")
    why = status.refusal(found.statuses, found.where)
    if why is not None:
        raise NotCalibrated(why)
