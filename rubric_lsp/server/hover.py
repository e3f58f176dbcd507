"""Hover: rule docs on a finding, the judge's reason on a graded criterion, what the format's
editor hooks say at the cursor (e.g. a criterion's share of the score), a unit's calibration record (what
the calibration rule matched, calibration/check.py), and a key's schema description."""

from __future__ import annotations

import logging

from lsprotocol import types

from rubric_lsp.formats.editor import EditorContext
from rubric_lsp.formats.options import read_options
from rubric_lsp.formats.registry import Format, get_rule
from rubric_lsp.lint import LintResult
from rubric_lsp.rules.smells.evidence import named, smells_within
from rubric_lsp.server import labelling
from rubric_lsp.server.app import RubricServer
from rubric_lsp.server.locate import Location, description_of, locate, schema_at

log = logging.getLogger(__name__)


def hover_markdown(ls: RubricServer, uri: str, result: LintResult, offset: int) -> str | None:
    # A unit's calibration line first: its agreement figure with its interval and labels is what the hover is
    # for; RL020's rule text (when the unit has a finding) follows it rather than burying it.
    # Its smells right under it (docs/smells.md: smells beside the evidence).
    from rubric_lsp.calibration import check  # records and their figures: at a hover, never at start

    parts: list[str] = list(check.hover_lines(result.shared.get(check.VIEW_KEY) or [], offset))
    if parts:
        parts.extend(_smells_beside(result, offset))
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
        parts.extend(_format_text(ls, result, offset))
        parts.extend(labelling.hover_lines(result, offset))
        key = _key_text(fmt, loc)
        if key:
            parts.append(key)
    return "\n\n---\n\n".join(parts) or None


def _smells_beside(result: LintResult, offset: int) -> list[str]:
    """The smells of the calibrated units at the cursor, next to their record's agreement (docs/smells.md)."""
    from rubric_lsp.calibration import check

    lines: list[str] = []
    for found in result.shared.get(check.VIEW_KEY) or []:
        unit = found.unit
        if found.entry is not None and unit.holds(offset):
            codes = smells_within(result.diagnostics, unit.extent or unit.span)
            line = f"**Smells** of {unit.noun} `{unit.id}`: {named(codes)}" if codes else ""
            if line and line not in lines:
                lines.append(line)
    return lines


def _format_text(ls: RubricServer, result: LintResult, offset: int) -> list[str]:
    """The format's own hover sections, from its editor hooks, over the view the lint built."""
    assert result.format is not None
    try:
        hooks = result.format.editor_hooks()
        options = read_options(ls.grade_options(), result.format.grade_options)  # the format's, defaults filled in
        given = tuple(m for m in (ls.settings.judge_model, *ls.settings.judge_models) if m)
        context = EditorContext(result.document, result.view, options, given)
        return [text for text in hooks.hover(context, offset) if text]
    except Exception:
        log.exception("the %s hover hook failed", result.format.name)
        return []


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
        result = await ls.lint_with_smells(uri)
        convert = ls.converter(result)
        offset = convert.offset(params.position)
        text = hover_markdown(ls, uri, result, offset)
        if not text:
            return None
        return types.Hover(contents=ls.markup("text_document.hover.content_format", text))
