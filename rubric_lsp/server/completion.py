"""Completion of keys and values: what the format's JSON Schema lists, plus what its editor hooks know of.

Text being typed is rarely valid YAML, so the word under the cursor is replaced by a
placeholder (``__rubric_complete__``) and the result parsed: where the placeholder lands
in the tree says which keys or values fit there, and the format's JSON Schema lists them.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterable
from typing import Any

from lsprotocol import types

from rubric_lsp.document import Document, parse_document
from rubric_lsp.document.limits import DEFAULT_LIMITS
from rubric_lsp.document.positions import Span
from rubric_lsp.formats.registry import Format
from rubric_lsp.runtime import gc as collector
from rubric_lsp.server import labelling
from rubric_lsp.server.app import RubricServer
from rubric_lsp.server.hover import _schema
from rubric_lsp.server.locate import description_of, locate, schema_at

log = logging.getLogger(__name__)

PLACEHOLDER = "__rubric_complete__"
_KEY_LINE = re.compile(r"^(?P<indent>[ \t]*(?:-[ \t]+)*)(?P<word>[A-Za-z_$][\w$.\-]*)?$")
_VALUE_LINE = re.compile(
    r"^(?P<head>[ \t]*(?:-[ \t]+)*(?P<key>[A-Za-z_$][\w$.\-]*|\"[^\"]*\"|'[^']*')[ \t]*:(?P<space>[ \t]*))(?P<word>[^\s#]*)$"
)


def completions(
    fmt: Format | None, text: str, offset: int, language: str, markup=None, previous: Document | None = None
) -> tuple[list[types.CompletionItem], Span]:
    """Items for the cursor at ``offset``, and the span of text (the word typed so far) they replace.
    ``previous``: the reading of ``text`` (the last lint's): a value's probe, the text with the word typed so far
    replaced, is read from it (document/incremental.py) instead of in full."""
    nothing: tuple[list[types.CompletionItem], Span] = ([], Span(offset, offset))
    if fmt is None or language != "yaml":
        return nothing
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", offset)
    line_end = len(text) if line_end == -1 else line_end
    before = text[line_start:offset]
    value_match = _VALUE_LINE.match(before)
    if value_match:
        head = value_match.group("head")
        space = "" if value_match.group("space") else " "  # triggered by the ':' itself
        probe = text[:line_start] + head + space + PLACEHOLDER + text[line_end:]
        at = line_start + len(head) + len(space)
        items = _value_items(fmt, _probe(probe, at, previous), value_match.group("key").strip("\"'"), markup)
        for item in items:
            item.insert_text = space + item.label
        return items, Span(line_start + len(head), offset)
    key_match = _KEY_LINE.match(before)
    if key_match:
        probe = text[:line_start] + key_match.group("indent") + PLACEHOLDER + ": null" + text[line_end:]
        start = line_start + len(key_match.group("indent"))
        return _key_items(fmt, _probe(probe, start, previous), markup), Span(start, offset)
    return nothing


def _probe(probe: str, at: int, previous: Document | None = None):
    doc = None
    if previous is not None and previous.text != probe:
        from rubric_lsp.document.incremental import read_edit  # as lint_text: not before the first diagnostics

        doc = read_edit(previous, probe, previous.path, DEFAULT_LIMITS)  # the limits a full reading of it has
    if doc is None:
        doc = parse_document(probe, None, language="yaml")
    if doc.root is None:
        return None
    return locate(doc.root, at + 1)


def _key_items(fmt: Format, loc, markup=None) -> list[types.CompletionItem]:
    if loc is None or not loc.on_key or loc.path[-1:] != [PLACEHOLDER]:
        return []
    parent = loc.key_parent
    present = {k for k in (parent.keys() if parent is not None else []) if k != PLACEHOLDER}
    items: dict[str, types.CompletionItem] = {}
    for sub in schema_at(_schema(fmt), loc.path[:-1], loc.nodes, PLACEHOLDER):
        for key, prop in (sub.get("properties") or {}).items():
            if key in present or key in items or key.startswith("$"):
                continue
            description = _describe(fmt, [*loc.path[:-1], key])
            items[key] = types.CompletionItem(
                label=key,
                kind=types.CompletionItemKind.Property,
                insert_text=f"{key}: ",
                documentation=(markup(description) if markup else description) if description else None,
                detail=_type_of(prop),
            )
    return list(items.values())


def _value_items(fmt: Format, loc, key: str, markup=None) -> list[types.CompletionItem]:
    if loc is None or loc.node is None or loc.node.value != PLACEHOLDER:
        return []
    values: list[Any] = []
    docs: dict[str, str] = {}  # a value's documentation: the schema's enumDescriptions or a const's description
    for sub in schema_at(_schema(fmt), loc.path, loc.nodes, PLACEHOLDER):
        enum = sub.get("enum") or []
        values.extend(enum)
        for value, text in zip(enum, sub.get("enumDescriptions") or []):
            docs.setdefault(_yaml(value), text)
        if "const" in sub:
            values.append(sub["const"])
            if sub.get("description"):
                docs.setdefault(_yaml(sub["const"]), sub["description"])
        if sub.get("type") == "boolean":
            values.extend([True, False])
    # Values the schema cannot list (e.g. ids the format knows of): the format's completion hook.
    try:
        values.extend(fmt.editor_hooks().completion_values(list(loc.path), key))
    except Exception:
        log.exception("the %s completion hook failed", fmt.name)
    items = []
    for v in _unique(values):
        doc = docs.get(_yaml(v))
        items.append(
            types.CompletionItem(
                label=_yaml(v),
                kind=types.CompletionItemKind.EnumMember if not isinstance(v, bool) else types.CompletionItemKind.Value,
                documentation=(markup(doc) if markup else doc) if doc else None,
            )
        )
    return items


def _unique(values: Iterable[Any]) -> list[Any]:
    seen, out = set(), []
    for v in values:
        key = (type(v), v) if not isinstance(v, (list, dict)) else repr(v)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def _yaml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


def _describe(fmt: Format, path: list[Any]) -> str | None:
    return description_of(schema_at(_schema(fmt), path))


def _type_of(prop: dict) -> str | None:
    kinds = []
    for option in [prop, *(prop.get("anyOf") or [])]:
        kind = option.get("type")
        if isinstance(kind, str) and kind != "null" and kind not in kinds:
            kinds.append(kind)
    return " | ".join(kinds) or None


def _items(fmt: Format | None, document: Document, offset: int, markup: Any) -> tuple[list[types.CompletionItem], Span]:
    """The items for ``offset`` in ``document`` (the last lint's reading), and the span they replace."""
    if document.language == "json":
        found = labelling.completions(fmt, document.text, offset)
        if found is not None:
            return found
    with collector.paused():  # the probe's nodes are freed before the collector could walk them
        return completions(fmt, document.text, offset, document.language, markup, previous=document)


def register(ls: RubricServer) -> None:
    @ls.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[":"]))
    async def completion(ls: RubricServer, params: types.CompletionParams):
        uri = params.text_document.uri
        if uri not in ls.workspace.text_documents:
            return None
        result = await ls.lint(uri)
        state = ls.state(uri)
        if result.format is not None:
            state.extra["format"] = result.format
        fmt = result.format or state.extra.get("format")
        offset = ls.converter(result).offset(params.position)
        try:
            markup = lambda text: ls.markup("text_document.completion.completion_item.documentation_format", text)  # noqa: E731
            # Off the event loop: a key's probe is read in full (~0.13 s in a 1.3 MB config), and the loop answers
            # the other requests meanwhile. Not in the lint pool: a lint running there would hold it back.
            items, replace = await asyncio.get_running_loop().run_in_executor(
                None, _items, fmt, result.document, offset, markup
            )
        except Exception:
            log.exception("completion failed")
            items, replace = [], Span(offset, offset)
        edit_range = ls.converter(result).span(replace)
        for item in items:
            item.text_edit = types.TextEdit(range=edit_range, new_text=item.insert_text or item.label)
            item.insert_text = None
        return types.CompletionList(is_incomplete=False, items=items)
