"""Checks for promptfoo configs: what fails at eval time (errors) and silent grading pitfalls.

Findings inside a referenced test file (``tests: file://tests/*.yaml``, an external
``defaultTest``) are reported at the ``file://`` reference in the config, with the
referenced file and line in the message and no fix: the config is the document being
linted, and an edit must never land in another file by accident. Lint the referenced
file on its own for in-place diagnostics and fixes.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ValidationError

from rubric_lsp.diagnostics import Fix, Severity
from rubric_lsp.document import Node
from rubric_lsp.document.issues import TextEdit
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.document.positions import Span
from rubric_lsp.formats.errors import closest, describe_type, place_errors, suggest
from rubric_lsp.formats.promptfoo import CONFIG
from rubric_lsp.formats.promptfoo.model import (
    ASSERT_SET_KEYS,
    ASSERTION_KEYS,
    MAX_SCORE_VALUE_KEYS,
    TEST_KEYS,
    TOLERATED_TOP_LEVEL,
    TOP_LEVEL_KEYS,
    Assertion,
    AssertionSet,
    PromptfooConfig,
    TestCase,
    base_type,
    is_known_assertion_type,
    known_assertion_types,
)
from rubric_lsp.formats.promptfoo.resolve import AssertionInfo, ConfigView, Source, TestInfo, masked, read_config
from rubric_lsp.formats.registry import checker
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import Rule, rule
from rubric_lsp.rules.unknown_keys import RENAME_SAFETY, unknown_key

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
F = (CONFIG,)

UNKNOWN_KEY = rule(
    "PF001",
    "unknown-config-key",
    W,
    "A top-level or test key promptfoo does not know; it is ignored.",
    "promptfoo only warns about unknown config keys (and not at all for tests), so a typo such as "
    "`outputs:` for `outputPath:` or `options:` at the top level silently does nothing.",
    bad="prompts: [p.txt]\noutputs:\n  - type: csv",
    good="prompts: [p.txt]\noutputPath: results.csv",
    fix="rename the key to the nearest known one",
    fix_safety=RENAME_SAFETY
    + " The renames promptfoo users often mean (`outputs` → `outputPath`, `options` → `evaluateOptions`) take another shape or meaning, so they are unsafe too.",
    formats=F,
)
SCORE_WITHOUT_THRESHOLD = rule(
    "PF002",
    "score-without-threshold",
    W,
    "An llm-rubric asks the judge for a numeric score but sets no threshold and never asks for pass/fail: it always passes.",
    "promptfoo's verdict is `pass ?? true`; the score only matters with a `threshold`. A rubric "
    "that says 'return 0 or 1' without a threshold passes even when the judge returns 0.",
    bad="tests:\n  - assert:\n      - type: llm-rubric\n        value: |\n          Return 0 if the response is incorrect\n          Return 1 if the response is correct",
    good="tests:\n  - assert:\n      - type: llm-rubric\n        value: |\n          Return 0 if the response is incorrect\n          Return 1 if the response is correct\n        threshold: 1",
    fix="add a threshold to the assertion",
    fix_safety="Unsafe: a threshold changes which outputs pass, and the number is a guess (even 1 for a 0-or-1 score).",
    formats=F,
)
SCALE_MISMATCH = rule(
    "PF003",
    "rubric-scale-mismatch",
    W,
    "The rubric asks for a score on a scale other than 0–1 but the threshold is on 0–1.",
    "llm-rubric compares the judge's raw score with the threshold: with a 1–10 scale, a threshold "
    "of 0.8 is met by every score.",
    bad="value: Rate clarity from 1 to 10\nthreshold: 0.8",
    good="value: Rate clarity from 0.0 to 1.0\nthreshold: 0.8",
    formats=F,
)
NEGATED_MODEL_GRADED = rule(
    "PF004",
    "negated-model-graded",
    W,
    "`not-llm-rubric` (and not-factuality, not-model-graded-closedqa, not-g-eval) depends on the promptfoo version.",
    "Up to promptfoo 0.121.9 the `not-` prefix was ignored for model-graded assertions (the rubric "
    "passed when met); from the fix on it inverts pass, scores 1 - score and never inverts a grader "
    "failure. The same config grades differently on different versions.",
    bad="- type: not-llm-rubric\n  value: Apologizes",
    good="- type: llm-rubric\n  value: Does not apologize",
    formats=F,
)
TEMPLATE_IN_VALUE = rule(
    "PF005",
    "grader-variable-in-value",
    W,
    "`{{output}}` or `{{rubric}}` inside a model-graded assertion's value renders empty.",
    "The value is rendered with the test vars before grading, where `output` and `rubric` do not "
    "exist yet; the judge sees the output anyway, through the grading prompt.",
    bad="value: 'Check that {{ output }} is polite'",
    good="value: Is polite",
    formats=F,
)
SHADOWING_VAR = rule(
    "PF006",
    "var-shadows-grader-variable",
    W,
    "A test var named like a grading-prompt variable (output, rubric, ...) replaces the real one.",
    "promptfoo spreads the test vars last into the grading prompt, so a var named `output` or "
    "`rubric` (or `input`, `ideal`, `completion`, `criteria` for factuality / closedqa) makes the "
    "judge grade the var instead of the model's output or the rubric.",
    bad="vars:\n  output: expected text\nassert:\n  - type: llm-rubric\n    value: Is polite",
    good="vars:\n  expected_output: expected text",
    formats=F,
)
UNDEFINED_VAR = rule(
    "PF007",
    "undefined-rubric-var",
    W,
    "A `{{var}}` in a rubric is not defined by the test or defaultTest vars; it renders empty.",
    "Nunjucks renders unknown variables as empty strings, so the judge gets a rubric with a hole.",
    bad="vars: {question: ...}\nassert:\n  - type: llm-rubric\n    value: Answers {{questoin}}",
    good="vars: {question: ...}\nassert:\n  - type: llm-rubric\n    value: Answers {{question}}",
    formats=F,
)
RUBRIC_PROMPT = rule(
    "PF008",
    "suspicious-rubric-prompt",
    W,
    "A custom rubricPrompt that promptfoo will not use as intended.",
    "A rubricPrompt that looks like JSON but does not parse is sent as one plain message; one that "
    "never uses {{output}} or {{rubric}} grades nothing; an llm-rubric prompt that never asks for "
    "pass/score gets replies promptfoo cannot read; {steps, evaluate} objects are for g-eval only.",
    bad='rubricPrompt: \'[{"role": "system", "content": "Grade it"}\'',
    good='rubricPrompt: \'[{"role": "user", "content": "Output: {{output}}\\nRubric: {{rubric}}\\nReply with JSON {pass, score, reason}"}]\'',
    formats=F,
)
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
    bad="- type: llm-rubric\n  provider: openai:embedding:text-embedding-3-small",
    good="- type: llm-rubric\n  provider: openai:gpt-5-mini",
    formats=F,
)
THINKING_GRADER = rule(
    "PF011",
    "thinking-grader",
    W,
    "A reasoning/thinking grader without `showThinking: false`.",
    "promptfoo puts the judge's thinking before its answer and takes the first JSON-like object as "
    "the verdict, so a scratchpad `{pass, score}` in the thinking can become the grade.",
    bad="provider:\n  id: anthropic:messages:claude-sonnet-4-5\n  config:\n    thinking: {type: enabled, budget_tokens: 2048}",
    good="provider:\n  id: anthropic:messages:claude-sonnet-4-5\n  config:\n    thinking: {type: enabled, budget_tokens: 2048}\n    showThinking: false",
    formats=F,
)
GRADER_TEMPERATURE = rule(
    "PF012",
    "grader-temperature",
    I,
    "A grader temperature that is ignored (GPT-5 family) or not 0.",
    "GPT-5 family reasoning models ignore temperature; any other non-zero temperature makes grades vary between runs.",
    bad="provider: {id: openai:gpt-5, config: {temperature: 0.7}}",
    good="provider: {id: openai:gpt-4.1, config: {temperature: 0}}",
    formats=F,
)
MAX_SCORE_VALUE = rule(
    "PF013",
    "max-score-value",
    W,
    "A max-score `value` that does not do what it says (unknown key, method, weight or threshold).",
    "max-score reads only value.method (average|sum), value.weights (by exact assertion type) and "
    "value.threshold; weights for types absent from the test, other keys and other methods are "
    "ignored, and with `average` a threshold above 1 can never be met.",
    bad="- type: max-score\n  value:\n    weights: {icontains: 2}   # the test uses contains",
    good="- type: max-score\n  value:\n    weights: {contains: 2}",
    formats=F,
)
MAX_SCORE_THRESHOLD = rule(
    "PF014",
    "max-score-threshold-placement",
    W,
    "`threshold:` on a max-score assertion is ignored; it belongs in `value.threshold`.",
    "max-score reads its threshold from its value only.",
    bad="prompts: [a, b]\nproviders: [openai:gpt-5-mini]\ntests:\n  - assert:\n      - type: contains\n        value: def\n      - type: max-score\n        threshold: 0.7",
    good="      - type: max-score\n        value:\n          threshold: 0.7",
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
    bad="- type: max-score\n- type: max-score",
    good="- type: max-score",
    formats=F,
)
SELECT_BEST_OUTPUTS = rule(
    "PF016",
    "select-best-output-count",
    W,
    "select-best over more than 10 outputs: the judge's answer is read as a single digit.",
    "promptfoo takes the first digit anywhere in the judge's reply, so output 10 and above can never be chosen.",
    formats=F,
)
IGNORED_THRESHOLD = rule(
    "PF017",
    "ignored-threshold",
    W,
    "`threshold` on factuality or model-graded-closedqa is ignored.",
    "factuality scores come from options.factuality and closedqa passes iff the reply ends in Y; "
    "the threshold never changes the verdict.",
    bad="tests:\n  - assert:\n      - type: factuality\n        value: Paris is the capital\n        threshold: 0.8",
    good="tests:\n  - assert:\n      - type: factuality\n        value: Paris is the capital",
    fix="remove the threshold",
    fix_safety="Safe: promptfoo ignores this threshold, so removing it changes nothing.",
    formats=F,
)
REDTEAM_GRADER = rule(
    "PF018",
    "redteam-without-provider",
    W,
    "A redteam config with llm-rubric graders but no `redteam.provider`.",
    "Without redteam.provider, grading of red-team results may go to promptfoo's remote service and "
    "ignore the grader you configured.",
    bad="redteam:\n  plugins: [pii]\ndefaultTest:\n  assert:\n    - type: llm-rubric\n      value: Refuses",
    good="redteam:\n  provider: openai:gpt-5-mini\n  plugins: [pii]",
    formats=F,
)
MAX_SCORE_TIES = rule(
    "PF019",
    "max-score-ties",
    I,
    "max-score fed only by pass/fail assertions of equal weight: ties are likely.",
    "Every output then scores a multiple of 1/n; on a tie the first output wins and the others are marked FAIL.",
    formats=F,
)
TARGET_GRADES_ITSELF = rule(
    "PF020",
    "target-grades-itself",
    I,
    "No grader is configured but defaultTest.provider is set: the target grades its own output.",
    "In promptfoo's precedence defaultTest.provider comes before the default grader, and --grader does not replace it.",
    formats=F,
)
UNKNOWN_ASSERTION_TYPE = rule(
    "PF100",
    "unknown-assertion-type",
    E,
    "An assertion type promptfoo does not know; the eval fails with 'Unknown assertion type'.",
    "promptfoo's schema accepts any string and `promptfoo validate` reports the config as valid, but "
    "the eval stops at the first unknown type.",
    bad="tests:\n  - assert:\n      - type: contians\n        value: refund\n      - type: not-empty   # no such type either",
    good="tests:\n  - assert:\n      - type: contains\n        value: refund\n      - type: javascript\n        value: output.length > 0",
    fix="replace the type with the nearest known one",
    fix_safety="Unsafe: the type decides what is checked, and a near spelling can be another check (`contains`, `icontains`, `not-contains`).",
    formats=F,
)
UNKNOWN_ASSERTION_KEY = rule(
    "PF101",
    "unknown-assertion-key",
    E,
    "An assertion key promptfoo does not read; it is dropped at run time.",
    "Keys other than type, value, config, threshold, weight, provider, rubricPrompt, metric, "
    "transform and contextTransform are silently dropped: `rubric:` instead of `value:` grades "
    "against nothing, `threshhold:` sets no threshold.",
    bad="tests:\n  - assert:\n      - type: llm-rubric\n        rubric: Is polite",
    good="tests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite",
    fix="rename the key to the nearest known one",
    fix_safety=RENAME_SAFETY,
    formats=F,
)
INVALID_PROVIDER = rule(
    "PF102",
    "invalid-provider-shape",
    E,
    "A provider promptfoo cannot load: a list, an object with neither `id` nor the needed type key, or a `{id: options}` map as a grader.",
    "getGradingProvider throws 'Invalid provider definition' (or 'Provider must be an object or "
    "string') at eval time; promptfoo's schema and `promptfoo validate` accept these shapes.",
    bad="options:\n  provider:\n    config: {temperature: 0}",
    good="options:\n  provider:\n    id: openai:gpt-5-mini\n    config: {temperature: 0}",
    formats=F,
)
EMPTY_RUBRIC = rule(
    "PF103",
    "empty-rubric",
    E,
    "An llm-rubric with no rubric (empty or missing `value`).",
    "The judge is asked to grade against nothing; promptfoo fails the assertion ('Invalid llm-rubric value').",
    bad="- type: llm-rubric",
    good="- type: llm-rubric\n  value: Answers the question politely",
    formats=F,
)
THRESHOLD_RANGE = rule(
    "PF104",
    "threshold-out-of-range",
    E,
    "An llm-rubric threshold outside [0, 1].",
    "llm-rubric scores lie in [0, 1]: a threshold above 1 can never pass and one below 0 always does.",
    bad="threshold: 8",
    good="threshold: 0.8",
    formats=F,
)
MAX_SCORE_ALONE = rule(
    "PF105",
    "max-score-without-assertions",
    E,
    "max-score in a test with no other assertion to score.",
    "max-score aggregates the test's other assertions; with none (after merging defaultTest.assert) "
    "the eval crashes at the end and writes no results.",
    bad="assert:\n  - type: max-score",
    good="assert:\n  - type: contains\n    value: def\n  - type: max-score",
    formats=F,
)
TOO_FEW_OUTPUTS = rule(
    "PF106",
    "selector-needs-outputs",
    E,
    "max-score or select-best with fewer than 2 outputs (prompts × providers).",
    "Both compare the outputs of one test; with one output promptfoo reports an error.",
    formats=F,
)
INVALID_FIELD = rule(
    "PF107",
    "invalid-config-value",
    E,
    "A config value promptfoo cannot use (wrong type, or an assertion without a type).",
    "promptfoo fails at eval time on these (for example a non-numeric threshold, `assert` that is not a list, an assertion without `type`).",
    bad="assert:\n  - value: Is polite",
    good="assert:\n  - type: llm-rubric\n    value: Is polite",
    formats=F,
)

# -- text heuristics ----------------------------------------------------------------------

_ASKS_NUMBER = re.compile(
    r"\b(?:return|respond with|reply with|answer with|give|assign|score)\b[^.\n]{0,40}?(?<![\d.<>=])[01](?:\.0)?(?![\d.])"
    r"|(?<![\d.])0(?:\.0)?\s*(?:or|/|to|-|–|and)\s*1(?:\.0)?(?![\d.])"
    r"|\bscore\b[^.\n]{0,30}?(?<![\d.])\d+(?:\.\d+)?\s*\+"
    r"|\bout of (?:5|10|100)\b|(?<![\d.])(?:1|0)\s*(?:to|-|–)\s*(?:5|10|100)(?![\d.])|/\s*10\b"
    r"|\bscale of\b",
    re.IGNORECASE,
)
_ASKS_PASS = re.compile(r"\bpass(?:es|ed|ing)?\b|\bfail(?:s|ed|ing|ure)?\b|\"pass\"", re.IGNORECASE)
_BINARY = re.compile(r"(?<![\d.])0\s*(?:or|/)\s*1(?![\d.])|\breturn\s+[01]\b", re.IGNORECASE)
_WIDE_SCALE = re.compile(
    r"\bout of (?:5|10|100)\b|(?<![\d.])(?:1|0)\s*(?:to|-|–)\s*(?:5|10|100)(?![\d.])|/\s*10\b", re.IGNORECASE
)
_STATED_THRESHOLD = re.compile(r"(?<![\d.])(0\.\d+)\s*\+|at least (0\.\d+)", re.IGNORECASE)
_GRADER_VAR = re.compile(r"\{\{\s*(output|rubric)\b")
_TEMPLATE_VAR = re.compile(r"\{\{-?\s*([A-Za-z_][A-Za-z0-9_]*)")
_BUILTIN_VARS = {
    "output",
    "rubric",
    "env",
    "loop",
    "range",
    "true",
    "false",
    "none",
    "null",
    "prompt",
    "vars",
    "context",
}
NEGATED_GRADED = {
    "not-llm-rubric",
    "not-factuality",
    "not-model-graded-closedqa",
    "not-g-eval",
    "not-model-graded-factuality",
}
FACTUALITY_LIKE = {"factuality", "model-graded-factuality", "model-graded-closedqa"}
SELECTORS = {"max-score", "select-best"}


def config_view(ctx: CheckContext) -> ConfigView | None:
    """The resolved config, computed once per document."""
    return ctx.view("promptfoo.view", lambda root: read_config(root, ctx.path, ctx.document))


class _Reporter:
    """Reports on nodes of the config or of a referenced file (then at the reference)."""

    def __init__(self, ctx: CheckContext):
        self.ctx = ctx
        self.seen: set[tuple] = set()

    def __call__(
        self,
        rule_: Rule,
        source: Source,
        node: Node | Span,
        message: str,
        fix: Fix | None = None,
        related: list | None = None,
    ) -> None:
        span = node.span if isinstance(node, Node) else node
        key = (rule_.code, id(source), span.start, span.end, message)
        if key in self.seen:
            return
        self.seen.add(key)
        if source.is_config:
            self.ctx.report(rule_, node, message, fix=fix, related=related)
            return
        doc = source.document
        line = doc.lines.position(span.start).line + 1 if doc is not None else 0
        name = source.path.name if source.path is not None else "referenced file"
        self.ctx.report(rule_, source.reference, f"{name} line {line}: {message}")


def _text(node: Node | None) -> str | None:
    return node.value if node is not None and node.is_scalar and isinstance(node.value, str) else None


def _rubric_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return "" if value is None else str(value)


def _insert_key(ctx: CheckContext, mapping: Node, text: str) -> TextEdit | None:
    """An edit adding ``key: value`` (``text``) to ``mapping`` after its last pair."""
    pairs = mapping.pairs()
    if not pairs:
        return None
    doc = ctx.document
    if doc.text[mapping.start : mapping.start + 1] == "{":
        close = doc.text.rfind("}", mapping.start, mapping.end)
        return TextEdit(Span(close, close), f", {text}") if close != -1 else None
    first_key = pairs[0][0]
    indent = " " * doc.lines.position(first_key.start).character
    end = pairs[-1][1].end
    if doc.text[end - 1 : end] == "\n":  # a block scalar ends at the start of the next line
        return TextEdit(Span(end, end), f"{indent}{text}\n")
    line_end = doc.lines.line_end(doc.lines.position(end).line)
    rest = doc.text[end:line_end].strip()
    if not rest or rest.startswith("#"):
        end = line_end  # after a trailing comment, which stays with its line
    return TextEdit(Span(end, end), f"\n{indent}{text}")


def _delete_pair(ctx: CheckContext, key: Node, value: Node) -> TextEdit | None:
    doc = ctx.document
    lines = doc.lines
    start = lines.position(key.start)
    end = lines.position(value.end)
    line_text = lines.line_text(start.line)
    if line_text[: start.character].strip() not in ("", "-"):
        return None  # flow mapping or key after other content: no clean line edit
    if line_text[: start.character].strip() == "-":
        return None
    begin = lines.offset(type(start)(start.line, 0))
    stop = lines.line_end(end.line)
    if doc.text[stop : stop + 1] == "\n":
        stop += 1
    return TextEdit(Span(begin, stop), "")


# -- checkers -----------------------------------------------------------------------------


@checker(CONFIG)
def check_promptfoo_config(ctx: CheckContext) -> None:
    root = ctx.document.root
    if root is None or not root.is_map:
        if root is not None and not (root.is_scalar and root.value is None):
            ctx.report(
                INVALID_FIELD,
                ctx.line_span(root),
                f"A promptfoo config must be a mapping, not {describe_type(to_plain(root))}.",
            )
        return
    view = config_view(ctx)
    if view is None:
        return
    report = _Reporter(ctx)
    _check_top_level(ctx, report, view)
    tests = (
        [view.default_test] if view.default_test is not None and view.default_test.node is not None else []
    ) + view.tests
    for test in tests:
        _check_test_keys(ctx, report, test)
    for assertion in view.assertions():
        _check_assertion(ctx, report, view, assertion)
    _check_graders(ctx, report, view)
    _check_selectors(ctx, report, view)
    _check_vars(ctx, report, view)
    _check_rubric_prompts(ctx, report, view)
    _check_redteam(ctx, report, view)


_NUMBER = "number"
_TEST_KINDS = {
    "description": "str",
    "vars": "any",
    "provider": "any",
    "providers": "seq",
    "prompts": "seq",
    "providerOutput": "any",
    "assert": "any",
    "assertScoringFunction": "str",
    "options": "any",
    "threshold": _NUMBER,
    "metadata": "map",
}
_ASSERTION_KINDS = {
    "type": "str",
    "value": "any",
    "config": "map",
    "threshold": _NUMBER,
    "weight": _NUMBER,
    "provider": "any",
    "rubricPrompt": "any",
    "metric": "str",
    "transform": "str",
    "contextTransform": "str",
}


def _looks_valid(node: Node, kinds: dict[str, str]) -> bool:
    """A cheap pre-check: True when every known field obviously has the right shape.

    Validating thousands of generated red-team tests through pydantic costs more than
    the didChange budget allows; pydantic runs only on the mappings that fail this.
    """
    for key, value in node.pairs():
        kind = kinds.get(key.value)
        if kind is None or kind == "any":
            continue
        if value.is_scalar and value.value is None:
            continue
        if kind == "str":
            ok = value.is_scalar and isinstance(value.value, str)
        elif kind == _NUMBER:
            ok = value.is_scalar and isinstance(value.value, (int, float)) and not isinstance(value.value, bool)
        elif kind == "map":
            ok = value.is_map
        else:
            ok = value.is_seq and all(item.is_scalar and isinstance(item.value, str) for item in value.value)
        if not ok:
            return False
    return True


def _validate(model: type[BaseModel], data: Any) -> list[dict]:
    try:
        model.model_validate(data)
    except ValidationError as exc:
        return exc.errors(include_url=False)
    return []


def _report_pydantic(ctx, report, source: Source, node: Node, errors: list[dict], what: str, skip: tuple = ()) -> None:
    for error in place_errors(errors, node):
        if error.type == "extra_forbidden" or (error.path and error.path[0] in skip):
            continue
        if error.type == "missing":
            where = error.key_node or (
                error.node
                if error.node.end - error.node.start < 200
                else ctx.line_span(error.node)
                if source.is_config
                else error.node
            )
            report(INVALID_FIELD, source, where, f"This {what} has no '{error.missing_key}'; promptfoo cannot run it.")
            continue
        field = ".".join(str(p) for p in error.path) or what
        target = (
            error.node if error.node.end - error.node.start < 500 or not source.is_config else ctx.line_span(error.node)
        )
        report(
            INVALID_FIELD,
            source,
            target,
            f"'{field}' is {describe_type(error.input)}; promptfoo expects {_expected(error.type, error.message)}.",
        )


def _expected(kind: str, message: str) -> str:
    table = {
        "float_parsing": "a number",
        "float_type": "a number",
        "int_parsing": "an integer",
        "int_type": "an integer",
        "string_type": "a string",
        "list_type": "a list",
        "dict_type": "a mapping",
        "bool_type": "true or false",
        "bool_parsing": "true or false",
        "model_type": "a mapping",
        "model_attributes_type": "a mapping",
    }
    return table.get(kind, message[0].lower() + message[1:] if message else "another value")


def _check_unknown(
    ctx, report, source: Source, mapping: Node, known, rule_: Rule, what: str, consequence: str, tolerated=()
) -> None:
    if not ctx.enabled(rule_):
        return
    for key_node, _value in mapping.pairs():
        key = key_node.value
        if not isinstance(key, str) or key in known or key in tolerated:
            continue
        message = f"Unknown {what} key '{key}': {consequence}"
        fix = None
        hint, replacement = _KEY_HINTS.get((what, key), (None, None))
        if hint is not None:
            message += " " + hint
            if replacement in known and replacement not in mapping.keys() and source.is_config:
                # A known mistake, but the right key takes another shape or another meaning
                # (outputs: [...] → outputPath: "file"): the rename is a guess, so unsafe.
                fix = ctx.rename(key_node, replacement, f"Rename '{key}' to '{replacement}'", safe=False)
        else:
            found = unknown_key(ctx, mapping, key_node, known)
            if found.fix is not None:
                message += f" Did you mean '{found.suggestion}'?"
                fix = found.fix if source.is_config else None
        report(rule_, source, key_node, message, fix)


# (where, key) -> (hint, replacement key or None)
_KEY_HINTS = {
    ("assertion", "reason"): ("To document why, use a YAML comment, or 'metric' to name the check.", None),
    ("assertion", "rubric"): ("The rubric goes in 'value'.", "value"),
    ("assertion", "criteria"): ("The rubric goes in 'value'.", "value"),
    ("top-level", "outputs"): ("To write results to a file, use 'outputPath: results.csv'.", "outputPath"),
    ("top-level", "options"): (
        "Eval settings such as maxConcurrency and cache go under 'evaluateOptions'.",
        "evaluateOptions",
    ),
    ("test", "tests"): ("Tests do not nest; move these tests into the top-level 'tests' list.", None),
}


def _check_top_level(ctx, report, view: ConfigView) -> None:
    root = view.root
    _check_unknown(
        ctx,
        report,
        view.source,
        root,
        TOP_LEVEL_KEYS,
        UNKNOWN_KEY,
        "top-level",
        "promptfoo ignores it.",
        TOLERATED_TOP_LEVEL,
    )
    if ctx.enabled(INVALID_FIELD):
        plain = {
            key: to_plain(value) for key, _kn, value in root.items() if key not in ("tests", "defaultTest", "scenarios")
        }
        _report_pydantic(ctx, report, view.source, root, _validate(PromptfooConfig, plain), "config")
        tests = root.get("tests")
        if tests is not None and not (
            tests.is_seq or (tests.is_scalar and isinstance(tests.value, str)) or tests.is_map
        ):
            report(INVALID_FIELD, view.source, tests, "'tests' must be a list of tests or a file:// reference.")
        default = root.get("defaultTest")
        if default is not None and not (default.is_map or (default.is_scalar and isinstance(default.value, str))):
            report(INVALID_FIELD, view.source, default, "'defaultTest' must be a mapping or a file:// reference.")


def _check_test_keys(ctx, report, test: TestInfo) -> None:
    node = test.node
    if node is None:
        return
    if not node.is_map:
        if not (node.is_scalar and isinstance(node.value, str)):
            report(INVALID_FIELD, test.source, node, f"A test must be a mapping, not {describe_type(to_plain(node))}.")
        return
    what = "defaultTest" if test.index < 0 else "test"
    _check_unknown(ctx, report, test.source, node, TEST_KEYS, UNKNOWN_KEY, what, "promptfoo ignores it.")
    if not ctx.enabled(INVALID_FIELD):
        return
    if not _looks_valid(node, _TEST_KINDS):
        plain = {k: v for k, v in to_plain(node).items() if k != "assert"}
        _report_pydantic(ctx, report, test.source, node, _validate(TestCase, plain), what, skip=("provider", "options"))
    options = node.get("options")
    if options is not None and not options.is_map:
        report(INVALID_FIELD, test.source, options, "'options' must be a mapping.")
    asserts = node.get("assert")
    if asserts is not None and not asserts.is_seq and not (asserts.is_scalar and asserts.value is None):
        report(
            INVALID_FIELD,
            test.source,
            asserts,
            f"'assert' must be a list of assertions, not {describe_type(to_plain(asserts))}; promptfoo cannot run this test.",
        )


def _check_assertion(ctx, report, view: ConfigView, a: AssertionInfo) -> None:
    node = a.node
    src = a.source
    if not node.is_map:
        report(
            INVALID_FIELD,
            src,
            node,
            f"An assertion must be a mapping with a 'type', not {describe_type(to_plain(node))}.",
        )
        return
    type_node = node.get("type")
    kind = a.type
    if type_node is None:
        if node.has("$ref"):
            report(
                INVALID_FIELD,
                src,
                node.key_node("$ref"),
                "This $ref does not point at an assertion in this file; promptfoo cannot resolve it.",
            )
        else:
            report(
                INVALID_FIELD,
                src,
                ctx.line_span(node) if src.is_config else node,
                "This assertion has no 'type'; promptfoo fails with 'Unknown assertion type'.",
            )
        return
    if kind is None:
        report(
            INVALID_FIELD,
            src,
            type_node,
            f"An assertion 'type' must be a string, not {describe_type(type_node.value)}.",
        )
        return
    if kind == "assert-set":
        _check_unknown(
            ctx,
            report,
            src,
            node,
            ASSERT_SET_KEYS,
            UNKNOWN_ASSERTION_KEY,
            "assert-set",
            "promptfoo drops it at run time.",
        )
        if ctx.enabled(INVALID_FIELD):
            plain = {k: v for k, v in to_plain(node).items() if k != "assert"}
            plain["assert"] = []
            _report_pydantic(ctx, report, src, node, _validate(AssertionSet, plain), "assert-set")
            inner = node.get("assert")
            if inner is None or not inner.is_seq:
                report(
                    INVALID_FIELD,
                    src,
                    node.key_node("assert") or type_node,
                    "An assert-set needs an 'assert' list of assertions.",
                )
        return
    if not is_known_assertion_type(kind):
        _unknown_type(ctx, report, a, type_node, kind)
    _check_unknown(
        ctx, report, src, node, ASSERTION_KEYS, UNKNOWN_ASSERTION_KEY, "assertion", "promptfoo drops it at run time."
    )
    if ctx.enabled(INVALID_FIELD) and not _looks_valid(node, _ASSERTION_KINDS):
        plain = dict(to_plain(node))
        _report_pydantic(
            ctx, report, src, node, _validate(Assertion, plain), "assertion", skip=("provider", "rubricPrompt")
        )
    base = base_type(kind)
    value_node = node.get("value")
    threshold = a.threshold
    if base == "llm-rubric":
        text = _rubric_text(a.value).strip()
        if not text and _needs_rubric(view, a):
            report(
                EMPTY_RUBRIC,
                src,
                value_node if value_node is not None else type_node,
                "This llm-rubric has no rubric: write what the judge should check in 'value'.",
            )
        if threshold is not None and not (0.0 <= threshold <= 1.0):
            report(
                THRESHOLD_RANGE,
                src,
                node.get("threshold"),
                f"llm-rubric threshold {threshold:g} is outside [0, 1]: scores lie in [0, 1], so it "
                + ("can never be met." if threshold > 1 else "is always met.")
                + " Use a value such as 0.8.",
            )
        if text and value_node is not None:
            _score_checks(ctx, report, view, a, text, threshold, value_node)
    if kind in NEGATED_GRADED:
        report(
            NEGATED_MODEL_GRADED,
            src,
            type_node,
            f"'{kind}' was not inverted by promptfoo up to 0.121.9 (it graded like '{base}'); from the fix on it "
            "inverts pass and scores 1 - score. Pin the promptfoo version, or rephrase the rubric positively "
            f"with '{base}'.",
        )
    if a.grader_kind == "text" and value_node is not None:
        found = _GRADER_VAR.search(_rubric_text(a.value))
        if found:
            doc = src.document
            raw = _GRADER_VAR.search(doc.text, value_node.start, value_node.end) if doc is not None else None
            where = (
                Span(raw.start(), raw.end() + 2 if doc.text[raw.end() : raw.end() + 2] == "}}" else raw.end())
                if raw
                else value_node
            )
            if raw is not None:
                close = doc.text.find("}}", raw.end(), value_node.end)
                where = Span(raw.start(), close + 2 if close != -1 else raw.end())
            report(
                TEMPLATE_IN_VALUE,
                src,
                where,
                f"'{{{{{found.group(1)}}}}}' in the value renders empty: the value is rendered with the test vars before "
                "grading. Remove it; the judge sees the output through the grading prompt.",
            )
    if base in FACTUALITY_LIKE and node.has("threshold"):
        key = node.key_node("threshold")
        edit = _delete_pair(ctx, key, node.get("threshold")) if src.is_config else None
        report(
            IGNORED_THRESHOLD,
            src,
            key,
            f"'threshold' is ignored by {base}: "
            + (
                "scores come from options.factuality."
                if "factuality" in base
                else "it passes iff the judge's reply ends in Y."
            ),
            Fix("Remove the ignored threshold", [edit]) if edit else None,
        )
    if base == "max-score":
        _max_score_value(ctx, report, a, type_node)


def _needs_rubric(view: ConfigView, a: AssertionInfo) -> bool:
    """False when every custom rubricPrompt that applies ignores {{rubric}} (then no value is needed)."""
    prompts = [a.field("rubricPrompt")]
    tests = view.tests_using(a) or ([view.default_test] if view.default_test is not None else [])
    for test in tests:
        prompt = test.options_field("rubricPrompt")
        if prompt is None and test.default is not None:
            prompt = test.default.options_field("rubricPrompt")
        prompts.append(prompt)
    if prompts[0] is not None:
        prompts = prompts[:1]
    else:
        prompts = prompts[1:]
    if not prompts or any(p is None for p in prompts):
        return True
    return any(re.search(r"\{\{\s*rubric\b", _rubric_text(to_plain(p))) for p in prompts)


def _unknown_type(ctx, report, a: AssertionInfo, type_node: Node, kind: str) -> None:
    suggestion = _TYPE_HINTS.get(kind)
    found = suggest(kind, known_assertion_types(), cutoff=0.75)
    nearest = found.name if found else None
    message = f"Unknown assertion type '{kind}': the eval fails with 'Unknown assertion type' (promptfoo validate does not catch it)."
    fix = None
    if suggestion:
        message += " " + suggestion
    elif nearest:
        message += f" Did you mean '{nearest}'?"
        if a.source.is_config:
            # Always unsafe: a near spelling can be another check (contains / icontains).
            fix = ctx.rename(type_node, nearest, f"Replace '{kind}' with '{nearest}'", safe=False)
    report(UNKNOWN_ASSERTION_TYPE, a.source, type_node, message, fix)


_TYPE_HINTS = {
    "not-empty": "Use 'javascript' with value 'output.length > 0'.",
    "min-length": "Use 'javascript' with value 'output.length >= N'.",
    "max-length": "Use 'javascript' with value 'output.length <= N'.",
    "is-valid-video": "There is no video assertion; check the output with 'javascript'.",
    "json-schema-valid": "Use 'is-json' (or 'contains-json') with the JSON Schema as value.",
    "contains-json-property": "Use 'is-json' with a JSON Schema listing the property as required, or 'javascript'.",
}


def _score_checks(ctx, report, view, a: AssertionInfo, text: str, threshold, value_node: Node) -> None:
    asks_number = _ASKS_NUMBER.search(text)
    set_threshold = _number_of(a.set_node.get("threshold")) if a.set_node is not None else None
    tests = view.tests_using(a)
    test_threshold = any(t.threshold_node() is not None for t in tests)
    if (
        asks_number
        and threshold is None
        and set_threshold is None
        and not test_threshold
        and not _ASKS_PASS.search(text)
    ):
        stated = _STATED_THRESHOLD.search(text)
        if _BINARY.search(text):
            number = "1"
        elif stated:
            number = stated.group(1) or stated.group(2)
        else:
            number = "0.5"
        fix = None
        if a.source.is_config and a.ref_node is None:
            edit = _insert_key(ctx, a.node, f"threshold: {number}")
            if edit:
                # Unsafe: a threshold decides which outputs pass (issue 13: "adding a threshold").
                fix = Fix(f"Add 'threshold: {number}'", [edit], safe=False)
        report(
            SCORE_WITHOUT_THRESHOLD,
            a.source,
            a.node.get("type"),
            f"This rubric asks for a numeric score ('{asks_number.group(0).strip()}') but there is no threshold "
            "and it never asks for pass/fail: promptfoo's pass defaults to true, so it always passes. "
            f"Add 'threshold: {number}' or ask the judge for an explicit pass.",
            fix,
        )
    wide = _WIDE_SCALE.search(text)
    if wide and threshold is not None and threshold <= 1.0:
        report(
            SCALE_MISMATCH,
            a.source,
            a.node.get("threshold"),
            f"The rubric asks for a score '{wide.group(0)}' but the threshold {threshold:g} is on a 0–1 scale: almost every "
            "score meets it. Ask for a score from 0.0 to 1.0, or raise the threshold to the rubric's scale.",
        )


def _number_of(node: Node | None) -> float | None:
    if node is None or not node.is_scalar or isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
        return None
    return float(node.value)


def _max_score_value(ctx, report, a: AssertionInfo, type_node: Node) -> None:
    node = a.node
    value = node.get("value")
    if node.has("threshold"):
        key, threshold = node.key_node("threshold"), node.get("threshold")
        fix = _move_threshold_fix(ctx, node, key, threshold) if a.source.is_config else None
        report(
            MAX_SCORE_THRESHOLD,
            a.source,
            key,
            "max-score ignores 'threshold' on the assertion; it reads only value.threshold. Move it into 'value'.",
            fix,
        )
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
    method_text = _text(method) or "average"
    if method is not None and method_text not in ("average", "sum"):
        report(MAX_SCORE_VALUE, a.source, method, f"max-score method '{method.value}' is not average or sum.")
    threshold = _number_of(value.get("threshold"))
    if threshold is not None and method_text == "average" and threshold > 1:
        report(
            MAX_SCORE_VALUE,
            a.source,
            value.get("threshold"),
            f"With method average the score is at most 1, so value.threshold {threshold:g} can never be met.",
        )


def _move_threshold_fix(ctx, node: Node, key: Node, threshold: Node) -> Fix | None:
    number = ctx.source(threshold)
    value = node.get("value")
    delete = _delete_pair(ctx, key, threshold)
    if value is None:
        return Fix(
            "Move the threshold into value.threshold",
            [TextEdit(Span(key.start, threshold.end), f"value: {{threshold: {number}}}")],
            safe=False,
        )
    if not value.is_map or delete is None:
        return None
    insert = _insert_key(ctx, value, f"threshold: {number}")
    if insert is None or value.has("threshold"):
        return None
    # Unsafe: the threshold then decides max-score's result.
    return Fix("Move the threshold into value.threshold", [delete, insert], safe=False)


# -- graders ------------------------------------------------------------------------------

_EMBEDDING_ID = re.compile(r"embed|sentence-similarity", re.IGNORECASE)
_MODERATION_ID = re.compile(r"moderation", re.IGNORECASE)
_CHAT_ID = re.compile(
    r"(?:^|[:/])(?:gpt-|claude|gemini-(?!embedding)|o[134](?:-|$)|llama|mistral-(?!embed))", re.IGNORECASE
)
_GPT5 = re.compile(r"(?:^|[:/])gpt-5", re.IGNORECASE)
_REASONING_ID = re.compile(r"deepseek-reasoner|deepseek-r1|qwq|:thinking", re.IGNORECASE)


def _check_graders(ctx, report, view: ConfigView) -> None:
    checked_nodes: set[tuple[int, str]] = set()
    default = view.default_test
    # Target provider overrides: a test's provider is a target, which needs an id.
    for test in ([default] if default is not None and default.node is not None else []) + view.tests:
        provider = test.get("provider")
        if provider is not None and provider.is_map and not provider.has("id") and not provider.has("callApi"):
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
        key = default.node.key_node("provider")
        report(
            TARGET_GRADES_ITSELF,
            default.source,
            key,
            f"{len({id(a.node) for a in self_graded})} model-graded assertion(s) have no grader configured, so the target "
            "set here grades its own output (and --grader does not replace it). Set defaultTest.options.provider to choose a grader.",
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


# -- selectors ----------------------------------------------------------------------------


def _check_selectors(ctx, report, view: ConfigView) -> None:
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


# -- vars -----------------------------------------------------------------------------------


def _check_vars(ctx, report, view: ConfigView) -> None:
    shadow_seen: set[int] = set()
    for test in view.tests:
        kinds = {base_type(a.type) for a in test.assertions if a.type and a.grader_kind == "text"}
        if not kinds:
            continue
        names = {"output", "rubric"}
        if kinds & FACTUALITY_LIKE:
            names |= {"input", "ideal", "completion", "criteria"}
        for name, key_node in test.vars.items():
            if name in names and id(key_node) not in shadow_seen:
                shadow_seen.add(id(key_node))
                report(
                    SHADOWING_VAR,
                    test.var_source(name),
                    key_node,
                    f"A var named '{name}' replaces the grader's own '{{{{{name}}}}}' in the grading prompt "
                    f"(test vars are spread last), so the judge sees this var instead. Rename it (e.g. 'expected_{name}').",
                )
    if not ctx.enabled(UNDEFINED_VAR):
        return
    for a in view.assertions():
        if a.grader_kind != "text" or base_type(a.type or "") not in (
            "llm-rubric",
            "g-eval",
            "model-graded-closedqa",
            "factuality",
            "model-graded-factuality",
        ):
            continue
        value = a.field("value")
        text = _text(value)
        if not text or "{%" in text or refs_like(text):
            continue
        used = {m.group(1) for m in _TEMPLATE_VAR.finditer(text)} - _BUILTIN_VARS
        used = {u for u in used if not u.startswith("_")}
        if not used:
            continue
        tests = view.tests_using(a)
        if not tests:
            continue
        missing: dict[str, list[str]] = {}
        for test in tests:
            if not test.vars_complete:
                continue
            for name in used - set(test.vars):
                missing.setdefault(name, []).append(test.label)
        for name, labels in sorted(missing.items()):
            where = value if value.end - value.start < 300 or not a.source.is_config else ctx.line_span(value)
            near = closest(name, set().union(*(set(t.vars) for t in tests)))
            hint = f" Did you mean '{near}'?" if near else ""
            report(
                UNDEFINED_VAR,
                a.source,
                where,
                f"'{{{{{name}}}}}' is not defined in {', '.join(labels[:3])}{' and others' if len(labels) > 3 else ''}; "
                f"it renders empty in the rubric.{hint}",
            )


def refs_like(text: str) -> bool:
    return text.startswith("file://")


# -- rubricPrompt -------------------------------------------------------------------------


def _check_rubric_prompts(ctx, report, view: ConfigView) -> None:
    if not ctx.enabled(RUBRIC_PROMPT):
        return
    seen: set[int] = set()
    places: list[tuple[Node, Source, set[str]]] = []
    for a in view.assertions():
        node = a.field("rubricPrompt")
        if node is not None and a.type:
            places.append((node, a.source, {base_type(a.type)}))
    default = view.default_test
    for test in ([default] if default is not None and default.node is not None else []) + view.tests:
        node = test.options_field("rubricPrompt")
        if node is None:
            continue
        users = view.tests if test is default else [test]
        kinds = {
            base_type(a.type)
            for t in users
            for a in t.assertions
            if a.type and a.grader_kind == "text" and a.field("rubricPrompt") is None
        }
        places.append((node, test.source, kinds))
    for node, source, kinds in places:
        if id(node) in seen:
            continue
        seen.add(id(node))
        for message in _rubric_prompt_problems(node, kinds):
            report(
                RUBRIC_PROMPT,
                source,
                node if node.end - node.start < 300 or not source.is_config else ctx.line_span(node),
                message,
            )


def _rubric_prompt_problems(node: Node, kinds: set[str]) -> list[str]:
    problems = []
    if node.is_map:
        if node.has("steps") or node.has("evaluate"):
            if kinds and kinds != {"g-eval"}:
                problems.append(
                    "A {steps, evaluate} rubricPrompt is read only by g-eval; "
                    f"{', '.join(sorted(kinds - {'g-eval'}))} gets it as a prompt it cannot use."
                )
            evaluate = _text(node.get("evaluate"))
            if (
                kinds == {"g-eval"}
                and evaluate
                and not re.search(r"single line|one line|no line breaks|minified", evaluate, re.IGNORECASE)
            ):
                problems.append(
                    "This g-eval 'evaluate' prompt does not ask for the JSON reply on a single line; "
                    "promptfoo fails to read a multi-line JSON verdict. Ask for one-line JSON and nothing else."
                )
        return problems
    plain = to_plain(node)
    if isinstance(plain, list):
        text = "\n".join(str(m.get("content", "")) if isinstance(m, dict) else str(m) for m in plain)
    elif isinstance(plain, str):
        text = plain
        if text.startswith("file://"):
            return problems
        stripped = text.strip()
        if stripped[:1] in ("[", "{") and "{%" not in stripped:
            try:
                json.loads(stripped)
            except ValueError as exc:
                problems.append(
                    f"This rubricPrompt looks like a JSON chat but does not parse ({exc.msg} at character "
                    f"{exc.pos}); promptfoo then sends it as one plain message. Fix the JSON."
                )
    else:
        return problems
    if kinds == {"select-best"}:
        if not re.search(r"\{\{\s*outputs\b", text):
            problems.append("This select-best prompt never uses {{outputs}}, so the judge never sees the candidates.")
    elif not re.search(r"\{\{\s*(output|rubric)\b", text) and kinds & {
        "llm-rubric",
        "g-eval",
        "model-graded-closedqa",
        "factuality",
        "model-graded-factuality",
    }:
        problems.append(
            "This rubricPrompt never uses {{output}} or {{rubric}}, so the judge sees neither the output nor the rubric."
        )
    if kinds == {"llm-rubric"} and not re.search(r"pass|score", text, re.IGNORECASE):
        problems.append(
            "This llm-rubric prompt never asks for 'pass' or 'score'; promptfoo reads the verdict from "
            "{reason, pass, score} JSON. Ask for that object."
        )
    if kinds == {"select-best"} and not re.search(r"\bindex\b|\bnumber\b|\bdigit\b", text, re.IGNORECASE):
        problems.append(
            "This select-best prompt never asks for the winner's index; promptfoo takes the first digit "
            "anywhere in the reply, so ask for the bare index (e.g. 'Reply with the number only')."
        )
    if kinds == {"model-graded-closedqa"} and not re.search(
        r"\bY\b.{0,20}\bN\b|\byes\b.{0,20}\bno\b", text, re.IGNORECASE | re.DOTALL
    ):
        problems.append(
            "This closedqa prompt never asks for a final Y or N; promptfoo passes only when the reply ends "
            "in 'Y', so any trailing text fails it. Ask the judge to end with Y or N."
        )
    return problems


# -- redteam ------------------------------------------------------------------------------


def _check_redteam(ctx, report, view: ConfigView) -> None:
    redteam = view.root.get("redteam")
    if redteam is None or not redteam.is_map or redteam.has("provider"):
        return
    default = view.default_test
    configured = [
        a
        for test in (view.tests or ([default] if default is not None else []))
        for a in test.assertions
        if base_type(a.type or "") == "llm-rubric"
        and view.grader(a, test if test is not default else None).source != "default"
    ]
    if configured:
        report(
            REDTEAM_GRADER,
            view.source,
            view.root.key_node("redteam"),
            "This config configures a grader for its llm-rubric assertions but 'redteam' sets no 'provider': "
            "red-team grading may go to promptfoo's remote service and ignore that grader. Set redteam.provider.",
        )
