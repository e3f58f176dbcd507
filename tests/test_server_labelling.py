"""Labels in the editor, over stdio with real clients' capabilities (VS Code, Neovim, Emacs: three position
encodings): a hover and an inlay hint name the criterion of each positional ground_truth entry, completion
offers that criterion's verdict words, code actions set a label or open the item on the labelling page, and the
"Label these examples" lens's command starts the page (opened in the browser through window/showDocument for a
client without its own view, only its URL answered with ``open: false``)."""

from __future__ import annotations

import asyncio
import json
import urllib.request

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.labelling_data import dataset_text
from tests.server_helpers import column, session_fixture

PROFILES = [
    ("visual-studio-code", "push", "utf-16"),
    ("neovim@v0.11", "pull", "utf-8"),
    ("emacs@v29.1", "push", "utf-32"),
]
client = session_fixture(profiles=PROFILES, ids=["vscode", "neovim", "emacs"])
pytestmark = pytest.mark.asyncio(loop_scope="module")

# A dataset whose first item is labelled, behind a description with characters of every width.
TEXT = dataset_text(2).replace('"case 1"', '"café ☕ 𝄞",\n      "ground_truth": ["MET", "Warm"]')


def where(text: str, needle: str, encoding: str, nth: int = 0) -> types.Position:
    index = -1
    for _ in range(nth + 1):
        index = text.index(needle, index + 1)
    line = text.count("\n", 0, index)
    start = text.rfind("\n", 0, index) + 1
    return types.Position(line=line, character=column(text[start:], index - start, encoding))


def open_dataset(s, name: str, text: str = TEXT) -> str:
    return s.open(name, text, language="json")


async def test_a_hover_and_an_inlay_hint_name_each_label_s_criterion(client: LanguageClient):
    s = client.rubric_session
    uri = open_dataset(s, "hover.dataset.json")
    at = where(TEXT, '"Warm"]', s.encoding)
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=at)
    )
    text = hover.contents.value if isinstance(hover.contents, types.MarkupContent) else str(hover.contents)
    assert "criterion `tone`" in text and "label 2 of item 1" in text and "How warm is the reply?" in text
    assert "`Cold`, `Warm`" in text
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(0, 0), end=types.Position(60, 0)),
        )
    )
    labels = sorted((h.position.line, h.position.character, h.label) for h in hints)
    expected = []
    for nth in (0, 1):  # item 1's labels and the already labelled item's
        polite, tone = where(TEXT, '"MET", "Warm"', s.encoding, nth), where(TEXT, '"Warm"]', s.encoding, nth)
        expected += [(polite.line, polite.character, "polite:"), (tone.line, tone.character, "tone:")]
    assert labels == expected


async def completion_at(client, uri, position):
    found = await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=position)
    )
    return found.items if isinstance(found, types.CompletionList) else found or []


async def test_completion_offers_the_criterion_s_own_words(client: LanguageClient):
    s = client.rubric_session
    typing = TEXT.replace('"ground_truth": ["MET", "Warm"]', '"ground_truth": ["MET", "Wa]', 1)
    uri = open_dataset(s, "complete.dataset.json", typing)
    at = where(typing, '"Wa]', s.encoding)
    at = types.Position(line=at.line, character=at.character + 3)
    items = await completion_at(client, uri, at)
    assert [i.label for i in items] == ["Cold", "Warm"]
    edit = items[1].text_edit
    assert edit.new_text == '"Warm"' and edit.range.start.character == at.character - 3
    empty = TEXT.replace('"ground_truth": ["MET", "Warm"]', '"ground_truth": []', 1)
    s.replace(uri, empty)
    at = where(empty, "[]", s.encoding)
    items = await completion_at(client, uri, types.Position(line=at.line, character=at.character + 1))
    assert [i.label for i in items] == ["MET", "UNMET", "CANNOT_ASSESS"]


async def test_code_actions_set_a_label_or_open_its_item(client: LanguageClient):
    s = client.rubric_session
    uri = open_dataset(s, "actions.dataset.json")
    at = where(TEXT, '"Warm"]', s.encoding)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=at, end=at),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    titles = [a.title for a in actions]
    assert "Label criterion 'tone' Cold" in titles and "Label criterion 'tone' Warm" not in titles
    cold = next(a for a in actions if a.title == "Label criterion 'tone' Cold")
    text = await s.apply(uri, cold.edit)
    assert text == TEXT.replace('["MET", "Warm"]', '["MET", "Cold"]', 1)
    page = next(a for a in actions if a.title == "Label item 1 on the labelling page")
    assert page.command == "rubric-lsp.label" and page.arguments[0]["uri"] == uri and page.arguments[0]["item"]


async def test_the_lens_starts_the_page_for_the_file(client: LanguageClient):
    s = client.rubric_session
    client.shown_documents.clear()
    shown = client.shown_documents  # pytest-lsp's client records window/showDocument
    uri = open_dataset(s, "lens.dataset.json")
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    lens = next(lens for lens in lenses if lens.command.title.startswith("✎ Label these examples"))
    assert lens.command.title == "✎ Label these examples (4 of 6 labelled)"
    answer = await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command=lens.command.command, arguments=[{**lens.command.arguments[0], "open": False}]
            )
        ),
        60,
    )
    url = answer["url"]
    assert url.startswith("http://127.0.0.1:") and "token=" in url and shown == []
    loop = asyncio.get_running_loop()
    page = await loop.run_in_executor(None, lambda: urllib.request.urlopen(url, timeout=30).read())
    assert b"rubric label" in page
    api = urllib.request.Request(url.split("?")[0] + "api/state", headers={"X-Rubric-Token": url.split("token=")[1]})
    state = json.loads(await loop.run_in_executor(None, lambda: urllib.request.urlopen(api, timeout=30).read()))
    assert state["file"] == "lens.dataset.json" and state["progress"] == {"done": 4, "total": 6, "items": 3}
    again = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="rubric-lsp.label", arguments=[{"uri": uri}])
    )
    assert again["url"] == url  # one page per file
    if s.spec.startswith("emacs"):  # eglot opens no URL: the server says it
        assert any(url in m.message for m in client.messages)
    else:  # the others open it in the browser; VS Code's extension asks with open: false and shows a webview
        assert [(p.uri, p.external) for p in shown] == [(url, True)]
    s.replace(uri, TEXT.replace("case 2", "case two"))  # unsaved: the page would write over the editor's text
    with pytest.raises(Exception, match=r"save lens\.dataset\.json first"):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="rubric-lsp.label", arguments=[{"uri": uri, "open": False}])
        )
