"""promptfoo's deterministic and JavaScript-decided assertions, as promptfoo 0.123.1 evaluates them.

Read from the handlers in ``dist/src/evaluator-*.js`` (``src/assertions/contains.ts``,
``equals.ts``, ``startsWith.ts``, ``regex.ts``, ``json.ts``, ``levenshtein.ts``,
``javascript.ts``): each scores 1 (pass) or 0 with promptfoo's own reason (``Expected output to
contain "refund"``), a javascript value its own score; ``not-`` flips the pass. Every graded test
runs them (``response`` counts them with the model-graded verdicts), and ``max-score`` counts their
scores as every other assertion's (``max_score``). The value is rendered with the test vars first
(Nunjucks), as promptfoo renders ``renderedValue``.

JavaScript runs where promptfoo runs it, in V8 (``javascript``): ``regex`` (``new
RegExp(value)``), ``javascript`` values, an assertion's inline ``transform``. Schemas go to
``json_schema`` (Ajv's draft-07, strict), ``levenshtein`` counts UTF-16 code units (rapidfuzz).

Not run here (``check`` returns None, or raises ``Declined`` saying why): ``python``, ``webhook``
and other code or network checks; ``latency`` and ``cost`` (a given response has neither); a
``file://`` or ``package:`` value or transform (promptfoo loads or runs it); a javascript value or
transform handed the object a test's ``options.transform`` made (``transforms``); JavaScript without the engine or reaching what the sandbox has not. A value
the handler's ``invariant`` refuses raises ``Refused`` with promptfoo's message (promptfoo errors the
whole test); a runaway script or a transform that throws raises ``Errored`` (an ERROR verdict).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rubric_lsp.formats.promptfoo.grading.checked import Checked, Declined, Refused, checked, js_parses
from rubric_lsp.formats.promptfoo.grading.javascript import run_js
from rubric_lsp.formats.promptfoo.grading.json_schema import schema_check
from rubric_lsp.formats.promptfoo.grading.prompts import UNDEFINED, js_json, js_number, js_string, render
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


def _truthy(value: Any) -> bool:
    """JavaScript truthiness of a JSON value: an empty list or object is true, 0 and '' are not."""
    if isinstance(value, (list, dict)):
        return True
    return value is not UNDEFINED and bool(value)


def _contains(base: str, rendered: Any, output: str, inverse: bool) -> Checked | None:
    number = isinstance(rendered, (int, float)) and not isinstance(rendered, bool) and rendered == rendered
    if not (isinstance(rendered, str) and rendered) and not number:
        raise Refused(f'"{base}" assertion type must have a string or number value')
    needle = js_string(rendered)
    found = needle.lower() in output.lower() if base == "icontains" else needle in output
    return checked(found != inverse, f'contain "{needle}"', inverse)


def _contains_many(base: str, rendered: Any, output: str, inverse: bool) -> Checked | None:
    if not _truthy(rendered):
        raise Refused(f'"{base}" assertion type must have a value')
    items = comma_separated(rendered) if isinstance(rendered, str) else rendered
    if not isinstance(items, list):
        raise Refused(f'"{base}" assertion type must have an array value')
    fold = base.startswith("i")
    haystack = output.lower() if fold else output
    texts = [js_string(v) for v in items]
    missing = [t for t in texts if (t.lower() if fold else t) not in haystack]
    if base.endswith("any"):
        return checked((len(missing) < len(texts)) != inverse, f'contain one of "{", ".join(texts)}"', inverse)
    what = f"contain all of [{', '.join(texts)}]. Missing: [{', '.join(missing)}]"
    return checked((not missing) != inverse, what, inverse)


def _equals(base: str, rendered: Any, output: str, inverse: bool) -> Checked | None:
    if isinstance(rendered, (dict, list)) or rendered is None:  # typeof null is "object" too
        try:
            same = _strict_equal(rendered, json.loads(output))
        except ValueError:
            same = False
        expected = js_json(rendered)
    else:
        expected = "undefined" if rendered is UNDEFINED else js_string(rendered)
        same = expected == output
    passed = same != inverse
    reason = f'Expected output "{output}" to {"not " if inverse else ""}equal "{expected}"'
    return Checked(passed, "Assertion passed" if passed else reason)


def _strict_equal(a: Any, b: Any) -> bool:
    """util.isDeepStrictEqual on JSON values: true is not 1, 1 is 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_strict_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return False
    return bool(a == b) and (a is None) == (b is None)


def _starts_with(base: str, rendered: Any, output: str, inverse: bool) -> Checked | None:
    if not (isinstance(rendered, str) and rendered):
        raise Refused('"starts-with" assertion type must have a string value')
    return checked(output.startswith(rendered) != inverse, f'start with "{rendered}"', inverse)


