"""The exported JSON Schemas as other editors read them (Red Hat's YAML server, VS Code's JSON).

pydantic's schemas are correct but noisy in an editor:

- every field and model gets an automatic ``title`` (``"Threshold"``); the YAML server shows
  the titles of every schema that matches a key, so a hover read "Threshold || Threshold";
- an optional field carries ``"default": null``, which completion inserts as the value
  (``threshold: ${1:null}``) — ``null`` is never what the owner tool wants written;
- descriptions are plain text, so quoted keys and values show as prose.

``for_editors`` removes the titles (the root's too: the YAML server shows it as the heading
of every hover below it that has none) and the null defaults, and adds a
``markdownDescription`` (code spans for quoted keys and values) where the description quotes
any. Nothing here changes what the schema accepts.
"""

from __future__ import annotations

import json
import re
from typing import Any

# Keywords whose value is one subschema, a list of them, or a name -> subschema mapping.
_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "additionalItems")
_LIST = ("anyOf", "oneOf", "allOf", "prefixItems")
_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
# 'key' or 'key: value' in single quotes, not an apostrophe inside a word (promptfoo's, don't).
_QUOTED = re.compile(r"(?<![\w'])'([^'\n]{1,80})'(?![\w])")


def for_editors(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema without automatic titles and null defaults, with Markdown descriptions; a new dict."""
    return dict(_clean(schema))


def markdown(description: str) -> str | None:
    """The description with its quoted keys and values as code spans; None when it quotes none."""
    if not _QUOTED.search(description):
        return None
    return _QUOTED.sub(lambda m: f"`{m.group(1)}`", description)


def _clean(node: Any) -> Any:
    if isinstance(node, list):
        return [_clean(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" or (key == "default" and value is None):
            continue
        if key in _ONE:
            out[key] = _clean(value)
        elif key in _LIST and isinstance(value, list):
            out[key] = [_clean(item) for item in value]
        elif key in _MAP and isinstance(value, dict):
            out[key] = {name: _clean(sub) for name, sub in value.items()}
        else:
            out[key] = value  # enum, const, examples, required, ...: data, not schemas
    description = out.get("description")
    if isinstance(description, str) and "markdownDescription" not in out:
        md = markdown(description)
        if md is not None:
            out["markdownDescription"] = md
    return out


# -- completion-only schemas ---------------------------------------------------------------------------
# The keywords that can make validation fail: a completion-only schema has none of them.
_FAILING = frozenset(
    [
        "type",
        "required",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "minContains",
        "maxContains",
        "propertyNames",
        "dependentRequired",
        "dependencies",
        "not",
        "if",
        "deprecated",
        "deprecationMessage",
        "errorMessage",
        "patternErrorMessage",
        "unevaluatedProperties",
        "unevaluatedItems",
        "additionalItems",
        "contains",
    ]
)
_STRIPPED_ONE = ("items", "additionalProperties")


def completion_only(schema: Any) -> Any:
    """The schema for an editor beside rubric-lsp: property names, descriptions, defaults and allowed values
    (as ``examples``) stay, so Red Hat's YAML server and VS Code's JSON service complete and hover, but every
    keyword that can make validation fail goes, so nothing rubric-lsp reports is reported twice in vaguer
    words (``additionalProperties: false`` became "Property requirment is not allowed" beside AR001).
    ``oneOf`` becomes ``anyOf`` (stripped branches all match); a discriminator's ``then``/``else`` stay as
    alternatives. What ``rubric schema --write`` puts in ``schemas/completion/`` and the VS Code extension ships."""
    if isinstance(schema, list):
        return [completion_only(item) for item in schema]
    if not isinstance(schema, dict):
        return schema  # a boolean schema stays
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _FAILING or (key == "additionalProperties" and value is False):
            continue
        if key in ("enum", "const", "examples"):
            values = [value] if key == "const" else value if isinstance(value, list) else []
            out["examples"] = _distinct([*out.get("examples", []), *values])
        elif key in ("then", "else"):
            out["anyOf"] = [*out.get("anyOf", []), completion_only(value)]
        elif key in _STRIPPED_ONE:
            out[key] = completion_only(value)
        elif key in _MAP and isinstance(value, dict):
            out[key] = {name: completion_only(sub) for name, sub in value.items()}
        elif key in _LIST and isinstance(value, list):
            name = "anyOf" if key == "oneOf" else key
            out[name] = [*out.get(name, []), *(completion_only(item) for item in value)]
        else:
            out[key] = value
    return out


def _distinct(values: list[Any]) -> list[Any]:
    seen: set[str] = set()
    kept = []
    for value in values:
        key = json.dumps(value, sort_keys=True)
        if key not in seen:
            seen.add(key)
            kept.append(value)
    return kept
