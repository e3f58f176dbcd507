"""``is-json`` / ``contains-json`` with a schema, as promptfoo 0.123.1 checks them.

promptfoo (``src/assertions/json.ts``) compiles the value with Ajv 8 (``new Ajv({strictSchema:
true})`` plus ajv-formats, ``src/util/json.ts: getAjv``): a string value is read as YAML first
(``loadYaml``). Here the schema is checked with ``jsonschema``'s Draft 7 validator (the ``[grade]``
extra), which is Ajv's default draft, and Ajv's refusals are promptfoo's (the test errors):

- a ``$schema`` other than draft-07 (``no schema with key or ref "…"``: the default Ajv class knows
  no other draft), a schema that is not valid draft-07 (``schema is invalid: …``), a keyword Ajv does
  not know (``strict mode: unknown keyword: "…"``; unless ``PROMPTFOO_DISABLE_AJV_STRICT_MODE``);
- not run here (declined, never guessed): ``format`` and ajv-formats' keywords (ajv-formats' checks
  are not jsonschema's), ``nullable`` (an Ajv extension), ``patternProperties`` (Ajv's RegExp has the
  ``u`` flag), a ``$ref`` outside the schema (Ajv fails to resolve it; nothing is fetched here),
  ``$async``. ``pattern`` is tested in V8 with the ``u`` flag, as Ajv tests it.

The verdict is promptfoo's; the reason names the failing check in jsonschema's words where promptfoo
quotes Ajv's ``errorsText`` (README: deliberate differences).
"""

from __future__ import annotations

import json
import os
from typing import Any

import yaml

from rubric_lsp.formats.promptfoo.grading.checked import Checked, Declined, Refused, checked, js_parses
from rubric_lsp.formats.promptfoo.grading.javascript import run_js
from rubric_lsp.formats.promptfoo.grading.reply_objects import reply_objects

DRAFT_07 = ("http://json-schema.org/draft-07/schema", "http://json-schema.org/draft-07/schema#")
# Ajv 8.20's keywords for its default draft-07 class with ajv-formats (ajv.RULES.keywords).
_AJV_NAMES = (
    "$async $comment $defs $id $ref $schema $vocabulary additionalItems additionalProperties allOf anyOf const "
    "contains contentEncoding contentMediaType contentSchema default definitions dependencies deprecated description "
    "else enum examples exclusiveMaximum exclusiveMinimum format formatExclusiveMaximum formatExclusiveMinimum "
    "formatMaximum formatMinimum id if items maxItems maxLength maxProperties maximum minItems minLength "
    "minProperties minimum multipleOf not nullable oneOf pattern patternProperties properties propertyNames "
    "readOnly required then title type uniqueItems writeOnly"
)
AJV_KEYWORDS = frozenset(_AJV_NAMES.split())
NOT_RUN_HERE = {
    "format": "ajv-formats checks formats",
    "formatMaximum": "ajv-formats checks formats",
    "formatMinimum": "ajv-formats checks formats",
    "formatExclusiveMaximum": "ajv-formats checks formats",
    "formatExclusiveMinimum": "ajv-formats checks formats",
    "nullable": "nullable is Ajv's own keyword",
    "patternProperties": "Ajv matches property names with JavaScript's RegExp",
    "$async": "Ajv's asynchronous schemas",
}
# Keywords whose value is a schema, a list of schemas, or a map of names to schemas.
_ONE = ("additionalItems", "additionalProperties", "contains", "propertyNames", "if", "then", "else", "not")
_MANY = ("allOf", "anyOf", "oneOf")
_NAMED = ("properties", "patternProperties", "definitions", "$defs")


