"""Misspelt keys inside test `options` and grader provider objects (PF023).

promptfoo passes unknown `options` keys through and drops unknown provider-object keys, so
`providr:` or `rubricPromt:` in options, or `confg:` in a grader, silently leaves the grader
override without effect. Only near spellings of a key promptfoo reads are reported: both
mappings legitimately carry other keys (custom options, provider-specific fields).
"""

from __future__ import annotations

from rubric_lsp.document import Node
from rubric_lsp.formats.promptfoo.resolve import ConfigView, Source
from rubric_lsp.formats.promptfoo.rules.common import F, W
from rubric_lsp.rules.registry import rule
from rubric_lsp.rules.suggest import did_you_mean
from rubric_lsp.rules.unknown_keys import RENAME_SAFETY, unknown_key

MISSPELT_OPTION = rule(
    "PF023",
    "misspelt-option-key",
    W,
    "A misspelt key in test `options` or in a grader provider object; the setting never takes effect.",
    "promptfoo keeps unknown `options` keys and drops unknown provider keys without a word, so "
    "`providr:` grades with the default grader, `rubricPromt:` with the default prompt, and "
    "`confg:` runs the grader without its config (temperature, base URL).",
    bad="prompts: ['Say {{x}}']\nproviders: [openai:gpt-4.1-mini]\ndefaultTest:\n  options:\n    providr: openai:gpt-4.1\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite",
    good="prompts: ['Say {{x}}']\nproviders: [openai:gpt-4.1-mini]\ndefaultTest:\n  options:\n    provider: openai:gpt-4.1\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite",
    fix="rename the key to the one promptfoo reads",
    fix_safety=RENAME_SAFETY,
    formats=F,
)

# promptfoo 0.123.1: PromptConfig, OutputConfig and GradingConfig schemas plus TestCase.options' own keys
OPTION_KEYS = (
    "prefix", "suffix", "postprocess", "transform", "transformVars", "storeOutputAs", "rubricPrompt",
    "provider", "factuality", "disableVarExpansion", "disableConversationVar", "disableDefaultAsserts",
    "runSerially", "repeat",
)  # fmt: skip
PROVIDER_KEYS = ("id", "label", "config", "prompts", "transform", "delay", "env", "inputs")
GRADER_KINDS = ("text", "embedding", "classification", "moderation")


def check_options(ctx, report, view: ConfigView) -> None:
    if not ctx.enabled(MISSPELT_OPTION):
        return
    seen: set[int] = set()
    default = view.default_test
    for test in ([default] if default is not None and default.node is not None else []) + view.tests:
        options = test.get("options")
        if options is not None and options.is_map and id(options) not in seen:
            seen.add(id(options))
            _misspelt(ctx, report, test.source, options, OPTION_KEYS, "options")
            _grader(ctx, report, test.source, options.get("provider"), seen)
    for a in view.assertions():
        if a.node.is_map:
            _grader(ctx, report, a.source, a.node.get("provider"), seen)


def _grader(ctx, report, source: Source, provider: Node | None, seen: set[int]) -> None:
    if provider is None or not provider.is_map or id(provider) in seen:
        return
    seen.add(id(provider))
    if provider.has("id"):
        _misspelt(ctx, report, source, provider, PROVIDER_KEYS, "grader provider")
        return
    for kind in GRADER_KINDS:  # a type map: each entry is a provider of its own
        _grader(ctx, report, source, provider.get(kind), seen)


def _misspelt(ctx, report, source: Source, mapping: Node, known: tuple[str, ...], what: str) -> None:
    for key_node, _value in mapping.pairs():
        key = key_node.value
        if not isinstance(key, str) or key in known:
            continue
        found = unknown_key(ctx, mapping, key_node, known, cutoff=0.8)
        if found.suggestion is None:
            continue
        report(
            MISSPELT_OPTION,
            source,
            key_node,
            f"'{key}' in {what} is not a key promptfoo reads, so the setting never takes effect."
            + did_you_mean(key, found.suggestion),
            found.fix if source.is_config else None,
        )
