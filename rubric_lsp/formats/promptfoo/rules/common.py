"""Helpers the promptfoo checks share: the config view, the reporter that places findings
from referenced files at their reference, and small text edits."""

from __future__ import annotations

import json
from typing import Any

from rubric_lsp.diagnostics import Fix, Severity
from rubric_lsp.document import Node
from rubric_lsp.document.issues import TextEdit
from rubric_lsp.document.positions import Span
from rubric_lsp.formats.promptfoo import CONFIG
from rubric_lsp.formats.promptfoo.reading import read_config
from rubric_lsp.formats.promptfoo.resolve import ConfigView, Source
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import Rule

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO


def config_view(ctx: CheckContext) -> ConfigView | None:
    """The resolved config, computed once per document."""
    return ctx.view("promptfoo.view", lambda root: read_config(root, ctx.path, ctx.document))


class Reporter:
    """Reports on nodes of the config or of a referenced file (then at the reference)."""

    def __init__(self, ctx: CheckContext):
        self.ctx = ctx
        self.seen: set[tuple] = set()

    def __call__(
        self,
        rule_: Rule,
        source: Source,
        node: Node | Span,
        message: str,
        fix: Fix | None = None,
        related: list | None = None,
    ) -> None:
        span = node.span if isinstance(node, Node) else node
        key = (rule_.code, id(source), span.start, span.end, message)
        if key in self.seen:
            return
        self.seen.add(key)
        reference = source.reference
        if reference is None:  # source.is_config
            self.ctx.report(rule_, node, message, fix=fix, related=related)
            return
        doc = source.document
        line = doc.lines.position(span.start).line + 1 if doc is not None else 0
        name = source.path.name if source.path is not None else "referenced file"
        self.ctx.report(rule_, reference, f"{name} line {line}: {message}")


def text_of(node: Node | None) -> str | None:
    return node.value if node is not None and node.is_scalar and isinstance(node.value, str) else None


def rubric_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return "" if value is None else str(value)


def insert_key(ctx: CheckContext, mapping: Node, text: str) -> TextEdit | None:
    """An edit adding ``key: value`` (``text``) to ``mapping`` after its last pair."""
    pairs = mapping.pairs()
    if not pairs:
        return None
    doc = ctx.document
    if doc.text[mapping.start : mapping.start + 1] == "{":
        close = doc.text.rfind("}", mapping.start, mapping.end)
        return TextEdit(Span(close, close), f", {text}") if close != -1 else None
    first_key = pairs[0][0]
    indent = " " * doc.lines.position(first_key.start).character
    end = pairs[-1][1].end
    if doc.text[end - 1 : end] == "\n":  # a block scalar ends at the start of the next line
        return TextEdit(Span(end, end), f"{indent}{text}\n")
    line_end = doc.lines.line_end(doc.lines.position(end).line)
    rest = doc.text[end:line_end].strip()
    if not rest or rest.startswith("#"):
        end = line_end  # after a trailing comment, which stays with its line
    return TextEdit(Span(end, end), f"\n{indent}{text}")


def delete_pair(ctx: CheckContext, key: Node, value: Node) -> TextEdit | None:
    doc = ctx.document
    lines = doc.lines
    start = lines.position(key.start)
    end = lines.position(value.end)
    line_text = lines.line_text(start.line)
    if line_text[: start.character].strip() not in ("", "-"):
        return None  # flow mapping or key after other content: no clean line edit
    if line_text[: start.character].strip() == "-":
        return None
    begin = lines.offset(type(start)(start.line, 0))
    stop = lines.line_end(end.line)
    if doc.text[stop : stop + 1] == "\n":
        stop += 1
    return TextEdit(Span(begin, stop), "")


def js_truthy(node: Node | None) -> bool:
    """JavaScript's truthiness of the value (promptfoo tests `if (!config.prompts)`)."""
    if node is None:
        return False
    if not node.is_scalar:
        return True
    value = node.value
    return not (value is None or value is False or value == "" or (isinstance(value, (int, float)) and value == 0))


def no_items(node: Node | None) -> bool:
    """promptfoo's `[x].flat().filter(Boolean).length === 0`."""
    if node is not None and node.is_seq:
        return not any(js_truthy(item) for item in node.value)
    return not js_truthy(node)


def providers_node(root: Node) -> Node | None:
    """The providers promptfoo runs: `targets` replaces `providers` whenever it is truthy (readConfig)."""
    targets = root.get("targets")
    return targets if js_truthy(targets) else root.get("providers")


FACTUALITY_LIKE = {"factuality", "model-graded-factuality", "model-graded-closedqa"}

F = (CONFIG,)