def _regex(base: str, rendered: Any, output: str, inverse: bool) -> Checked | None:
    if not (isinstance(rendered, str) and rendered):
        raise Refused('"regex" assertion type must have a string value')
    # JavaScript's RegExp decides (Python's re reads (?P<n>…), \\Z and {,3} otherwise): V8, or not run.
    matched = run_js(lambda js: js.regex_test(rendered, output))
    if isinstance(matched, str):  # a pattern V8 refuses fails, not- included
        return Checked(False, f"Invalid regex pattern: {matched}")
    return checked(matched != inverse, f'match regex "{rendered}"', inverse)


def _json(base: str, rendered: Any, output: str, inverse: bool) -> Checked | None:
    if _truthy(rendered):
        return schema_check(base, rendered, output, inverse)
    if base == "is-json":
        return checked(js_parses(output) != inverse, "be valid JSON", inverse)
    return checked(bool(reply_objects(output)) != inverse, "contain valid JSON", inverse)


def _levenshtein(base: str, rendered: Any, output: str, inverse: bool, threshold: Any = UNDEFINED) -> Checked:
    """``handleLevenshtein``: fastest-levenshtein's distance over UTF-16 code units, ``threshold ?? 5``."""
    if not isinstance(rendered, str):
        raise Refused('"levenshtein" assertion type must have a string value')
    try:
        from rapidfuzz.distance import Levenshtein
    except ImportError:
        raise Declined("levenshtein is computed with rapidfuzz (the [grade] extra), which is not installed") from None
    distance = Levenshtein.distance(_utf16(output), _utf16(rendered))
    limit = 5 if threshold is None or threshold is UNDEFINED else threshold
    passed = (distance <= js_number(limit)) != inverse  # `<=` turns a string threshold into a number
    what = "less than or equal to" if inverse else "greater than"
    return Checked(
        passed,
        "Assertion passed" if passed else f"Levenshtein distance {distance} is {what} threshold {js_string(limit)}",
    )


def _utf16(text: str) -> list[int]:
    """A JavaScript string's code units (an emoji is two), as JavaScript measures strings."""
    return memoryview(text.encode("utf-16-le", "surrogatepass")).cast("H").tolist()


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
# Handlers that read more than the value (the assertion's threshold, config, transform): see check().
_WITH_EXTRAS = ("levenshtein", "javascript")


def is_checked_here(type_name: str) -> bool:
    base = type_name[4:] if type_name.startswith("not-") else type_name
    return base in _CHECKS or base in _WITH_EXTRAS


@dataclass(frozen=True)
class Extras:
    """What a few handlers read besides the value: the assertion's ``threshold``, ``config`` and ``transform``."""

    threshold: Any = UNDEFINED
    config: Any = UNDEFINED
    transform: Any = UNDEFINED
    # The test's options.transform made an object, not text: a javascript value or a transform gets the object.
    object_output: bool = False


def check(
    type_name: str, value: Any, output: str, test_vars: dict[str, Any], extras: Extras | None = None
) -> Checked | None:
    """promptfoo's result of the assertion on ``output``, or None when it is not run here.

    Raises ``Refused`` where promptfoo's handler refuses the value (the test errors), ``Declined``
    (not run, with why) and ``Errored`` (an ERROR: a runaway script, a transform that fails)."""
    extras = extras or Extras()
    inverse = type_name.startswith("not-")
    base = type_name[4:] if inverse else type_name
    run = _CHECKS.get(base)
    if (run is None and base not in _WITH_EXTRAS) or (
        isinstance(value, str) and value.startswith(("file://", "package:"))
    ):
        return None
    transform = extras.transform
    if extras.object_output and (base == "javascript" or transform not in (UNDEFINED, None, "")):
        raise Declined("promptfoo hands it the object the test's options.transform made, not its text")
    if transform is not UNDEFINED and transform is not None:
        if not isinstance(transform, str) or transform.startswith("file://"):
            return None  # a file or a function: not run here
        if base != "javascript":  # javascript gets the transformed value itself, not its text
            output = run_js(lambda js: js.transformed(transform, output, test_vars))
    rendered = _rendered(value, test_vars)
    if base == "javascript":
        return _javascript(rendered, output, test_vars, inverse, extras)
    if base == "levenshtein":
        return _levenshtein(base, rendered, output, inverse, extras.threshold)
    assert run is not None
    return run(base, rendered, output, inverse)


def _javascript(rendered: Any, output: str, test_vars: dict[str, Any], inverse: bool, extras: Extras) -> Checked:
    """``handleJavascript`` with an inline value, run in V8 (``javascript``)."""
    if not isinstance(rendered, str):
        # The handler's invariant sits inside its try: promptfoo fails the assertion, it does not error the test.
        return Checked(
            False, "Custom function threw error: Invariant failed: javascript assertion must have a string value"
        )
    transform = None if extras.transform in (UNDEFINED, None) else extras.transform
    scripted = run_js(
        lambda js: js.javascript_assertion(
            rendered,
            output,
            test_vars,
            config=js.UNSET if extras.config in (UNDEFINED, None) else extras.config,
            threshold=js.UNSET if extras.threshold is UNDEFINED else extras.threshold,
            inverse=inverse,
            transform=transform,
        )
    )
    return Checked(scripted.passed, scripted.reason, scripted.score)
