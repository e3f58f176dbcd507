"""The lint pipeline: text → document → format → checkers → diagnostics.

This is the one entry point the CLI and the language server share. It never imports
the grading engine (litellm) and never raises on bad input.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rubric_lsp.diagnostics import Diagnostic, Severity
from rubric_lsp.document import Document, Limits, gc_paused, parse_document
from rubric_lsp.document.files import TooLarge, read_regular
from rubric_lsp.document.limits import DEFAULT_LIMITS
from rubric_lsp.document.positions import Span
from rubric_lsp.formats.registry import Format, checkers_for, detect
from rubric_lsp.rules.any_file import INTERNAL_ERROR, UNREADABLE_FILE  # loaded by every lint's checkers anyway
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import registered_rule
from rubric_lsp.runtime.log import logger
from rubric_lsp.settings import SMELLS, Settings, configured_kind
from rubric_lsp.suppression import suppressions
from rubric_lsp.workspace import default_root

if TYPE_CHECKING:
    from rubric_lsp.document.positions import Span


@dataclass
class LintResult:
    path: str | None
    document: Document
    format: Format | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    dependencies: set[str] = field(default_factory=set)
    # What the checkers computed once per document (CheckContext.cache), the format's view among them.
    shared: dict[str, Any] = field(default_factory=dict)

    @property
    def skipped(self) -> bool:
        return self.format is None and not self.diagnostics

    @property
    def view(self) -> Any:
        """The format's view of the document: the one the checkers built, else built now (once).

        Every face (hover, outline, completion, grading, convert) reads this instead of
        building its own. None when the format has no view or the document has no root.
        """
        fmt = self.format
        if fmt is None or fmt.view_key is None:
            return None
        if fmt.view_key not in self.shared:
            self.shared[fmt.view_key] = fmt.build_view(self.document)
        return self.shared[fmt.view_key]


def lint_text(
    source: str | bytes,
    path: str | None = None,
    *,
    settings: Settings | None = None,
    kind: str | None = None,
    explicit: bool = True,
    root_dir: Path | None = None,
    smells: bool = False,
    defer_smells: bool = False,
    previous: Document | None = None,
    document: Document | None = None,
) -> LintResult:
    """Lint one document.

    ``explicit`` is False for files found by walking a folder or opened in an editor
    without being recognised: those are skipped silently unless their kind is known,
    so unrelated YAML (CI workflows, manifests) is never reported on.
    ``root_dir`` is the workspace (the editor's folder); None: the file's repository, else
    the settings' folder, else the current directory (:mod:`rubric_lsp.workspace`).
    ``smells`` (the editor) runs the smell rules on by default (docs/smells.md); elsewhere they run only
    when the settings select them. ``defer_smells`` runs none of them here, whatever the settings: the caller
    runs them after, with :func:`smell_pass` (the server publishes the other findings first).
    ``previous``: the same file's last reading (the server's last lint of it): when the text differs from it
    inside one scalar value, only that value is read again (``document/incremental.py``).
    ``document``: ``source`` already read (a grader's document): linted as it is, not read again.
    """
    with gc_paused():  # see gc_paused: the collector's passes over fresh nodes cost more than the checks
        return _lint_text(source, path, settings, kind, explicit, root_dir, smells, defer_smells, previous, document)


def _lint_text(
    source: str | bytes,
    path: str | None,
    settings: Settings | None,
    kind: str | None,
    explicit: bool,
    root_dir: Path | None,
    smells: bool = False,
    defer_smells: bool = False,
    previous: Document | None = None,
    doc: Document | None = None,
) -> LintResult:
    settings = settings or Settings()
    limits = DEFAULT_LIMITS if settings.max_file_size is None else Limits(max_bytes=settings.max_file_size)
    if doc is None and previous is not None and isinstance(source, str):
        from rubric_lsp.document.incremental import read_edit  # the server's path: the CLI reads each file once

        doc = read_edit(previous, source, path, limits)
    if doc is None:
        doc = parse_document(source, path, limits=limits)
    # The settings' `kinds` globs come before detection: a folder of rubrics with any names is linted.
    fmt = detect(doc, kind or settings.kind_for(path))
    if fmt is None and not (explicit and not doc.readable):
        return LintResult(path, doc, None)
    enabled: dict[str, bool] = {}  # checkers ask per node; the answer is per code

    reads_smells = (
        not defer_smells and fmt is not None and fmt.criteria is not None and (smells or settings.names_smells())
    )

    def is_enabled(code: str) -> bool:
        answer = enabled.get(code)
        if answer is None:
            answer = settings.is_enabled(code, path)
            if answer and code.startswith(SMELLS):
                answer = reads_smells and _smell_enabled(code, settings, smells)
            enabled[code] = answer
        return answer

    ctx = CheckContext(
        document=doc,
        format_name=fmt.name if fmt else None,
        root_dir=root_dir or default_root(path, settings.root),
        loader=fmt.loader if fmt else None,
        is_enabled=is_enabled,
        versions=dict(settings.versions),
        extra_keys=dict(settings.extra_keys),
        calibration=settings.calibration,
    )
    if fmt is not None and fmt.calibration is not None:
        ctx.calibration_units = _units_of(fmt, doc, ctx)
        ctx.calibration_labelled = labelled_reader(doc)
    checks = checkers_for(fmt.name if fmt else None)
    if reads_smells and fmt is not None:
        ctx.criteria = _criteria_of(fmt, doc, ctx)
        checks = checks + _smell_checkers()
    _run(checks, ctx)
    out = _deferred(_finish(ctx, settings))
    return LintResult(path, doc, fmt, out, ctx.dependencies, ctx.cache)


def _run(checks: list[Any], ctx: CheckContext) -> None:
    doc = ctx.document
    for check in checks:
        if not doc.readable and getattr(check, "needs_nodes", True):
            continue
        try:
            check(ctx)
        except KeyboardInterrupt:
            raise
        except BaseException:  # a checker bug (a plugin's sys.exit too) must not hide the other findings
            logger(__name__).exception("checker %s failed on %s", getattr(check, "__name__", check), doc.path)
            ctx.report(
                INTERNAL_ERROR,
                doc.lines.single_line_span(0) if doc.text else _empty(),
                f"Internal error in check '{getattr(check, '__name__', check)}'; please report it. "
                "Other checks still ran.",
            )


def _finish(ctx: CheckContext, settings: Settings) -> list[Diagnostic]:
    """The findings reported, less the suppressed and the repeated, at the settings' severities, in order."""
    suppress = suppressions(ctx.document)
    out: list[Diagnostic] = []
    seen: set[tuple[str, int, int, str]] = set()
    for diag in ctx.diagnostics:
        if suppress.suppressed(diag):
            continue
        key = (diag.code, diag.span.start, diag.span.end, diag.message)
        if key in seen:
            continue
        seen.add(key)
        severity = settings.severity_for(diag.code, diag.severity)
        out.append(replace(diag, severity=severity) if severity != diag.severity else diag)
    out.sort(key=Diagnostic.sort_key)
    return out


def _deferred(found: list[Diagnostic]) -> list[Diagnostic]:
    """``found`` less the findings whose rule defers to an overlapping finding of another (``Rule.defers_to``)."""
    codes = {d.code for d in found}
    if not any((r := registered_rule(c)) is not None and set(r.defers_to) & codes for c in codes):
        return found

    def superseded(diag: Diagnostic) -> bool:
        rule = registered_rule(diag.code)
        return rule is not None and any(
            other.code in rule.defers_to and other.span.start < diag.span.end and diag.span.start < other.span.end
            for other in found
        )

    return [d for d in found if not superseded(d)]


def smell_pass(result: LintResult, settings: Settings | None = None, *, editor: bool = True) -> LintResult:
    """``result`` (a lint with ``defer_smells``) with the smell rules' findings added: they read the document and
    the view the lint built. ``editor``: every smell rule on by default runs, as ``lint_text(smells=True)``.
    ``result`` itself when no smell rule applies."""
    settings = settings or Settings()
    fmt, doc = result.format, result.document
    if fmt is None or fmt.criteria is None or not doc.readable or not (editor or settings.names_smells()):
        return result
    path = result.path

    def is_enabled(code: str) -> bool:
        return code.startswith(SMELLS) and settings.is_enabled(code, path) and _smell_enabled(code, settings, editor)

    with gc_paused():
        ctx = CheckContext(document=doc, format_name=fmt.name, root_dir=None, is_enabled=is_enabled)
        ctx.cache = result.shared  # the view the lint built, and what the smells find, shared with the faces
        ctx.criteria = _criteria_of(fmt, doc, ctx)
        _run(_smell_checkers(), ctx)
        found = _finish(ctx, settings)
    if not found:
        return result
    merged = _deferred(sorted(result.diagnostics + found, key=Diagnostic.sort_key))
    return replace(result, diagnostics=merged)


def _units_of(fmt: Format, doc: Document, ctx: CheckContext) -> Any:
    """The file's calibration units, read when the calibration rule asks (over the view the checkers built)."""

    cache = ctx.cache  # not ctx: a closure held by ctx that held ctx would make every document cyclic garbage

    def units() -> list[Any]:
        hook = fmt.calibration_hook()
        if hook is None:
            return []
        return hook.document_units(doc, _view_in(cache, fmt, doc))

    return units


def labelled_reader(doc: Document | None = None) -> Callable[[Path], Any]:
    """What a calibration record's labelled set holds now (``gate.LabelledNow``), for RL020 and ``rubric grade
    --require-calibrated``: ``doc`` itself when the record is its own, else the file read (a labels file, or a
    file whose format's calibration hook says its ``labelled`` items), or one line saying why it cannot be."""
    named = doc is not None and doc.path and doc.path != "-"

    def read(path: Path) -> Any:
        try:
            resolved = path.resolve()
            # (resolved here, when a record is read: most lints read none)
            if named and doc is not None and resolved == Path(str(doc.path)).resolve():
                return _labelled_in(doc)
            info = resolved.stat()
        except OSError as exc:
            return exc.strerror or str(exc)
        return _labelled_at(resolved, info.st_mtime_ns, info.st_size)

    return read


@functools.lru_cache(maxsize=32)
def _labelled_at(path: Path, _mtime: int, _size: int) -> Any:
    # Only when a record names its labelled file: a lint with no record never loads labels or evidence.
    from rubric_lsp.calibration import evidence, labels

    if labels.is_labels_file(path):
        try:
            return evidence.labels_now(labels.stream_labels(path))  # a row at a time: a million need not be held
        except labels.LabelsError as exc:
            return str(exc)
    try:
        data = read_regular(path, DEFAULT_LIMITS.max_bytes)
    except TooLarge:
        return f"larger than {DEFAULT_LIMITS.max_bytes // (1024 * 1024)} MiB"
    except OSError as exc:
        return exc.strerror or str(exc)
    return _labelled_in(parse_document(data, str(path)))


def _labelled_in(doc: Document) -> Any:
    fmt = detect(doc, configured_kind(doc.path)) if doc.root is not None else None
    hook = None if fmt is None else fmt.calibration_hook()
    labelled = getattr(hook, "labelled", None)
    if labelled is None:
        return "its format says nothing of its labels"
    try:
        return labelled(doc)
    except Exception:  # a format's hook bug must not hide the other findings
        logger(__name__).exception("the calibration hook's labelled failed on %s", doc.path)
        return "its labels cannot be read"


def _criteria_of(fmt: Format, doc: Document, ctx: CheckContext) -> Any:
    """The file's criterion texts, read when a smell rule asks (over the view the checkers built)."""

    cache = ctx.cache  # (see _units_of)

    def criteria() -> list[Any]:
        return fmt.criteria_of(doc, _view_in(cache, fmt, doc))

    return criteria


def _view_in(cache: dict[str, Any], fmt: Format, doc: Document) -> Any:
    """The format's view, from the checkers' shared cache (built there once, as ``CheckContext.view`` does)."""
    key = fmt.view_key
    if key is None:
        return None
    if key not in cache:
        cache[key] = fmt.build_view(doc) if doc.root is not None else None
    return cache[key]


def _smell_checkers() -> list[Any]:
    """The smell rules' checker (imported here, on first use: the default lint path never loads it)."""
    return list(importlib.import_module("rubric_lsp.rules.smells.rules").SMELL_CHECKERS)


def _smell_enabled(code: str, settings: Settings, editor: bool) -> bool:
    """A smell rule runs when the settings name it (an opt-in one: by its code), or in the editor when on by default."""
    found = registered_rule(code)
    if found is not None and found.opt_in:
        return settings.names(code, exactly=True)
    return editor or settings.names(code)


def _empty() -> Span:
    return Span(0, 0)


def unreadable(path: Path | str, reason: str, settings: Settings | None = None) -> LintResult:
    """The lint of a file that could not be read: one RL008 finding naming why (the rest of a run goes on)."""
    settings = settings or Settings()
    document = parse_document("", str(path))
    if not settings.is_enabled(UNREADABLE_FILE.code, str(path)):
        return LintResult(str(path), document, None, [])
    severity = settings.severity_for(UNREADABLE_FILE.code, UNREADABLE_FILE.severity)
    span = Span(0, 0)
    found = Diagnostic(UNREADABLE_FILE.code, severity, reason, span, document.lines.range(span), str(path))
    return LintResult(str(path), document, None, [found])


def lint_path(
    path: Path,
    *,
    settings: Settings | None = None,
    kind: str | None = None,
    explicit: bool = True,
    root_dir: Path | None = None,
) -> LintResult:
    settings = settings or Settings()
    limit = settings.max_file_size or DEFAULT_LIMITS.max_bytes

    try:  # OSError (UnreadableFile among them) propagates: the caller reports unreadable paths
        data: bytes = read_regular(path, limit)
    except TooLarge:
        data = _Oversize(path.stat().st_size)  # never read; decode() refuses it by its length alone
    return lint_text(data, str(path), settings=settings, kind=kind, explicit=explicit, root_dir=root_dir)


class _Oversize(bytes):
    """Stands for a file's bytes without holding them: only its length is used."""

    size: int

    def __new__(cls, size: int) -> _Oversize:
        obj = super().__new__(cls, b"")
        obj.size = size
        return obj

    def __len__(self) -> int:
        return self.size


def fail_count(diagnostics: list[Diagnostic], level: Severity) -> int:
    return sum(1 for d in diagnostics if d.severity <= level)
