"""The exported schemas as other editors use them: Red Hat's YAML server over stdio, and jsonschema.

In the YAML server: a hover shows one description (no "Threshold || Threshold"), key
completion inserts no `null`, an unknown assertion type is one diagnostic (not a 134-value
list) and type completion documents every type. The YAML server is found as
$RUBRIC_YAML_LS (its bin/yaml-language-server script; .ci/run installs it) or on PATH.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from rubric_lsp.commands.schema import rendered_schemas
from rubric_lsp.formats.promptfoo.assertion_types import known_assertion_types
from rubric_lsp.formats.promptfoo.model import UNKNOWN_TYPE_MESSAGE
from rubric_lsp.formats.schema_export import completion_only, for_editors, markdown
from tests.conftest import REPO, require
from tests.raw_client import RawClient

SCHEMA = REPO / "schemas" / "promptfoo-config.schema.json"
CONFIG = (
    "prompts: [hi]\n"
    "tests:\n"
    "  - assert:\n"
    "      - type: not-a-type\n"  # line 4 with the modeline first
    "        threshold: 1\n"
    "      - type: llm-rubric\n"
    "        \n"
)


def _schema_nodes(node: Any, keyword_position: bool = True):
    """Every schema object (not the data inside enum/const/default) in an exported schema."""
    if isinstance(node, list):
        for item in node:
            yield from _schema_nodes(item)
        return
    if not isinstance(node, dict):
        return
    yield node
    for key, value in node.items():
        if key in ("properties", "patternProperties", "$defs", "definitions"):
            for sub in value.values():
                yield from _schema_nodes(sub)
        elif key in ("items", "anyOf", "oneOf", "allOf", "not", "if", "then", "else", "additionalProperties"):
            yield from _schema_nodes(value)


@pytest.mark.parametrize("name", sorted(rendered_schemas()))
def test_no_titles_no_null_defaults(name: str) -> None:
    schema = json.loads(rendered_schemas()[name])
    nodes = list(_schema_nodes(schema))
    assert len(nodes) > 10
    assert [n["title"] for n in nodes if "title" in n] == []
    assert [n for n in nodes if "default" in n and n["default"] is None] == []


def test_markdown_descriptions_quote_keys_as_code() -> None:
    assert markdown("Write 'threshold: 1' here; promptfoo's rules") == "Write `threshold: 1` here; promptfoo's rules"
    assert markdown("Nothing quoted, promptfoo's own words.") is None
    cleaned = for_editors({"properties": {"title": {"title": "Title", "description": "Say 'x'.", "default": None}}})
    assert cleaned == {"properties": {"title": {"description": "Say 'x'.", "markdownDescription": "Say `x`."}}}


def test_jsonschema_reports_an_unknown_assertion_type_once() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    import yaml

    validator = jsonschema.Draft7Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))
    errors = list(validator.iter_errors(yaml.safe_load(CONFIG)))
    assert len(errors) == 1, [e.message for e in errors]
    relevant = jsonschema.exceptions.best_match(errors)  # `tests` is an anyOf: the item's error is inside
    assert list(relevant.absolute_path) == ["tests", 0, "assert", 0, "type"], relevant.message
    assert list(validator.iter_errors(yaml.safe_load(CONFIG.replace("not-a-type", "not-contains")))) == []
    redteam = CONFIG.replace("not-a-type", "promptfoo:redteam:harmful")
    assert list(validator.iter_errors(yaml.safe_load(redteam))) == []


def _yaml_ls() -> list[str] | None:
    script = os.environ.get("RUBRIC_YAML_LS") or shutil.which("yaml-language-server")
    node = shutil.which("node")
    if not script or not node or not Path(script).exists():
        return None
    return [node, script, "--stdio"]


@pytest.fixture
def yaml_ls(tmp_path: Path):
    command = _yaml_ls()
    require(command is not None, "Red Hat's yaml-language-server is not installed (set RUBRIC_YAML_LS)")
    assert command is not None
    client = RawClient(tmp_path, command=command)
    capabilities = {
        "textDocument": {
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "completion": {"completionItem": {"snippetSupport": True, "documentationFormat": ["markdown"]}},
        }
    }
    rid = client.send(
        "initialize", {"processId": os.getpid(), "rootUri": tmp_path.as_uri(), "capabilities": capabilities}
    )
    client.response(rid, timeout=60)
    client.send("initialized", {}, request=False)
    settings = {"yaml": {"validate": True, "hover": True, "completion": True, "schemaStore": {"enable": False}}}
    client.send("workspace/didChangeConfiguration", {"settings": settings}, request=False)
    uri = (tmp_path / "promptfooconfig.yaml").as_uri()
    text = f"# yaml-language-server: $schema={SCHEMA.as_uri()}\n{CONFIG}"
    document = {"uri": uri, "languageId": "yaml", "version": 1, "text": text}
    client.send("textDocument/didOpen", {"textDocument": document}, request=False)
    client.pump_until(lambda: uri in client.published, timeout=60)
    yield client, uri
    client.close(shutdown=False)  # it does not exit on its own without a parent process id to watch


def _at(client: RawClient, method: str, uri: str, line: int, character: int) -> Any:
    params = {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
    return client.request(method, params, timeout=60).get("result")


def test_yaml_server_shows_one_message_for_an_unknown_type(yaml_ls) -> None:
    client, uri = yaml_ls
    messages = [d["message"] for d in client.published[uri]["diagnostics"]]
    assert messages == [UNKNOWN_TYPE_MESSAGE]


def test_yaml_server_hovers_the_assertions_own_description_once(yaml_ls) -> None:
    client, uri = yaml_ls
    hover = _at(client, "textDocument/hover", uri, 5, 10)["contents"]["value"]
    assert hover.startswith("Minimum score to pass")  # the assertion's threshold, not the assert-set's
    assert "||" not in hover and "####" not in hover


def test_yaml_server_completes_keys_without_null_and_types_with_docs(yaml_ls) -> None:
    client, uri = yaml_ls
    keys = _at(client, "textDocument/completion", uri, 7, 8)["items"]
    inserted = {item["label"]: item.get("insertText", "") for item in keys}
    assert "threshold" in inserted and not [t for t in inserted.values() if "null" in t]
    types = _at(client, "textDocument/completion", uri, 6, 14)["items"]
    documented = {item["label"] for item in types if item.get("documentation")}
    assert set(known_assertion_types()) <= documented


# -- completion-only schemas (schemas/completion/: the samples' modelines, the VS Code extension) ----------
def test_completion_only_keeps_names_docs_and_values_but_cannot_fail_validation() -> None:
    source = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["criteria"],
        "additionalProperties": False,
        "properties": {
            "required": {"type": "boolean", "description": "a property literally named required"},
            "criteria": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/Criterion"}},
            "scale": {"enum": ["binary", "ordinal"], "description": "scale"},
            "kind": {"const": "rubric"},
        },
        "$defs": {
            "Criterion": {
                "type": "object",
                "properties": {"weight": {"type": "number", "minimum": 0, "default": 1}},
                "oneOf": [{"required": ["requirement"]}, {"required": ["options"]}],
                "additionalProperties": {"type": "string"},
            }
        },
    }
    out = completion_only(source)
    assert sorted(out) == ["$defs", "$schema", "properties"]
    assert out["properties"]["required"] == {"description": "a property literally named required"}
    assert out["properties"]["criteria"] == {"items": {"$ref": "#/$defs/Criterion"}}
    assert out["properties"]["scale"] == {"examples": ["binary", "ordinal"], "description": "scale"}
    assert out["properties"]["kind"] == {"examples": ["rubric"]}
    criterion = out["$defs"]["Criterion"]
    assert criterion["properties"]["weight"] == {"default": 1}
    assert criterion["anyOf"] == [{}, {}] and "oneOf" not in criterion
    assert criterion["additionalProperties"] == {}
    assert '"type"' not in json.dumps(out)


def test_completion_only_keeps_a_discriminators_outcomes_as_alternatives() -> None:
    item = {
        "if": {"required": ["$ref"]},
        "then": {"$ref": "#/$defs/Ref"},
        "else": {"if": {"required": ["type"]}, "then": {"$ref": "#/$defs/Set"}, "else": {"$ref": "#/$defs/Assertion"}},
    }
    assert completion_only(item) == {
        "anyOf": [{"$ref": "#/$defs/Ref"}, {"anyOf": [{"$ref": "#/$defs/Set"}, {"$ref": "#/$defs/Assertion"}]}]
    }
    assert completion_only({"anyOf": [{"const": "a"}], "else": {"const": "b"}}) == {
        "anyOf": [{"examples": ["a"]}, {"examples": ["b"]}]
    }


def test_the_samples_modelines_name_the_completion_only_schemas() -> None:
    """Beside rubric-lsp, a validating schema says what the lint says, in vaguer words: the samples point at
    the completion-only copies (a test below shows Red Hat's YAML server quiet on the bad rubric)."""
    named = {}
    for path in sorted((REPO / "samples").rglob("*.y*ml")):
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        if "yaml-language-server" in first:
            named[path.name] = first.split("$schema=", 1)[1]
    assert named and all(schema.startswith("../../schemas/completion/") for schema in named.values()), named
    for schema in named.values():
        assert (REPO / "samples" / "x" / schema).resolve().is_file(), schema


def _open_in_yaml_server(tmp_path: Path, document: Path) -> list[dict[str, Any]]:
    """The diagnostics Red Hat's YAML server publishes for ``document`` (with its own modeline)."""
    command = _yaml_ls()
    require(command is not None, "Red Hat's yaml-language-server is not installed (set RUBRIC_YAML_LS)")
    assert command is not None
    client = RawClient(tmp_path, command=command)
    try:
        rid = client.send("initialize", {"processId": os.getpid(), "rootUri": tmp_path.as_uri(), "capabilities": {}})
        client.response(rid, timeout=60)
        client.send("initialized", {}, request=False)
        settings = {"yaml": {"validate": True, "schemaStore": {"enable": False}}}
        client.send("workspace/didChangeConfiguration", {"settings": settings}, request=False)
        uri = document.as_uri()
        item = {"uri": uri, "languageId": "yaml", "version": 1, "text": document.read_text(encoding="utf-8")}
        client.send("textDocument/didOpen", {"textDocument": item}, request=False)
        client.pump_until(lambda: uri in client.published, timeout=60)
        return client.published[uri]["diagnostics"]
    finally:
        client.proc.kill()
        client.proc.wait(timeout=10)


def test_yaml_server_repeats_none_of_the_lint_on_the_bad_rubric_sample(tmp_path: Path) -> None:
    """Red Hat's YAML server, given the bad rubric sample's modeline, reported 4 findings that repeated
    AR013, AR103, AR001 and AR021 ("Property requirment is not allowed") while the modeline named the
    validating schema. With the completion-only schema it reports none; with the validating one it still
    would (the check can fail)."""
    sample = REPO / "samples" / "autorubric" / "bad-rubric.rubric.yaml"
    assert _open_in_yaml_server(tmp_path, sample) == []
    validating = tmp_path / "validating.rubric.yaml"
    body = sample.read_text(encoding="utf-8").split("\n", 1)[1]
    schema = (REPO / "schemas" / "autorubric-rubric.schema.json").as_uri()
    validating.write_text(f"# yaml-language-server: $schema={schema}\n{body}", encoding="utf-8")
    assert len(_open_in_yaml_server(tmp_path, validating)) >= 4
