"""The lint's fast path past pydantic (rubric_lsp/formats/shapes.py): the shape tables match the models, and
whatever the fast path vouches for pydantic accepts with the same values (seeded generated data)."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from rubric_lsp.formats import shape_export
from rubric_lsp.formats.autorubric import fields as autorubric_fields
from rubric_lsp.formats.autorubric import model as autorubric_model
from rubric_lsp.formats.autorubric.shapes import MODELS as AUTORUBRIC
from rubric_lsp.formats.promptfoo import fields as promptfoo_fields
from rubric_lsp.formats.promptfoo import model as promptfoo_model
from rubric_lsp.formats.promptfoo.shapes import MODELS as PROMPTFOO
from rubric_lsp.formats.shapes import plain_object, plainly_valid


@pytest.mark.parametrize("module", sorted(shape_export.EXPORTS))
def test_the_shape_tables_are_the_models(module):
    assert not shape_export.stale(module), f"run python -m rubric_lsp.formats.shape_export --write ({module})"


def test_the_keys_the_rules_know_are_the_models():
    assert promptfoo_fields.TOP_LEVEL_KEYS == promptfoo_model.TOP_LEVEL_KEYS
    assert promptfoo_fields.TEST_KEYS == promptfoo_model.TEST_KEYS
    assert set(autorubric_fields.CRITERION_KEYS) == set(autorubric_model.Criterion.model_fields)
    assert set(autorubric_fields.OPTION_KEYS) == set(autorubric_model.CriterionOption.model_fields)


def test_a_field_type_the_tables_cannot_state_is_refused():
    class Odd(BaseModel):
        when: tuple[int, int]

    with pytest.raises(ValueError, match="cannot state"):
        shape_export.shape_tables([Odd])


# Values of the kinds the readers build (str, int, float, bool, None, lists, mappings), near the models' shapes.
_SCALARS: list[Any] = [
    "text", "", "3", "0.5", "MET", "ordinal", "nominal", "mean", 0, 1, 2, 5, -3, 2**60, 2**70, 0.5, 1.0, 1.5,
    -0.25, math.inf, math.nan, True, False, None,
]  # fmt: skip


def _value(rng: random.Random, depth: int, keys: list[str]) -> Any:
    roll = rng.random()
    if depth <= 0 or roll < 0.55:
        return rng.choice(_SCALARS)
    if roll < 0.75:
        return [_value(rng, depth - 1, keys) for _ in range(rng.randrange(4))]
    return {rng.choice(keys): _value(rng, depth - 1, keys) for _ in range(rng.randrange(4))}


def _instance(rng: random.Random, model: str, tables: dict[str, Any], depth: int = 3) -> Any:
    """A mapping for ``model``: most fields of their declared kind, some of another kind, some missing."""
    table = tables[model]
    keys = [k for name in tables for k in tables[name]["fields"]]
    out: dict[Any, Any] = {}
    for key, (shape, required, _default, _name) in table["fields"].items():
        if not required and rng.random() < 0.4:
            continue
        if required and rng.random() < 0.05:
            continue
        out[key] = _of_shape(rng, shape, tables, depth) if rng.random() < 0.85 else _value(rng, 2, keys)
    if rng.random() < 0.2:
        out[rng.choice(["extra", "note", 3])] = _value(rng, 1, keys)
    return out


def _of_shape(rng: random.Random, shape: Any, tables: dict[str, Any], depth: int) -> Any:
    if isinstance(shape, str):
        kinds = {
            "str": ["a", "text", "MET"],
            "float": [0, 1, 0.25, 0.5, 1.0, 3, -1.5, 10],
            "int": [0, 1, 7],
            "bool": [True, False],
            "none": [None],
            "any": _SCALARS,
        }
        return rng.choice(kinds[shape])
    kind, arg = shape
    if kind == "list":
        return [_of_shape(rng, arg, tables, depth - 1) for _ in range(rng.randrange(4 if depth > 0 else 1))]
    if kind == "dict":
        return {f"k{i}": _of_shape(rng, arg, tables, depth - 1) for i in range(rng.randrange(3))}
    if kind == "union":
        return _of_shape(rng, rng.choice(arg), tables, depth)
    if kind == "literal":
        return rng.choice(arg)
    return _instance(rng, arg, tables, depth - 1) if depth > 0 else {}


def _fields_of(value: Any) -> Any:
    """A pydantic model's (or a plain object's) fields, recursively, to compare."""
    if isinstance(value, BaseModel):
        return {name: _fields_of(getattr(value, name)) for name in type(value).model_fields}
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return {name: _fields_of(v) for name, v in vars(value).items()}
    if isinstance(value, list):
        return [_fields_of(v) for v in value]
    if isinstance(value, dict):
        return {k: _fields_of(v) for k, v in value.items()}
    return (type(value).__name__, value)


_CASES = [
    (promptfoo_model, PROMPTFOO, None, "PromptfooConfig"),
    (promptfoo_model, PROMPTFOO, None, "TestCase"),
    (promptfoo_model, PROMPTFOO, None, "Assertion"),
    (promptfoo_model, PROMPTFOO, None, "AssertionSet"),
    (autorubric_model, AUTORUBRIC, autorubric_fields.CHECKS, "Criterion"),
    (autorubric_model, AUTORUBRIC, None, "Example"),
]


@pytest.mark.parametrize(("module", "tables", "checks", "model"), _CASES, ids=[case[3] for case in _CASES])
def test_what_the_fast_path_vouches_for_pydantic_accepts_alike(module, tables, checks, model):
    rng = random.Random(f"shapes-{model}")
    vouched = declined = 0
    for _ in range(1500):
        data = _instance(rng, model, tables)
        cls = getattr(module, model)
        try:
            built = cls.model_validate(data)
        except ValidationError:
            built = None
        if plainly_valid(data, ("model", model), tables, checks):
            vouched += 1
            assert built is not None, data
            if module is autorubric_model:  # the values the rules read (promptfoo's rules read the nodes)
                assert _fields_of(plain_object(data, model, tables, checks)) == _fields_of(built), data
        else:
            declined += 1
    assert vouched > 200 and declined > 100, (vouched, declined)  # both paths exercised


def test_a_criterion_read_without_pydantic_is_the_one_pydantic_builds():
    rng = random.Random(7)
    compared = 0
    for _ in range(2000):
        data = _instance(rng, "Criterion", AUTORUBRIC)
        plain = autorubric_fields.plain_criterion(data)
        if plain is None:
            continue
        compared += 1
        model = autorubric_model.Criterion.model_validate(data)
        assert plain == autorubric_fields.CriterionValues.of_model(model), data
        assert plain.is_binary == model.is_binary
    assert compared > 300


def test_values_pydantic_coerces_are_left_to_it():
    """The fast path never vouches for a value pydantic would convert or judge (text for a number, a bool
    for a float, an out-of-range option, a NaN, an int past float's exact range)."""
    base = {"requirement": "r"}
    for odd in ({"weight": "3"}, {"weight": True}, {"weight": math.nan}, {"weight": 2**60}, {"name": 3}):
        assert autorubric_fields.plain_criterion({**base, **odd}) is None, odd
    options = [{"label": "a", "value": 0}, {"label": "b", "value": 1.5}]
    assert autorubric_fields.plain_criterion({**base, "options": options}) is None
    assert autorubric_fields.plain_criterion({**base, "options": options[:1]}) is None
    assert autorubric_fields.plain_criterion({**base, "options": [options[0], {"label": "b", "value": 1}]}) is not None
    assert promptfoo_fields.validate("Assertion", {"type": "contains", "threshold": "half"})  # pydantic's error
    assert promptfoo_fields.validate("Assertion", {"type": "contains", "threshold": 0.5}) == []
