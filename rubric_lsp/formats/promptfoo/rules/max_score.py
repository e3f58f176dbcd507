"""max-score and select-best: selectors, weights, thresholds and ties (PF013–PF016, PF019, PF105, PF106)."""

from __future__ import annotations

from rubric_lsp.diagnostics import Fix
from rubric_lsp.document import Node
from rubric_lsp.document.issues import TextEdit
from rubric_lsp.document.positions import Span
from rubric_lsp.formats.promptfoo.assertion_types import MAX_SCORE_VALUE_KEYS
from rubric_lsp.formats.promptfoo.resolve import AssertionInfo, ConfigView
from rubric_lsp.formats.promptfoo.rules.common import E, F, I, W, delete_pair, insert_key, text_of
from rubric_lsp.formats.promptfoo.rules.scores import number_of
from rubric_lsp.rules.registry import rule
from rubric_lsp.rules.suggest import closest

MAX_SCORE_VALUE = rule(
    "PF013",
    "max-score-value",
    W,
    "A max-score `value` that does not do what it says (unknown key, method, weight or threshold).",
    "max-score reads only value.method (average|sum), value.weights (by exact assertion type) and "
    "value.threshold; weights for types absent from the test, other keys and other methods are "
    "ignored, and with `average` a threshold above 1 can never be met.",
    bad="prompts: [Summarize the ticket, Summarize the ticket in one line]\nproviders: [openai:gpt-5-mini]\ntests:\n  - assert:\n      - type: contains\n        value: refund\n      - type: max-score\n        value:\n          weights: {icontains: 2}  # no icontains assertion here",
    good="prompts: [Summarize the ticket, Summarize the ticket in one line]\nproviders: [openai:gpt-5-mini]\ntests:\n  - assert:\n      - type: contains\n        value: refund\n      - type: max-score\n        value:\n          weights: {contains: 2}",
    formats=F,
)

MAX_SCORE_THRESHOLD = rule(
    "PF014",
    "max-score-threshold-placement",
    W,
    "`threshold:` on a max-score assertion is ignored; it belongs in `value.threshold`.",
    "max-score reads its threshold from its value only.",
    bad="prompts: [Summarize the ticket, Summarize the ticket in one line]\nproviders: [openai:gpt-5-mini]\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Mentions the refund\n      - type: max-score\n        threshold: 0.7",
    good="prompts: [Summarize the ticket, Summarize the ticket in one line]\nproviders: [openai:gpt-5-mini]\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Mentions the refund\n      - type: max-score\n        value:\n          threshold: 0.7",
    fix="move the threshold into value.threshold",
    fix_safety="Unsafe: moving the threshold changes how max-score decides the result.",
    formats=F,
)

DUPLICATE_SELECTOR = rule(
    "PF015",
    "duplicate-selector",
    W,
    "More than one max-score/select-best in a test, or one inside an assert-set.",
    "Only the first max-score of a test counts, and a selector inside an assert-set is not run as a selector.",
    bad="prompts: [Summarize the ticket, Summarize the ticket in one line]\nproviders: [openai:gpt-5-mini]\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Mentions the refund\n      - type: max-score\n      - type: max-score",
    good="prompts: [Summarize the ticket, Summarize the ticket in one line]\nproviders: [openai:gpt-5-mini]\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Mentions the refund\n      - type: max-score",
    formats=F,
)

SELECT_BEST_OUTPUTS = rule(
    "PF016",
    "select-best-output-count",
    W,
    "select-best over more than 10 outputs: the judge's answer is read as a single digit.",
    "promptfoo takes the first digit anywhere in the judge's reply, so output 10 and above can never be chosen.",
    bad="prompts: [Summarize the ticket, Summarize it briefly, Summarize it in one line, List the key facts]\nproviders: [openai:gpt-5-mini, openai:gpt-4.1, anthropic:messages:claude-sonnet-4-5]\ntests:\n  - assert:\n      - type: select-best\n        value: The most accurate summary",
    good="prompts: [Summarize the ticket, Summarize it briefly, Summarize it in one line]\nproviders: [openai:gpt-5-mini, openai:gpt-4.1, anthropic:messages:claude-sonnet-4-5]\ntests:\n  - assert:\n      - type: select-best\n        value: The most accurate summary",
    formats=F,
)

