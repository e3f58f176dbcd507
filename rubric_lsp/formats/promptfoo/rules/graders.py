"""Graders (providers of model-graded assertions): kind, shorthand, temperature, thinking models, self-grading."""

from __future__ import annotations

import json
import re

from rubric_lsp.diagnostics import Fix
from rubric_lsp.document import Node
from rubric_lsp.document.issues import TextEdit
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.promptfoo.resolve import AssertionInfo, ConfigView, Source, TestInfo, masked
from rubric_lsp.formats.promptfoo.rules.common import E, F, I, W
from rubric_lsp.rules.registry import rule

SHORTHAND_DROPS_CONFIG = rule(
    "PF009",
    "shorthand-grader-drops-config",
    W,
    "A shorthand `provider: id` replaces a default grader object, and its config is lost.",
    "The options merge is shallow: a provider string on an assertion or test replaces the whole "
    "default grader, so the default's config (temperature 0, base URL, ...) no longer applies.",
    bad="defaultTest:\n  options:\n    provider: {id: openai:gpt-5-mini, config: {temperature: 0}}\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite\n        provider: openai:gpt-5-mini",
    good="        provider: {id: openai:gpt-5-mini, config: {temperature: 0}}",
    fix="expand the shorthand into {id, config} carrying the default's config",
    fix_safety="Unsafe: the expanded grader carries the default's config, which changes the judge calls promptfoo makes.",
    formats=F,
)

WRONG_MODEL_KIND = rule(
    "PF010",
    "grader-model-kind",
    W,
    "An embedding or moderation model grades text, or a chat model is used for embeddings.",
    "Text-judged assertions need a chat model and similarity needs an embedding model; the wrong "
    "kind fails at eval time or returns nonsense.",
    bad="tests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite\n        provider: openai:embedding:text-embedding-3-small",
    good="tests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite\n        provider: openai:gpt-5-mini",
    formats=F,
    checked_against="promptfoo 0.123.1's src/matchers.ts (getAndCheckProvider: 'is not a valid embedding provider')",
)

THINKING_GRADER = rule(
    "PF011",
    "thinking-grader",
    W,
    "A reasoning/thinking grader without `showThinking: false`.",
    "promptfoo puts the judge's thinking before its answer and takes the first JSON-like object as "
    "the verdict, so a scratchpad `{pass, score}` in the thinking can become the grade.",
    bad="defaultTest:\n  options:\n    provider:\n      id: anthropic:messages:claude-sonnet-4-5\n      config:\n        thinking: {type: enabled, budget_tokens: 2048}\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite",
    good="defaultTest:\n  options:\n    provider:\n      id: anthropic:messages:claude-sonnet-4-5\n      config:\n        thinking: {type: enabled, budget_tokens: 2048}\n        showThinking: false\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite",
    formats=F,
)

GRADER_TEMPERATURE = rule(
    "PF012",
    "grader-temperature",
    I,
    "A grader temperature that is ignored (GPT-5 family) or not 0.",
    "GPT-5 family reasoning models ignore temperature; any other non-zero temperature makes grades vary between runs.",
    bad="defaultTest:\n  options:\n    provider: {id: openai:gpt-4.1, config: {temperature: 0.7}}\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite",
    good="defaultTest:\n  options:\n    provider: {id: openai:gpt-4.1, config: {temperature: 0}}\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite",
    formats=F,
)

TARGET_GRADES_ITSELF = rule(
    "PF020",
    "target-grades-itself",
    I,
    "No grader is configured but defaultTest.provider is set: the target grades its own output.",
    "In promptfoo's precedence defaultTest.provider comes before the default grader: without `--grader` (which "
    "fills defaultTest.options.provider, above it) the model under test judges its own answers.",
    bad="defaultTest:\n  provider: openai:gpt-5-mini\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite",
    good="defaultTest:\n  provider: openai:gpt-5-mini\n  options:\n    provider: openai:gpt-4.1\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite",
    formats=F,
)

