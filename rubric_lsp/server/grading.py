"""Grading inline: commands, progress with cancel, inlay hints, code lenses, hovers.

Grading runs as asyncio tasks on the server's loop (the judge calls are async HTTP), so
every other request keeps answering while criteria are judged; litellm's slow import is
paid once in a background thread right after ``initialized``. The judging itself is the
grading engine's (:mod:`rubric_lsp.grading`); this module only shows its results.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types

from rubric_lsp.document.positions import Position, Range
from rubric_lsp.server.app import SOURCE, RubricServer

log = logging.getLogger(__name__)

GRADE_TEXT = "rubric-lsp.gradeText"
GRADE_DOCUMENT = "rubric-lsp.gradeDocument"
CLEAR_VERDICTS = "rubric-lsp.clearVerdicts"

ICONS = {"MET": "✓", "UNMET": "✗", "CANNOT_ASSESS": "?", "PASS": "✓", "FAIL": "✗", "ERROR": "⚠"}


@dataclass
class Mark:
    """One verdict to show: at the end of ``line`` (code points), with the judge's reason."""

    line: int
    range: Range
    label: str
    tooltip: str


@dataclass
class Lens:
    range: Range
    title: str


@dataclass
class Shown:
    """The last grading of a document, ready to display."""

    marks: list[Mark] = field(default_factory=list)
    lenses: list[Lens] = field(default_factory=list)
    problems: list[tuple[Range, str]] = field(default_factory=list)  # unmet expectations
    result: dict[str, Any] | None = None