MAX_SCORE_TIES = rule(
    "PF019",
    "max-score-ties",
    I,
    "max-score fed only by pass/fail assertions of equal weight: ties are likely.",
    "Every output then scores a multiple of 1/n; on a tie the first output wins and the others are marked FAIL.",
    bad="prompts: [Summarize the ticket, Summarize the ticket in one line]\nproviders: [openai:gpt-5-mini]\ntests:\n  - assert:\n      - type: contains\n        value: refund\n      - type: contains\n        value: 14 days\n      - type: max-score",
    good="prompts: [Summarize the ticket, Summarize the ticket in one line]\nproviders: [openai:gpt-5-mini]\ntests:\n  - assert:\n      - type: contains\n        value: refund\n      - type: llm-rubric\n        value: States the 14-day refund window clearly\n      - type: max-score",
    formats=F,
    checked_against="promptfoo 0.123.1's src/assertions/maxScore.ts (selectMaxScore: the first highest score wins)",
)

MAX_SCORE_ALONE = rule(
    "PF105",
    "max-score-without-assertions",
    E,
    "max-score in a test with no other assertion to score.",
    "max-score aggregates the test's other assertions; with none (after merging defaultTest.assert) "
    "the eval crashes at the end and writes no results.",
    bad="prompts: [Summarize the ticket, Summarize the ticket in one line]\nproviders: [openai:gpt-5-mini]\ntests:\n  - assert:\n      - type: max-score",
    good="prompts: [Summarize the ticket, Summarize the ticket in one line]\nproviders: [openai:gpt-5-mini]\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Mentions the refund\n      - type: max-score",
    formats=F,
)

TOO_FEW_OUTPUTS = rule(
    "PF106",
    "selector-needs-outputs",
    E,
    "max-score or select-best with fewer than 2 outputs (prompts × providers).",
    "Both compare the outputs of one test; with one output promptfoo reports an error.",
    bad="prompts: [Summarize the ticket]\nproviders: [openai:gpt-5-mini]\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Mentions the refund\n      - type: max-score",
    good="prompts: [Summarize the ticket, Summarize the ticket in one line]\nproviders: [openai:gpt-5-mini]\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Mentions the refund\n      - type: max-score",
    formats=F,
)

SELECTORS = {"max-score", "select-best"}


def max_score_value(ctx, report, a: AssertionInfo, type_node: Node) -> None:
    node = a.node
    value = node.get("value")
    if node.has("threshold"):
        key, threshold = node.key_node("threshold"), node.get("threshold")
        assert key is not None and threshold is not None  # has() found the key
        fix = _move_threshold_fix(ctx, node, key, threshold) if a.source.is_config else None
        report(
            MAX_SCORE_THRESHOLD,
            a.source,
            key,
            "max-score ignores 'threshold' on the assertion; it reads only value.threshold. Move it into 'value'.",
            fix,
        )
    if value is not None and value.is_scalar and isinstance(value.value, str) and not value.value.startswith("file://"):
        written = value.value
        fix = None
        if written in ("average", "sum") and a.source.is_config:
            # unsafe: it changes what promptfoo computes (it averages today)
            fix = ctx.replace(value, f"{{method: {written}}}", f"Write value: {{method: {written}}}", safe=False)
        report(
            MAX_SCORE_VALUE,
            a.source,
            value,
            f"max-score reads only value.method, value.weights and value.threshold; a plain '{written}' is ignored "
            "and the scores are averaged. Write 'value: {method: "
            + (written if written in ("average", "sum") else "sum")
            + "}'.",
            fix,
        )
        return
    if value is None or not value.is_map:
        return
    for key_node, _v in value.pairs():
        if key_node.value not in MAX_SCORE_VALUE_KEYS:
            report(
                MAX_SCORE_VALUE,
                a.source,
                key_node,
                f"max-score ignores '{key_node.value}' in its value; it reads only method, weights and threshold.",
            )
    method = value.get("method")
    method_text = text_of(method) or "average"
    if method is not None and method_text not in ("average", "sum"):
        report(MAX_SCORE_VALUE, a.source, method, f"max-score method '{method.value}' is not average or sum.")
    limit = number_of(value.get("threshold"))
    if limit is not None and method_text == "average" and limit > 1:
        report(
            MAX_SCORE_VALUE,
            a.source,
            value.get("threshold"),
            f"With method average the score is at most 1, so value.threshold {limit:g} can never be met.",
        )


