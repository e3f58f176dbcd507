"""Grading a labelled set for its calibration record: the passes ``rubric calibrate`` and the editor's
Calibrate command both take, so the same judge answers give the same record from either.

A pass grades the set once and takes each unit's verdicts against the labels from the result
(``result.calibration_units``: the file's format hands them over). ``repeats`` passes ask the judge that many
times per item, each with verdict-cache keys of its own (``judge.REPEAT``): a real new ask. With several
judge models the passes grade with what the file's format takes (``runner.as_graded``: the panel, or the
first model alone for a format that grades with one judge), and each model is graded alone too, for its own
figures and the judges' agreement. Each model's answers alone are the very answers it gave in the panel,
replayed from the verdict cache; with the cache off, a cache of this calibration's own does that.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rubric_lsp.calibration.measure import DEFAULT_AGREEMENT, judge_of, labelled_record
from rubric_lsp.calibration.record import JudgeDescription
from rubric_lsp.calibration.units import UnitSamples
from rubric_lsp.document import Document
from rubric_lsp.engine.errors import GradingError, UnsupportedRequest
from rubric_lsp.engine.judge import REPEAT
from rubric_lsp.engine.request import GradeRequest
from rubric_lsp.engine.runner import as_graded, format_of, grade, read
from rubric_lsp.engine.settings import JudgeSettings, MissingCredentials

Progress = Callable[[int, int], Any]


@dataclass(frozen=True)
class Passes:
    """A labelled set graded for its record."""

    graded_with: JudgeSettings  # the record's judge: what the passes graded with
    passes: list[list[UnitSamples]]  # each ask's units
    judges: list[list[list[UnitSamples]]]  # with several judge models, each model's own passes alone
    models: list[str]  # every judge model given, in order
    limit: int | None = None  # the set's first items only (``--limit``): items after them are no change to it

    hook: Any = None  # the file's format's calibration hook: its default judge, where it has one

    @property
    def judge(self) -> JudgeDescription:
        """The record's judge: the one that graded (the panel, or the first model alone where the format grades
        with one judge; the format's own default judge where none is given). Where the file names every unit's
        judge itself, those judges, for the record to name no judge that never graded."""
        judge = grading_judge(self.graded_with, self.hook)
        units = self.passes[0] if self.passes else []
        if units and all(unit.judge is not None for unit in units):  # UnitSamples.judge: the file's, where it graded
            named = dict.fromkeys(m for unit in units if unit.judge is not None for m in unit.judge.models)
            return replace(judge, models=tuple(named))
        return judge

    def record(self, *, labelled: Path, output: Path, threshold: float = DEFAULT_AGREEMENT) -> dict[str, Any]:
        """The record of the set ``labelled``, to be written to ``output`` (:func:`measure.labelled_record`):
        ``rubric calibrate`` and the editor's lens both write this, so the same answers give the same bytes."""
        return labelled_record(
            self.passes,
            self.judge,
            labelled=labelled,
            output=output,
            threshold=threshold,
            judges=self.judges,
            models=self.models,
            limit=self.limit,
        )

    @property
    def failed(self) -> int:
        """The judge calls that failed, over every pass: counted apart in the record."""
        return sum(unit.failed for graded in (self.passes, *self.judges) for units in graded for unit in units)


async def calibration_passes(
    request: GradeRequest,
    settings: JudgeSettings,
    *,
    repeats: int = 1,
    on_progress: Progress | None = None,
    doc: Document | None = None,
) -> Passes:
    """Grade ``request`` ``repeats`` times (and each judge model alone, when several are given).

    ``on_progress(done, total)`` counts the work of every pass, each pass's after the earlier ones', in one
    total from the first report on (a panel's pass is its judges' work: ``_counted``).
    Raises GradingError when the file is no labelled set, as ``runner.grade`` raises for a file that
    cannot be graded."""
    doc = doc if doc is not None else read(request.text, request.path)
    with _shared_cache(settings) as shared:
        graded_with = as_graded(doc, shared)
        alone = _judges_alone(shared)
        passes: list[list[UnitSamples]] = []
        judges: list[list[list[UnitSamples]]] = [[] for _ in alone]
        graded = [(passes, graded_with), *zip(judges, alone)]  # each repeat: the panel's pass, each judge's alone
        weights = [len(judged.judge_models()) or 1 for _, judged in graded]
        whole, before = repeats * sum(weights), 0
        for repeat in range(repeats):
            for (own, with_settings), weight in zip(graded, weights):
                counted = _counted(on_progress, before, weight, whole)
                own.append(await _graded(request, doc, with_settings, repeat, counted))
                before += weight
    return Passes(graded_with, passes, judges, _models(settings), request.limit, _hook(doc))