def schema_check(base: str, rendered: Any, output: str, inverse: bool) -> Checked:
    """``handleIsJson`` / ``handleContainsJson`` with a schema value."""
    if base == "is-json":
        if not js_parses(output):
            return checked(inverse, "be valid JSON", inverse)
        validate = _validator(rendered)
        valid, error = validate(json.loads(output))
        if valid != inverse:
            return Checked(True, "Assertion passed")
        if inverse:
            return Checked(False, "Output is JSON that conforms to the provided schema")
        return Checked(False, f"JSON does not conform to the provided schema. Errors: {error}")
    found = reply_objects(output)
    message = f"Expected output to {'not ' if inverse else ''}contain valid JSON"
    passed = not found if inverse else bool(found)
    if found:
        validate = _validator(rendered)  # promptfoo compiles it once an object is found
    for candidate in found:
        valid, error = validate(candidate)
        passed = not valid if inverse else valid
        if valid:
            if inverse:
                message = "Output contains JSON conforming to the provided schema"
            break
        message = f"JSON does not conform to the provided schema. Errors: {error}"
    return Checked(passed, "Assertion passed" if passed else message)


def _validator(rendered: Any) -> Any:
    """Ajv's ``compile`` of the value: a function from the JSON to (valid, first error)."""
    if isinstance(rendered, str):
        try:
            schema = yaml.safe_load(rendered)
        except yaml.YAMLError as problem:
            raise Declined(f"its schema is YAML this reader does not take as js-yaml does: {problem}") from None
    elif isinstance(rendered, (dict, list, bool)):
        schema = rendered
    else:
        raise Refused("is-json assertion must have a string or object value")
    try:
        import jsonschema
    except ImportError:
        raise Declined("schemas are checked with jsonschema (the [grade] extra), which is not installed") from None
    _ajv_refusals(schema)
    validator_class = jsonschema.validators.extend(jsonschema.Draft7Validator, {"pattern": _js_pattern})
    try:
        validator_class.check_schema(schema)
    except jsonschema.SchemaError as invalid:
        raise Refused(f"schema is invalid: {invalid.message}") from None
    checker = validator_class(schema)

    def validate(instance: Any) -> tuple[bool, str]:
        error = jsonschema.exceptions.best_match(checker.iter_errors(instance))
        if error is None:
            return True, ""
        where = "".join(f"/{part}" for part in error.absolute_path)
        return False, f"data{where} {error.message}"

    return validate


def _ajv_refusals(schema: Any) -> None:
    if not isinstance(schema, dict):
        return
    declared = schema.get("$schema")
    if declared is not None and declared not in DRAFT_07:
        raise Refused(f'no schema with key or ref "{declared}"')
    strict = os.environ.get("PROMPTFOO_DISABLE_AJV_STRICT_MODE", "").strip().lower() not in ("1", "true", "yes", "on")
    _walk(schema, strict)


def _walk(schema: Any, strict: bool) -> None:
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        if key in NOT_RUN_HERE:
            raise Declined(f"its schema uses '{key}' ({NOT_RUN_HERE[key]}), not run here")
        if key == "$ref" and isinstance(value, str) and not value.startswith("#"):
            raise Declined(f"its schema refers to another document ('{value}'), not fetched here")
        if strict and key not in AJV_KEYWORDS:
            raise Refused(f'strict mode: unknown keyword: "{key}"')
        if key in _ONE:
            _walk(value, strict)
        elif key in _MANY and isinstance(value, list):
            for item in value:
                _walk(item, strict)
        elif key in _NAMED and isinstance(value, dict):
            for item in value.values():
                _walk(item, strict)
        elif key == "items":
            for item in value if isinstance(value, list) else [value]:
                _walk(item, strict)
        elif key == "dependencies" and isinstance(value, dict):
            for item in value.values():
                _walk(item, strict)


def _js_pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Any:
    """Ajv's ``pattern``: ``new RegExp(pattern, "u").test(instance)``, in V8."""
    import jsonschema

    if not validator.is_type(instance, "string"):
        return
    matched = run_js(lambda js: js.regex_test(pattern, instance, flags="u"))
    if isinstance(matched, str):
        raise Refused(matched)  # Ajv fails to compile the schema
    if not matched:
        yield jsonschema.ValidationError(f'must match pattern "{pattern}"')
