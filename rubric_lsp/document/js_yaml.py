"""Plain scalars as promptfoo reads them: js-yaml 5's core schema, not PyYAML's YAML 1.1.

promptfoo 0.123.1 loads configs, test files and vars files with ``loadYaml``
(``dist/src/logger-*.js``, ``src/util/yamlLoad.ts``): js-yaml 5.4.1's ``CORE_SCHEMA`` with
the merge, binary, timestamp, omap, pairs and set tags added. Its implicit scalars are
YAML 1.2's core schema (js-yaml's ``dist/js-yaml.cjs.js``: ``nullCoreTag``, ``boolCoreTag``,
``intCoreTag``, ``floatCoreTag``), which PyYAML does not read the same way:

- ``5e-1``, ``1e0``, ``-.5``, ``0o17`` are numbers (PyYAML: strings);
- ``yes``/``no``/``on``/``off``/``y``/``n`` are strings (PyYAML: booleans);
- ``010`` is 10 (PyYAML: 8); ``1_000``, ``0b11``, ``-0x1F``, ``1:30`` and ``1e400`` are
  strings (PyYAML: numbers);
- every number is a JavaScript double: an integer past 2**53 loses its low digits;
- a mapping key is ``String(key)`` (js-yaml's object-based map): ``1e1:`` is the key ``"10"``.

Null, timestamps and ``<<`` merge keys read alike in both, so the document reader (PyYAML)
records only the plain scalars whose reading can differ, and :func:`read_as_js_yaml` re-reads
those, in place, once a document is known to be promptfoo's: lint pays nothing for it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from rubric_lsp.document import issues as K
from rubric_lsp.document.duplicates import duplicate_keys
from rubric_lsp.document.issues import ParseIssue
from rubric_lsp.document.nodes import Node
from rubric_lsp.document.positions import LineIndex

_T = "tag:yaml.org,2002:"
_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
# intCoreTag's YAML_INTEGER_IMPLICIT_PATTERN and floatCoreTag's YAML_FLOAT_PATTERN, verbatim.
_INT = re.compile(r"(?:0o[0-7]+|0x[0-9a-fA-F]+|[-+]?[0-9]+)")
_FLOAT = re.compile(
    r"(?:[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|[-+]?\.[0-9]+(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))"
)
# Integers a double holds exactly; past them js-yaml's parseInt gives the nearest double.
_EXACT = 2**53


@dataclass
class PlainScalars:
    """Plain scalars whose value depends on the schema, as the YAML reader found them."""

    values: list[Node] = field(default_factory=list)
    keys: list[Node] = field(default_factory=list)
    read_as_js: bool = False


# Plain scalars PyYAML types that the core schema may read otherwise; strings only when they
# could be 1.2 numbers (null and the 1.2 booleans read alike; timestamps alike).
_TYPED = frozenset((_T + "bool", _T + "int", _T + "float"))
_NUMBER_START = frozenset("0123456789+-.")


def schema_dependent_value(node: Node, text: str) -> bool:
    """Whether a plain scalar PyYAML read may read otherwise under js-yaml (not ``!!int 010``:
    a written tag is not resolved; a span starts at its anchor or tag, the raw text ends it)."""
    raw = node.raw or ""
    if node.tag not in _TYPED and not (node.tag == _T + "str" and raw[:1] in _NUMBER_START):
        return False
    return not (text[node.start : node.start + 1] in "!&" and "!" in text[node.start : node.end - len(raw)])


def schema_dependent_key(key: Node) -> bool:
    """A key js-yaml names otherwise: a typed one (``String(key)``) or a YAML 1.2 number."""
    value = key.value
    if value is None or isinstance(value, (bool, int, float)):
        return True
    return isinstance(value, str) and key.tag == _T + "str" and value[:1] in _NUMBER_START


def js_yaml_scalar(raw: str) -> tuple[str, Any] | None:
    """(tag, value) of a plain scalar under promptfoo's schema, for null, bool, int and float;
    None when js-yaml reads it as something else (a string, a timestamp, a merge key)."""
    if raw in _NULLS:
        return _T + "null", None
    if raw in _BOOLS:
        return _T + "bool", _BOOLS[raw]
    if raw[:1] not in "-+.0123456789" or not raw:
        return None
    if _INT.fullmatch(raw):
        number = _js_int(raw)
        if number is not None:
            return _T + "int", number
    if _FLOAT.fullmatch(raw):
        number = _js_float(raw)
        if number is not None:
            return _T + "float", number
    return None


def _js_int(raw: str) -> int | float | None:
    body = raw.lstrip("+-")
    sign = -1 if raw.startswith("-") else 1
    base = 8 if body.startswith("0o") else 16 if body.startswith("0x") else 10
    value = sign * int(body[2:] if base != 10 else body, base)
    if abs(value) <= _EXACT:
        return value
    try:
        return float(value)  # parseInt's nearest double
    except OverflowError:
        return None  # Infinity: not an int to js-yaml (then not a float either)


def _js_float(raw: str) -> float | None:
    lowered = raw.lower()
    body = lowered.lstrip("+-")
    sign = -1.0 if lowered.startswith("-") else 1.0
    if body == ".inf":
        return sign * math.inf
    if body == ".nan":
        return math.nan
    value = sign * float(body)
    return value if math.isfinite(value) else None  # 1e400: a string to js-yaml


def js_number_text(number: float) -> str:
    """``Number.prototype.toString()``: ``1.0`` → ``1``, ``1e21`` → ``1e+21``, ``1e-7``, ``0.000001``."""
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number == 0:
        return "0"
    if number < 0:
        return "-" + js_number_text(-number)
    from decimal import Decimal  # here: rare (a number written as a key), and decimal costs start-up

    # repr is the shortest text that reads back as the same double, as ECMAScript asks.
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


def js_number_string(value: int | float) -> str:
    """``String(n)`` of a number that reached Python as an int or a float (a double in JavaScript)."""
    if isinstance(value, int) and abs(value) <= _EXACT:
        return str(value)
    return js_number_text(float(value))


def _key_text(value: Any) -> Any:
    """``String(key)``, as js-yaml's object-based map names a property."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number_string(value)
    return value