def warm_up() -> None:
    """Import the grading engine and litellm off the event loop (several seconds, once)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        from rubric_lsp.grading import warm_up as engine_warm_up

        engine_warm_up()
    except Exception as exc:  # grading will report it when it is asked for
        log.info("grading engine not available yet: %s", exc)


def judge_settings(ls: RubricServer):
    from rubric_lsp.grading import JudgeSettings

    s = ls.settings
    changes: dict[str, Any] = {"model": s.judge_model, "api_base": s.judge_api_base, "cache_enabled": s.cache_enabled}
    if s.judge_concurrency is not None:
        changes["concurrency"] = s.judge_concurrency
    if s.judge_timeout_seconds is not None:
        changes["timeout_seconds"] = s.judge_timeout_seconds
    if s.cannot_assess:
        changes["cannot_assess"] = s.cannot_assess
    return JudgeSettings(**changes)


def _range(data: Any) -> Range | None:
    if not isinstance(data, dict):
        return None
    try:
        start, end = data["start"], data["end"]
        return Range(Position(int(start["line"]), int(start["character"])), Position(int(end["line"]), int(end["character"])))
    except (KeyError, TypeError, ValueError):
        return None


def _label(verdict: dict[str, Any]) -> str:
    name = str(verdict.get("verdict", ""))
    if verdict.get("error"):
        return "⚠ judge error"
    icon = ICONS.get(name)
    if icon is None:  # a multi-choice option label
        return f"◆ {name}"
    return f"{icon} {name}"


def _tooltip(verdict: dict[str, Any], example: str | None = None) -> str:
    head = f"**{verdict.get('name') or 'criterion'}**: {verdict.get('verdict')}"
    if example:
        head = f"*{example}* — " + head
    parts = [head]
    if verdict.get("error"):
        parts.append(f"Judge error: {verdict['error']}" + (f" (counted as {verdict['counted_as']})" if verdict.get("counted_as") else ""))
    if verdict.get("reason"):
        parts.append(str(verdict["reason"]))
    if verdict.get("cached"):
        parts.append("_(from the verdict cache)_")
    return "\n\n".join(parts)


def _score_text(report: dict[str, Any]) -> str:
    score = report.get("score")
    text = "no score" if score is None else f"score {score:.2f}"
    if report.get("error"):
        text += f" ⚠ {report['error']}"
    return text


def shown_for_report(report: dict[str, Any], where: Range) -> Shown:
    shown = Shown(result=report)
    for verdict in report.get("verdicts", []):
        rng = _range(verdict.get("range"))
        if rng is not None:
            shown.marks.append(Mark(rng.start.line, rng, _label(verdict), _tooltip(verdict)))
    passed = report.get("passed")
    suffix = "" if passed is None else (" ✓ passed" if passed else " ✗ failed")
    shown.lenses.append(Lens(where, f"Graded: {_score_text(report)}{suffix}"))
    return shown


def shown_for_examples(results: list[Any], top: Range) -> Shown:
    shown = Shown(result={"examples": []})
    by_line: dict[int, list[tuple[str, dict[str, Any]]]] = {}
    ranges: dict[int, Range] = {}
    for example in results:
        data = _example_json(example)
        shown.result["examples"].append(data)
        report = data.get("report") or {}
        name = data.get("name") or "example"
        for verdict in report.get("verdicts", []):
            rng = _range(verdict.get("range"))
            if rng is not None:
                by_line.setdefault(rng.start.line, []).append((name, verdict))
                ranges.setdefault(rng.start.line, rng)
        where = _range(data.get("range")) or top
        met = data.get("met")
        expect = "" if met is None else (" ✓ as expected" if met else " ✗ expectation not met")
        shown.lenses.append(Lens(where, f"{name}: {_score_text(report)}{expect}"))
        for failure in data.get("failures") or []:
            shown.problems.append((where, f"Example '{name}': {failure}"))
    for line, items in by_line.items():
        if len(items) == 1:
            name, verdict = items[0]
            label = _label(verdict)
        else:
            label = " · ".join(f"{name}: {_label(v)}" for name, v in items)
        tooltip = "\n\n---\n\n".join(_tooltip(v, name) for name, v in items)
        shown.marks.append(Mark(line, ranges[line], label, tooltip))
    return shown


def _example_json(example: Any) -> dict[str, Any]:
    if isinstance(example, dict):
        data = dict(example)
    elif hasattr(example, "to_json"):
        data = example.to_json()
    else:
        data = {key: getattr(example, key, None) for key in ("name", "range", "report", "met", "failures")}
    report = data.get("report")
    if report is not None and not isinstance(report, dict) and hasattr(report, "to_json"):
        data["report"] = report.to_json()
    return data


# -- running a grading -------------------------------------------------------------------
class Grading:
    """One grading under way: progress reporting and cancellation."""

    def __init__(self, ls: RubricServer, title: str) -> None:
        self.ls = ls
        self.title = title
        self.token: str | None = None
        self.task: asyncio.Task | None = None

    async def begin(self) -> None:
        if not self.ls.client_supports("window.work_done_progress"):
            return
        token = f"rubric-grade-{uuid.uuid4().hex[:12]}"
        try:
            await asyncio.wait_for(self.ls.work_done_progress.create_async(token), 5)
        except Exception as exc:
            log.info("client refused a progress token: %s", exc)
            return
        self.token = token
        self.ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=self.title, cancellable=True, percentage=0))
        cancelled = self.ls.work_done_progress.tokens.get(token)
        if cancelled is not None:
            cancelled.add_done_callback(lambda _f: self.cancel())

    def cancel(self) -> None:
        if self.task is not None and not self.task.done():
            log.info("grading cancelled by the client")
            self.task.cancel()

    def progress(self, done: int, total: int) -> None:
        if self.token is None or total <= 0:
            return
        try:
            self.ls.work_done_progress.report(self.token, types.WorkDoneProgressReport(
                message=f"{done}/{total} judged", percentage=int(100 * done / total), cancellable=True))
        except Exception:
            pass

    def end(self, message: str) -> None:
        if self.token is not None:
            self.ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))
            self.ls.work_done_progress.tokens.pop(self.token, None)


async def _run(ls: RubricServer, title: str, work) -> Any:
    grading = Grading(ls, title)
    await grading.begin()
    grading.task = asyncio.ensure_future(work(grading.progress))
    try:
        result = await grading.task
    except asyncio.CancelledError:
        grading.end("Cancelled")
        if grading.task.cancelled():
            return {"cancelled": True}
        raise
    except Exception as exc:
        expected = type(exc).__name__ in ("GradingError", "MissingCredentials")
        if expected:
            log.warning("grading refused: %s", exc)
        else:
            log.exception("grading failed")
        grading.end(f"Failed: {exc}")
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=f"Grading failed: {_error_message(exc)}"))
        return {"error": _error_message(exc)}
    grading.end("Done")
    return result


def _error_message(exc: Exception) -> str:
    return str(exc) or type(exc).__name__


def _uri_arg(args: tuple) -> dict[str, Any]:
    if len(args) != 1 or not isinstance(args[0], dict) or not isinstance(args[0].get("uri"), str):
        raise ValueError('expected one argument {"uri": <rubric document>, ...}')
    return args[0]


def _rubric_text(ls: RubricServer, uri: str) -> str:
    if uri in ls.workspace.text_documents:
        return ls.text_of(uri)[0]
    path = ls.path_of(uri)
    if path is None:
        raise ValueError(f"cannot read {uri}")
    with open(path, encoding="utf-8") as handle:
        return handle.read()


async def grade_text_command(ls: RubricServer, args: dict[str, Any]) -> dict[str, Any]:
    uri = args["uri"]
    response = args.get("text")
    if not isinstance(response, str):
        raise ValueError('"text" (the response to grade) must be a string')
    query = args.get("query") if isinstance(args.get("query"), str) else None
    source = _rubric_text(ls, uri)
    path = ls.path_of(uri)

    async def work(progress):
        from rubric_lsp import grading as engine

        return await engine.grade_text(source, path, response, query, judge_settings(ls), on_progress=progress)

    report = await _run(ls, "Grading response", work)
    if isinstance(report, dict) and (report.get("error") or report.get("cancelled")) and "verdicts" not in report:
        return report
    data = report.to_json() if hasattr(report, "to_json") else report
    top = Range(Position(0, 0), Position(0, 0))
    show(ls, uri, shown_for_report(data, top))
    return data


async def grade_document_command(ls: RubricServer, args: dict[str, Any]) -> dict[str, Any]:
    uri = args["uri"]
    source = _rubric_text(ls, uri)
    path = ls.path_of(uri)

    async def work(progress):
        from rubric_lsp import grading as engine

        return await engine.grade_examples(source, path, judge_settings(ls), on_progress=progress)

    results = await _run(ls, "Grading the rubric's examples", work)
    if isinstance(results, dict):
        return results
    top = Range(Position(0, 0), Position(0, 0))
    shown = shown_for_examples(list(results), top)
    show(ls, uri, shown)
    return shown.result or {}


async def grade_on_save(ls: RubricServer, uri: str) -> None:
    """Re-grade the saved rubric's examples (through the verdict cache) if it has any."""
    try:
        result = await ls.lint(uri)
    except Exception:
        return
    root = result.document.root
    if root is None or not root.is_map or not root.has("examples"):
        return
    await grade_document_command(ls, {"uri": uri})


