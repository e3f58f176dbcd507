"""Pushing diagnostics (publishDiagnostics with versions): a lint result in LSP's terms, with the
grading's diagnostics after it; pushes are debounced per document and a result is published only
if the document is still at the version that was linted (older results are dropped).

Below the diagnostics feature (``diagnostics.py``) and the grading's verdicts (``verdicts.py``),
which both republish a document.
"""

from __future__ import annotations

import asyncio
import logging

from lsprotocol import types

from rubric_lsp.formats.registry import get_rule
from rubric_lsp.lint import LintResult
from rubric_lsp.redaction import report_redactor
from rubric_lsp.runtime import gc as collector
from rubric_lsp.server.app import SOURCE, RubricServer

log = logging.getLogger(__name__)


def to_lsp(ls: RubricServer, uri: str, result: LintResult) -> list[types.Diagnostic]:
    convert = ls.converter(result)
    redact = report_redactor().report  # a message may quote a key from the file; the client's UI is a report
    out = []
    for diag in result.diagnostics:
        rule = get_rule(diag.code)
        related = [
            types.DiagnosticRelatedInformation(
                location=types.Location(uri=uri if rel.path is None else _uri(rel.path), range=convert.span(rel.span)),
                message=redact(rel.message),
            )
            for rel in diag.related
            if rel.path is None
        ] or None
        out.append(
            types.Diagnostic(
                range=convert.range(diag.range),
                message=redact(diag.message),
                severity=types.DiagnosticSeverity(int(diag.severity)),
                code=diag.code,
                code_description=types.CodeDescription(href=rule.docs_url) if rule else None,
                source=SOURCE,
                related_information=related,
                data={"fixable": diag.fix is not None},
            )
        )
    return out


def _uri(path: str) -> str:
    from pygls.uris import from_fs_path

    return from_fs_path(path) or path


def schedule(ls: RubricServer, uri: str, delay: float) -> None:
    if ls.pull_diagnostics:
        return
    state = ls.state(uri)
    if state.push_task is not None and not state.push_task.done():
        return  # the running task picks up the newest version before it publishes
    state.push_task = asyncio.ensure_future(_push_loop(ls, uri, delay))


async def _push_loop(ls: RubricServer, uri: str, delay: float) -> None:
    for _ in range(1000):  # bounded: each round needs a new edit to start another
        if delay > 0:
            await asyncio.sleep(delay)
        if uri not in ls.workspace.text_documents:
            return
        version = ls.text_of(uri)[1]
        # The cyclic collector stays paused until the diagnostics are out (pull: diagnostics.pull). A read
        # pauses it anyway (document/__init__.py); the first allocation after that pause ran a young
        # collection over every node the read made, none of them garbage: ~0.1 s, an eighth of a lint of a
        # 1.3 MB config, between an edit and its diagnostics. Now it runs after them (or never: in steady
        # editing the previous lint's nodes are freed first).
        with collector.paused():
            try:
                result = await ls.lint(uri)
            except Exception:
                log.exception("linting %s failed", uri)
                return
            if uri not in ls.workspace.text_documents:
                return
            if ls.text_of(uri)[1] != version:
                continue  # edited while linting: this result is stale
            publish(ls, uri, version, result)
        state = ls.state(uri)
        if state.smell_task is None or state.smell_task.done():
            state.smell_task = asyncio.ensure_future(_publish_smells(ls, uri, version, result))
        return


async def _publish_smells(ls: RubricServer, uri: str, version: int | None, result: LintResult) -> None:
    """The smell rules' findings, in a publish of their own after the lint's (they never delay it). A task apart
    from the push loop: an edit meanwhile starts its own lint at once, and this pass is dropped."""
    try:
        smelled = await ls.lint_with_smells(uri)
    except Exception:
        log.exception("the smell rules failed on %s", uri)
        return
    if uri not in ls.workspace.text_documents or ls.text_of(uri)[1] != version or smelled is result:
        return  # edited meanwhile (the new version's push brings its smells), or nothing to add
    if ls.state(uri).published_version == version:
        publish(ls, uri, version, smelled)


def publish(ls: RubricServer, uri: str, version: int | None, result: LintResult) -> None:
    state = ls.state(uri)
    state.published_version = version
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=all_diagnostics(ls, uri, result))
    )


def all_diagnostics(ls: RubricServer, uri: str, result: LintResult) -> list[types.Diagnostic]:
    """The lint's findings, then the last grading's, then the last review's (source rubric-review)."""
    extra = ls.state(uri).extra
    review = extra.get("review")  # server/review_run.py's Kept: set once a review ran, never imported here
    reviewed = review.diagnostics(ls, result) if review is not None else []
    return to_lsp(ls, uri, result) + extra.get("grading_diagnostics", []) + reviewed


def relint_all(ls: RubricServer) -> None:
    """Settings (or a calibration record) changed: lint every open document again."""
    ls.settings_generation += 1
    if ls.pull_diagnostics:
        if ls.client_supports("workspace.diagnostics.refresh_support"):
            ls.workspace_diagnostic_refresh(None)
        return
    for uri in list(ls.workspace.text_documents):
        schedule(ls, uri, 0)
