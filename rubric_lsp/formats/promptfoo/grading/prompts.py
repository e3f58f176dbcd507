"""promptfoo's grading prompts as promptfoo renders them: Nunjucks-like variables, JavaScript value semantics.

Split from ``assertions`` (which grades the assertions with these prompts): how a value
becomes text (``js_string``, ``js_json``, ``js_number``), how a template is rendered
(``render``), and the messages of the built-in and custom rubric prompts.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

GRADING_SYSTEM = (
    "You grade an output against a rubric. Decide whether the output satisfies the rubric and how well.\n"
    'Reply with one JSON object and nothing else: {"reason": "<why>", "pass": true|false, "score": <number from 0.0 to 1.0>}'
)
GRADING_USER = "<Output>\n{{ output }}\n</Output>\n<Rubric>\n{{ rubric }}\n</Rubric>"

_VARIABLE = re.compile(r"\{\{-?\s*([A-Za-z_][\w.]*)\s*(\|[^}]*)?-?\}\}")


class _Undefined:
    """JavaScript's ``undefined`` (a missing key), as opposed to ``None`` (JSON ``null``)."""

    def __repr__(self) -> str:
        return "undefined"


UNDEFINED: Any = _Undefined()

# What JavaScript's String.prototype.trim() strips (Number() trims the same set).
_JS_SPACE = " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_JS_RADIX = re.compile(r"0([xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)")


def js_number(value: Any) -> float:
    """JavaScript's ``Number(value)`` for JSON-like values (``UNDEFINED`` for a missing one).

    null → 0, true/false → 1/0, "" and whitespace → 0, " 1 " → 1, "0x10" → 16, "1_0" → NaN,
    "Infinity" → inf, [] → 0, [0.3] → 0.3, [1, 2] → NaN, objects and undefined → NaN."""
    if value is UNDEFINED:
        return math.nan
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, list):
        return js_number(js_string(value))  # ToPrimitive of an array is its join(",")
    if not isinstance(value, str):
        return math.nan  # objects: "[object Object]"
    text = value.strip(_JS_SPACE)
    if not text:
        return 0.0
    if text in ("Infinity", "+Infinity"):
        return math.inf
    if text == "-Infinity":
        return -math.inf
    if _JS_RADIX.fullmatch(text):
        return float(int(text, 0))
    if _JS_DECIMAL.fullmatch(text):
        return float(text)
    return math.nan


def js_number_text(number: float) -> str:
    """A number as JavaScript prints it (``1.0`` → ``1``, ``1e-7``, ``0.00001``, ``1e+21``)."""
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number == 0:
        return "0"
    if number < 0:
        return "-" + js_number_text(-number)
    from decimal import Decimal

    _sign, digit_tuple, exponent = Decimal(repr(float(number))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    k = len(digits)
    n = k + int(exponent)  # number = 0.<digits> x 10^n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"


def _js_plain(value: Any) -> Any:
    """Integral floats as ints, so JSON text matches JSON.stringify (1.0 → 1)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    if isinstance(value, dict):
        return {k: _js_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_js_plain(v) for v in value]
    return value


def js_json(value: Any) -> str:
    """``JSON.stringify(value)``: compact, integral floats without ``.0``."""
    return json.dumps(_js_plain(value), ensure_ascii=False, separators=(",", ":"))


def js_string(value: Any) -> str:
    """How Nunjucks prints a value: ``String(value)``, with null/undefined empty."""
    if value is None or value is UNDEFINED:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number_text(float(value)) if isinstance(value, float) else str(value)
    if isinstance(value, list):
        return ",".join(js_string(item) for item in value)  # Array.prototype.join: null items empty
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


def try_parse(text: str) -> Any:
    """promptfoo's ``tryParse``: the output parsed as JSON when it is JSON text, else the text."""
    try:
        return json.loads(text, parse_constant=_reject_constant)  # JSON.parse knows no NaN/Infinity
    except (ValueError, RecursionError):
        return text


def prompt_context(variables: dict[str, Any]) -> dict[str, Any]:
    """promptfoo's ``processContextForTemplating`` for grading prompts: objects become compact
    JSON text, arrays keep their items with object items as JSON text (so ``{{ list }}`` prints
    them comma-joined)."""
    processed: dict[str, Any] = {}
    for key, value in variables.items():
        if isinstance(value, dict):
            processed[key] = js_json(value)
        elif isinstance(value, list):
            processed[key] = [js_json(item) if isinstance(item, (dict, list)) else item for item in value]
        else:
            processed[key] = value
    return processed


def render(template: str, variables: dict[str, Any]) -> str:
    """``{{ name }}`` / ``{{ name.attr }}`` substitution, Nunjucks-style: unknown names and
    null render empty, objects as compact JSON, arrays comma-joined, numbers as JavaScript
    prints them. Filters are ignored (``| dump`` of an object is JSON anyway)."""

    def value_of(match: re.Match[str]) -> str:
        parts = match.group(1).split(".")
        value: Any = variables
        for part in parts:
            if isinstance(value, dict) and part in value:
                value = value[part]
            else:
                return ""
        if isinstance(value, dict):
            return js_json(value)
        if isinstance(value, list):
            return ",".join(js_json(item) if isinstance(item, dict) else js_string(item) for item in value)
        return js_string(value)

    return _VARIABLE.sub(value_of, template)


def grading_messages(rubric_prompt: Any, output: str, rubric: Any, test_vars: dict[str, Any]) -> list[dict[str, str]]:
    # The output JSON-parsed when it parses (promptfoo's tryParse); test vars last, as promptfoo.
    variables = prompt_context({"output": try_parse(output), "rubric": rubric, **test_vars})
    if rubric_prompt is None:
        return [
            {"role": "system", "content": GRADING_SYSTEM},
            {"role": "user", "content": render(GRADING_USER, variables)},
        ]
    return custom_messages(rubric_prompt, variables)


def custom_messages(
    rubric_prompt: Any, variables: dict[str, Any], render_text: Callable[[str, dict[str, Any]], str] = render
) -> list[dict[str, str]]:
    """A ``rubricPrompt`` (JSON chat text, a message list, or plain text) rendered with ``variables``."""
    messages: Any = rubric_prompt
    if isinstance(rubric_prompt, str):
        try:
            messages = json.loads(rubric_prompt)
        except ValueError:
            messages = _yaml_messages(rubric_prompt)
            if messages is None:
                # Rendering inside the JSON text first would break it when values hold quotes; only a
                # plain string is rendered whole.
                return [{"role": "user", "content": render_text(rubric_prompt, variables)}]
    if isinstance(messages, list) and all(isinstance(m, dict) and isinstance(m.get("content"), str) for m in messages):
        return [
            {"role": str(m.get("role") or "user"), "content": render_text(m["content"], variables)} for m in messages
        ]
    return [{"role": "user", "content": render_text(json.dumps(messages, ensure_ascii=False), variables)}]


def _yaml_messages(text: str) -> list[dict[str, Any]] | None:
    """A text prompt written as a YAML list of ``{role, content}`` messages (promptfoo's chat
    providers read a prompt starting with ``- role:`` that way), else None. Parsed before
    rendering, so values holding quotes or newlines cannot break the YAML."""
    if not text.strip().startswith("- role:"):
        return None
    import yaml

    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    if (
        isinstance(loaded, list)
        and loaded
        and all(
            isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str) for m in loaded
        )
    ):
        return loaded
    return None