INVALID_PROVIDER = rule(
    "PF102",
    "invalid-provider-shape",
    E,
    "A provider promptfoo cannot load: a list, an object with neither `id` nor the needed type key, or a `{id: options}` map as a grader.",
    "getGradingProvider throws 'Invalid provider definition' (or 'Provider must be an object or "
    "string') at eval time; promptfoo's schema and `promptfoo validate` accept these shapes.",
    bad="defaultTest:\n  options:\n    provider:\n      config: {temperature: 0}\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite",
    good="defaultTest:\n  options:\n    provider:\n      id: openai:gpt-4.1\n      config: {temperature: 0}\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite",
    formats=F,
)

_EMBEDDING_ID = re.compile(r"embed|sentence-similarity", re.IGNORECASE)

_MODERATION_ID = re.compile(r"moderation", re.IGNORECASE)

_CHAT_ID = re.compile(
    r"(?:^|[:/])(?:gpt-|claude|gemini-(?!embedding)|o[134](?:-|$)|llama|mistral-(?!embed))", re.IGNORECASE
)

_GPT5 = re.compile(r"(?:^|[:/])gpt-5", re.IGNORECASE)

_REASONING_ID = re.compile(r"deepseek-reasoner|deepseek-r1|qwq|:thinking", re.IGNORECASE)


def check_graders(ctx, report, view: ConfigView) -> None:
    checked_nodes: set[tuple[int, str]] = set()
    default = view.default_test
    # Target provider overrides: a test's provider is a target, which needs an id.
    for test in ([default] if default is not None and default.node is not None else []) + view.tests:
        provider = test.get("provider")
        if provider is not None and provider.is_map and not provider.has("id") and not provider.has("callApi"):
            assert test.node is not None  # test.get() found a provider in it
            report(
                INVALID_PROVIDER,
                test.source,
                test.node.key_node("provider"),
                "This provider has no 'id', so promptfoo cannot load it "
                + (
                    "(a type map such as {embedding: ...} belongs under options.provider, for graders)."
                    if any(k in provider.keys() for k in ("text", "embedding", "classification", "moderation"))
                    else "(add 'id: <provider id>')."
                ),
            )
    for key in ("providers", "targets"):
        listed = view.root.get(key)
        for item in listed.value if listed is not None and listed.is_seq else []:
            if not item.is_map or item.has("id") or item.has("callApi") or len(item.value) == 1:
                continue  # ids, {id, config}, and the {provider-id: options} map form
            first_key = item.value[0][0] if item.value else item
            report(
                INVALID_PROVIDER,
                view.source,
                first_key,
                f"This entry of '{key}' has no 'id', so promptfoo cannot load the provider; add 'id: <provider id>'.",
            )
    shorthand_seen: set[int] = set()
    self_graded: list[AssertionInfo] = []
    for test in view.tests or ([default] if default is not None else []):
        for a in test.assertions:
            kind = a.grader_kind
            if kind is None:
                continue
            choice = view.grader(a, test if test is not default else None)
            if choice.node is not None and (id(choice.node), kind) not in checked_nodes:
                checked_nodes.add((id(choice.node), kind))
                origin = choice.origin or view.source
                if choice.problem:
                    report(
                        INVALID_PROVIDER,
                        origin,
                        choice.key if choice.key is not None and not choice.node.is_scalar else choice.node,
                        f"Grader for '{a.type}' ({choice.source}): {choice.problem}. Use an id string or {{id, config}}.",
                    )
                else:
                    _grader_model_checks(ctx, report, choice, a, origin)
            if choice.grades_itself:
                self_graded.append(a)
            _shorthand(ctx, report, view, a, test if test is not default else None, shorthand_seen)
    if self_graded and default is not None and default.node is not None:
        provider_key = default.node.key_node("provider")
        report(
            TARGET_GRADES_ITSELF,
            default.source,
            provider_key,
            f"{len({id(a.node) for a in self_graded})} model-graded assertion(s) have no grader configured, so the target "
            "set here grades its own output (unless `promptfoo eval --grader` names one). Set defaultTest.options.provider to choose a grader.",
        )


