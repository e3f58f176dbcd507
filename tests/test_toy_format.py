"""A format defined entirely in this file reaches every face: the plugin interface is the only door.

The toy format ("card decks": ``*.deck.yaml``) has its own detection, JSON Schema, view,
a checker with a rule, and outline / hover / completion hooks. Registered with one call,
it gets diagnostics from ``lint_text``, a schema from ``rubric schema``, and hover,
outline, completion and diagnostics from the real language server, which runs this
file as its entry point (``python tests/test_toy_format.py`` registers the toy format,
then starts the server) — with no edit anywhere else.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

if __name__ == "__main__":  # the language server's entry point for the server tests below
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pytest

from rubric_lsp.diagnostics import Severity
from rubric_lsp.document import Document, Node
from rubric_lsp.formats.editor import EditorContext, OutlineItem
from rubric_lsp.formats.registry import Format, checker, register

NAME = "toy-deck"
CODE = "TY001"

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Toy card deck",
    "type": "object",
    "properties": {
        "deck": {"type": "string", "description": "The deck's name."},
        "cards": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "What the card is called."},
                    "points": {"type": "integer", "description": "What the card is worth; never negative."},
                    "suit": {"enum": ["hearts", "spades"], "description": "The card's suit."},
                },
            },
        },
    },
}

DECK = "deck: Demo\ncards:\n  - name: ace\n    points: 11\n  - name: joker\n    points: -3\n"


@dataclass
class DeckView:
    cards: list[tuple[str, Node]] = field(default_factory=list)  # (name, card mapping)
    points: dict[str, int] = field(default_factory=dict)


BUILT: list[DeckView] = []  # every view built, to show the lint's view is reused


def detect_deck(doc: Document) -> int:
    root = doc.root
    return 70 if root is not None and root.is_map and root.has("cards") and root.has("deck") else 0


def read_deck(doc: Document) -> DeckView:
    view = DeckView()
    cards = doc.root.get("cards") if doc.root is not None and doc.root.is_map else None
    for card in cards.elements() if cards is not None and cards.is_seq else []:
        name, points = (card.get("name"), card.get("points")) if card.is_map else (None, None)
        label = str(name.value) if name is not None and name.is_scalar else "card"
        view.cards.append((label, card))
        if points is not None and isinstance(points.value, int):
            view.points[label] = points.value
    BUILT.append(view)
    return view


class DeckEditor:
    """The toy's editor hooks (an object here; built-in formats use a module)."""

    @staticmethod
    def outline(ctx: EditorContext) -> list[OutlineItem]:
        view: DeckView = ctx.view
        items = []
        for label, card in view.cards:
            name = card.key_node("name")
            items.append(OutlineItem(label, "Constant", card.span, name.span if name else None, "a card"))
        return items

    @staticmethod
    def hover(ctx: EditorContext, offset: int) -> list[str]:
        view: DeckView = ctx.view
        for label, card in view.cards:
            if card.start <= offset <= card.end:
                return [f"**{label}** is worth {view.points.get(label, 0)} of {sum(view.points.values())} points."]
        return []

    @staticmethod
    def completion_values(path: list, key: str) -> list:
        return ["ace", "king", "queen"] if key == "name" else []


class DeckGrader:
    """The toy's grader (``Format.grader``): a card the response names is played, with verdict words of its own.

    TRUMPS: a card worth points was played (pass); FOLDS: it was not (fail); BUSTS: a card worth
    negative points was played (a loss); SHRUG: a card worth nothing either way (an abstention).
    """

    @staticmethod
    async def grade(doc: Document, request, grading):
        from rubric_lsp.engine.report import GradeReport, Subject
        from rubric_lsp.engine.result import Outcome

        view = read_deck(doc)
        played = request.response.casefold()
        report = GradeReport(NAME)
        for index, (label, card) in enumerate(view.cards):
            points = view.points.get(label, 0)
            subject = Subject(label, index, doc.range(card).to_json(), float(points) if points else None)
            if not points:
                word, outcome = "SHRUG", Outcome.ABSTAIN
            elif label in played:
                word, outcome = ("BUSTS", Outcome.LOSS) if points < 0 else ("TRUMPS", Outcome.PASS)
            else:
                word, outcome = ("FOLDS", Outcome.PASS) if points < 0 else ("FOLDS", Outcome.FAIL)
            credit = 1.0 if label in played else 0.0
            verdict = subject.judged(word, f"{label} is worth {points}", outcome=outcome, credit=credit)
            verdict.cells = (("points", points), ("played", label in played))  # its own table columns
            report.verdicts.append(verdict)
        best = sum(p for p in view.points.values() if p > 0)
        report.raw_score = float(sum(p for label, p in view.points.items() if label in played))
        report.score = report.raw_score / best if best else None
        report.passed = report.score is not None and report.score >= 0.5
        return report


