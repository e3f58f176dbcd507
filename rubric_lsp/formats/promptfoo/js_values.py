"""JavaScript's value semantics as promptfoo's code meets them: ``undefined`` apart from ``null``,
``Number(value)``, ``String(value)`` as Nunjucks prints it, ``JSON.stringify``.

Shared by the rules (what a value means to promptfoo's handlers) and the grader (how a value becomes
a prompt's text, ``grading/prompts.py``).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from rubric_lsp.document.js_yaml import js_number_string


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


def _js_json_parts(value: Any, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, (int, float)):
        finite = isinstance(value, int) or math.isfinite(value)
        out.append(js_number_string(value) if finite else "null")
    elif isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=False))
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _js_json_parts(None if item is UNDEFINED else item, out)
        out.append("]")
    elif isinstance(value, dict):
        out.append("{")
        first = True
        for key, item in value.items():
            if item is UNDEFINED:
                continue  # JSON.stringify leaves undefined properties out
            out.append("" if first else ",")
            first = False
            out.append(json.dumps(str(key), ensure_ascii=False) + ":")
            _js_json_parts(item, out)
        out.append("}")
    else:
        raise TypeError(f"{type(value).__name__} is not JSON serializable")


def js_json(value: Any) -> str:
    """``JSON.stringify(value)``: compact, numbers as JavaScript writes them (``1.0`` → ``1``,
    ``1e-7``, past 2**53 the nearest double), NaN and Infinity as ``null``."""
    out: list[str] = []
    _js_json_parts(value, out)
    return "".join(out)


def js_string(value: Any) -> str:
    """How Nunjucks prints a value: ``String(value)``, with null/undefined empty."""
    if value is None or value is UNDEFINED:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number_string(value)
    if isinstance(value, list):
        return ",".join(js_string(item) for item in value)  # Array.prototype.join: null items empty
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)