def _grader_model_checks(ctx, report, choice, a: AssertionInfo, origin: Source) -> None:
    pid = choice.provider_id or ""
    config = choice.config or {}
    if choice.kind == "text" and (_EMBEDDING_ID.search(pid) or _MODERATION_ID.search(pid)):
        report(
            WRONG_MODEL_KIND,
            origin,
            choice.node,
            f"'{pid}' is an embedding/moderation model but '{a.type}' needs a chat model to judge text; use a chat model id.",
        )
    if choice.kind == "embedding" and _CHAT_ID.search(pid) and not _EMBEDDING_ID.search(pid):
        report(
            WRONG_MODEL_KIND,
            origin,
            choice.node,
            f"'{pid}' is a chat model but '{a.type}' needs an embedding model (e.g. openai:embedding:text-embedding-3-small).",
        )
    if choice.kind != "text":
        return
    thinking = config.get("thinking")
    reasons = []
    if (isinstance(thinking, dict) and thinking.get("type") not in ("disabled", None)) or thinking is True:
        reasons.append("Anthropic 'thinking'")
    if config.get("reasoning_effort") not in (None, "none", "minimal") or isinstance(config.get("reasoning"), dict):
        reasons.append("a reasoning effort")
    if _REASONING_ID.search(pid):
        reasons.append("a reasoning model")
    if config.get("reasoning_parser") or config.get("enable_thinking") is True:
        reasons.append("a reasoning parser")
    if reasons and config.get("showThinking") is not False:
        report(
            THINKING_GRADER,
            origin,
            choice.node,
            f"This grader uses {reasons[0]} but does not set 'showThinking: false': its thinking is put before the "
            "verdict and a JSON-like object in it can become the grade. Add 'showThinking: false' to its config.",
        )
    temperature = config.get("temperature")
    if isinstance(temperature, (int, float)) and not isinstance(temperature, bool):
        if _GPT5.search(pid):
            report(GRADER_TEMPERATURE, origin, choice.node, f"'{pid}' (GPT-5 family) ignores temperature; remove it.")
        elif temperature != 0:
            report(
                GRADER_TEMPERATURE,
                origin,
                choice.node,
                f"Grader temperature {temperature:g} makes grades vary between runs; use 0 for reproducible grading.",
            )


def _shorthand(ctx, report, view: ConfigView, a: AssertionInfo, test: TestInfo | None, seen: set[int]) -> None:
    default = view.default_test
    candidates = []
    own = a.field("provider")
    if own is not None and own.is_scalar and isinstance(own.value, str):
        lower = [
            test.options_field("provider") if test is not None else None,
            default.options_field("provider") if default is not None else None,
        ]
        candidates.append((own, a.source, lower))
    if test is not None:
        test_provider = test.options_field("provider")
        if test_provider is not None and test_provider.is_scalar and isinstance(test_provider.value, str):
            candidates.append(
                (test_provider, test.source, [default.options_field("provider") if default is not None else None])
            )
    for node, source, lower in candidates:
        if id(node) in seen:
            continue
        target = next((n for n in lower if n is not None), None)
        if target is None or not target.is_map:
            continue
        config = target.get("config")
        if config is None or not config.is_map or not config.value:
            continue
        seen.add(id(node))
        fix = None
        if source.is_config:
            text = json.dumps({"id": node.value, "config": to_plain(config)}, ensure_ascii=False)
            fix = Fix(
                "Expand into {id, config} with the default grader's config", [TextEdit(node.span, text)], safe=False
            )
        report(
            SHORTHAND_DROPS_CONFIG,
            source,
            node,
            f"'provider: {node.value}' replaces the grader object on line {_line(view, target)} entirely (shallow merge), "
            f"so its config {json.dumps(masked(to_plain(config)), default=str)} no longer applies. Write the provider as {{id, config}}.",
            fix,
            related=[(target, "the grader object whose config is dropped")]
            if source.is_config and (default is None or default.source.is_config)
            else None,
        )


def _line(view: ConfigView, node: Node) -> int:
    doc = view.source.document
    return doc.lines.position(node.start).line + 1 if doc is not None else 0
