"""The outline of every file in the shared corpus: each item's selection lies inside it.

VS Code rejects a whole documentSymbol answer when one symbol's selectionRange is not
inside its range (promptfoo's ``prompts``/``providers`` once had the key outside the value).
The server also widens such a range as a last resort; this test checks the formats' own
outline hooks, before that, so a hook that gets it wrong fails here.
"""

from __future__ import annotations

from pathlib import Path

from rubric_lsp.document import parse_document
from rubric_lsp.formats.editor import EditorContext, OutlineItem
from rubric_lsp.formats.registry import detect
from rubric_lsp.server.symbols import to_symbol

SUFFIXES = (".yaml", ".yml", ".json", ".jsonl")


def _misplaced(items: list[OutlineItem], parent: OutlineItem | None = None) -> list[str]:
    bad = []
    for item in items:
        select = item.selection_span or item.span
        if not (item.span.start <= select.start and select.end <= item.span.end):
            bad.append(f"{item.name}: selection {select} outside {item.span}")
        if parent is not None and not (parent.span.start <= item.span.start and item.span.end <= parent.span.end):
            bad.append(f"{item.name}: {item.span} outside its parent {parent.name} {parent.span}")
        bad += _misplaced(item.children, item)
    return bad


def test_every_outline_item_holds_its_selection(corpus: Path):
    checked: dict[str, int] = {}
    problems = []
    for path in sorted(p for p in corpus.rglob("*") if p.suffix in SUFFIXES and p.is_file()):
        doc = parse_document(path.read_bytes(), str(path))
        fmt = detect(doc)
        if fmt is None or doc.root is None:
            continue
        items = fmt.editor_hooks().outline(EditorContext(doc, fmt.build_view(doc)))
        checked[fmt.name] = checked.get(fmt.name, 0) + len(items)
        problems += [f"{path.relative_to(corpus)}: {p}" for p in _misplaced(items)]
    assert not problems, "\n".join(problems[:20])
    # The corpus has files of these kinds, with outlines (the test must not pass on nothing).
    assert {"promptfoo-config", "autorubric-rubric", "northstar-eval-run-request"} <= {
        name for name, count in checked.items() if count
    }, checked


def test_a_selection_outside_its_item_widens_the_symbol():
    from rubric_lsp.document.positions import Span
    from rubric_lsp.server.positions import Converter

    doc = parse_document("prompts:\n  - hi\n", "promptfooconfig.yaml")
    item = OutlineItem("prompts", "Module", Span(11, 15), Span(0, 7))
    symbol = to_symbol(Converter(doc.lines, "utf-16"), item)
    assert symbol.range.start.line == 0 and symbol.range.end.line == 1
    assert symbol.selection_range.start.line == 0 and symbol.selection_range.end.character == 7
