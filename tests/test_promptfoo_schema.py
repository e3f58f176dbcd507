"""The exported promptfoo JSON Schema: fresh, described, and faithful on promptfoo's examples."""

from __future__ import annotations

import json

import pytest

from rubric_lsp.commands.schema import rendered_schemas
from rubric_lsp.formats.promptfoo.assertion_types import BASE_ASSERTION_TYPES, known_assertion_types
from tests.conftest import CORPUS, REPO

SCHEMA_FILE = REPO / "schemas" / "promptfoo-config.schema.json"


def schema() -> dict:
    return json.loads(rendered_schemas()["promptfoo-config.schema.json"])


def test_exported_schema_is_fresh():
    assert SCHEMA_FILE.read_text(encoding="utf-8") == rendered_schemas()["promptfoo-config.schema.json"], (
        "run: rubric schema --write"
    )


def test_every_field_and_assertion_type_has_a_description():
    missing = []

    def walk(node, path):
        if isinstance(node, dict):
            for key, value in (node.get("properties") or {}).items():
                if isinstance(value, dict) and not value.get("description"):
                    missing.append(f"{path}.{key}")
            for key, value in node.items():
                if key != "if":  # a condition (the assertion discriminator), not a field editors show
                    walk(value, f"{path}/{key}")
        elif isinstance(node, list):
            for value in node:
                walk(value, path)

    exported = schema()
    walk(exported, "")
    assert missing == []
    known = exported["$defs"]["AssertionType"]["anyOf"][0]
    described = {name for name, text in zip(known["enum"], known["enumDescriptions"]) if text}
    assert set(known_assertion_types()) <= described
    assert len(BASE_ASSERTION_TYPES) == 66  # promptfoo 0.123.1 (agent-rubric is new since 0.121.x)


def test_prompts_is_not_required():
    assert "prompts" not in schema().get("required", [])


@pytest.mark.slow
def test_schema_rejects_exactly_the_broken_examples():
    jsonschema = pytest.importorskip("jsonschema")
    yaml = pytest.importorskip("yaml")
    examples = CORPUS / "promptfoo" / "examples"
    if not examples.is_dir():
        pytest.skip("corpus not found")
    validator = jsonschema.Draft7Validator(schema())
    rejected = set()
    for path in sorted(examples.rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        if "promptfoo.dev/config-schema.json" not in text and not path.name.startswith(("promptfooconfig", "redteam")):
            continue
        if (
            next(validator.iter_errors(yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))), None)
            is not None
        ):
            rejected.add(path.relative_to(examples).as_posix())
    assert rejected == {
        "amazon-bedrock/agents/promptfooconfig.multi-agent.yaml",  # top-level options
        "amazon-bedrock/agents/promptfooconfig.yaml",  # not-empty
        "amazon-bedrock/models/promptfooconfig.inference-profiles-simple.yaml",  # min-length
        "amazon-bedrock/models/promptfooconfig.inference-profiles.yaml",
        "anthropic/opus-4-6-coding/promptfooconfig.yaml",  # reason:
        "anthropic/web-tools/promptfooconfig.yaml",
        "google-video/promptfooconfig-extension.yaml",  # is-valid-video
        "google-video/promptfooconfig-image.yaml",
        "google-video/promptfooconfig.yaml",
        "provider-cerebras/promptfooconfig-structured.yaml",  # outputs, json-schema-valid
        "provider-cerebras/promptfooconfig-tools.yaml",
        "provider-cerebras/promptfooconfig.yaml",
        "provider-cohere/complex_config.yaml",  # type map as a target provider
        "provider-databricks/promptfooconfig.vision.yaml",  # max-length
        "provider-databricks/promptfooconfig.yaml",
        "provider-http/tls/promptfooconfig.yaml",  # not-empty, min-length
        "provider-nscale/promptfooconfig.yaml",  # outputs
    }
