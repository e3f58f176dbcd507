"""A fix that changes nothing, or renames onto a key the mapping already has, is never offered: it could
only be offered again and again (the fuzz found AR022's rename of a key onto its own spelling)."""

from __future__ import annotations

from rubric_lsp.document import parse_document
from rubric_lsp.lint import lint_text
from rubric_lsp.rules.any_file import SYNTAX_ERROR
from rubric_lsp.rules.context import CheckContext


def test_a_fix_whose_edits_change_nothing_is_dropped():
    text = "expect: 1\n"
    ctx = CheckContext(parse_document(text, "x.yaml"), None, None)
    key = ctx.document.root.key_node("expect")
    ctx.report(SYNTAX_ERROR, key, "m", fix=ctx.rename(key, "expect", "Rename to 'expect'"))
    ctx.report(SYNTAX_ERROR, key, "m", fix=ctx.rename(key, "expected", "Rename to 'expected'"))
    assert [d.fix is None for d in ctx.diagnostics] == [True, False]


def test_no_rename_onto_a_key_the_example_already_has():
    base = "criteria:\n  - requirement: Cites a source\nexamples:\n  - name: good\n    response: Paris\n    e`xpect: {min_score: 0.5}\n"
    alone = lint_text(base, "r.rubric.yaml").diagnostics
    assert [(d.code, d.fix is not None) for d in alone] == [("AR022", True)]
    both = lint_text(base + "    expect: {min_score: 0.2}\n", "r.rubric.yaml").diagnostics
    assert [(d.code, d.fix) for d in both] == [("AR022", None)]
