"""Labels in the editor (docs/labelling.md), wherever a file holds them (``Format.labelling``, an in-file sheet):

- a hover on each label names its unit, what it asks and the words it takes; an inlay hint before it names the
  unit (a list of labels is positional: nobody should count units by hand);
- completion inside a list of labels offers the verdict words of the unit at that place;
- code actions set the label under the cursor to each other word (a minimal edit), and open the item on the
  labelling page;
- a "✎ Label these examples" lens at the file's top opens the page.

``rubric-lsp.label`` starts the page for the file (one per file, kept while the server runs) and answers its
URL; VS Code shows it in a webview, and any other client is asked to open it in the browser
(``window/showDocument``, external) unless the command says ``open: false``.
"""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from rubric_lsp.document import parse_document
from rubric_lsp.document.positions import Span
from rubric_lsp.formats import registry
from rubric_lsp.formats.registry import Format
from rubric_lsp.labelling.edits import json_text
from rubric_lsp.lint import LintResult
from rubric_lsp.server import arguments
from rubric_lsp.server.app import RubricServer

if TYPE_CHECKING:
    from rubric_lsp.labelling.hook import LabelItem, Sheet, Slot
    from rubric_lsp.labelling.page.server import LabellingServer

log = logging.getLogger(__name__)

LABEL = "rubric-lsp.label"
SHEET_KEY = "labelling.sheet"
PLACEHOLDER = "__rubric_label__"
_WORD_BEFORE = re.compile(r'"?[\w -]*$')
_WORD_AFTER = re.compile(r'^[\w -]*"?')


def _sources() -> Any:
    """Where labels come from (``labelling/sources.py``, with sqlite3 and subprocess): loaded for the first file
    that holds labels, never at the server's start."""
    from rubric_lsp.labelling import sources

    return sources


def sheet_of(result: LintResult) -> Sheet | None:
    """The file's labels as its format's labelling hook reads them (None: the file holds none), once per lint."""
    if SHEET_KEY not in result.shared:
        result.shared[SHEET_KEY] = _read_sheet(result.format, result)
    return result.shared[SHEET_KEY]


def _read_sheet(fmt: Format | None, result: LintResult) -> Sheet | None:
    if fmt is None or fmt.labelling is None or result.document.root is None:
        return None
    try:
        hook = _sources().labelling_hook(fmt)
        sheet = hook.sheet(result.document) if hook is not None else None
    except Exception:
        log.exception("the %s labelling hook failed", fmt.name)
        return None
    return sheet if sheet is not None and sheet.in_file and sheet.items else None


def slot_at(sheet: Sheet, offset: int) -> tuple[LabelItem, Slot] | None:
    for item in sheet.items:
        for slot in item.slots:
            if slot.span.start <= offset <= slot.span.end:
                return item, slot
    return None


def item_at(sheet: Sheet, span: Span) -> LabelItem | None:
    return next((i for i in sheet.items if i.span is not None and i.span.start <= span.start <= i.span.end), None)


# -- hover and inlay hints -------------------------------------------------------------------------------
def hover_lines(result: LintResult, offset: int) -> list[str]:
    sheet = sheet_of(result)
    found = slot_at(sheet, offset) if sheet is not None else None
    if found is None:
        return []
    item, slot = found
    unit = slot.unit
    position = item.slots.index(slot) + 1
    words = ", ".join(f"`{c.word}`" + (f" ({c.hint})" if c.hint else "") for c in unit.choices)
    return [
        f"**{unit.noun} `{unit.id}`** — label {position} of item {item.number} ({item.title})\n\n"
        f"{unit.title}\n\nTakes {words}."
    ]


def inlay_hints(ls: RubricServer, result: LintResult, visible: types.Range) -> list[types.InlayHint]:
    """``polite:`` before each label: the unit a positional label belongs to."""
    sheet = sheet_of(result)
    if sheet is None:
        return []
    convert = ls.converter(result)
    hints = []
    for item in sheet.items:
        for slot in item.slots:
            at = convert.span(Span(slot.span.start, slot.span.start)).start
            if not visible.start.line <= at.line <= visible.end.line:
                continue
            hints.append(
                types.InlayHint(
                    position=at,
                    label=f"{slot.unit.id}:",
                    kind=types.InlayHintKind.Parameter,
                    padding_right=True,
                    tooltip=slot.unit.title,
                )
            )
    return hints