def register_toy() -> Format:
    """Everything a new format does to exist: define its rule and checker, register it. One call each."""
    from rubric_lsp.rules.context import CheckContext
    from rubric_lsp.rules.registry import rule

    negative = rule(
        CODE,
        "negative-points",
        Severity.WARNING,
        "A card is worth negative points.",
        "The toy deck's owner counts points up from zero.",
        bad="deck: d\ncards:\n  - {name: a, points: -1}\n",
        good="deck: d\ncards:\n  - {name: a, points: 1}\n",
        formats=(NAME,),
    )

    @checker(NAME)
    def check_points(ctx: CheckContext) -> None:
        view: DeckView = ctx.view("toy.view", lambda root: read_deck(ctx.document))
        for label, card in view.cards:
            if view.points.get(label, 0) < 0:
                ctx.report(negative, card.get("points"), f"Card '{label}' is worth {view.points[label]} points.")

    return register(
        Format(
            name=NAME,
            title="Toy card deck",
            languages=("yaml",),
            file_patterns=("*.deck.yaml",),
            detect=detect_deck,
            schema_file="toy-deck.schema.json",
            json_schema=lambda: SCHEMA,
            view_key="toy.view",
            read_view=read_deck,
            editor=DeckEditor,
            grader=DeckGrader,
            rule_prefix="TY",
            rule_title="Toy decks",
        )
    )


@pytest.fixture
def toy(monkeypatch):
    """The toy format, registered for one test and forgotten after it."""
    from rubric_lsp.formats import registry
    from rubric_lsp.rules import registry as rules

    registry.load_all_checkers()  # built-in rules register into the real table, not the copy below
    monkeypatch.setattr(rules, "_RULES", dict(rules._RULES))
    fmt = register_toy()
    yield fmt
    registry.unregister(NAME)


# -- the lint core and the CLI ------------------------------------------------------------------
def test_lint_text_detects_checks_and_keeps_the_view(toy):
    from rubric_lsp.lint import lint_text

    BUILT.clear()
    result = lint_text(DECK, "hand.yaml", explicit=False)  # found by its content, not its name
    assert result.format is toy
    assert [(d.code, d.range.start.line) for d in result.diagnostics] == [(CODE, 5)]
    assert result.view is BUILT[0] and len(BUILT) == 1  # the checker's view, not a second one
    assert lint_text(DECK, "x.deck.yaml").format is toy  # and by its file pattern
    assert lint_text("deck: Demo\n", "other.yaml", explicit=False).format is None


def test_the_schema_export_and_rule_docs_include_it(toy, capsys):
    from rubric_lsp.cli import main
    from rubric_lsp.commands.rules import rules_document
    from rubric_lsp.commands.schema import rendered_schemas

    assert '"What the card is called."' in rendered_schemas()["toy-deck.schema.json"]
    # (titles are dropped on export: the YAML server showed them as every hover's heading)
    assert main(["schema", NAME]) == 0 and '"The deck\'s name."' in capsys.readouterr().out
    assert "# Toy decks (TY)" in rules_document() and "negative-points" in rules_document()
    assert main(["lint", "--list-kinds"]) == 0 and NAME in capsys.readouterr().out


# -- grading: its own verdict words, rendered by the real outputs ----------------------------------------
HAND = "deck: Demo\ncards:\n  - name: ace\n    points: 11\n  - name: king\n    points: 4\n  - name: joker\n    points: -3\n  - name: blank\n    points: 0\n"
# card -> (its verdict word, its outcome), for a response that plays the ace and the joker
GRADED = {
    "ace": ("TRUMPS", "pass"),
    "king": ("FOLDS", "fail"),
    "joker": ("BUSTS", "loss"),
    "blank": ("SHRUG", "abstain"),
}


@pytest.fixture
def hand(toy, tmp_path):
    (tmp_path / "hand.deck.yaml").write_text(HAND, encoding="utf-8")
    (tmp_path / "played.txt").write_text("I play the ace, then the joker.", encoding="utf-8")
    return tmp_path


def test_its_grading_reads_as_the_toy_says_in_the_junit_file(hand, capsys):
    import xml.etree.ElementTree as ET

    from rubric_lsp.cli import main

    argv = ["grade", str(hand / "hand.deck.yaml"), "--response", str(hand / "played.txt"), "--no-cache"]
    assert main([*argv, "--format", "junit"]) == 0  # 8 of 15 points: passed
    root = ET.fromstring(capsys.readouterr().out)
    # One testcase per case (the response): it passed, so no failure, whatever its units say (exit 0).
    (case,) = root.iter("testcase")
    assert case.get("name") == "response" and case.find("failure") is None and case.find("skipped") is None
    assert root.get("failures") == "0" and root.get("tests") == "1"
    lines = case.find("system-out").text.splitlines()
    for name, (verdict, outcome) in GRADED.items():  # each unit in the toy's own word, and what it means
        assert any(line.startswith(f"{name}: {verdict} ({outcome})") for line in lines), (name, lines)
    xmlschema = pytest.importorskip("xmlschema")
    from tests.conftest import REPO

    xmlschema.XMLSchema(str(REPO / "tests" / "data" / "junit-10.xsd")).validate(ET.tostring(root, encoding="unicode"))


