"""Diagnostics: push (publishDiagnostics with versions) or pull (textDocument/diagnostic).

Which one is chosen from the client's capabilities: a client that can pull gets pull
only. Pushes are debounced per document and a result is published only if the document
is still at the version that was linted; older results are dropped (``publish.py``).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os

from lsprotocol import types

from rubric_lsp.runtime import gc as collector
from rubric_lsp.server import grading
from rubric_lsp.server.app import SOURCE, RubricServer
from rubric_lsp.server.publish import all_diagnostics, relint_all, schedule
from rubric_lsp.server.settings import is_settings_file
from rubric_lsp.server.verdicts import follow_edits

log = logging.getLogger(__name__)


def result_id(diagnostics: list[types.Diagnostic], ls: RubricServer) -> str:
    digest = hashlib.blake2b(digest_size=8)
    for d in diagnostics:
        digest.update(f"{d.code}|{d.range}|{d.severity}|{d.message}\n".encode())
    digest.update(str(ls.settings_generation).encode())
    return digest.hexdigest()


# -- push --------------------------------------------------------------------------------
def clear(ls: RubricServer, uri: str) -> None:
    if not ls.pull_diagnostics:
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def relint_dependents(ls: RubricServer, changes) -> None:
    """Files on disk changed: lint again the open documents that reference them.

    A created file may be one that a document reported missing (RL010), so documents
    with that finding are linted again too.
    """
    changed = set()
    created = False
    for change in changes:
        path = ls.path_of(change.uri)
        if path is not None:
            changed.add(os.path.realpath(path))
        created = created or change.type == types.FileChangeType.Created
    for uri, state in list(ls.docs.items()):
        result = state.result
        if result is None or uri not in ls.workspace.text_documents:
            continue
        base = os.path.dirname(result.path) if result.path else ""
        depends = {os.path.realpath(os.path.join(base, p)) for p in result.dependencies} & changed
        missing = created and any(d.code == "RL010" for d in result.diagnostics)
        if depends or missing:
            state.result = state.result_version = None
            if ls.pull_diagnostics:
                if ls.client_supports("workspace.diagnostics.refresh_support"):
                    ls.workspace_diagnostic_refresh(None)
            else:
                schedule(ls, uri, 0)


# -- pull --------------------------------------------------------------------------------
async def pull(ls: RubricServer, params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
    uri = params.text_document.uri
    if uri not in ls.workspace.text_documents:
        return types.RelatedFullDocumentDiagnosticReport(items=[])
    with collector.paused():  # until the report is built (why: publish._push_loop)
        result = await ls.lint(uri)
        smelled = ls.smelled_now(uri, result)
        if smelled is None and ls.client_supports("workspace.diagnostics.refresh_support"):
            _refresh_after_smells(ls, uri)  # the lint's findings now, the smells' at the client's next pull
        elif smelled is None:
            smelled = await ls.lint_with_smells(uri)  # no way to tell the client to pull again: wait for them
        items = all_diagnostics(ls, uri, smelled or result)
        rid = result_id(items, ls)
        state = ls.state(uri)
        state.result_id = rid
        if params.previous_result_id == rid:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=rid)
        return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=rid)


def _refresh_after_smells(ls: RubricServer, uri: str) -> None:
    state = ls.state(uri)
    if state.smell_task is not None and not state.smell_task.done():
        return

    async def smells_then_refresh() -> None:
        before = await ls.lint(uri)
        smelled = await ls.lint_with_smells(uri)
        if smelled is not before:
            ls.workspace_diagnostic_refresh(None)

    state.smell_task = asyncio.ensure_future(smells_then_refresh())


def register(ls: RubricServer) -> None:
    @ls.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RubricServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.note_activity()
        state = ls.state(params.text_document.uri)
        state.version = params.text_document.version
        schedule(ls, params.text_document.uri, 0)

    @ls.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RubricServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.note_activity()
        ls.state(params.text_document.uri).version = params.text_document.version
        follow_edits(ls, params.text_document.uri)
        schedule(ls, params.text_document.uri, ls.settings.debounce_seconds)

    @ls.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RubricServer, params: types.DidCloseTextDocumentParams) -> None:
        state = ls.docs.pop(params.text_document.uri, None)
        for task in (state.push_task, state.smell_task) if state is not None else ():
            if task is not None:
                task.cancel()
        clear(ls, params.text_document.uri)

    @ls.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(identifier=SOURCE, inter_file_dependencies=False, workspace_diagnostics=False),
    )
    async def diagnostic(ls: RubricServer, params: types.DocumentDiagnosticParams):
        return await pull(ls, params)

    @ls.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: RubricServer, params: types.DidChangeWatchedFilesParams) -> None:
        if any(is_settings_file(change.uri) for change in params.changes):
            log.info("settings changed: re-reading [tool.rubric-lint] / rubric-lint.toml")
            relint_all(ls)
            return
        relint_dependents(ls, params.changes)

    @ls.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: RubricServer, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if is_settings_file(uri):
            relint_all(ls)
            return
        # A saved file may be referenced by other open documents (file://…).
        relint_dependents(ls, [types.FileEvent(uri=uri, type=types.FileChangeType.Changed)])
        if ls.settings.grade_on_save:
            await grading.grade_on_save(ls, uri)
