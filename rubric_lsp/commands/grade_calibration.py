"""``rubric grade``'s calibration: the check ``--require-calibrated`` makes before any judge call, and the
judge card and corrected pass rates every report carries (docs/calibration.md, docs/grading.md).

A format takes part through its calibration hook (``Format.calibration``, a ``calibration.hook.CalibrationHook``):
the units a request grades as they are now (``current_units``) and its part of the card (``judge_card``); a
result with many items may give ``pass_counts() -> {unit: (passed, judged)}``. A format with no hook gets the
card's generic parts. Records are found as the lint finds them (``calibration.check.records_for``):
``--calibration``, else the record beside the file, then the settings' ``calibration.path``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rubric_lsp.calibration import card as judge_card
from rubric_lsp.calibration import check, gate, record, status
from rubric_lsp.engine.calibrating import grading_judge
from rubric_lsp.engine.request import GradeRequest
from rubric_lsp.engine.result import Outcome, counts
from rubric_lsp.engine.runner import format_of, read
from rubric_lsp.engine.settings import JudgeSettings
from rubric_lsp.lint import labelled_reader
from rubric_lsp.settings import SettingsError, settings_for


class NotCalibrated(Exception):
    """``--require-calibrated`` refuses: the message names each unit that is not calibrated and why."""


@dataclass
class Calibration:
    """What the grading's reports say about the judge and its calibration."""

    models: list[str] = field(default_factory=list)
    units: list[Any] = field(default_factory=list)  # CurrentUnit
    parts: list[tuple[str, str]] = field(default_factory=list)
    records: check.Records = field(default_factory=check.Records)  # the records found, in search order
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
            record=self.where,
            units=self.statuses,
            record_error=self.record_error,
        )

    @property
    def where(self) -> str | None:
        """The records checked, else where the first one would be (the card's ``record``)."""
        found = [str(where) for where, _data in self.records.found]
        return ", ".join(found) if found else next((str(w) for w in self.records.watched), None)

    def pass_rates(self, result: Any) -> list[dict[str, Any]] | None:
        """Each unit's pass rate raw and corrected, when the result grades many items (None otherwise)."""
        pass_counts = getattr(result, "pass_counts", None)
        return None if pass_counts is None else status.pass_rates(pass_counts(), self.statuses)


def prepare(path: Path, request: GradeRequest, settings: JudgeSettings | None, given: Path | None) -> Calibration:
    """The file's graded units, their records and statuses, before any judge call (``settings``: None when no
    judge is asked, e.g. given verdicts rescored; ``given``: ``--calibration``).

    Raises NotCalibrated only through :func:`require`; a record (or settings file) that cannot be read is kept
    as an error on the card, and refuses under ``--require-calibrated``."""
    doc = read(request.text, str(path))
    found = Calibration(doc=doc)
    fmt = format_of(doc)
    hook = None if fmt is None else fmt.calibration_hook()
    if hook is not None:
        found.units = list(hook.current_units(doc, request))
        found.parts = list(hook.judge_card(doc, request, found.units))
    errors = []
    try:
        configured = settings_for(path).calibration
    except (SettingsError, OSError) as exc:
        configured, errors = check.CalibrationSettings(), [f"the settings cannot be read: {exc}"]
    # --calibration replaces where records are searched for, never the rules that decide (the lint's).
    search = configured if given is None else replace(configured, path=None)
    found.records = check.records_for(str(path), search, given, labelled_now=labelled_reader(doc))
    if errors or found.records.errors:
        found.record_error = "; ".join(errors + found.records.errors)
    judge = grading_judge(settings, hook) if settings is not None else record.JudgeDescription((), "", {})
    judge_given = settings is not None and bool(settings.given_model())  # replaces a file's default judge
    found.statuses = status.statuses(found.units, found.records, judge, judge_given, gate.Rules.of(configured))
    # The card names the judges that grade: each unit's (the file's own where it names one), else the grading's.
    graded_by = [status.unit_judge(judge, unit, judge_given).models for unit in found.units] or [judge.models]
    found.models = list(dict.fromkeys(m for models in graded_by for m in models))
    return found


def require(found: Calibration) -> None:
    """NotCalibrated when a graded unit is not calibrated (``gate.decide``), or a record cannot be read."""
    if found.record_error is not None:
        raise NotCalibrated(f"--require-calibrated: {found.record_error}")
    why = status.refusal(found.statuses, found.records, found.units)
    if why is not None:
        raise NotCalibrated(why)
