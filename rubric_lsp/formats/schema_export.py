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
