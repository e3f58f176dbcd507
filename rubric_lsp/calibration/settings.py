"""What the lint needs of calibration before it knows a record exists: the settings' table and where a
file's record would be. Kept apart from ``check`` (records, matching, statistics) so that a lint with no
record and no ``calibration`` setting imports nothing more (tests/test_startup_modules.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SUFFIX = ".calibration.json"  # a file's record: ``<name>.calibration.json`` beside it
MAX_RECORD_BYTES = 8 * 1024 * 1024  # ~40,000 units' figures; anything larger is not a record of ours
# The share of asks (or judges) that must agree for a unit not to be ambiguous (``rubric calibrate
# --agreement-threshold``, the editor's ``rubric.calibration.agreementThreshold``): here, so that the server's
# settings read it without loading the measures.
DEFAULT_AGREEMENT = 0.8


@dataclass(frozen=True)
class CalibrationSettings:
    """``calibration = {…}`` in the settings (settings.py validates it)."""

    required: bool = False  # a unit with no record is reported, and every finding is a warning
    min_kappa: float | None = None  # a unit whose κ interval's lower bound is below this is not calibrated
    path: Path | None = None  # a record or a folder of records, beside the settings file's folder
    judge: tuple[str, ...] = ()  # the judge models gradings use: a record made with others is stale
    min_labels: int = 1  # a unit calibrated on fewer compared labels is not calibrated
    allow_ambiguous: bool = False  # an ambiguous unit (its asks or its judges disagree) is still calibrated

    @property
    def searches_elsewhere(self) -> bool:
        """Whether records are looked for or required beyond the one beside a file."""
        return self.required or self.path is not None