def show(ls: RubricServer, uri: str, shown: Shown) -> None:
    ls.state(uri).extra["shown"] = shown
    _refresh(ls, uri)


def clear(ls: RubricServer, uri: str | None) -> None:
    for doc_uri, state in list(ls.docs.items()):
        if uri is None or doc_uri == uri:
            state.extra.pop("shown", None)
            _refresh(ls, doc_uri)


def _refresh(ls: RubricServer, uri: str) -> None:
    state = ls.state(uri)
    shown: Shown | None = state.extra.get("shown")
    state.extra["grading_diagnostics"] = _problems(ls, uri, shown)
    for capability, refresh in (("workspace.inlay_hint.refresh_support", ls.workspace_inlay_hint_refresh),
                                ("workspace.code_lens.refresh_support", ls.workspace_code_lens_refresh)):
        if ls.client_supports(capability):
            try:
                refresh(None)
            except Exception:
                log.debug("refresh failed", exc_info=True)
    from rubric_lsp.server import diagnostics

    if ls.pull_diagnostics:
        if ls.client_supports("workspace.diagnostics.refresh_support"):
            ls.workspace_diagnostic_refresh(None)
    elif uri in ls.workspace.text_documents:
        diagnostics.schedule(ls, uri, 0)


def _problems(ls: RubricServer, uri: str, shown: Shown | None) -> list[types.Diagnostic]:
    if shown is None or not shown.problems:
        return []
    state = ls.state(uri)
    result = state.result
    from rubric_lsp.document.positions import LineIndex
    from rubric_lsp.server.positions import Converter

    lines = result.document.lines if result is not None else LineIndex(ls.text_of(uri)[0] if uri in ls.workspace.text_documents else "")
    convert = Converter(lines, ls.encoding)
    return [types.Diagnostic(range=convert.range(rng), message=message, severity=types.DiagnosticSeverity.Information,
                             source=SOURCE, code="grading") for rng, message in shown.problems]


