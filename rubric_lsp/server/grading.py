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
from rubric_lsp.server import report
from rubric_lsp.server.app import RubricServer
from rubric_lsp.server.verdicts import clear, code_lenses, inlay_hints, show, shown_for_examples, shown_for_report

log = logging.getLogger(__name__)

GRADE = "rubric-lsp.grade"
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
    except Exception as exc:
        log.info("grading engine not available yet: %s", exc)


def judge_settings(ls: RubricServer):
    from rubric_lsp.grading import JudgeSettings

    s = ls.settings
    changes: dict[str, Any] = {"model": s.judge_model, "api_base": s.judge_api_base, "cache_enabled": s.cache_enabled}
    if s.judge_concurrency is not None:
        changes["concurrency"] = s.judge_concurrency
    if s.judge_timeout_seconds is not None:
        changes["timeout_seconds"] = s.judge_timeout_seconds
    if s.judge_deadline_seconds is not None:
        changes["deadline_seconds"] = s.judge_deadline_seconds
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
        except Exception:  # noqa: S110 - a progress report the client refuses must not stop the grading
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
        from rubric_lsp.grading.runner import GradingError
        from rubric_lsp.grading.settings import MissingCredentials

        expected = isinstance(exc, (GradingError, MissingCredentials))
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


def _test_index(args: dict[str, Any]) -> int | None:
    # "test" is the 1-based test number, as in `rubric grade --test N`.
    test = args.get("test")
    return test - 1 if isinstance(test, int) and not isinstance(test, bool) and test >= 1 else None


def _request(ls: RubricServer, args: dict[str, Any]) -> Any:
    """The GradeRequest a command's arguments describe (``gradeText``, ``gradeDocument`` and ``grade`` alike).

    ``kind``: response (``text``) | outputs (``texts``: several outputs) | examples | dataset
    (``limit``) | rescore (``verdicts``); default: response when ``text`` is given, else examples.
    """
    from rubric_lsp.grading.request import GradeRequest, RequestKind

    uri = args["uri"]
    default = "response" if "text" in args else ("outputs" if "texts" in args else "examples")
    try:
        kind = RequestKind(args.get("kind") or default)
    except ValueError:
        raise ValueError(f'"kind" must be one of {", ".join(k.value for k in RequestKind)}') from None
    verdicts = args.get("verdicts")
    if kind is RequestKind.RESCORE and not isinstance(verdicts, list):
        raise ValueError('"verdicts" (one per criterion) must be a list')
    query, limit = args.get("query"), args.get("limit")
    return GradeRequest(
        _rubric_text(ls, uri),
        ls.path_of(uri),
        kind,
        _responses(kind.value, args),
        query if isinstance(query, str) else None,
        _test_index(args),
        limit if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0 else None,
        tuple(verdicts) if isinstance(verdicts, list) else (),
    )


def _responses(kind: str, args: dict[str, Any]) -> tuple[str, ...]:
    if kind == "response":
        text = args.get("text")
        if not isinstance(text, str):
            raise ValueError('"text" (the response to grade) must be a string')
        return (text,)
    if kind == "outputs":
        texts = args.get("texts")
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise ValueError('"texts" (the outputs to compare) must be a list of strings')
        return tuple(texts)
    return ()


async def grade_command(ls: RubricServer, args: dict[str, Any]) -> Any:
    """Any grading request (see ``_request``); verdicts of a response or of examples are shown inline."""
    from rubric_lsp.grading.request import RequestKind

    try:
        request = _request(ls, args)
    except ValueError as exc:  # the argument's shape is the client's mistake: -32602, one line
        from rubric_lsp.server.arguments import invalid

        raise invalid(f"rubric-lsp.grade: {exc}") from None
    titles = {
        RequestKind.RESPONSE: "Grading response",
        RequestKind.OUTPUTS: "Comparing outputs",
        RequestKind.EXAMPLES: "Grading the rubric's examples",
        RequestKind.DATASET: "Measuring the judge on the dataset",
    }

    async def work(progress: Any) -> Any:
        from rubric_lsp.grading.runner import UnsupportedRequest, grade

        try:
            return await grade(request, judge_settings(ls), on_progress=progress)
        except UnsupportedRequest:
            if request.kind is RequestKind.EXAMPLES:  # a file with no examples: nothing to grade, nothing shown
                return None
            raise

    result = await _run(ls, titles.get(request.kind, "Grading"), work)
    if isinstance(result, dict):  # error or cancelled
        return result
    report.remember(ls, args["uri"], request, result)  # for rubric-lsp.report
    top = Range(Position(0, 0), Position(0, 0))
    if request.kind is RequestKind.EXAMPLES:
        examples = getattr(result, "examples", None)
        if result is None or examples is not None:
            shown = shown_for_examples(list(examples or []), top)
            show(ls, args["uri"], shown, request.text)
            return shown.result or {}
    data = result.to_json()
    if request.kind is RequestKind.RESPONSE:
        show(ls, args["uri"], shown_for_report(data, top), request.text)
    return data


async def grade_text_command(ls: RubricServer, args: dict[str, Any]) -> Any:
    return await grade_command(ls, {**args, "kind": "response"})


async def grade_document_command(ls: RubricServer, args: dict[str, Any]) -> Any:
    return await grade_command(ls, {**args, "kind": "examples"})


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
    @ls.command(GRADE)
    async def grade_request(ls: RubricServer, *args):
        return await grade_command(ls, _uri_arg(args))

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
