"""promptfoo's deterministic assertions that need no code, as promptfoo 0.123.1 evaluates them.

Read from ``src/assertions/contains.ts``, ``equals.ts``, ``startsWith.ts``, ``regex.ts`` and
``json.ts``: each scores 1 (pass) or 0; ``not-`` flips the pass. Used by ``max-score``, whose
aggregate counts every other assertion of the test. The value is rendered with the test vars
first (Nunjucks), as promptfoo renders ``renderedValue``.

Left out (``evaluate`` returns None): ``javascript``, ``python``, ``webhook`` and other code or
network checks; ``latency`` and ``cost`` (a given response has neither); ``is-json`` /
``contains-json`` with a schema; a ``regex`` Python's ``re`` cannot compile (JavaScript syntax
it lacks), rather than a guessed verdict.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rubric_lsp.formats.promptfoo.grading.prompts import js_string, render
from rubric_lsp.formats.promptfoo.grading.reply_objects import reply_objects


def comma_separated(value: str) -> list[str]:
    """promptfoo's ``parseCommaSeparatedValues``: fields split on commas, ``"quoted, fields"`` kept whole."""
    results: list[str] = []
    i = 0
    length = len(value)
    while i < length:
        while i < length and (value[i].isspace() or value[i] == ","):
            i += 1
        if i >= length:
            break
        if value[i] == '"':
            i += 1
            field = ""
            while i < length:
                if value[i] == "\\" and i + 1 < length and value[i + 1] in '"\\':
                    field += value[i + 1]
                    i += 2
                elif value[i] == '"' and i + 1 < length and value[i + 1] == '"':
                    field += '"'
                    i += 2
                elif value[i] == '"':
                    i += 1
                    break
                else:
                    field += value[i]
                    i += 1
            results.append(field)
            while i < length and value[i].isspace():
                i += 1
        else:
            start = i
            while i < length and value[i] != ",":
                i += 1
            results.append(value[start:i].strip())
    return results


def _rendered(value: Any, test_vars: dict[str, Any]) -> Any:
    if isinstance(value, str):
        return render(value, test_vars)
    if isinstance(value, list):
        return [render(v, test_vars) if isinstance(v, str) else v for v in value]
    return value


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _contains(base: str, rendered: Any, output: str) -> bool | None:
    if not (isinstance(rendered, str) and rendered) and not (
        isinstance(rendered, (int, float)) and not isinstance(rendered, bool)
    ):
        return None  # promptfoo refuses the assertion (an error, not a score)
    needle = js_string(rendered)
    return needle.lower() in output.lower() if base == "icontains" else needle in output


def _contains_many(base: str, rendered: Any, output: str) -> bool | None:
    items = comma_separated(rendered) if isinstance(rendered, str) else rendered
    if not rendered or not isinstance(items, list):
        return None
    fold = base.startswith("i")
    haystack = output.lower() if fold else output
    found = [(js_string(v).lower() if fold else js_string(v)) in haystack for v in items]
    return any(found) if base.endswith("any") else all(found)


def _equals(base: str, rendered: Any, output: str) -> bool | None:
    if isinstance(rendered, (dict, list)):
        try:
            return bool(json.loads(output) == rendered)
        except ValueError:
            return False
    return js_string(rendered) == output


def _starts_with(base: str, rendered: Any, output: str) -> bool | None:
    return output.startswith(rendered) if isinstance(rendered, str) and rendered else None


def _regex(base: str, rendered: Any, output: str) -> bool | None:
    if not isinstance(rendered, str) or not rendered:
        return None
    try:
        pattern = re.compile(rendered)
    except re.error:
        return None
    return pattern.search(output) is not None


def _json(base: str, rendered: Any, output: str) -> bool | None:
    if rendered:
        return None  # a schema: not checked here
    return _parses(output) if base == "is-json" else bool(reply_objects(output))


_CHECKS = {
    "contains": _contains,
    "icontains": _contains,
    "contains-any": _contains_many,
    "contains-all": _contains_many,
    "icontains-any": _contains_many,
    "icontains-all": _contains_many,
    "equals": _equals,
    "starts-with": _starts_with,
    "regex": _regex,
    "is-json": _json,
    "contains-json": _json,
}


def evaluate(type_name: str, value: Any, output: str, test_vars: dict[str, Any]) -> float | None:
    """The assertion's score (1.0 or 0.0) on ``output``, or None when it is not evaluated here."""
    inverse = type_name.startswith("not-")
    base = type_name[4:] if inverse else type_name
    check = _CHECKS.get(base)
    if check is None:
        return None
    passed = check(base, _rendered(value, test_vars), output)
    if passed is None:
        return None
    return 1.0 if passed != inverse else 0.0
