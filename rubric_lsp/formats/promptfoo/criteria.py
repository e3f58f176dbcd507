"""A promptfoo config's model-graded values as the smell rules read them (``Format.criteria``, docs/smells.md):
each llm-rubric, g-eval (each of its criteria), model-graded-closedqa, factuality and select-best value, and
their ``not-`` forms (a not- assertion penalises what its value describes). The assertions of one test are
scored together (its own and defaultTest's); a factuality value is the reference answer (content), and
select-best picks among outputs. promptfoo has no penalty weights, so no-penalties does not apply.

A value read from a text file (``value: file://rubric.txt``) is read as promptfoo reads it (the file's text,
trimmed: ``processFileReference`` in promptfoo 0.123.1's dist/src/index.js) and its findings are reported on the
reference, whose words are all this file holds of it; the file is among the lint's dependencies already (RL010's
walk), so an edit to it re-lints the config in the editor. A ``.json``/``.yaml`` value (an object) and a script
(run by promptfoo, never here) are not read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rubric_lsp.document import Document, Node
from rubric_lsp.document.files import read_regular_text
from rubric_lsp.formats.promptfoo import refs
from rubric_lsp.formats.promptfoo.reading import read_config
from rubric_lsp.formats.promptfoo.resolve import AssertionInfo, ConfigView, TestInfo, numbers_text
from rubric_lsp.rules.smells.criteria import CriterionText, Piece, RubricTexts

MODEL_GRADED = frozenset(
    name
    for base in (
        "llm-rubric",
        "g-eval",
        "model-graded-closedqa",
        "factuality",
        "model-graded-factuality",
        "select-best",
    )
    for name in (base, f"not-{base}")
)


def config_criteria(doc: Document, view: Any) -> list[RubricTexts]:
    if doc.root is None:
        return []
    config = view if isinstance(view, ConfigView) else read_config(doc.root, doc.path, doc)
    out: list[RubricTexts] = []
    seen: set[int] = set()
    for test in ([config.default_test] if config.default_test is not None else []) + config.tests:
        criteria: list[CriterionText] = []
        for assertion in test.assertions:
            if id(assertion.node) in seen and test is not config.default_test:
                continue  # a defaultTest assertion is reported once, with defaultTest
            seen.add(id(assertion.node))
            criteria += _criteria(doc, assertion, len(criteria))
        if criteria and test.node is not None:
            out.append(RubricTexts(_name(test), test.node.span, tuple(criteria)))
    return out


def _name(test: TestInfo) -> str:
    """promptfoo's number(s) of the test (``--test N``), as every message names it."""
    return "defaultTest" if test.index < 0 else numbers_text(test.numbers() if test.numbers else [], test.index)


def _criteria(doc: Document, assertion: AssertionInfo, before: int) -> list[CriterionText]:
    kind = assertion.type
    value = assertion.field("value")
    if kind not in MODEL_GRADED or value is None or not assertion.source.is_config:
        return []
    base = kind.removeprefix("not-")
    nodes = [value] if value.is_scalar else [v for v in value.value if v.is_scalar] if value.is_seq else []
    out: list[CriterionText] = []
    for node in nodes:
        text = node.value
        if not isinstance(text, str) or not text.strip():
            continue
        piece = _piece(doc, node, text) if not text.startswith(refs.PREFIX) else _read_value(doc, node, text)
        if piece is None:
            continue
        out.append(
            CriterionText(
                f"{base} assertion {before + len(out) + 1}",
                piece,
                penalty=kind.startswith("not-"),
                scope="content" if base in ("factuality", "model-graded-factuality") else "instruction",
                choice=base == "select-best",
            )
        )
    return out


def _piece(doc: Document, node: Node, text: str) -> Piece:
    return Piece.of(node, text, doc.text)


def _read_value(doc: Document, node: Node, text: str) -> Piece | None:
    """The text file a ``file://`` value names, as promptfoo reads it; None when it is not a readable text file."""
    ref = refs.parse_ref(text)
    if ref is None or ref.is_glob or ref.function is not None or ref.suffix != ".txt" or doc.path is None:
        return None
    try:
        read = read_regular_text(refs.resolve_path(ref, Path(doc.path).resolve().parent)).strip()
    except (OSError, UnicodeDecodeError):
        return None  # RL010 / RL012 say why
    return Piece.elsewhere(read, node.span) if read else None
