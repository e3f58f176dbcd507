"""promptfoo's own examples, linted in place: every real defect flagged on its line, nothing else.

The expected findings are spelled out: a new finding on this corpus is either a real
defect (add it here, with why) or a false alarm (fix the rule).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rubric_lsp.diagnostics import Severity
from rubric_lsp.lint import lint_path
from tests.conftest import CORPUS

EXAMPLES = CORPUS / "promptfoo" / "examples"
pytestmark = pytest.mark.slow  # lints all 431 files once (a few seconds)

# The defects named in corpus/README.md (they fail at eval time).
KNOWN_DEFECTS = {
    # unknown assertion types
    ("amazon-bedrock/agents/promptfooconfig.yaml", "PF100", 47),  # not-empty
    ("amazon-bedrock/agents/promptfooconfig.yaml", "PF100", 52),
    ("amazon-bedrock/models/promptfooconfig.inference-profiles-simple.yaml", "PF100", 63),  # min-length
    ("amazon-bedrock/models/promptfooconfig.inference-profiles.yaml", "PF100", 124),
    ("google-video/promptfooconfig-extension.yaml", "PF100", 19),  # is-valid-video
    ("google-video/promptfooconfig-extension.yaml", "PF100", 23),
    ("google-video/promptfooconfig-image.yaml", "PF100", 19),
    ("google-video/promptfooconfig-image.yaml", "PF100", 23),
    ("google-video/promptfooconfig.yaml", "PF100", 18),
    ("google-video/promptfooconfig.yaml", "PF100", 22),
    ("google-video/promptfooconfig.yaml", "PF100", 26),
    ("provider-cerebras/promptfooconfig-structured.yaml", "PF100", 43),  # json-schema-valid
    ("provider-cerebras/promptfooconfig-structured.yaml", "PF100", 53),  # contains-json-property
    ("provider-cerebras/promptfooconfig-structured.yaml", "PF100", 62),
    ("provider-databricks/promptfooconfig.vision.yaml", "PF100", 25),  # max-length
    ("provider-databricks/promptfooconfig.yaml", "PF100", 49),
    ("provider-http/tls/promptfooconfig.yaml", "PF100", 117),  # not-empty
    ("provider-http/tls/promptfooconfig.yaml", "PF100", 130),  # min-length
    ("provider-nscale/image-promptfooconfig.yaml", "PF100", 28),  # not-empty
    ("provider-nscale/image-promptfooconfig.yaml", "PF100", 35),
    ("provider-nscale/image-promptfooconfig.yaml", "PF100", 42),
    ("provider-nscale/image-promptfooconfig.yaml", "PF100", 49),
    # `reason:` keys on assertions (dropped at run time; the assertion runs as without them)
    *{("anthropic/opus-4-6-coding/promptfooconfig.yaml", "PF021", n) for n in (31, 62, 77, 80, 83, 116, 150)},
    *{("anthropic/web-tools/promptfooconfig.yaml", "PF021", n) for n in (36, 67, 72, 80)},
    # grader provider objects without id
    ("provider-truefoundry/promptfooconfig-mcp.yaml", "PF102", 61),
    ("provider-truefoundry/promptfooconfig.yaml", "PF102", 59),
    # an embedding type map as defaultTest.provider (a target override needs an id)
    ("provider-cohere/complex_config.yaml", "PF102", 9),
    # {{ output }} inside an llm-rubric value renders empty
    ("huggingface/hle/promptfooconfig.yaml", "PF005", 26),
}

# Further real defects, each one a maintainer would fix.
OTHER_DEFECTS = {
    # a test nested inside a test: promptfoo ignores the inner 'tests' list
    ("amazon-bedrock/agents/promptfooconfig.multi-agent.yaml", "PF001", 181),
    # top-level 'options' (maxConcurrency, cache) is ignored; it belongs in evaluateOptions
    ("amazon-bedrock/agents/promptfooconfig.multi-agent.yaml", "PF001", 236),
    # top-level 'outputs:' is ignored (outputPath writes results)
    ("provider-cerebras/promptfooconfig-structured.yaml", "PF001", 67),
    ("provider-cerebras/promptfooconfig-tools.yaml", "PF001", 48),
    ("provider-cerebras/promptfooconfig.yaml", "PF001", 41),
    ("provider-nscale/promptfooconfig.yaml", "PF001", 47),
    # rubrics asking for "Score 0.7+/1.0" or "a scale of 0-1" with no threshold: always pass
    ("azure/assistant/promptfooconfig-file-search.yaml", "PF002", 70),
    ("azure/assistant/promptfooconfig-file-search.yaml", "PF002", 106),
    ("provider-http/tls/promptfooconfig.yaml", "PF002", 160),
    # "Score 1-5" with threshold 0.7: every score passes
    ("config-multiple-translations/promptfooconfig.yaml", "PF003", 30),
    # references to files that do not exist in promptfoo's repository either
    (
        "config-external-provider-config/promptfooconfig.yaml",
        "RL010",
        6,
    ),  # gpt-4.1-mini.yaml; the file is gpt-4o-mini.yaml
    ("config-separate-test-configs/promptfooconfig.yaml", "RL010", 38),  # asserts/assert.js
    ("google-live/promptfooconfig.statefulapi.yaml", "RL010", 12),  # repository-root path, not config-relative
    ("amazon-bedrock/models/promptfooconfig.nova-sonic.yaml", "RL010", 46),  # assets/hello.wav
    # what `promptfoo eval` 0.123.1 refuses up front (issue 15, item 13):
    # prompt objects {id, content} without 'raw' or 'label' ('Invalid prompt'), and agent ids
    # in 'id' where the provider id went into an unread 'provider' key ('Could not identify provider')
    *{("amazon-bedrock/agents/promptfooconfig.multi-agent.yaml", "PF109", n) for n in (51, 56, 61, 66, 71)},
    *{("amazon-bedrock/agents/promptfooconfig.multi-agent.yaml", "PF110", n) for n in (10, 20, 30, 40)},
    # (eval-assertions-generate/promptfooconfig-minimal.yaml has no providers, but it is what
    # `promptfoo generate assertions` reads, which needs none: no finding since issue 24)
    # SageMaker model type 'anthropic' ('Invalid model type'); GitHub Models, retired
    ("provider-amazon-sagemaker/promptfooconfig.multimodel.yaml", "PF110", 18),
    ("provider-github-models/promptfooconfig.yaml", "PF110", 8),
    ("provider-github-models/promptfooconfig.yaml", "PF110", 12),
    # defaultTest.options.providers (plural) is not read: the grader override never takes effect
    ("google-aistudio-tools/promptfooconfig.yaml", "PF023", 18),
    ("google-vertex-tools/promptfooconfig.yaml", "PF023", 32),
    # a single-quoted '\n' is a backslash and an n, not a line break: promptfoo takes the one-line
    # prompt for a path (it contains '\') and stops with 'There are no prompts in "System: …"'
    # (checked with promptfoo 0.123.1's own readPrompts, as tests/test_promptfoo_bare_refs.py runs it)
    ("redteam-tracing-example/promptfooconfig.advanced.yaml", "PF120", 10),
    # a strategy listed as a plugin: `redteam generate` 0.123.1 stops with 'Invalid plugin id
    # "prompt-injection"' (run on a copy of the example; its schema has no such plugin)
    ("redteam-tracing-example/promptfooconfig.advanced.yaml", "PF112", 84),
    # (`body: Yes` in simple-test is no longer RL005: promptfoo's js-yaml reads YAML 1.2, where it is a string)
}

# Media, PDF, spreadsheet and Markdown files the configs read that this copy of the
# examples does not carry (stripped by the copy, or supplied by the user per the
# example's README). The eval really fails without them, so RL010 is right to say so.
ABSENT_FROM_COPY = {
    ("amazon-bedrock/models/promptfooconfig.converse-images.yaml", "RL010", 36),
    ("amazon-bedrock/models/promptfooconfig.llama-vision.yaml", "RL010", 30),
    ("amazon-bedrock/models/promptfooconfig.nova-sonic.yaml", "RL010", 54),
    ("amazon-bedrock/models/promptfooconfig.nova.multimodal.yaml", "RL010", 17),
    ("azure/openai/promptfooconfig.vision.yaml", "RL010", 21),
    ("config-custom-prompt-function/promptfooconfig.yaml", "RL010", 28),
    ("config-pdf-variables/promptfooconfig.yaml", "RL010", 12),
    ("config-pdf-variables/promptfooconfig.yaml", "RL010", 14),
    ("config-pdf-variables/promptfooconfig.yaml", "RL010", 16),
    ("eval-rag/promptfooconfig.yaml", "RL010", 14),
    ("eval-rag/promptfooconfig.yaml", "RL010", 31),
    ("google-aistudio-gemini/promptfooconfig.image.yaml", "RL010", 15),
    ("google-aistudio-gemini/promptfooconfig.image.yaml", "RL010", 16),
    ("google-vertex/promptfooconfig.image.yaml", "RL010", 14),
    ("google-video/promptfooconfig-image.yaml", "RL010", 11),
    ("openai-audio/promptfooconfig.yaml", "RL010", 17),
    ("openai-audio/promptfooconfig.yaml", "RL010", 23),
    ("redteam-multi-modal/promptfooconfig.static-image.yaml", "RL010", 14),
    ("redteam-multi-modal/redteam.static-image.yaml", "RL010", 48),
    ("simple-csv/promptfooconfig.xlsx.yaml", "RL010", 7),
}
ASSET_SUFFIXES = (".jpg", ".jpeg", ".png", ".wav", ".mp3", ".pdf", ".md", ".xlsx")


@pytest.fixture(scope="module")
def corpus_results():
    if not EXAMPLES.is_dir():
        pytest.skip(f"promptfoo examples not found at {EXAMPLES}")
    files = sorted(list(EXAMPLES.rglob("*.yaml")) + list(EXAMPLES.rglob("*.yml")))
    return {f.relative_to(EXAMPLES).as_posix(): lint_path(f, root_dir=EXAMPLES, explicit=False) for f in files}


def _findings(results, level=Severity.WARNING):
    return {
        (path, d.code, d.range.start.line + 1)
        for path, r in results.items()
        for d in r.diagnostics
        if d.severity <= level
    }


def test_every_example_yaml_is_read(corpus_results):
    assert len(corpus_results) == 431
    configs = [p for p, r in corpus_results.items() if r.format is not None and r.format.name == "promptfoo-config"]
    assert len(configs) == 402


def test_findings_are_exactly_the_real_defects(corpus_results):
    found = _findings(corpus_results)
    expected = KNOWN_DEFECTS | OTHER_DEFECTS | ABSENT_FROM_COPY
    assert sorted(found - expected) == [], "new findings: real defects to list, or false alarms to fix"
    assert sorted(expected - found) == [], "defects no longer flagged"


def test_absent_assets_are_only_media_or_markdown(corpus_results):
    for path, code, line in ABSENT_FROM_COPY:
        diagnostic = next(
            d for d in corpus_results[path].diagnostics if d.code == code and d.range.start.line + 1 == line
        )
        quoted = diagnostic.message.split("'")[1]
        assert quoted.lower().endswith(ASSET_SUFFIXES), diagnostic.message


def test_known_defect_messages_name_the_problem(corpus_results):
    def message(path, code, line):
        return next(
            d.message for d in corpus_results[path].diagnostics if d.code == code and d.range.start.line + 1 == line
        )

    assert "not-empty" in message("amazon-bedrock/agents/promptfooconfig.yaml", "PF100", 47)
    assert "'reason'" in message("anthropic/web-tools/promptfooconfig.yaml", "PF021", 36)
    assert "id" in message("provider-truefoundry/promptfooconfig.yaml", "PF102", 59)
    assert "{{output}}" in message("huggingface/hle/promptfooconfig.yaml", "PF005", 26)


def test_non_config_yaml_files_are_not_promptfoo_configs(corpus_results):
    others = {p: r for p, r in corpus_results.items() if r.format is None or r.format.name != "promptfoo-config"}
    assert len(others) == 29
    assert "config-separate-test-configs/tests/tests1.yaml" in others
    assert "config-external-defaulttest/shared/defaultTest.yaml" in others
    for path, result in others.items():
        assert not [d for d in result.diagnostics if d.severity <= Severity.WARNING], path


def test_referenced_test_files_are_dependencies(corpus_results):
    deps = corpus_results["config-separate-test-configs/promptfooconfig.yaml"].dependencies
    names = {Path(d).name for d in deps}
    assert {"tests1.yaml", "tests2.yaml", "var_topic.yaml"} <= names