class Document(Protocol):
    """What the re-reading needs of a ``rubric_lsp.document.Document`` (which holds this module's
    ``PlainScalars``: the package sits above this module)."""

    root: Node | None
    issues: list[ParseIssue]
    lines: LineIndex
    plain_scalars: PlainScalars | None

    def forget_values(self) -> None: ...


def read_as_js_yaml(doc: Document) -> None:
    """Re-read ``doc``'s schema-dependent plain scalars as promptfoo's js-yaml does (idempotent)."""
    found = doc.plain_scalars
    if found is None or found.read_as_js:
        return
    found.read_as_js = True
    for node in found.values:
        read_value_as_js_yaml(node)
    for node in found.keys:
        read_value_as_js_yaml(node)
        node.value = _key_text(node.value)
        node.tag = _T + "str"
    if found.keys and doc.root is not None:
        _recount_duplicates(doc)
    doc.forget_values()


def _recount_duplicates(doc: Document) -> None:
    """Duplicate keys as js-yaml sees them once keys are named: ``1e1:`` beside ``10:`` collide
    ("duplicated mapping key"), ``yes:`` beside ``true:`` no longer do."""
    assert doc.root is not None
    kept = [issue for issue in doc.issues if issue.kind != K.DUPLICATE_KEY]
    doc.issues[:] = sorted(kept + duplicate_keys(doc.root, doc.lines), key=lambda issue: issue.span.start)


def read_value_as_js_yaml(node: Node) -> None:
    """One schema-dependent plain scalar's tag and value as js-yaml reads it (in place)."""
    raw = node.raw or ""
    resolved = js_yaml_scalar(raw)
    if resolved is None:
        if node.tag in (_T + "bool", _T + "int", _T + "float"):
            node.tag, node.value = _T + "str", raw
        return
    node.tag, node.value = resolved
