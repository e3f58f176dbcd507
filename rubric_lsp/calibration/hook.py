"""How a format takes part in calibration: one object, named by ``Format.calibration``, that says which units a
judge grades in its files (docs/calibration.md). A format without one takes no part.

Every face reads a format's units through it alone: the lint rule RL020 and the hover
(:meth:`CalibrationHook.document_units`: each unit with where it is written), ``rubric grade
--require-calibrated`` and the judge card (:meth:`CalibrationHook.current_units`, the units a grading
grades, and :meth:`CalibrationHook.judge_card`, the format's part of the card). A format module declares
``CALIBRATION: CalibrationHook = …`` so that mypy checks it against this protocol, and
``Format.calibration_hook`` checks it again when it is loaded (a third-party format is not type-checked here).

Two methods are optional (read with ``getattr``, so a format without them still takes part):
``labelled(doc) -> {unit id: {item mark: label marks}}``, the labels a labelled file holds now, as a record's
evidence keeps them (``evidence.py``): without it a record of that file cannot be checked against its labels,
and the gate refuses it; ``default_judge(env) -> tuple[str, ...]``, the judge the format's grading picks
when none is given (promptfoo's default grader for the keys at hand), which a record and the card name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # types only: the hook's users import these modules themselves
    from rubric_lsp.calibration.check import CalibrationUnit
    from rubric_lsp.calibration.units import CurrentUnit
    from rubric_lsp.document import Document


class Graded(Protocol):
    """What a grading asks of the file, as far as its units go (``engine.request.GradeRequest`` is one)."""

    @property
    def options(self) -> Mapping[str, object]: ...  # the format's grading options, by name

    @property
    def test_index(self) -> int | None: ...  # the one numbered test graded (0-based), where the format has tests

    @property
    def units(self) -> tuple[str, ...]: ...  # the units graded by name (empty: all)


@runtime_checkable
class CalibrationHook(Protocol):
    """A format's calibration units. Each unit's ``id``, text and prompt fingerprint must be what its
    ``rubric calibrate`` writes into a record (the same function computes both), or no record is ever fresh."""

    def document_units(self, doc: Document, view: Any) -> list[CalibrationUnit]:
        """Every unit the file holds, with where to report it (``view``: the format's view when the lint built
        one, else None). Units the owner would refuse are left out: other rules report them."""
        ...

    def current_units(self, doc: Document, graded: Graded) -> list[CurrentUnit]:
        """The units ``graded`` grades, as the file holds them now: what their records are checked against
        before any judge call."""
        ...

    def judge_card(self, doc: Document, graded: Graded, units: list[CurrentUnit]) -> list[tuple[str, str]]:
        """The format's part of the judge card, in its own words: its scale, abstentions, ties, aggregation."""
        ...