def _move_threshold_fix(ctx, node: Node, key: Node, threshold: Node) -> Fix | None:
    number = ctx.source(threshold)
    value = node.get("value")
    delete = delete_pair(ctx, key, threshold)
    if value is None:
        return Fix(
            "Move the threshold into value.threshold",
            [TextEdit(Span(key.start, threshold.end), f"value: {{threshold: {number}}}")],
            safe=False,
        )
    if not value.is_map or delete is None:
        return None
    insert = insert_key(ctx, value, f"threshold: {number}")
    if insert is None or value.has("threshold"):
        return None
    # Unsafe: the threshold then decides max-score's result.
    return Fix("Move the threshold into value.threshold", [delete, insert], safe=False)


def check_selectors(ctx, report, view: ConfigView) -> None:  # noqa: C901 - one pass per test group
    default = view.default_test
    groups = view.tests if view.tests else ([default] if default is not None else [])
    for test in groups:
        top = test.top_assertions
        selectors = [a for a in top if a.type in SELECTORS]
        if test is default and view.tests:
            continue
        for a in test.assertions:
            if a.set_node is not None and a.type in SELECTORS:
                report(
                    DUPLICATE_SELECTOR,
                    a.source,
                    a.node.get("type"),
                    f"'{a.type}' inside an assert-set is not run as a selector; move it to the test's assert list.",
                )
        if not selectors:
            continue
        for position, extra in enumerate(selectors):
            if any(earlier.type == extra.type for earlier in selectors[:position]):
                report(
                    DUPLICATE_SELECTOR,
                    extra.source,
                    extra.node.get("type"),
                    f"A second '{extra.type}' in this test: only the first one counts. Remove it.",
                )
        for a in selectors:
            count = test.output_count if test is not default else None
            if count is not None and count < 2:
                report(
                    TOO_FEW_OUTPUTS,
                    a.source,
                    a.node.get("type"),
                    f"'{a.type}' compares the outputs of a test, but {test.label} has {count} output "
                    "(prompts × providers); add a prompt or a provider.",
                )
            if a.type == "select-best" and count is not None and count > 10:
                report(
                    SELECT_BEST_OUTPUTS,
                    a.source,
                    a.node.get("type"),
                    f"select-best over {count} outputs: promptfoo reads the first digit of the judge's reply, so outputs 10 and above can never win.",
                )
        first_max = next((a for a in selectors if a.type == "max-score"), None)
        if first_max is None:
            continue
        others = [a for a in top if a.type not in SELECTORS and a.type != "human"]
        if not others and (view.tests_complete or test is not default):
            report(
                MAX_SCORE_ALONE,
                first_max.source,
                first_max.node.get("type"),
                f"max-score has no other assertion to score in {test.label} (after merging defaultTest.assert); "
                "promptfoo crashes at the end of the eval and writes no results. Add the assertions to aggregate.",
            )
            continue
        value = first_max.field("value")
        weights = value.get("weights") if value is not None and value.is_map else None
        types_present = {a.type for a in test.assertions if a.type}
        if weights is not None and weights.is_map:
            for key_node, _w in weights.pairs():
                if isinstance(key_node.value, str) and key_node.value not in types_present:
                    near = closest(key_node.value, [t for t in types_present if t not in SELECTORS])
                    hint = f" Did you mean '{near}'?" if near else ""
                    report(
                        MAX_SCORE_VALUE,
                        first_max.source,
                        key_node,
                        f"No assertion of type '{key_node.value}' in {test.label}: weights match the exact type string, so this weight is unused.{hint}",
                    )
        binary = all(
            a.grader_kind is None and a.threshold is None and a.field("weight") is None and a.type != "assert-set"
            for a in others
        )
        if others and binary and weights is None:
            report(
                MAX_SCORE_TIES,
                first_max.source,
                first_max.node.get("type"),
                "Every assertion feeding max-score is pass/fail with equal weight, so ties are likely; the first output "
                "wins a tie and the others are marked FAIL. Add weights or a scored assertion.",
            )
