"""Hover: rule docs on a finding, a criterion's share of the score, a grader's origin,
a key's schema description, and the judge's reason on a graded criterion."""

from __future__ import annotations

import logging

from lsprotocol import types

from rubric_lsp.formats.registry import Format
from rubric_lsp.lint import LintResult
from rubric_lsp.rules.registry import get_rule
from rubric_lsp.server.app import RubricServer
from rubric_lsp.server.locate import Location, description_of, locate, schema_at

log = logging.getLogger(__name__)

AUTORUBRIC_RUBRIC = "autorubric-rubric"


def hover_markdown(ls: RubricServer, uri: str, result: LintResult, offset: int) -> str | None:
    parts: list[str] = []
    for diag in result.diagnostics:
        if diag.span.start <= offset <= diag.span.end:
            rule = get_rule(diag.code)
            if rule is not None and rule.markdown() not in parts:
                parts.append(rule.markdown() + f"\n\n[Documentation]({rule.docs_url})")
    root = result.document.root
    fmt = result.format
    if root is not None and fmt is not None:
        loc = locate(root, offset)
        verdict = _verdict_text(ls, uri, offset)
        if verdict:
            parts.append(verdict)
        for section in (
            _criterion_text(ls, fmt, root, offset),
            _grader_text(fmt, result, loc, offset),
            _key_text(fmt, loc),
        ):
            if section:
                parts.append(section)
    return "\n\n---\n\n".join(parts) or None


def _key_text(fmt: Format, loc: Location) -> str | None:
    if not loc.on_key or fmt.json_schema is None:
        return None
    try:
        schema = _schema(fmt)
    except Exception:
        log.exception("building the %s schema failed", fmt.name)
        return None
    subs = schema_at(schema, loc.path, loc.nodes)
    text = description_of(subs)
    if not text:
        return None
    kinds = sorted({s["type"] for s in subs if isinstance(s.get("type"), str) and s["type"] != "null"})
    enum = [v for s in subs for v in s.get("enum", [])]
    default = next((s["default"] for s in subs if "default" in s and s["default"] is not None), None)
    lines = [f"**`{loc.path[-1]}`**" + (f" ({' | '.join(kinds)})" if kinds else ""), "", text]
    if enum:
        lines += ["", "One of: " + ", ".join(f"`{v}`" for v in enum)]
    if default is not None:
        lines += ["", f"Default: `{default}`"]
    return "\n".join(lines)


_SCHEMAS: dict[str, dict] = {}


def _schema(fmt: Format) -> dict:
    if fmt.name not in _SCHEMAS:
        _SCHEMAS[fmt.name] = fmt.json_schema() if fmt.json_schema else {}
    return _SCHEMAS[fmt.name]


# -- autorubric criteria -------------------------------------------------------------------
def _criterion_text(ls: RubricServer, fmt: Format, root, offset: int) -> str | None:
    if fmt.name != AUTORUBRIC_RUBRIC:
        return None
    from rubric_lsp.formats.autorubric.view import read_rubric

    view = read_rubric(root)
    entry = next((e for e in view.entries if e.node.start <= offset <= e.node.end), None)
    if entry is None or entry.criterion is None:
        return None
    from rubric_lsp.server import scoring

    return scoring.describe(view, entry, ls.grading_strategy())


# -- promptfoo graders ---------------------------------------------------------------------
def _grader_text(fmt: Format, result: LintResult, loc: Location, offset: int) -> str | None:
    if not fmt.name.startswith("promptfoo"):
        return None
    try:
        from rubric_lsp.formats.promptfoo.resolve import read_config
    except ImportError:
        return None
    try:
        view = read_config(result.document.root, result.path, result.document)
        assertion = view.assertion_at(offset)
        if assertion is None or assertion.grader_kind is None:
            return None
        tests = view.tests_using(assertion) or [None]
        by_text: dict[str, list[str]] = {}
        for test in tests:
            choice = view.grader(assertion, test)
            by_text.setdefault(choice.describe(), []).append(test.label if test is not None else "every test")
    except Exception:
        log.exception("resolving the grader failed")
        return None
    head = f"**`{assertion.type}`** is model-graded."
    if len(by_text) == 1:
        return f"{head}\n\n{next(iter(by_text))}"
    lines = [head, ""]
    for text, labels in by_text.items():
        shown = ", ".join(labels[:5]) + (f" and {len(labels) - 5} more" if len(labels) > 5 else "")
        lines.append(f"- {shown}: {text}")
    return "\n".join(lines)


# -- verdicts from the last grading -----------------------------------------------------
def _verdict_text(ls: RubricServer, uri: str, offset: int) -> str | None:
    from rubric_lsp.server import verdicts

    return verdicts.verdict_hover(ls, uri, offset)


def register(ls: RubricServer) -> None:
    @ls.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: RubricServer, params: types.HoverParams):
        uri = params.text_document.uri
        if uri not in ls.workspace.text_documents:
            return None
        result = await ls.lint(uri)
        convert = ls.converter(result)
        offset = convert.offset(params.position)
        text = hover_markdown(ls, uri, result, offset)
        if not text:
            return None
        return types.Hover(contents=ls.markup("text_document.hover.content_format", text))
