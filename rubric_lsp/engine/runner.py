"""The grading runner: the one place a grading request is carried out, whatever the format.

``grade(request, settings)`` reads the file, finds its format with
``formats.registry.detect`` and hands the request to the format's grader: what ``Format.grader``
names, a :class:`Grader` (``async (doc, request, grading) -> GradeResult``).
The grader plans its judge calls; what every grading shares lives here:

- ``Run``: one judge per (model, base, temperature, max tokens, credential), one adaptive
  concurrency limit (``Run.limit``, a ``rate_limit.RateLimiter``) and one verdict cache for
  its judges, and their merged usage;
- ``Grading``: the request's settings and its progress n/N over the whole grading
  (``expect`` announces work items, ``tick`` counts one done), and its ``meter``
  (``meter.py``: tokens, cost, calls in flight, back-off, for a progress display);
- ``fan_out``: the work items run concurrently; the first error cancels the others
  (cancel-on-error) and is raised — a judge *failure* is a verdict, never an exception here;
- the total deadline (``JudgeSettings.deadline_seconds``): past it the grading stops with
  ``DeadlineExceeded``, naming the deadline and how to change it (``errors.py``, shared with batch mode).

Nothing here names a format, and nothing imports litellm at module level.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Protocol, TypeVar, runtime_checkable

from rubric_lsp.document import Document, parse_document

# The errors are re-exported (``X as X``): graders and faces import them from the runner.
from rubric_lsp.engine.errors import DeadlineExceeded as DeadlineExceeded
from rubric_lsp.engine.errors import GradeExtraMissing, within_deadline
from rubric_lsp.engine.errors import GradingError as GradingError
from rubric_lsp.engine.errors import UnsupportedRequest as UnsupportedRequest
from rubric_lsp.engine.extra import grade_extra_missing
from rubric_lsp.engine.judge import Judge
from rubric_lsp.engine.limits.rate_limit import RateLimiter
from rubric_lsp.engine.meter import Meter
from rubric_lsp.engine.meter import activate as activate_meter
from rubric_lsp.engine.meter import current as current_meter
from rubric_lsp.engine.request import GradeRequest, GradeResult, RequestKind
from rubric_lsp.engine.settings import JudgeSettings, api_key_for
from rubric_lsp.engine.store.cache import VerdictCache
from rubric_lsp.engine.usage import Usage
from rubric_lsp.engine.windowed import stop
from rubric_lsp.formats.plugin import Format, Lazy, load
from rubric_lsp.formats.registry import detect, formats
from rubric_lsp.settings import configured_kind

T = TypeVar("T")
Progress = Callable[[int, int], None]
JudgeKey = tuple[str, str | None, float | None, int | None, str | None]
REVIEW_GRADER = "rubric_lsp.review.grader:GRADER"  # loaded by name, as a format's grader is


@dataclass
class Run:
    """Judges sharing one concurrency limit and one verdict cache."""

    settings: JudgeSettings  # resolved
    limit: RateLimiter
    cache: VerdictCache | None
    judges: dict[JudgeKey, Judge] = field(default_factory=dict)
    meter: Meter | None = None

    @classmethod
    def start(cls, settings: JudgeSettings) -> Run:
        """Resolve ``settings`` (raises MissingCredentials when no judge can be chosen).

        The run reports to the meter of the grading it runs in (``meter.current``), if any."""
        resolved = settings.resolved()
        cache = VerdictCache(resolved.cache_dir) if resolved.cache_enabled and resolved.cache_dir else None
        limit = RateLimiter(resolved.concurrency, rpm=resolved.rpm, tpm=resolved.tpm)
        meter = current_meter()
        if meter is not None:
            meter.watch(limit)
        return cls(resolved, limit, cache, meter=meter)

    def judge(self, settings: JudgeSettings | None = None, model: str | None = None) -> Judge:
        """The run's judge for ``model`` under ``settings``; raises MissingCredentials for a key-less provider."""
        settings = settings or self.settings
        model = model or settings.model
        assert model is not None
        # Graders with a key of their own (a key written in the rubric file) get judges of their
        # own; the key is held here only as a digest.
        credential = api_key_for(model, settings.api_base, settings.environ())
        digest = None if credential is None else hashlib.sha256(credential.encode("utf-8")).hexdigest()
        key: JudgeKey = (model, settings.api_base, settings.temperature, settings.max_tokens, digest)
        if key not in self.judges:
            self.judges[key] = Judge(settings, model, self.limit, self.cache, meter=self.meter)
        return self.judges[key]

    def judges_for_models(self) -> list[Judge]:
        """One judge per model of the run (checks every credential before any call)."""
        return [self.judge(model=m) for m in self.settings.judge_models()]

    def fresh_judges(self) -> list[Judge]:
        """New judges for the run's models, sharing its limit and cache, so usage can be counted apart."""
        return [Judge(self.settings, m, self.limit, self.cache, meter=self.meter) for m in self.settings.judge_models()]

    def usage(self) -> Usage:
        """The merged usage of the run's judges."""
        total = Usage()
        for judge in self.judges.values():
            total.merge(judge.usage)
        return total


