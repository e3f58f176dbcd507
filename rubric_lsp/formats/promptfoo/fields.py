"""The keys promptfoo's config and tests know, and pydantic's verdict on a piece of config, without importing
pydantic where the piece plainly fits (the lint's fast path: formats/shapes.py, the tables in shapes.py)."""

from __future__ import annotations

from typing import Any

from rubric_lsp.formats.promptfoo.shapes import MODELS
from rubric_lsp.formats.shapes import field_keys, pydantic_errors

TOP_LEVEL_KEYS = field_keys(MODELS["PromptfooConfig"])
TEST_KEYS = field_keys(MODELS["TestCase"])
# Top-level keys promptfoo writes into result files and other tools add: not config keys,
# but not worth a warning either ($schema is read by editors).
TOLERATED_TOP_LEVEL = ("$schema",)


def validate(model: str, data: Any) -> list[Any]:
    """pydantic's errors (``ErrorDetails``) for ``data`` against ``model`` (a class of model.py, by name)."""
    return pydantic_errors(data, model, MODELS, "rubric_lsp.formats.promptfoo.model")
