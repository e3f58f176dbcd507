"""Document symbols (the outline): criteria and sections, promptfoo tests and assertions."""

from __future__ import annotations

import logging

from lsprotocol import types

from rubric_lsp.document import Node
from rubric_lsp.lint import LintResult
from rubric_lsp.server.app import RubricServer
from rubric_lsp.server.positions import Converter

log = logging.getLogger(__name__)

K = types.SymbolKind


def _symbol(
    convert: Converter,
    name: str,
    kind: types.SymbolKind,
    node: Node,
    detail: str | None = None,
    children: list[types.DocumentSymbol] | None = None,
    select: Node | None = None,
) -> types.DocumentSymbol:
    rng = convert.span(node.span)
    return types.DocumentSymbol(
        name=name or "(unnamed)",
        kind=kind,
        range=rng,
        selection_range=convert.span((select or node).span) if select is not None else rng,
        detail=detail,
        children=children or None,
    )


def _short(text, limit: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def autorubric_symbols(convert: Converter, root: Node) -> list[types.DocumentSymbol]:
    from rubric_lsp.formats.autorubric.view import read_rubric

    view = read_rubric(root)
    sections: dict[int, types.DocumentSymbol] = {}
    out: list[types.DocumentSymbol] = []
    for entry in view.entries:
        node = entry.node
        requirement = node.get("requirement") if node.is_map else None
        name = entry.label
        weight = entry.criterion.weight if entry.criterion is not None else None
        detail = (f"weight {weight:g}" if weight is not None else "invalid") + (
            f" · {_short(requirement.value, 40)}"
            if requirement is not None and requirement.is_scalar and requirement.value
            else ""
        )
        symbol = _symbol(
            convert,
            name,
            K.Property,
            node,
            detail,
            select=node.key_node("name") or node.key_node("requirement") if node.is_map else None,
        )
        if entry.section is not None:
            section = sections.get(id(entry.section))
            if section is None:
                title = entry.section.get("name")
                section = _symbol(
                    convert,
                    str(title.value) if title is not None and title.is_scalar else "section",
                    K.Namespace,
                    entry.section,
                )
                section.children = []
                sections[id(entry.section)] = section
                out.append(section)
            section.children.append(symbol)
        else:
            out.append(symbol)
    examples = root.get("examples") if root.is_map else None
    if examples is not None and examples.is_seq:
        children = []
        for i, ex in enumerate(examples.elements()):
            name = ex.get("name") if ex.is_map else None
            children.append(
                _symbol(
                    convert, str(name.value) if name is not None and name.is_scalar else f"example {i + 1}", K.Event, ex
                )
            )
        out.append(_symbol(convert, "examples", K.Array, examples, children=children))
    return out


def promptfoo_symbols(convert: Converter, root: Node) -> list[types.DocumentSymbol]:
    out: list[types.DocumentSymbol] = []
    if not root.is_map:
        return out
    default = root.get("defaultTest")
    if default is not None and default.is_map:
        out.append(_symbol(convert, "defaultTest", K.Class, default, children=_assertions(convert, default)))
    tests = root.get("tests")
    if tests is not None and tests.is_seq:
        children = []
        for i, test in enumerate(tests.elements()):
            if not test.is_map:
                continue
            description = test.get("description")
            name = (
                _short(description.value)
                if description is not None and description.is_scalar and description.value
                else f"test {i + 1}"
            )
            children.append(_symbol(convert, name, K.Method, test, children=_assertions(convert, test)))
        out.append(_symbol(convert, "tests", K.Array, tests, children=children))
    for key in ("prompts", "providers", "targets", "redteam", "scenarios"):
        node = root.get(key)
        if node is not None:
            out.append(_symbol(convert, key, K.Module, node, select=root.key_node(key)))
    return out


def _assertions(convert: Converter, test: Node) -> list[types.DocumentSymbol]:
    found = []
    asserts = test.get("assert")
    for item in asserts.elements() if asserts is not None and asserts.is_seq else []:
        if not item.is_map:
            continue
        kind = item.get("type")
        value = item.get("value")
        name = str(kind.value) if kind is not None and kind.is_scalar else "assertion"
        detail = _short(value.value, 50) if value is not None and value.is_scalar and value.value is not None else None
        found.append(
            _symbol(
                convert,
                name,
                K.Boolean,
                item,
                detail,
                children=_assertions(convert, item) if name == "assert-set" else None,
            )
        )
    return found


def generic_symbols(convert: Converter, node: Node, depth: int = 0) -> list[types.DocumentSymbol]:
    out = []
    if depth > 2 or not node.is_map:
        return out
    for key, value in node.pairs():
        if not key.is_scalar:
            continue
        kind = K.Object if value.is_map else K.Array if value.is_seq else K.Field
        end = value if value.end >= key.end else key
        span_node = Node("map", key.start, end.end, None)
        out.append(
            _symbol(
                convert,
                str(key.value),
                kind,
                span_node,
                children=generic_symbols(convert, value, depth + 1),
                select=key,
            )
        )
    return out


def document_symbols(ls: RubricServer, result: LintResult) -> list[types.DocumentSymbol]:
    root = result.document.root
    if root is None or result.format is None:
        return []
    convert = ls.converter(result)
    name = result.format.name
    if name == "autorubric-rubric":
        return autorubric_symbols(convert, root)
    if name.startswith("promptfoo"):
        return promptfoo_symbols(convert, root)
    return generic_symbols(convert, root)


def register(ls: RubricServer) -> None:
    @ls.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def symbols(ls: RubricServer, params: types.DocumentSymbolParams):
        uri = params.text_document.uri
        if uri not in ls.workspace.text_documents:
            return None
        result = await ls.lint(uri)
        try:
            return document_symbols(ls, result)
        except Exception:
            log.exception("outline failed")
            return []