# -- display ---------------------------------------------------------------------------
def verdict_hover(ls: RubricServer, uri: str, offset: int) -> str | None:
    state = ls.docs.get(uri)
    shown: Shown | None = state.extra.get("shown") if state else None
    if shown is None or state.result is None:
        return None
    pos = state.result.document.lines.position(offset)
    texts = [m.tooltip for m in shown.marks if m.range.start.line <= pos.line <= max(m.range.end.line, m.range.start.line)]
    return "\n\n---\n\n".join(texts) or None


def inlay_hints(ls: RubricServer, uri: str, visible: types.Range) -> list[types.InlayHint]:
    state = ls.docs.get(uri)
    shown: Shown | None = state.extra.get("shown") if state else None
    if shown is None or state.result is None:
        return []
    lines = state.result.document.lines
    from rubric_lsp.server.positions import Converter

    convert = Converter(lines, ls.encoding)
    hints = []
    for mark in shown.marks:
        if mark.line >= lines.line_count or not (visible.start.line <= mark.line <= visible.end.line):
            continue
        end = Position(mark.line, len(lines.line_text(mark.line)))
        hints.append(types.InlayHint(
            position=convert.position(end), label=mark.label, padding_left=True,
            tooltip=types.MarkupContent(kind=types.MarkupKind.Markdown, value=mark.tooltip)))
    return hints


def code_lenses(ls: RubricServer, uri: str) -> list[types.CodeLens]:
    state = ls.docs.get(uri)
    shown: Shown | None = state.extra.get("shown") if state else None
    if shown is None or state.result is None:
        return []
    from rubric_lsp.server.positions import Converter

    convert = Converter(state.result.document.lines, ls.encoding)
    return [types.CodeLens(range=convert.range(Range(lens.range.start, lens.range.start)),
                           command=types.Command(title=lens.title, command=""))
            for lens in shown.lenses]


def register(ls: RubricServer) -> None:
    @ls.command(GRADE_TEXT)
    async def grade_text(ls: RubricServer, *args):
        return await grade_text_command(ls, _uri_arg(args))

    @ls.command(GRADE_DOCUMENT)
    async def grade_document(ls: RubricServer, *args):
        return await grade_document_command(ls, _uri_arg(args))

    @ls.command(CLEAR_VERDICTS)
    def clear_verdicts(ls: RubricServer, *args):
        uri = args[0].get("uri") if args and isinstance(args[0], dict) else None
        clear(ls, uri)
        return {"cleared": True}

    @ls.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    async def inlay_hint(ls: RubricServer, params: types.InlayHintParams):
        uri = params.text_document.uri
        if uri in ls.workspace.text_documents:
            await ls.lint(uri)
        return inlay_hints(ls, uri, params.range)

    @ls.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    async def code_lens(ls: RubricServer, params: types.CodeLensParams):
        uri = params.text_document.uri
        if uri in ls.workspace.text_documents:
            await ls.lint(uri)
        return code_lenses(ls, uri)
