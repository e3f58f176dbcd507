"""Running one grading for the editor: progress "n/N criteria", cancel, the engine's warm-up, errors in editor wording.

The commands (:mod:`rubric_lsp.server.grading`) hand their work here; the grading itself is the
engine's (:mod:`rubric_lsp.engine`). Logs go to the client's log (window/logMessage).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import uuid
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from rubric_lsp.engine import JudgeSettings
from rubric_lsp.engine import warm_up as engine_warm_up
from rubric_lsp.engine.settings import MissingCredentials
from rubric_lsp.engine.transports.direct import needs_litellm
from rubric_lsp.server.app import COMMAND_TICKET, COMMAND_TOKEN, RubricServer
from rubric_lsp.server.verdicts import clear

log = logging.getLogger(__name__)

REQUEST_FAILED = -32803  # LSP RequestFailed: the request was valid, and failed

warm_started = False  # set once the background import has been started
engine_ready = threading.Event()  # set once the grading engine (litellm) is imported
_warm_lock = threading.Lock()


def warm_up() -> None:
    """Import the grading engine and litellm off the event loop (several seconds, once)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        engine_warm_up()
    except Exception as exc:
        log.info("grading engine not available yet: %s", exc)
    finally:
        engine_ready.set()  # a failed import is reported by the grading that needs it


def start_warm_up() -> None:
    """Start the background import once (the server's start, or the first grading, whichever comes first)."""
    global warm_started
    with _warm_lock:
        if warm_started:
            return
        warm_started = True
    threading.Thread(target=warm_up, name="rubric-warm-up", daemon=True).start()


def judge_settings(ls: RubricServer):
    s = ls.settings
    # judge.model then judge.models, each once: the first is the judge (the engine's default when none).
    given = list(dict.fromkeys(([s.judge_model] if s.judge_model else []) + list(s.judge_models)))
    changes: dict[str, Any] = {
        "model": given[0] if given else None,
        "models": given[1:],
        "api_base": s.judge_api_base,
        "cache_enabled": s.cache_enabled,
    }
    if s.judge_concurrency is not None:
        changes["concurrency"] = s.judge_concurrency
    if s.judge_timeout_seconds is not None:
        changes["timeout_seconds"] = s.judge_timeout_seconds
    if s.judge_deadline_seconds is not None:
        changes["deadline_seconds"] = s.judge_deadline_seconds
    return JudgeSettings(**changes)


# -- running a grading -------------------------------------------------------------------
class Grading:
    """One grading under way: progress "n/N criteria" on the client's token (or one of ours), cancellation."""

    def __init__(self, ls: RubricServer, title: str, uri: str) -> None:
        self.ls = ls
        self.title = title
        self.uri = uri
        self.token: Any = None
        self.task: asyncio.Task | None = None
        self.done = 0
        self.total = 0
        self.cancelled = False

    async def begin(self) -> None:
        token = COMMAND_TOKEN.get()
        if token is None:
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
            self.cancelled = True
            self.task.cancel()

    def report(self, message: str, percentage: int | None = None) -> None:
        if self.token is None:
            return
        try:
            self.ls.work_done_progress.report(
                self.token, types.WorkDoneProgressReport(message=message, percentage=percentage, cancellable=True)
            )
        except Exception:  # noqa: S110 - a progress report the client refuses must not stop the grading
            pass

    def progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        if total > 0:
            self.report(f"{done}/{total} criteria", int(100 * done / total))

    def end(self, message: str) -> None:
        if self.token is not None:
            self.ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))
            self.ls.work_done_progress.tokens.pop(self.token, None)


async def _engine_ready(grading: Grading) -> None:
    """Wait for the background import of the grading engine, saying so (it takes seconds once), where the
    editor's judges need it."""
    if engine_ready.is_set() or not needs_litellm(judge_settings(grading.ls)):
        return
    grading.report("loading the grading engine…")
    start_warm_up()
    await asyncio.get_running_loop().run_in_executor(None, engine_ready.wait, 120)


async def run(ls: RubricServer, title: str, uri: str, work) -> Any:
    grading = Grading(ls, title, uri)
    await grading.begin()

    async def whole() -> Any:
        await _engine_ready(grading)
        return await work(grading.progress)

    ticket = COMMAND_TICKET.get()
    if ticket is not None:
        ls.pending.discard(ticket)  # from here on, cancelGrading finds it in ls.gradings
        if ticket.cancelled:  # a cancelGrading came after the request, before the grading began
            grading.end("Cancelled")
            return _cancelled(ls, grading)
    grading.task = asyncio.ensure_future(whole())
    ls.gradings.add(grading)
    try:
        result = await grading.task
    except asyncio.CancelledError:
        grading.end("Cancelled")
        if grading.task.cancelled():
            return _cancelled(ls, grading)
        raise
    except Exception as exc:
        return _failed(ls, grading, exc)
    finally:
        ls.gradings.discard(grading)
    grading.end("Done")
    return result


def _cancelled(ls: RubricServer, grading: Grading) -> dict[str, Any]:
    """After a cancel: say how far it got, and clear the document's stale verdicts."""
    done = f" ({grading.done}/{grading.total} done)" if grading.total else ""
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=f"Grading cancelled{done}"))
    clear(ls, grading.uri)
    return {"cancelled": True, "done": grading.done, "total": grading.total}


def _failed(ls: RubricServer, grading: Grading, exc: Exception) -> dict[str, Any]:
    from rubric_lsp.engine.runner import GradingError

    if isinstance(exc, MissingCredentials):
        log.warning("grading refused: %s", exc)
        grading.end("No judge")
        raise credentials_error(exc) from None
    if isinstance(exc, GradingError):
        log.warning("grading refused: %s", exc)
    else:
        log.exception("grading failed")
    grading.end(f"Failed: {exc}")
    ls.window_show_message(
        types.ShowMessageParams(type=types.MessageType.Error, message=f"Grading failed: {_error_message(exc)}")
    )
    return {"error": _error_message(exc)}


def credentials_error(exc: Any) -> JsonRpcException:
    """No key / no model, in editor wording, with structured ``data`` the extension turns into buttons."""
    kind = getattr(exc, "kind", "no-model")
    model = getattr(exc, "model", None)
    variables = " or ".join(getattr(exc, "variables", ()) or ()) or "its API key"
    if kind == "no-key" and model:
        message = (
            f"The judge model '{model}' needs an API key: set {variables} in the environment the editor starts "
            "rubric-lsp in, or set rubric.judge.apiBase to an OpenAI-compatible server."
        )
    else:
        kind = "no-model"
        message = (
            "No judge model is set: set rubric.judge.model (e.g. openai/gpt-4.1-mini) in the editor settings, "
            "and that provider's API key in the environment the editor starts rubric-lsp in."
        )
    data: dict[str, Any] = {"kind": kind, "message": message}
    if model:
        data["model"] = model
    return JsonRpcException(message=message, code=REQUEST_FAILED, data=data)


def _error_message(exc: Exception) -> str:
    return str(exc) or type(exc).__name__
