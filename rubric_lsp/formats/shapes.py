"""What a format's pydantic model plainly accepts, told without importing pydantic: the lint path's fast path.

Importing pydantic and building a model's validator costs more CPU than reading and checking a small
file (docs/speed.md), and almost every file the lint reads is valid. So each format exports the models
its rules validate with as shape tables (``formats/<fmt>/shapes.py``, written by
:mod:`rubric_lsp.formats.shape_export` and checked against the models by tests/test_model_shapes.py),
and :func:`plainly_valid` answers True only when a value has exactly the types the model declares: a
``str`` where it says str, an ``int`` or a finite ``float`` where it says float, a ``bool`` where bool,
``None`` where it allows None, every required field present, no key a ``extra="forbid"`` model refuses,
and each model validator's plain counterpart (``checks``) passing. pydantic then accepts the value too
and builds the same values (:func:`plain_fields`), so the rules report nothing and pydantic is never
imported. Anything else — ``"3"`` for a float, a bool where an int, a missing field — is left to
pydantic, which decides and words the error exactly as before.

A shape is ``"any"``, ``"str"``, ``"float"``, ``"int"``, ``"bool"``, ``"none"``, ``("list", shape)``,
``("dict", shape)`` (text keys), ``("union", (shape, ...))``, ``("literal", (value, ...))`` or
``("model", name)``; a model is ``{"extra": ..., "fields": {key: (shape, required, default, name)},
"validators": (name, ...)}``, keyed by the name (or alias) pydantic validates.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any

Shape = Any  # str | tuple[str, Any]: see the module docstring
Models = Mapping[str, Mapping[str, Any]]
# A model validator's plain counterpart: True when the validator surely passes on these (plainly valid) fields.
Checks = Mapping[str, Callable[[dict[str, Any]], bool]]

# pydantic turns an int into a float exactly like float() below 2**53, and takes any int an int field
# holds; past these the fast path leaves the value to pydantic.
_EXACT_FLOAT_INT = 2**53
_LARGE_INT = 2**63


def plainly_valid(value: Any, shape: Shape, models: Models, checks: Checks | None = None) -> bool:
    """True only when pydantic certainly accepts ``value`` for ``shape`` (False: ask pydantic)."""
    if type(shape) is str:
        return _scalar_ok(value, shape)
    kind, arg = shape
    if kind == "list":
        return isinstance(value, list) and all(plainly_valid(item, arg, models, checks) for item in value)
    if kind == "dict":
        return isinstance(value, dict) and all(
            type(key) is str and plainly_valid(item, arg, models, checks) for key, item in value.items()
        )
    if kind == "union":
        return any(plainly_valid(value, alternative, models, checks) for alternative in arg)
    if kind == "literal":
        return any(type(value) is type(allowed) and value == allowed for allowed in arg)
    if kind == "model":
        return _model_ok(value, models[arg], models, checks)
    return False


def _scalar_ok(value: Any, shape: str) -> bool:
    kind = type(value)
    if shape == "any":
        return True
    if shape == "str":
        return kind is str
    if shape == "float":
        return (kind is int and -_EXACT_FLOAT_INT <= value <= _EXACT_FLOAT_INT) or (
            kind is float and math.isfinite(value)
        )
    if shape == "int":
        return kind is int and -_LARGE_INT < value < _LARGE_INT
    if shape == "bool":
        return kind is bool
    if shape == "none":
        return value is None
    return False


def _model_ok(value: Any, model: Mapping[str, Any], models: Models, checks: Checks | None) -> bool:
    if not isinstance(value, dict):  # (the readers' PlainDict and PlainList are dict and list, as pydantic sees them)
        return False
    fields = model["fields"]
    for key, item in value.items():
        field = fields.get(key)
        if field is None:
            if model["extra"] == "forbid" or type(key) is not str:
                return False
        elif not plainly_valid(item, field[0], models, checks):
            return False
    if any(spec[1] and key not in value for key, spec in fields.items()):
        return False
    validators = model["validators"]
    if validators:
        if checks is None or any(name not in checks for name in validators):
            return False
        built = plain_fields(value, model, models, checks)
        return all(checks[name](built) for name in validators)
    return True


def plain_fields(
    value: dict[str, Any], model: Mapping[str, Any], models: Models, checks: Checks | None = None
) -> dict[str, Any]:
    """The fields pydantic builds from a plainly valid ``value``, by field name: defaults filled in, an int
    in a float field made a float, a nested model as a dict of its own fields (extra keys left out)."""
    return _fields(value, model, models, checks, False)


def plain_object(value: dict[str, Any], model: str, models: Models, checks: Checks | None = None) -> SimpleNamespace:
    """What pydantic builds from a plainly valid ``value`` for ``model``: its fields as attributes, nested
    models alike."""
    return SimpleNamespace(**_fields(value, models[model], models, checks, True))


def _fields(
    value: dict[str, Any], model: Mapping[str, Any], models: Models, checks: Checks | None, objects: bool
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    given: set[str] = set()  # a field given by its alias (listed first) keeps it over its name
    for key, (shape, _required, default, name) in model["fields"].items():
        if key in value and name not in given:
            out[name] = _built(value[key], shape, models, checks, objects)
            given.add(name)
        elif name not in out:
            out[name] = default
    return out


def _built(value: Any, shape: Shape, models: Models, checks: Checks | None, objects: bool) -> Any:
    if type(shape) is str:
        return float(value) if shape == "float" else value
    kind, arg = shape
    if kind == "list":
        return [_built(item, arg, models, checks, objects) for item in value]
    if kind == "dict":
        return {key: _built(item, arg, models, checks, objects) for key, item in value.items()}
    if kind == "union":
        fits = [a for a in arg if plainly_valid(value, a, models, checks)]
        if len(fits) > 1 and type(value) is int and "int" in fits:
            fits = ["int"]  # pydantic's smart union takes the exact type
        if len(fits) != 1:  # (two models that both fit: pydantic counts the fields each sets; not needed yet)
            raise ValueError(f"no single alternative of {shape} fits {value!r}")
        return _built(value, fits[0], models, checks, objects)
    if kind == "model":
        fields = _fields(value, models[arg], models, checks, objects)
        return SimpleNamespace(**fields) if objects else fields
    return value


def field_keys(model: Mapping[str, Any]) -> tuple[str, ...]:
    """The keys a model's fields are written with, in declaration order."""
    return tuple(model["fields"])


def pydantic_errors(data: Any, model: str, models: Models, module: str, checks: Checks | None = None) -> list[Any]:
    """pydantic's errors (``ErrorDetails``) for ``data`` against ``model`` of ``module``: none, without importing
    pydantic, when ``data`` plainly fits."""
    if plainly_valid(data, ("model", model), models, checks):
        return []
    return _pydantic(data, model, module)[1]


def validated(
    data: Any, model: str, models: Models, module: str, checks: Checks | None = None
) -> tuple[Any, list[Any]]:
    """``(value, [])``: ``data`` as ``model`` builds it (its fields as attributes), or ``(None, errors)``: what
    pydantic refuses. pydantic is imported only when ``data`` does not plainly fit."""
    if plainly_valid(data, ("model", model), models, checks):
        return plain_object(data, model, models, checks), []
    return _pydantic(data, model, module)


def _pydantic(data: Any, model: str, module: str) -> tuple[Any, list[Any]]:
    from pydantic import ValidationError  # only for what the shape tables cannot vouch for

    cls = getattr(importlib.import_module(module), model)
    try:
        return cls.model_validate(data), []
    except ValidationError as exc:
        return None, exc.errors(include_url=False)