@dataclass
class Grading:
    """One request being graded: the settings it came with, and its progress n/N."""

    settings: JudgeSettings  # as given; ``start`` resolves them
    on_progress: Progress | None = None
    done: int = 0
    total: int = 0
    meter: Meter = field(default_factory=Meter)

    def start(self, settings: JudgeSettings | None = None) -> Run:
        """A run under ``settings`` (default: the request's); raises MissingCredentials when no judge is set."""
        return Run.start(settings or self.settings)

    def expect(self, items: int) -> None:
        """Announce ``items`` more work items (the N of n/N); the progress shows 0/N at once."""
        self.total += items
        self.meter.total = self.total
        if self.on_progress is not None and items:
            self.on_progress(self.done, self.total)

    def tick(self, _done: int = 0, total: int = 0) -> None:
        """One work item finished (a progress callback's signature, so graders can pass it down).

        A grader that announced nothing with ``expect`` may pass its own total instead. Work
        cancelled (an error elsewhere, the deadline) is not counted as done."""
        task = asyncio.current_task()
        cancelling = getattr(task, "cancelling", None)  # Task.cancelling is 3.11+; 3.10 counts every item
        if cancelling is not None and cancelling():
            return
        self.done += 1
        counted = max(self.total or total, self.done)
        self.meter.done, self.meter.total = self.done, counted  # a grader's own total counts for the meter too
        if self.on_progress is not None:
            self.on_progress(self.done, counted)


@runtime_checkable
class Grader(Protocol):
    """A format's grader: plans the judge calls a request needs and returns their result.

    ``Format.grader`` names one; a grader module annotates it (``GRADER: Grader = grade``) so
    that mypy checks its signature against this protocol.
    """

    async def __call__(self, doc: Document, request: GradeRequest, grading: Grading) -> GradeResult: ...


async def fan_out(work: Iterable[Awaitable[T]]) -> list[T]:
    """Await every item concurrently, results in order; the first exception cancels the rest and is raised."""
    tasks = [asyncio.ensure_future(item) for item in work]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        stop(tasks)
        raise


def read(text: str, path: str | None) -> Document:
    """The document to grade; GradingError when it cannot be read."""
    doc = parse_document(text, path or "rubric.yaml")
    if not doc.readable or doc.root is None:
        issue = next((i for i in doc.issues if i.fatal), None)
        raise GradingError(f"The file cannot be read: {issue.message if issue else 'it is empty'}")
    return doc


def format_of(doc: Document) -> Format | None:
    """The document's format (``formats.registry.detect``, a configured kind first); None when it has none."""
    try:
        return detect(doc, configured_kind(doc.path))
    except Exception:
        return None


def grader_for(doc: Document) -> Grader:
    """The grader of the document's format (``formats.registry.detect``); GradingError when it has none."""
    fmt = format_of(doc)
    if fmt is not None and fmt.grader is not None:
        return load_grader(fmt.grader)
    gradable = ", ".join(f.title for f in formats() if f.grader is not None)
    if fmt is None:
        raise GradingError(f"This file is not a rubric rubric-lsp can grade with (it grades: {gradable}).")
    raise GradingError(f"This file is a {fmt.title}, which rubric-lsp cannot grade (it grades: {gradable}).")


def panel_note(request: GradeRequest, settings: JudgeSettings, doc: Document | None = None) -> str | None:
    """What a face says when ``settings`` name several judge models and the file's format grades with one: it
    is graded with the first (``as_graded``), the others go unused. None when nothing goes unused (one judge,
    a format that takes a panel, given verdicts). The file is read only when several are given."""
    models = _judge_models(settings)
    if len(models) < 2 or request.kind is RequestKind.RESCORE:  # given verdicts: no judge is asked
        return None
    try:
        fmt = format_of(doc if doc is not None else read(request.text, request.path))
    except GradingError:
        return None  # the grading says why the file cannot be read
    if fmt is None or fmt.grader is None or fmt.judge_panel:
        return None
    return (
        f"a {fmt.title} is graded with one judge model, not a panel: graded with {models[0]}, and "
        f"{', '.join(models[1:])} went unused; to compare judges on it, give them to `rubric calibrate` with a "
        "labelled set (docs/calibration.md)"
    )