# -- completion -------------------------------------------------------------------------------------------
def completions(fmt: Format | None, text: str, offset: int) -> tuple[list[types.CompletionItem], Span] | None:
    """The verdict words of the unit whose label is being typed at ``offset`` (None: not in a list of labels).

    The word typed so far (with its opening quote) is replaced by a placeholder string and the text read: where
    the placeholder lands among an item's labels says which unit it is (the same reading the file gets). Text
    being typed is seldom valid, so the format is the placeholder text's when the lint found none."""
    before = _WORD_BEFORE.search(text[:offset])
    after = _WORD_AFTER.match(text[offset:])
    start = before.start() if before else offset
    end = offset + (after.end() if after else 0)
    probe = text[:start] + json_text(PLACEHOLDER) + text[end:]
    doc = parse_document(probe, None, language="json")
    if doc.root is None:
        return None
    fmt = fmt or registry.detect(doc)
    hook = _sources().labelling_hook(fmt) if fmt is not None else None
    if hook is None:
        return None
    try:
        sheet = hook.sheet(doc)
    except Exception:
        log.exception("the %s labelling hook failed", fmt.name if fmt else "?")
        return None
    found = slot_at(sheet, start + 1)
    if found is None:
        return None
    unit = found[1].unit
    items = [
        types.CompletionItem(
            label=choice.word,
            kind=types.CompletionItemKind.EnumMember,
            detail=f"{unit.noun} {unit.id}",
            documentation=choice.hint or unit.title,
            insert_text=json_text(choice.word),
            sort_text=f"{n:03d}",
        )
        for n, choice in enumerate(unit.choices)
    ]
    return items, Span(start, end)


# -- code actions and the lens ----------------------------------------------------------------------------
def code_actions(ls: RubricServer, uri: str, result: LintResult, span: Span) -> list[Any]:
    sheet = sheet_of(result)
    if sheet is None:
        return []
    actions: list[Any] = []
    found = slot_at(sheet, span.start)
    if found is not None:
        item, slot = found
        convert = ls.converter(result)
        current = item.labels.get(slot.unit.id)
        for choice in slot.unit.choices:
            if current is not None and current.word == choice.word:
                continue
            edit = types.TextEdit(range=convert.span(slot.span), new_text=json_text(choice.word))
            actions.append(
                types.CodeAction(
                    title=f"Label {slot.unit.noun} '{slot.unit.id}' {choice.word}",
                    kind=types.CodeActionKind.RefactorRewrite,
                    edit=types.WorkspaceEdit(changes={uri: [edit]}),
                )
            )
    under = found[0] if found is not None else item_at(sheet, span)
    if under is not None:
        actions.append(
            types.Command(
                title=f"Label item {under.number} on the labelling page",
                command=LABEL,
                arguments=[{"uri": uri, "item": under.key}],
            )
        )
    return actions


def lenses(ls: RubricServer, uri: str, result: LintResult) -> list[types.CodeLens]:
    sheet = sheet_of(result)
    if sheet is None:
        return []
    total = sum(len(item.units) for item in sheet.items)
    done = sum(len(item.labels) for item in sheet.items)
    title = f"✎ Label these examples ({done} of {total} labelled)"
    at = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
    return [types.CodeLens(range=at, command=types.Command(title=title, command=LABEL, arguments=[{"uri": uri}]))]


# -- the page ---------------------------------------------------------------------------------------------
def _pages(ls: RubricServer) -> dict[str, LabellingServer]:
    return ls.__dict__.setdefault("label_pages", {})


def open_page(ls: RubricServer, uri: str, labeller: str | None) -> LabellingServer:
    """The page of the file ``uri`` names (started on first use); LabellingError when it cannot be labelled."""
    # The page (an HTTP server) and the labelling session: loaded by the first page opened, never at start.
    from rubric_lsp.labelling.page.server import LabellingServer
    from rubric_lsp.labelling.session import Options, Session

    LabellingError, default_labeller = _sources().LabellingError, _sources().default_labeller
    path = ls.path_of(uri)
    if path is None:
        raise LabellingError(f"{uri} is not a file on disk: the labelling page writes labels into the file")
    if uri in ls.workspace.text_documents:
        try:
            on_disk = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise LabellingError(f"cannot read {path}: {exc.strerror or exc}") from None
        if ls.text_of(uri)[0] != on_disk:
            raise LabellingError(
                f"save {Path(path).name} first: the labelling page writes labels into the file on disk"
            )
    pages = _pages(ls)
    page = pages.get(path)
    if page is None:
        who = labeller or default_labeller(Path(path).parent)
        page = LabellingServer(Session(Path(path), Options(labeller=who)))
        page.start()
        pages[path] = page
    return page


def register(ls: RubricServer) -> None:
    @ls.command(LABEL)
    async def label(ls: RubricServer, *args: Any) -> dict[str, Any]:
        given = args[0] if args else {}
        uri = given.get("uri") or ls.touched
        labeller = given.get("labeller") or ls.settings.labelling_labeller
        loop = asyncio.get_running_loop()
        LabellingError = _sources().LabellingError
        try:
            if not uri:
                raise LabellingError("no document: name one with its uri")
            page = await loop.run_in_executor(None, open_page, ls, uri, labeller)
        except (LabellingError, ValueError, OSError) as exc:
            raise arguments.invalid(f"{LABEL}: {exc}") from None
        url = page.url + (f"&item={given['item']}" if given.get("item") else "")
        if given.get("open", True) and ls.client_supports("window.show_document"):
            await ls.window_show_document_async(types.ShowDocumentParams(uri=url, external=True))
        elif given.get("open", True):  # a client that cannot open a URL (eglot): say it, to follow or copy
            name = Path(ls.path_of(uri) or uri).name
            ls.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Info, message=f"Label {name} at {url}")
            )
        return {"url": url, "file": ls.path_of(uri), "labeller": page.session.options.labeller}
