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


def plainly_valid(value: Any, shape: Shape, models: Models, checks: Checks | None = None) -> bool:  # noqa: C901 - one call per value (see below)
    """True only when pydantic certainly accepts ``value`` for ``shape`` (False: ask pydantic)."""
    # Loops rather than any()/all() and the scalars inline: this runs on every criterion and every assertion
    # of the lint, and tests/test_speed_guard.py counts its Python calls.
    if type(shape) is str:
        kind = type(value)
        if shape == "str":
            return kind is str
        if shape == "float":
            return (kind is int and -_EXACT_FLOAT_INT <= value <= _EXACT_FLOAT_INT) or (
                kind is float and math.isfinite(value)
            )
        if shape == "bool":
            return kind is bool
        if shape == "none":
            return value is None
        if shape == "int":
            return kind is int and -_LARGE_INT < value < _LARGE_INT
        return shape == "any"
    kind, arg = shape
    if kind == "union":
        for alternative in arg:  # noqa: SIM110 - a loop: any() over a generator costs a call per item
            if plainly_valid(value, alternative, models, checks):
                return True
        return False
    if kind == "model":
        return _model_fields(value, models[arg], models, checks) is not None
    if kind == "list":
        if not isinstance(value, list):
            return False
        for item in value:  # noqa: SIM110 - as above
            if not plainly_valid(item, arg, models, checks):
                return False
        return True
    if kind == "dict":
        if not isinstance(value, dict):
            return False
        for key, item in value.items():
            if type(key) is not str or not plainly_valid(item, arg, models, checks):
                return False
        return True
    if kind == "literal":
        for allowed in arg:
            if type(value) is type(allowed) and value == allowed:
                return True
    return False


def _model_fields(
    value: Any, model: Mapping[str, Any], models: Models, checks: Checks | None, build: bool = False
) -> dict[str, Any] | None:
    """None unless ``value`` plainly fits ``model``; else the fields pydantic builds from it (as plain_fields)
    when ``build`` (or a validator needs them), an empty dict when not."""
    if not isinstance(value, dict):  # (the readers' PlainDict and PlainList are dict and list, as pydantic sees them)
        return None
    fields = model["fields"]
    for key, item in value.items():
        field = fields.get(key)
        if field is None:
            if model["extra"] == "forbid" or type(key) is not str:
                return None
        elif not plainly_valid(item, field[0], models, checks):
            return None
    for key, spec in fields.items():
        if spec[1] and key not in value:
            return None
    validators = model["validators"]
    if not validators and not build:
        return {}
    built = plain_fields(value, model, models, checks)
    for name in validators:
        if checks is None or name not in checks or not checks[name](built):
            return None
    return built


def fields_if_plain(value: Any, model: str, models: Models, checks: Checks | None = None) -> dict[str, Any] | None:
    """``plain_fields(value, ...)`` when ``value`` plainly fits ``model`` (one pass), else None: ask pydantic."""
    return _model_fields(value, models[model], models, checks, build=True)


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
            item = value[key]
            if type(shape) is str:  # (inline: most fields are scalars)
                out[name] = float(item) if shape == "float" else item
            else:
                out[name] = _built(item, shape, models, checks, objects)
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
