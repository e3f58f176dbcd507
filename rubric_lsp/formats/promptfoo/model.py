"""The promptfoo config schema (faithful to promptfoo 0.121.x), shared by lint, export and hover.

Strict where promptfoo fails at run time (an assertion without a string ``type``, a
non-numeric ``threshold``, ``assert`` that is not a list), lenient where it accepts
(``prompts`` is not required: red-team and target-only configs run without it; nothing
is required only because it has a default). Unknown keys are accepted by validation
and reported by the rules with the severity promptfoo's behaviour deserves; the exported
JSON Schema closes objects (``additionalProperties: false``) where promptfoo drops
unknown keys, because that is how editors surface typos.

Validation runs piece by piece (top level, each test, each assertion) so that an error
points at the smallest node; :class:`PromptfooConfig` ties the pieces together for the
exported schema.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rubric_lsp.formats.promptfoo.assertion_types import (
    ASSERT_SET_KEYS,
    ASSERTION_KEYS,
    BASE_ASSERTION_TYPES,
    REDTEAM_PREFIX,
    SPECIAL_ASSERTION_TYPES,
)

# -- pieces -------------------------------------------------------------------------------

_CLOSED = ConfigDict(defer_build=True, extra="ignore", json_schema_extra={"additionalProperties": False})
_OPEN = ConfigDict(defer_build=True, extra="allow")

ProviderId = str
GraderProvider = str | dict[str, Any]


class ProviderOptions(BaseModel):
    """A provider written out in full."""

    model_config = _OPEN

    id: str = Field(
        description="Provider id, e.g. 'openai:gpt-5-mini', 'anthropic:messages:claude-sonnet-4-5', or a file:// script."
    )
    label: str | None = Field(None, description="Display name; test 'providers' filters match it.")
    config: dict[str, Any] | None = Field(
        None, description="Provider settings (temperature, max_tokens, apiBaseUrl, showThinking, ...)."
    )
    prompts: list[str] | None = Field(
        None, description="Only run these prompts (by label or id) against this provider."
    )
    transform: str | None = Field(None, description="JavaScript applied to this provider's output.")
    delay: float | None = Field(None, description="Milliseconds to wait between calls.")
    env: dict[str, Any] | None = Field(None, description="Environment overrides for this provider.")


class GraderTypeMap(BaseModel):
    """A grader given per output kind; the key the assertion needs must be present (or an 'id')."""

    model_config = _OPEN

    text: GraderProvider | None = Field(
        None,
        description="Grader for text-judged assertions (llm-rubric, g-eval, factuality, closedqa, select-best, ...).",
    )
    embedding: GraderProvider | None = Field(None, description="Embedding provider for similar and answer-relevance.")
    classification: GraderProvider | None = Field(None, description="Classifier for the classifier assertion.")
    moderation: GraderProvider | None = Field(None, description="Moderation provider for the moderation assertion.")


class Assertion(BaseModel):
    """One check on an output. Keys other than these are dropped by promptfoo at run time."""

    model_config = _CLOSED

    type: str = Field(
        description="The assertion type (completion lists the known ones, each documented); 'not-' inverts a base type."
    )
    value: Any = Field(None, description=ASSERTION_KEYS["value"])
    config: dict[str, Any] | None = Field(None, description=ASSERTION_KEYS["config"])
    threshold: float | None = Field(None, description=ASSERTION_KEYS["threshold"])
    weight: float | None = Field(None, description=ASSERTION_KEYS["weight"])
    provider: str | ProviderOptions | GraderTypeMap | None = Field(None, description=ASSERTION_KEYS["provider"])
    rubricPrompt: str | list[Any] | dict[str, Any] | None = Field(None, description=ASSERTION_KEYS["rubricPrompt"])
    metric: str | None = Field(None, description=ASSERTION_KEYS["metric"])
    transform: str | None = Field(None, description=ASSERTION_KEYS["transform"])
    contextTransform: str | None = Field(None, description=ASSERTION_KEYS["contextTransform"])


class AssertionSet(BaseModel):
    """A group of assertions scored together."""

    model_config = _CLOSED

    type: Literal["assert-set"] = Field(description=ASSERT_SET_KEYS["type"])
    assert_: list[Assertion] = Field(alias="assert", description=ASSERT_SET_KEYS["assert"])
    weight: float | None = Field(None, description=ASSERT_SET_KEYS["weight"])
    metric: str | None = Field(None, description=ASSERT_SET_KEYS["metric"])
    threshold: float | None = Field(None, description=ASSERT_SET_KEYS["threshold"])
    config: dict[str, Any] | None = Field(None, description=ASSERT_SET_KEYS["config"])


class AssertionReference(BaseModel):
    """A reusable assertion pulled in with a JSON pointer (promptfoo dereferences $ref when loading)."""

    model_config = _CLOSED

    ref: str = Field(
        alias="$ref", description="JSON pointer to the assertion, e.g. '#/assertionTemplates/containsPirateNoise'."
    )


class FactualityScores(BaseModel):
    model_config = _CLOSED

    subset: float | None = Field(None, description="Score when the output is a subset of the reference (A).")
    superset: float | None = Field(None, description="Score when the output is a superset of the reference (B).")
    agree: float | None = Field(None, description="Score when output and reference agree (C).")
    disagree: float | None = Field(None, description="Score when they contradict (D).")
    differButFactual: float | None = Field(None, description="Score when they differ but both are factual (E).")


class TestOptions(BaseModel):
    """Per-test options. Extra keys are passed on (promptfoo accepts them)."""

    model_config = _OPEN

    provider: str | ProviderOptions | GraderTypeMap | None = Field(
        None,
        description="Grader for the model-graded assertions of this test (defaultTest.options.provider is the only slot --grader replaces). A shorthand string here drops the config of a default grader object.",
    )
    rubricPrompt: str | list[Any] | dict[str, Any] | None = Field(
        None, description="Grading prompt for this test's model-graded assertions."
    )
    prefix: str | None = Field(None, description="Text prepended to the prompt.")
    suffix: str | None = Field(None, description="Text appended to the prompt.")
    transform: str | None = Field(None, description="JavaScript applied to the output before the assertions.")
    postprocess: str | None = Field(None, description="Deprecated alias of transform.")
    transformVars: str | dict[str, Any] | None = Field(
        None, description="JavaScript (or a file:// script) that computes extra vars before the prompt is rendered."
    )
    storeOutputAs: str | None = Field(None, description="Store the output in this var for later tests.")
    factuality: FactualityScores | None = Field(None, description="Scores of the five factuality categories.")
    disableVarExpansion: bool | None = Field(None, description="Do not expand array vars into several tests.")
    disableConversationVar: bool | None = Field(None, description="Do not provide the _conversation var.")
    runSerially: bool | None = Field(None, description="Run this test alone, not concurrently.")


class TestCase(BaseModel):
    """One test: vars to render the prompts with and assertions on each output."""

    model_config = _CLOSED

    description: str | None = Field(None, description="Shown in the results.")
    vars: dict[str, Any] | str | list[Any] | None = Field(
        None,
        description="Variables for the prompt templates (and for rubric templates); a mapping or file:// reference(s).",
    )
    provider: str | ProviderOptions | None = Field(
        None, description="Overrides the target provider for this test (not a grader)."
    )
    providers: list[str] | None = Field(
        None, description="Only run this test against these providers (labels or ids, wildcards allowed)."
    )
    prompts: list[str] | None = Field(None, description="Only run this test with these prompts (labels or ids).")
    providerOutput: Any = Field(None, description="A fixed output to assert on instead of calling a provider.")
    assert_: list[AssertionSet | Assertion | AssertionReference] | str | None = Field(
        None, alias="assert", description="Assertions checked on every output of this test (after defaultTest.assert)."
    )
    assertScoringFunction: str | None = Field(
        None, description="file:// reference to a function that combines assertion scores."
    )
    options: TestOptions | None = Field(None, description="Test options: grader provider, rubricPrompt, transforms.")
    threshold: float | None = Field(None, description="Minimum weighted score of the assertions for the test to pass.")
    metadata: dict[str, Any] | None = Field(None, description="Free-form metadata (filters, red-team plugin info).")


class DefaultTest(TestCase):
    """Merged into every test: vars and options shallowly, assert lists concatenated (these first)."""


class TestFileReference(BaseModel):
    """A test generator or test file with settings."""

    model_config = _CLOSED

    path: str = Field(
        description="file:// path of the tests (CSV, YAML, JSON, JSONL, a script, or a Google Sheet URL)."
    )
    config: dict[str, Any] | None = Field(None, description="Settings passed to the test loader.")


class Scenario(BaseModel):
    """Runs every test with every entry of config (each entry's vars merged in)."""

    model_config = _CLOSED

    description: str | None = Field(None, description="Shown in the results.")
    config: list[dict[str, Any]] = Field(
        description="Variants: each a partial test (vars, options, assert) combined with every test."
    )
    tests: list[TestCase | str] = Field(description="The tests of this scenario.")


class RedteamConfig(BaseModel):
    """Red-team generation settings (promptfoo redteam generate). Plugins and strategies have defaults."""

    model_config = _OPEN

    purpose: str | None = Field(
        None, description="What the target application does; guides attack generation and grading."
    )
    provider: str | ProviderOptions | None = Field(
        None,
        description="Provider that generates attacks and grades red-team results; without it grading may go to promptfoo's remote service.",
    )
    plugins: list[str | dict[str, Any]] | None = Field(
        None, description="Vulnerability plugins (default set when omitted)."
    )
    strategies: list[str | dict[str, Any]] | None = Field(
        None, description="Attack strategies (default set when omitted)."
    )
    numTests: int | None = Field(None, description="Tests per plugin.")
    injectVar: str | None = Field(None, description="The prompt variable attacks are injected into.")
    language: str | list[str] | None = Field(None, description="Language(s) of generated attacks.")


class PromptfooConfig(BaseModel):
    """A promptfoo config (promptfooconfig.yaml). No key is required: red-team and target-only configs need no prompts."""

    model_config = _CLOSED

    description: str | None = Field(None, description="What this eval is about.")
    tags: dict[str, Any] | None = Field(None, description="Free-form tags.")
    prompts: str | list[Any] | dict[str, str] | None = Field(
        None, description="Prompt templates: strings, file:// references (globs allowed) or {id, label, raw} objects."
    )
    providers: str | list[Any] | dict[str, Any] | None = Field(
        None,
        description="Target providers: ids, {id, config, label} objects, {id: options} maps, or file:// references.",
    )
    targets: str | list[Any] | dict[str, Any] | None = Field(None, description="Alias of providers.")
    tests: str | list[TestCase | TestFileReference | str] | TestFileReference | None = Field(
        None, description="Test cases, or file:// references to CSV/YAML/JSON test files (globs allowed)."
    )
    defaultTest: DefaultTest | str | None = Field(
        None, description="Merged into every test (vars, options, assert); may be a file:// reference."
    )
    scenarios: list[Scenario | str] | str | None = Field(
        None, description="Groups of tests run with several variants of vars."
    )
    redteam: RedteamConfig | None = Field(None, description="Red-team generation settings.")
    plugins: list[str | dict[str, Any]] | None = Field(
        None,
        description="Red-team plugins at the top level: promptfoo moves them into redteam.plugins (replacing those).",
    )
    strategies: list[str | dict[str, Any]] | None = Field(
        None,
        description="Red-team strategies at the top level: promptfoo moves them into redteam.strategies (replacing those).",
    )
    outputPath: str | list[str] | None = Field(
        None, description="Where to write results (file:// path; need not exist)."
    )
    sharing: bool | dict[str, Any] | None = Field(None, description="Share results on promptfoo's server.")
    nunjucksFilters: dict[str, str] | None = Field(None, description="Custom Nunjucks filters: name → file:// script.")
    env: dict[str, Any] | None = Field(None, description="Environment variables for providers.")
    derivedMetrics: list[dict[str, Any]] | None = Field(None, description="Metrics computed from other metrics.")
    extensions: list[str] | None = Field(None, description="Hook scripts (file://path:function).")
    metadata: dict[str, Any] | None = Field(None, description="Free-form metadata.")
    writeLatestResults: bool | None = Field(None, description="Store the results in the local database.")
    tracing: dict[str, Any] | None = Field(None, description="OpenTelemetry tracing settings.")
    evaluateOptions: dict[str, Any] | None = Field(
        None, description="Eval settings such as maxConcurrency, repeat, delay, cache."
    )
    commandLineOptions: dict[str, Any] | None = Field(
        None, description="Defaults for promptfoo eval command-line flags."
    )
    assertionTemplates: dict[str, Any] | None = Field(
        None, description="Reusable assertions referenced with $ref: '#/assertionTemplates/name'."
    )


# The models the lint validates with, exported as shape tables for its fast path (formats/shape_export.py).
SHAPED = (PromptfooConfig, TestCase, Assertion, AssertionSet)

TOP_LEVEL_KEYS = tuple(PromptfooConfig.model_fields)
TEST_KEYS = tuple(f.alias or name for name, f in TestCase.model_fields.items())
OPTION_KEYS = tuple(TestOptions.model_fields)


def field_description(model: type[BaseModel], key: str) -> str | None:
    for name, info in model.model_fields.items():
        if name == key or info.alias == key:
            return info.description
    return None


UNKNOWN_TYPE_MESSAGE = (
    "Unknown assertion type: promptfoo fails the eval with 'Unknown assertion type'. "
    "Complete `type:` for the known ones ('not-' inverts a base type)."
)
# The alternatives of an assertion list item; replaced by a discriminator in the exported schema.
_ITEM_REFS = ("#/$defs/AssertionSet", "#/$defs/Assertion", "#/$defs/AssertionReference")


def promptfoo_json_schema() -> dict[str, Any]:
    schema = PromptfooConfig.model_json_schema(by_alias=True)
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    schema["title"] = "promptfoo config"
    schema.setdefault("$defs", {})["AssertionType"] = assertion_type_schema()
    assertion = schema["$defs"].get("Assertion")
    if assertion:
        assertion["properties"]["type"] = {
            "$ref": "#/$defs/AssertionType",
            "description": assertion["properties"]["type"].get("description", ""),
        }
    return _discriminate_assertions(schema)


def assertion_type_schema() -> dict[str, Any]:
    """Known types as an enum with their docs (completion), one message for any other name.

    An ``anyOf`` of ``const``s made editors list all 134 names when a type was unknown: the
    YAML server merges failed ``const`` alternatives into one enum message. Here the known
    names are one ``enum`` (completion shows each one's docs) and red-team graders a pattern;
    both alternatives carry the same ``errorMessage``, so whichever one the YAML server or
    VS Code reports as the closest, an unknown name gets that one line.
    """
    described = {**BASE_ASSERTION_TYPES, **SPECIAL_ASSERTION_TYPES}
    described.update({"not-" + name: "Inverted: " + text for name, text in BASE_ASSERTION_TYPES.items()})
    return {
        "type": "string",
        "description": f"A promptfoo assertion type, or a red-team plugin's grader ({REDTEAM_PREFIX}...).",
        "anyOf": [
            {
                "enum": list(described),
                "enumDescriptions": list(described.values()),
                "errorMessage": UNKNOWN_TYPE_MESSAGE,
            },
            {"pattern": f"^{REDTEAM_PREFIX}.", "errorMessage": UNKNOWN_TYPE_MESSAGE},
        ],
    }


def _discriminate_assertions(node: Any) -> Any:
    """Each assertion list item checked against one schema, chosen by its keys, instead of ``anyOf`` of three.

    With ``anyOf`` an item of unknown type matches none, and editors report the failures of the
    closest one — often the assert-set ("Missing property 'assert'") — and hover the set's docs.
    """
    if isinstance(node, list):
        return [_discriminate_assertions(item) for item in node]
    if not isinstance(node, dict):
        return node
    alternatives = node.get("anyOf")
    if (
        isinstance(alternatives, list)
        and tuple(a.get("$ref") for a in alternatives if isinstance(a, dict)) == _ITEM_REFS
    ):
        return {
            "if": {"required": ["$ref"]},
            "then": {"$ref": "#/$defs/AssertionReference"},
            "else": {
                "if": {"properties": {"type": {"const": "assert-set"}}, "required": ["type"]},
                "then": {"$ref": "#/$defs/AssertionSet"},
                "else": {"$ref": "#/$defs/Assertion"},
            },
        }
    return {key: _discriminate_assertions(value) for key, value in node.items()}