async def _graded(
    request: GradeRequest, doc: Document, settings: JudgeSettings, repeat: int, on_progress: Progress | None
) -> list[UnitSamples]:
    """One pass of the labelled set: its units, as the file's format hands them over."""
    no_labels = (
        f"{request.path} is no labelled set to calibrate the judge against "
        "(docs/calibration.md lists those rubric calibrate reads)"
    )
    token = REPEAT.set(repeat)
    try:
        result = await grade(request, settings, on_progress=on_progress, doc=doc)
    except UnsupportedRequest as exc:  # refused before any judge call
        raise GradingError(f"{no_labels}: {exc}") from None
    finally:
        REPEAT.reset(token)
    units_of = getattr(result, "calibration_units", None)
    if units_of is None:
        raise GradingError(no_labels)
    return list(units_of(doc, request.options))


def _counted(progress: Progress | None, before: int, weight: int, whole: int) -> Progress | None:
    """Progress over every pass, in judges' work: this pass is ``weight`` judges' (a panel's pass grades every
    item once per judge), ``before`` judges' passes are done and ``whole`` make the calibration. One judge's
    work is this pass's total over its weight, so the total stays the same from pass to pass ("24/72" then
    "36/36" was a panel's pass counted as one judge's)."""
    if progress is None or weight == whole:
        return progress
    report = progress

    def counted(done: int, total: int) -> None:
        per_judge = total / weight
        report(round(before * per_judge) + done, round(whole * per_judge))

    return counted


def grading_judge(settings: JudgeSettings, hook: Any = None) -> JudgeDescription:
    """The judge a grading of a file graded with, as a record names it: the models given (``--model``,
    ``$RUBRIC_JUDGE_MODEL``), else the file's format's own default for the keys at hand (``hook.default_judge``:
    a test-config tool's default grader), else the engine's; and the settings that change a verdict, which do not depend
    on the environment (so a record is fresh or stale alike with or without an API key set)."""
    default = getattr(hook, "default_judge", None) if not settings.given_model() else None
    models = list(default(settings.environ()) or ()) if default is not None else []
    return replace(judge_of(settings), models=tuple(models or _models(settings)))


def _models(settings: JudgeSettings) -> list[str]:
    """The judge models as the grading spells them; the ones given when no default can be chosen (a file that
    names every unit's judge grades without one)."""
    try:
        return settings.resolved().judge_models()
    except MissingCredentials:
        return settings.judge_models()


def _hook(doc: Document) -> Any:
    fmt = format_of(doc)
    return None if fmt is None else fmt.calibration_hook()


def _judges_alone(settings: JudgeSettings) -> list[JudgeSettings]:
    """With several judge models, the settings of each model alone (in the panel's order); else none."""
    if len(_models(settings)) < 2:
        return []
    alone: dict[str, JudgeSettings] = {}
    for model in settings.judge_models():
        single = replace(settings, model=model, models=[])
        alone.setdefault(_models(single)[0] if _models(single) else model, single)  # two spellings: one judge
    return list(alone.values())


@contextlib.contextmanager
def _shared_cache(settings: JudgeSettings) -> Iterator[JudgeSettings]:
    """The settings to grade with. Each judge's figures alone must rest on the very answers it gave in the
    panel, which the verdict cache replays; with the cache off and several judges, a cache of this
    calibration's own (nothing read from before, nothing kept after) does that."""
    if settings.cache_enabled or len(settings.judge_models()) < 2:
        yield settings
        return
    with tempfile.TemporaryDirectory(prefix="rubric-calibrate-", ignore_cleanup_errors=True) as folder:
        yield replace(settings, cache_enabled=True, cache_dir=Path(folder))
