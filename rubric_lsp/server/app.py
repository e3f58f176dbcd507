"""The server object: open documents, their latest lint results, settings, logging.

Linting runs on one worker thread of our own (never pygls' pool, which also reads
stdin), so a slow lint of a large file never stalls the protocol; grading runs as
asyncio tasks (see :mod:`rubric_lsp.server.grading`).
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.uris import to_fs_path

from rubric_lsp import __version__
from rubric_lsp.document import Document
from rubric_lsp.lint import LintResult, lint_text, smell_pass
from rubric_lsp.redaction import RedactingFilter
from rubric_lsp.runtime import gc as collector
from rubric_lsp.server.positions import Converter
from rubric_lsp.server.settings import SECTION, ServerSettings, grade_option_declarations
from rubric_lsp.settings import Settings
from rubric_lsp.workspace import default_root

log = logging.getLogger("rubric_lsp.server")

SOURCE = "rubric-lint"

# The workDoneToken of the workspace/executeCommand request a command handler runs for (None: none given).
COMMAND_TOKEN: contextvars.ContextVar[Any] = contextvars.ContextVar("rubric_command_token", default=None)
# The command request's ticket (see RubricServer.pending): a grading it starts is cancelled when a
# cancelGrading arrived after the request and before the grading began.
COMMAND_TICKET: contextvars.ContextVar[Any] = contextvars.ContextVar("rubric_command_ticket", default=None)


# The commands that start a grading (server/grading.py and server/calibrate.py register them).
STARTS_GRADING = frozenset(
    f"rubric-lsp.{name}"
    for name in ("grade", "gradeText", "gradeDocument", "gradeSelection", "gradeExamples", "calibrate", "review")
)


class Ticket:
    """One command request, from its dispatch (in the order requests arrive) to its answer."""

    cancelled = False


# Requests and notifications that make their document "the one the client last touched" (commands without a uri).
TOUCHING = frozenset(
    {
        types.TEXT_DOCUMENT_DID_OPEN,
        types.TEXT_DOCUMENT_DID_CHANGE,
        types.TEXT_DOCUMENT_DID_SAVE,
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.TEXT_DOCUMENT_CODE_LENS,
        types.TEXT_DOCUMENT_HOVER,
        types.TEXT_DOCUMENT_INLAY_HINT,
    }
)


@dataclass
class DocState:
    """What the server knows about one open document."""

    uri: str
    version: int = 0
    result: LintResult | None = None  # the lint of ``result_version``
    result_version: tuple[int, int] | None = None  # (document version, settings generation)
    pending: asyncio.Future[LintResult] | None = None  # a lint of ``pending_version`` under way
    pending_version: tuple[int, int] | None = None
    # The lint with the smell rules' findings added (``RubricServer.lint_with_smells``): of which lint, and the
    # pass under way. Published after the lint's own findings, never before them.
    smelled: tuple[LintResult, LintResult] | None = None
    smelling: tuple[LintResult, asyncio.Future[LintResult | None]] | None = None
    push_task: asyncio.Task | None = None
    smell_task: asyncio.Task | None = None
    published_version: int | None = None
    result_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class _Ignored:
    """Stands for a message that was already answered with an error (see RubricProtocol)."""

    jsonrpc = "ignored"


class RubricProtocol(LanguageServerProtocol):
    """Answers requests whose parameters do not fit the spec instead of dropping them.

    pygls logs a request it cannot deserialize and never replies, which leaves the client
    waiting. Here a code-action request keeps going without the malformed context
    diagnostics it does not need, and any other such request gets an InvalidParams error.
    """

    def _execute_handler(self, msg_id: Any, handler: Any, callback: Any, args: Any = None, kwargs: Any = None):
        # pygls 2.1.1 files every notification's future under a fresh uuid in _request_futures and
        # never removes it (only request replies pop theirs): ~1.5-3.5 KB per didChange, kept for
        # the life of the process (docs/upstream/pygls-memory.md). Drop it once it is done.
        if callback == self._check_handler_result:
            check = callback

            def done(future: Any) -> None:
                # A cancelled one is left: pygls cancels the pending ones as it shuts down, walking this dict, and
                # the future of a builtin handler (a concurrent.futures one) runs this inside cancel(), in that walk.
                if not future.cancelled():
                    self._request_futures.pop(msg_id, None)
                check(future)

            callback = done
        return super()._execute_handler(msg_id, handler, callback, args, kwargs)

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        # A handler that raises a JSON-RPC error on purpose (InvalidParams for wrong arguments, RequestFailed
        # for no judge key) answers with it; pygls would also log a traceback as an error for each.
        exc = None if future.cancelled() else future.exception()
        if isinstance(exc, JsonRpcException):
            self._request_futures.pop(msg_id, None)
            log.info("request %s answered with error %s: %s", msg_id, exc.code, exc.message)
            self._send_response(msg_id, error=exc.to_response_error())
            return
        super()._send_handler_result(future, msg_id=msg_id)

    def handle_message(self, message: Any) -> Any:
        if getattr(message, "method", None) in TOUCHING:
            server = self._server
            if isinstance(server, RubricServer):
                server.touch(message.method, message.params)
        return super().handle_message(message)

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    def lsp_workspace__execute_command(self, params: types.ExecuteCommandParams):
        """pygls' command dispatch, with the request's workDoneToken in COMMAND_TOKEN for the handler."""
        inner = super().lsp_workspace__execute_command(params)
        handler, args, kwargs = next(inner)
        token = params.work_done_token
        # Taken now, as the request is dispatched: a cancelGrading right behind it is dispatched after
        # this line, before the handler's task takes its first step.
        ticket = Ticket()
        server = self._server
        pending = server.pending if isinstance(server, RubricServer) else set()
        if params.command in STARTS_GRADING:
            pending.add(ticket)

        async def with_token(*a: Any, **k: Any) -> Any:
            COMMAND_TOKEN.set(token)  # in this handler's own task: no other request sees it
            COMMAND_TICKET.set(ticket)
            try:
                result = handler(*a, **k)
                return await result if inspect.isawaitable(result) else result
            finally:
                pending.discard(ticket)

        return (yield with_token, args, kwargs)

    def structure_message(self, data: dict[str, Any]):
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if not isinstance(data, dict) or "id" not in data or "method" not in data:
                raise
            if data.get("method") == types.TEXT_DOCUMENT_CODE_ACTION:
                context = (data.get("params") or {}).get("context")
                if isinstance(context, dict) and context.get("diagnostics"):
                    log.warning("code action request with malformed context diagnostics; ignoring them")
                    context["diagnostics"] = []
                    try:
                        return super().structure_message(data)
                    except JsonRpcException:
                        pass
            log.warning(
                "request %s (%s) has invalid parameters; answering with an error", data.get("id"), data.get("method")
            )
            error = exc if isinstance(exc, JsonRpcInvalidParams) else JsonRpcInvalidParams()
            self._send_response(data["id"], None, error.to_response_error())
            return _Ignored()


class RubricServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "rubric-lsp",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=RubricProtocol,
        )
        self.settings = ServerSettings()
        self.init_options: Any = None
        self.docs: dict[str, DocState] = {}
        self.lint_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rubric-lint")
        # The smell rules run on a thread of their own, after the lint: an edit's lint never queues behind them.
        self.smell_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rubric-smells")
        self.settings_generation = 0  # bumped whenever lint settings may have changed
        self.loop: asyncio.AbstractEventLoop | None = None
        self.last_activity = 0.0  # loop time of the last edit (the grading warm-up waits for quiet)
        self.lint_busy = 0  # lints under way
        # The document the client last touched, and the last selection/cursor seen in it (client units).
        self.touched: str | None = None
        self.touched_range: types.Range | None = None
        # What the editor graded last: a response (text, query) and a target ({"uri", "test"?, "grader"?}).
        self.last_response: tuple[str, str | None] | None = None
        self.last_target: dict[str, Any] | None = None
        self.gradings: set[Any] = set()  # gradings under way (rubric-lsp.cancelGrading cancels them)
        # Command requests dispatched whose grading has not begun: cancelGrading marks them cancelled.
        self.pending: set[Ticket] = set()
        self.manual_saves: set[str] = set()  # documents whose next didSave follows a willSave with reason Manual
        self.responses: dict[str, Any] = {}  # response file URI -> server.responses.ResponseFile
        self.said: set[str] = set()  # notes shown once a session (a panel given to a one-judge format)

    def touch(self, method: str, params: Any) -> None:
        """Remember the document (and cursor) of a request: commands without arguments act on them."""
        document = getattr(params, "text_document", None)
        uri = getattr(document, "uri", None)
        if not isinstance(uri, str):
            return
        if method == types.TEXT_DOCUMENT_CODE_ACTION:
            self.touched_range = params.range
        elif method == types.TEXT_DOCUMENT_HOVER:
            self.touched_range = types.Range(start=params.position, end=params.position)
        elif uri != self.touched:
            self.touched_range = None
        self.touched = uri

    # -- client capabilities ------------------------------------------------------
    @property
    def encoding(self) -> str:
        return str(getattr(self.workspace.position_encoding, "value", self.workspace.position_encoding) or "utf-16")

    def client_supports(self, dotted: str) -> bool:
        node: Any = self.client_capabilities
        for part in dotted.split("."):
            node = getattr(node, part, None)
            if node is None:
                return False
        return bool(node)

    def markup(self, formats_at: str, text: str) -> types.MarkupContent | str:
        """Markdown if the client renders it there, else plain text (``formats_at``: capability path).

        A client that lists no format gets a bare string, which every client takes.
        """
        node: Any = self.client_capabilities
        for part in formats_at.split("."):
            node = getattr(node, part, None) if node is not None else None
        kinds = [str(getattr(k, "value", k)) for k in node] if node is not None else []
        if "markdown" in kinds:
            return types.MarkupContent(kind=types.MarkupKind.Markdown, value=text)
        if "plaintext" in kinds:
            return types.MarkupContent(kind=types.MarkupKind.PlainText, value=text)
        return text

    @property
    def pull_diagnostics(self) -> bool:
        return self.client_supports("text_document.diagnostic")

    # -- documents -----------------------------------------------------------------
    def start_up_done(self) -> None:
        """Turn garbage collection back on (main() holds it off while starting), what start-up built
        frozen for good: out of every collection. Idempotent."""
        collector.start_up_done()

    def load_all_rules(self) -> None:
        """Every format's rules, on the lint thread (a file of another format is quick next): once the editor
        is quiet (main.py), never ahead of the first diagnostics or an edit's lint."""
        from rubric_lsp.formats.registry import load_all_checkers

        try:
            self.lint_pool.submit(load_all_checkers)
        except RuntimeError:
            pass  # shut down meanwhile

    def note_activity(self) -> None:
        if self.loop is not None:
            self.last_activity = self.loop.time()

    def state(self, uri: str) -> DocState:
        doc = self.docs.get(uri)
        if doc is None:
            doc = self.docs[uri] = DocState(uri)
        return doc

    def text_of(self, uri: str) -> tuple[str, int]:
        document = self.workspace.get_text_document(uri)
        return document.source, document.version or 0

    def folder_of(self, path: str | None) -> Path | None:
        """The innermost workspace folder holding ``path``."""
        if path is None:
            return None
        best: Path | None = None
        try:
            folders = list(self.workspace.folders.values())
        except Exception:
            return None
        for folder in folders:
            folder_path = self.path_of(folder.uri)
            if folder_path is None:
                continue
            candidate = Path(folder_path)
            try:
                Path(path).relative_to(candidate)
            except ValueError:
                continue
            if best is None or len(candidate.parts) > len(best.parts):
                best = candidate
        return best

    @staticmethod
    def path_of(uri: str) -> str | None:
        try:
            return to_fs_path(uri)
        except Exception:
            return None

    def root_of(self, path: str | None, settings: Settings) -> Path | None:
        """The workspace a file's references may reach without a warning: the workspace folder the
        user opened, else what the command line would take (:func:`rubric_lsp.workspace.default_root`)."""
        return self.folder_of(path) or default_root(path, settings.root)

    def _lint_now(self, text: str, uri: str, previous: Document | None = None) -> LintResult:
        started = time.perf_counter()
        path = self.path_of(uri)
        settings = self.settings.lint_settings(path)
        result = lint_text(
            text,
            path,
            settings=settings,
            explicit=False,
            root_dir=self.root_of(path, settings),
            defer_smells=True,
            previous=previous,
        )
        try:
            _ = result.view  # the faces reuse it: build it here, off the event loop, if no checker did
        except Exception:
            log.exception("building the view of %s failed", uri)
        log.debug("linted %s (%d characters) in %.0f ms", uri, len(text), (time.perf_counter() - started) * 1000)
        return result

    def _smells_now(self, result: LintResult, uri: str, version: int) -> LintResult | None:
        """``result`` with the smell rules' findings (docs/smells.md); None when the document changed since."""
        if self.state(uri).version != version:
            return None  # an edit came: its own lint runs the smells, this pass would be thrown away
        started = time.perf_counter()
        smelled = smell_pass(result, self.settings.lint_settings(result.path), editor=True)
        log.debug("smells of %s in %.0f ms", uri, (time.perf_counter() - started) * 1000)
        return smelled

    def smelled_now(self, uri: str, result: LintResult) -> LintResult | None:
        """The smell pass of ``result`` if it is done, else None (nothing waits)."""
        found = self.state(uri).smelled
        return found[1] if found is not None and found[0] is result else None

    async def lint_with_smells(self, uri: str) -> LintResult:
        """The lint of the document's current version with the smell rules' findings added: what the published
        diagnostics, the code actions and the hover read. The smells run after the lint, on their own thread."""
        result = await self.lint(uri)
        state = self.state(uri)
        if (done := self.smelled_now(uri, result)) is not None:
            return done
        if state.smelling is not None and state.smelling[0] is result:
            future = state.smelling[1]
        else:
            loop = asyncio.get_running_loop()
            future = loop.run_in_executor(self.smell_pool, self._smells_now, result, uri, state.version)
            state.smelling = (result, future)
        try:
            smelled = await asyncio.shield(future)
        finally:
            if state.smelling is not None and state.smelling[1] is future:
                state.smelling = None
        if smelled is None:
            return result  # the document changed meanwhile: its next lint brings its smells
        state.smelled = (result, smelled)
        return smelled

    async def lint(self, uri: str) -> LintResult:
        """The lint result for the document's current version (shared with any lint under way), without the smell
        rules' findings: they follow (:meth:`lint_with_smells`)."""
        state = self.state(uri)
        text, version = self.text_of(uri)
        key = (version, self.settings_generation)
        if state.result is not None and state.result_version == key:
            return state.result
        if state.pending is not None and state.pending_version == key:
            return await asyncio.shield(state.pending)
        loop = asyncio.get_running_loop()
        # The last reading of the document: an edit inside one value reads only that value again.
        previous = state.result.document if state.result is not None else None
        future = loop.run_in_executor(self.lint_pool, self._lint_now, text, uri, previous)
        state.pending, state.pending_version = future, key
        self.lint_busy += 1
        try:
            result = await asyncio.shield(future)
        finally:
            self.lint_busy -= 1
            if state.pending is future:
                state.pending = None
        current = self.text_of(uri)[1] if uri in self.workspace.text_documents else None
        if current == version and key[1] == self.settings_generation:
            state.result, state.result_version = result, key
        if result.format is not None:
            state.extra["format"] = result.format
        self.start_up_done()
        return result

    def grade_options(self) -> dict[str, Any]:
        """The formats' grading options the editor sets, else their environment variable where one is
        declared (``GradeOption.env``, checked like the setting); unset ones are left to the grader."""
        chosen = dict(self.settings.grade_options)
        for option in grade_option_declarations():
            given = os.environ.get(option.env) if option.env else None
            if option.name not in chosen and given:
                try:
                    chosen[option.name] = option.value(given)
                except ValueError:
                    log.info("%s=%r is ignored: it must be %s", option.env, given, option.expected)
        return chosen

    def converter(self, result: LintResult) -> Converter:
        return Converter(result.document.lines, self.encoding)

    # -- settings ------------------------------------------------------------------------
    async def refresh_settings(self) -> None:
        if not self.client_supports("workspace.configuration"):
            return
        try:
            values = await asyncio.wait_for(
                self.workspace_configuration_async(
                    types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
                ),
                timeout=5,
            )
        except Exception as exc:
            log.warning("could not read the 'rubric' settings from the client: %s", exc)
            return
        if values:
            self.apply_settings(values[0], replace_all=True)

    def apply_settings(self, data: Any, replace_all: bool = False) -> None:
        """Take settings from the client; ``replace_all``: ``data`` is the whole section (unset = default)."""
        before = self.settings
        if replace_all:
            self.settings = ServerSettings().merged(self.init_options).merged(data)
        else:
            self.settings = self.settings.merged(data)
        if (before.lint_select, before.lint_ignore) != (self.settings.lint_select, self.settings.lint_ignore):
            self.settings_generation += 1

    def command(self, command_name: str) -> Any:
        """Register a command whose arguments are checked against ``arguments.COMMANDS`` first."""
        from rubric_lsp.server import arguments

        register = super().command(command_name)

        def decorator(handler: Any) -> Any:
            register(arguments.checked(self, command_name, handler))
            return handler

        return decorator

    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        """Serve over stdio with our own frame reader, which resynchronises after a broken frame
        (pygls' reader stays alive but deaf after one; see :mod:`rubric_lsp.server.framing`)."""
        from pygls.io_ import StdoutWriter

        from rubric_lsp.server import framing

        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(
                framing.serve(self._stop_event, stdin or sys.stdin.buffer, self.protocol, self.report_server_error)
            )
        except BrokenPipeError:
            log.error("the connection to the client is lost; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def report_server_error(self, error: Exception, source: Any) -> None:
        # Errors are logged, never fatal; the client's log gets them through the log handler.
        log.error("server error (%s): %s", getattr(source, "__name__", source), error)


class ClientLogHandler(logging.Handler):
    """Sends log records to the client's log (window/logMessage), never to stdout."""

    LEVELS: ClassVar[dict[int, types.MessageType]] = {
        logging.ERROR: types.MessageType.Error,
        logging.WARNING: types.MessageType.Warning,
        logging.INFO: types.MessageType.Info,
        logging.DEBUG: types.MessageType.Log,
    }

    def __init__(self, server: RubricServer) -> None:
        super().__init__(logging.INFO)
        self.server = server
        self.addFilter(RedactingFilter())  # the client's log is a report: no key reaches it

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = self.format(record)
            kind = self.LEVELS.get(record.levelno, types.MessageType.Log)
            if record.levelno >= logging.ERROR:
                kind = types.MessageType.Error
            loop = self.server.loop
            if loop is None or loop.is_closed() or getattr(self.server.protocol, "writer", None) is None:
                return
            params = types.LogMessageParams(type=kind, message=message)
            loop.call_soon_threadsafe(self._send, params)
        except Exception:  # noqa: S110 - logging must never raise
            pass

    def _send(self, params: types.LogMessageParams) -> None:
        try:
            self.server.window_log_message(params)
        except Exception:  # noqa: S110 - a closed connection: nobody to tell
            pass
