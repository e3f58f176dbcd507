"""Code actions: each finding's fix as a quick fix, "disable CODE on this line", fix-all.

The fixes themselves come from the rules (minimal text edits); this module only turns
them into LSP workspace edits in the client's position encoding.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from lsprotocol import types

from rubric_lsp.diagnostics import Diagnostic
from rubric_lsp.document import _comment_start
from rubric_lsp.document.positions import Span
from rubric_lsp.fixes import fix_until_settled
from rubric_lsp.lint import LintResult, lint_text
from rubric_lsp.redaction import redact_report
from rubric_lsp.server import labelling
from rubric_lsp.server.app import SOURCE, RubricServer
from rubric_lsp.server.calibrate import calibrate_actions
from rubric_lsp.server.positions import Converter
from rubric_lsp.server.responses import actions as response_actions
from rubric_lsp.server.review import review_actions
from rubric_lsp.suppression import _DIRECTIVE

log = logging.getLogger(__name__)

FIX_ALL = "source.fixAll.rubric"


def _overlaps(diag: Diagnostic, span: Span) -> bool:
    start, end = diag.span.start, diag.span.end
    return start <= span.end and span.start <= end


def _text_edits(convert: Converter, edits) -> list[types.TextEdit]:
    return [types.TextEdit(range=convert.span(e.span), new_text=e.new_text) for e in edits]


def _workspace_edit(
    ls: RubricServer, uri: str, version: int | None, edits: list[types.TextEdit]
) -> types.WorkspaceEdit:
    if ls.client_supports("workspace.workspace_edit.document_changes"):
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version), edits=edits
                )
            ]
        )
    return types.WorkspaceEdit(changes={uri: edits})


def _lsp_diagnostic(convert: Converter, diag: Diagnostic) -> types.Diagnostic:
    return types.Diagnostic(
        range=convert.range(diag.range),
        message=redact_report(diag.message),
        severity=types.DiagnosticSeverity(int(diag.severity)),
        code=diag.code,
        source=SOURCE,
    )


def disable_comment_edit(result: LintResult, diag: Diagnostic) -> tuple[Span, str] | None:
    """Where to write ``# rubric-lint: disable=CODE`` so it covers ``diag``; None when it cannot.

    The comment goes at the end of the finding's first line. It cannot go inside a
    multi-line scalar (it would become part of the string), and JSON has no comments.
    """
    doc = result.document
    if doc.language != "yaml" or not doc.readable:
        return None
    line = diag.range.start.line
    line_end = doc.lines.line_end(line)
    if _inside_multiline_scalar(doc.root, line_end, doc.lines.line_starts[line]):
        return None
    text = doc.lines.line_text(line)
    hash_at = _comment_start(text)
    if hash_at != -1:
        directive = _DIRECTIVE.search(text, hash_at)
        if directive is not None:
            if directive.group(1).lower() != "disable" or text[directive.end() :].strip():
                return None  # another kind of directive, or words after it: leave it alone
            end = doc.lines.line_starts[line] + directive.end()
            return Span(end, end), f",{diag.code}"
    trimmed = len(text.rstrip())
    at = doc.lines.line_starts[line] + trimmed
    return Span(at, line_end), f"  # rubric-lint: disable={diag.code}"


def _inside_multiline_scalar(root, offset: int, line_start: int) -> bool:
    stack = [root] if root is not None else []
    seen = set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if not (node.start <= offset <= node.end):
            continue
        if node.is_scalar:
            if node.start < offset < node.end:
                return True
            # A block scalar's header line may carry a comment ("key: |  # ...").
            continue
        if node.is_map:
            for k, v in node.pairs():
                stack.extend((k, v))
        else:
            stack.extend(node.elements())
    return False


async def code_actions(
    ls: RubricServer, uri: str, version: int | None, result: LintResult, span: Span, only: Sequence[str] | None
) -> list[types.CodeAction]:
    convert = ls.converter(result)
    actions: list[types.CodeAction] = []
    want_quickfix = not only or any(
        types.CodeActionKind.QuickFix.value.startswith(k) or k.startswith("quickfix") for k in only
    )
    if want_quickfix:
        disabled: set[tuple[str, int]] = set()
        for diag in result.diagnostics:
            if not _overlaps(diag, span):
                continue
            lsp_diag = _lsp_diagnostic(convert, diag)
            if diag.fix is not None:
                title = diag.fix.title if diag.fix.safe else f"{diag.fix.title} (changes meaning: check it)"
                actions.append(
                    types.CodeAction(
                        title=redact_report(f"{title} ({diag.code})"),  # the edit may carry a key, the title not
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[lsp_diag],
                        is_preferred=diag.fix.safe,
                        edit=_workspace_edit(ls, uri, version, _text_edits(convert, diag.fix.edits)),
                    )
                )
            key = (diag.code, diag.range.start.line)
            if key in disabled:
                continue
            disabled.add(key)
            where = disable_comment_edit(result, diag)
            if where is not None:
                at, text = where
                actions.append(
                    types.CodeAction(
                        title=f"Disable {diag.code} on this line",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[lsp_diag],
                        edit=_workspace_edit(ls, uri, version, [types.TextEdit(range=convert.span(at), new_text=text)]),
                    )
                )
    if not only or any(FIX_ALL.startswith(k) for k in only):
        fix_all = await fix_all_action(ls, uri, version, result)
        if fix_all is not None:
            actions.append(fix_all)
    return actions


def fix_all_text(ls: RubricServer, uri: str, result: LintResult) -> str:
    """The text after applying every safe fix, re-linting between rounds.

    The same guarded rounds as ``rubric-lint --fix``: a fix that would break parsing or add a
    finding is left out (logged; its quick fix is still offered on its own).
    """

    path = ls.path_of(uri)
    settings = ls.settings.lint_settings(path)
    root = ls.root_of(path, settings)
    outcome = fix_until_settled(
        result, lambda text: lint_text(text, path, settings=settings, explicit=False, root_dir=root, smells=True)
    )
    for dropped in outcome.dropped:
        log.info("fix-all left out %s at %s:%d: %s", dropped.code, uri, dropped.line + 1, dropped.reason)
    if not outcome.settled:
        log.info("fix-all on %s did not settle: %d fixes still on offer", uri, outcome.unsettled)
    return outcome.text


async def fix_all_action(
    ls: RubricServer, uri: str, version: int | None, result: LintResult
) -> types.CodeAction | None:
    if not any(d.fix is not None and d.fix.safe for d in result.diagnostics):
        return None
    old = result.document.text
    # Re-linting between rounds takes as long as a lint: keep it off the event loop.
    new = await asyncio.get_running_loop().run_in_executor(ls.lint_pool, fix_all_text, ls, uri, result)
    if new == old:
        return None
    # One edit over the changed region only (common prefix and suffix kept).
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    convert = ls.converter(result)
    edit = types.TextEdit(range=convert.span(Span(prefix, len(old) - suffix)), new_text=new[prefix : len(new) - suffix])
    return types.CodeAction(
        title="Fix all safe rubric-lint findings", kind=FIX_ALL, edit=_workspace_edit(ls, uri, version, [edit])
    )


def register(ls: RubricServer) -> None:
    @ls.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=False),
    )
    async def code_action(ls: RubricServer, params: types.CodeActionParams):
        uri = params.text_document.uri
        if uri not in ls.workspace.text_documents:
            return None
        version = ls.text_of(uri)[1]
        result = await ls.lint_with_smells(uri)
        span = ls.converter(result).to_span(params.range)
        actions = await code_actions(ls, uri, version, result, span, params.context.only)
        if not params.context.only:  # "Grade this …": offered where no particular kind was asked for
            from rubric_lsp.server.dataset_views import lens_actions
            from rubric_lsp.server.grade_lenses import grade_actions, results_actions
            from rubric_lsp.server.grading_plan import Read

            doc = Read(uri, result.document.text, result.document, result.format, result.view)
            found = [*actions, *grade_actions(ls, doc, span), *lens_actions(ls, uri, params.range)]
            found += labelling.code_actions(ls, uri, result, span)
            found += results_actions(ls, doc)
            return [*found, *calibrate_actions(ls, doc), *review_actions(doc), *response_actions(ls, uri)] or None
        return actions or None