def test_its_grading_reads_as_the_toy_says_in_the_csv_with_its_own_columns(hand, capsys):
    import csv
    import io

    from rubric_lsp.cli import main

    argv = ["grade", str(hand / "hand.deck.yaml"), "--response", str(hand / "played.txt"), "--no-cache"]
    assert main([*argv, "--format", "csv"]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert list(table[0])[-2:] == ["points", "played"]  # after the columns every result has
    assert [(r["name"], r["verdict"], r["outcome"], r["points"], r["played"]) for r in table] == [
        ("ace", "TRUMPS", "pass", "11", "True"),
        ("king", "FOLDS", "fail", "4", "False"),
        ("joker", "BUSTS", "fail", "-3", "True"),
        ("blank", "SHRUG", "skipped", "0", "False"),
    ]


def test_its_grading_reads_as_the_toy_says_in_the_html_report(hand, capsys):
    import re

    from rubric_lsp.cli import main

    pytest.importorskip("jinja2")
    pytest.importorskip("pygal")
    page = hand / "report.html"
    argv = ["grade", str(hand / "hand.deck.yaml"), "--response", str(hand / "played.txt"), "--no-cache"]
    assert main([*argv, "--report", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    rows = {name: outcome for outcome, name in re.findall(r'<tr class="(\w+)" data-criterion="(\w+)">', html)}
    assert rows == {"ace": "pass", "king": "fail", "joker": "fail", "blank": "skip"}
    for word, _ in GRADED.values():
        assert f">{word}</td>" in html
    assert re.search(r'class="num loss"[^>]*>-20\.0 %', html)  # the joker's 3 of 15 points, taken away


def test_the_server_marks_its_outcomes(hand):
    import asyncio

    from rubric_lsp.document.positions import Position, Range
    from rubric_lsp.engine.request import GradeRequest
    from rubric_lsp.engine.runner import grade
    from rubric_lsp.engine.settings import JudgeSettings
    from rubric_lsp.server.verdicts import shown_for_report

    request = GradeRequest.for_response(HAND, str(hand / "hand.deck.yaml"), "the ace and the joker")
    result = asyncio.run(grade(request, JudgeSettings()))
    top = Range(Position(0, 0), Position(0, 0))
    marks = shown_for_report(result, top).marks
    assert [(m.kind, m.label) for m in marks] == [
        ("met", "✓ TRUMPS"),
        ("unmet", "✗ FOLDS"),
        ("penalty-applied", "−3 joker"),
        ("cannot-assess", "? SHRUG"),
    ]
    assert [m.line for m in marks] == [2, 4, 6, 8]  # on each card, where it is written


# -- the language server ---------------------------------------------------------------------------
pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types  # noqa: E402

SERVER = [sys.executable, str(Path(__file__).resolve())]


@pytest_lsp.fixture(
    config=pytest_lsp.ClientServerConfig(server_command=SERVER, server_env={"LITELLM_LOCAL_MODEL_COST_MAP": "True"}),
    scope="module",
)
async def client(lsp_client: pytest_lsp.LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp("toy")

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams):
        return None

    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="toy")],
        )
    )
    lsp_client.root = root
    yield
    await lsp_client.shutdown_session()


def _open(client, name: str, text: str) -> str:
    uri = (client.root / name).as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text))
    )
    return uri


def _position(text: str, needle: str, delta: int = 0) -> types.Position:
    index = text.index(needle) + delta
    return types.Position(line=text.count("\n", 0, index), character=index - (text.rfind("\n", 0, index) + 1))


@pytest.mark.asyncio(loop_scope="module")
async def test_the_server_serves_the_toy_format(client):
    uri = _open(client, "hand.yaml", DECK)
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert [(d.code, d.range.start.line) for d in client.diagnostics[uri]] == [(CODE, 5)]

    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), _position(DECK, "joker"))
    )
    assert "**joker** is worth -3 of 8 points." in hover.contents.value
    on_key = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), _position(DECK, "points: 11", 2))
    )
    assert "never negative" in on_key.contents.value  # the key's description, from the toy's schema

    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    assert [(s.name, s.kind, s.detail) for s in symbols] == [
        ("ace", types.SymbolKind.Constant, "a card"),
        ("joker", types.SymbolKind.Constant, "a card"),
    ]

    typing = DECK + "  - name: \n"
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=2, uri=uri),
            [types.TextDocumentContentChangeWholeDocument(typing)],
        )
    )
    items = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), _position(typing, "name: \n", 6))
    )
    assert {"ace", "king", "queen"} <= {item.label for item in items.items}
    typing = DECK + "  - suit: \n"
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=3, uri=uri),
            [types.TextDocumentContentChangeWholeDocument(typing)],
        )
    )
    items = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), _position(typing, "suit: \n", 6))
    )
    assert {"hearts", "spades"} <= {item.label for item in items.items}  # the schema's enum


if __name__ == "__main__":
    register_toy()
    from rubric_lsp.server.main import main as serve

    sys.exit(serve([]))