def review_refusal(settings: JudgeSettings) -> str | None:
    """Why a review refuses ``settings``: it asks one judge model (its findings are one judge's answers), so
    several are refused before any call rather than one graded and the others ignored. None for one."""
    models = _judge_models(settings)
    if len(models) < 2:
        return None
    return f"rubric review asks one judge model, and {len(models)} were given ({', '.join(models)}): give one"


def as_graded(doc: Document, settings: JudgeSettings) -> JudgeSettings:
    """``settings`` as a grading of ``doc`` takes them: every judge model when its format takes a panel, else
    the first alone (what ``rubric grade`` and the editor grade such a file with, saying so: ``panel_note``;
    ``rubric calibrate`` grades it with the first too, beside each model alone)."""
    models = settings.judge_models()
    if len(models) < 2:
        return settings
    fmt = format_of(doc)
    return settings if fmt is None or fmt.judge_panel else replace(settings, model=models[0], models=[])


def _judge_models(settings: JudgeSettings) -> list[str]:
    """The distinct judge models, as litellm spells them (two spellings of one model are one judge)."""
    spell = with_model_spellings(settings).model_ids or str
    return list(dict.fromkeys(spell(model) for model in settings.judge_models()))


def load_grader(ref: Lazy) -> Grader:
    """The grader a ``Format.grader`` reference names (a module's ``grade`` when it names a module)."""
    found = load(ref)
    found = getattr(found, "grade", found)
    if not isinstance(found, Grader):  # all a runtime check can see: that it can be called
        raise GradingError(f"The format's grader {ref!r} names {found!r}, which cannot be called.")
    return found


def model_spellings() -> Callable[[str], str]:
    """A judge model id in any format's spelling (``Format.model_ids``, e.g. a test-config tool's
    provider id) → litellm's id; the first format whose spelling changes it wins, else as given."""
    spellers = [fmt.model_ids for fmt in formats() if fmt.model_ids is not None]

    def spell(model: str) -> str:
        for ref in spellers:
            spelled = str(load(ref)(model))
            if spelled != model:
                return spelled
        return model

    return spell


def with_model_spellings(settings: JudgeSettings) -> JudgeSettings:
    """``settings`` that read a model id in any format's spelling (kept when they have their own)."""
    return settings if settings.model_ids is not None else replace(settings, model_ids=model_spellings())


async def grade(
    request: GradeRequest,
    settings: JudgeSettings,
    *,
    on_progress: Progress | None = None,
    meter: Meter | None = None,
    doc: Document | None = None,
) -> GradeResult:
    """Carry out ``request``; see the module docstring. ``meter``: where to count tokens, cost, calls
    in flight and back-off as the grading goes (``Grading.meter``; a new one when not given).

    Raises GradingError (the file cannot be graded, litellm is not installed, or the deadline passed) or
    MissingCredentials (no API key; raised before any call). Judge failures are verdicts with
    ``error`` set, never exceptions. ``doc``: the request's text already read (``read``), so a large
    file is not parsed twice.
    """
    doc = doc if doc is not None else read(request.text, request.path)  # a face may have read it already
    if request.kind is RequestKind.REVIEW:  # the criteria themselves, whatever the format (docs/review.md)
        grader = load_grader(REVIEW_GRADER)
        refused = review_refusal(settings)
        if refused is not None:  # before any judge call: a --model ignored would be a review not asked for
            raise GradingError(refused)
    else:
        grader = grader_for(doc)
        settings = as_graded(doc, settings)  # a one-judge format given a panel: the first judge (the faces say so)
    if request.kind is not RequestKind.RESCORE:  # rescoring given verdicts asks no judge
        missing = grade_extra_missing()
        if missing is not None:
            raise GradeExtraMissing(missing)
    grading = Grading(with_model_spellings(settings), on_progress, meter=meter if meter is not None else Meter())
    with activate_meter(grading.meter):  # the runs the grader starts report to it (Run.start)
        return await _within_deadline(grader, doc, request, grading)


async def _within_deadline(grader: Grader, doc: Document, request: GradeRequest, grading: Grading) -> GradeResult:
    return await within_deadline(
        grader(doc, request, grading),
        grading.settings.deadline_seconds,
        lambda: f"{grading.done} of {grading.total} work items done",
    )
