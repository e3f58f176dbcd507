"""Grading inline: the commands, work-done progress with cancel, grade-on-save.

Grading runs as asyncio tasks on the server's loop (the judge calls are async HTTP), so
every other request keeps answering while criteria are judged; litellm's slow import is
paid once in a background thread when the editor is quiet. The judging is the grading
engine's (:mod:`rubric_lsp.grading`); :mod:`rubric_lsp.server.verdicts` shows the results.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from typing import Any

from lsprotocol import types

from rubric_lsp.document.positions import Position, Range
from rubric_lsp.server.app import RubricServer
from rubric_lsp.server.verdicts import clear, code_lenses, inlay_hints, show, shown_for_examples, shown_for_report

log = logging.getLogger(__name__)

GRADE_TEXT = "rubric-lsp.gradeText"
GRADE_DOCUMENT = "rubric-lsp.gradeDocument"
CLEAR_VERDICTS = "rubric-lsp.clearVerdicts"

warm_started = False  # set once the background import has been started


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
        self.ls.work_done_progress.begin(
            token, types.WorkDoneProgressBegin(title=self.title, cancellable=True, percentage=0)
        )
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
            self.ls.work_done_progress.report(
                self.token,
                types.WorkDoneProgressReport(
                    message=f"{done}/{total} judged", percentage=int(100 * done / total), cancellable=True
                ),
            )
        except Exception:  # noqa: S110 - a lost progress report must not fail the grading
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
        ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Error, message=f"Grading failed: {_error_message(exc)}")
        )
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
    # promptfoo configs: "test" is the 1-based test number, as in `rubric grade --test N`.
    test = args.get("test")
    test_index = test - 1 if isinstance(test, int) and not isinstance(test, bool) and test >= 1 else None
    source = _rubric_text(ls, uri)
    path = ls.path_of(uri)

    async def work(progress):
        from rubric_lsp import grading as engine

        return await engine.grade_text(
            source, path, response, query, judge_settings(ls), test_index=test_index, on_progress=progress
        )

    report = await _run(ls, "Grading response", work)
    if isinstance(report, dict) and (report.get("error") or report.get("cancelled")) and "verdicts" not in report:
        return report
    data = report.to_json() if hasattr(report, "to_json") else report
    top = Range(Position(0, 0), Position(0, 0))
    show(ls, uri, shown_for_report(data, top), source)
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
    show(ls, uri, shown, source)
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
