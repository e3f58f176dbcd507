"""promptfoo's assertion types and keys: which exist (``assertion_type_names``, generated from
promptfoo 0.123.1's own schema), what each does (hover text and the exported schema's descriptions),
and which grader provider kind a model-graded type asks for. Plain data, no schema: the rules read
it without building the pydantic models of ``model.py``."""

from __future__ import annotations

from rubric_lsp.formats.promptfoo.assertion_type_names import BASE_TYPES, SPECIAL_TYPES

# -- assertion types ----------------------------------------------------------------------

# type -> one-line description (hover text and the exported schema's enum descriptions); one for
# each generated name (tests/test_promptfoo_assertion_types.py checks both ways).
DESCRIPTIONS: dict[str, str] = {
    "agent-rubric": "Model-graded by an agent (openai:codex-sdk, anthropic:claude-agent-sdk, ...) that may read files and run tools to check the rubric in value.",
    "answer-relevance": "Model-graded: the output is relevant to the original query (text grader + embeddings).",
    "bleu": "BLEU score against the reference in value is at least threshold (default 0.5).",
    "classifier": "A HuggingFace classifier's score for the class in value is at least threshold.",
    "contains": "The output contains the substring in value (case-sensitive).",
    "contains-all": "The output contains every substring in value.",
    "contains-any": "The output contains at least one substring in value.",
    "contains-html": "The output contains HTML.",
    "contains-json": "The output contains valid JSON (optionally matching the JSON Schema in value).",
    "contains-sql": "The output contains valid SQL.",
    "contains-xml": "The output contains valid XML.",
    "context-faithfulness": "Model-graded: the output does not contradict the context var.",
    "context-recall": "Model-graded: the ground truth in value appears in the context var.",
    "context-relevance": "Model-graded: the context var is relevant to the query var.",
    "conversation-relevance": "Model-graded: each turn of a conversation stays relevant.",
    "cost": "The inference cost is below threshold.",
    "equals": "The output equals value exactly.",
    "factuality": "Model-graded: the output is factually consistent with the reference in value (scores from options.factuality; threshold is ignored).",
    "finish-reason": "The provider's finish reason equals value.",
    "g-eval": "Model-graded: G-Eval chain-of-thought scoring of the criteria in value (threshold defaults to 0.7).",
    "gleu": "GLEU score against the reference in value is at least threshold.",
    "guardrails": "The provider's guardrails did not flag the input or output.",
    "icontains": "The output contains value, ignoring case.",
    "icontains-all": "The output contains every value, ignoring case.",
    "icontains-any": "The output contains at least one value, ignoring case.",
    "is-html": "The output is valid HTML.",
    "is-json": "The output is valid JSON (optionally matching the JSON Schema in value).",
    "is-refusal": "The output is a refusal.",
    "is-sql": "The output is valid SQL.",
    "is-valid-function-call": "The output is a function call matching the provider's function schema.",
    "is-valid-openai-function-call": "The output is an OpenAI function call matching its schema.",
    "is-valid-openai-tools-call": "The output is a set of OpenAI tool calls matching their schemas.",
    "is-xml": "The output is valid XML.",
    "javascript": "A JavaScript expression or file (value) returns true or a score.",
    "latency": "The response time in ms is below threshold.",
    "levenshtein": "The Levenshtein distance to value is at most threshold.",
    "llm-rubric": "Model-graded: a judge checks the output against the rubric in value and returns {reason, pass, score}.",
    "pi": "Pi Labs scorer: the score for the criteria in value is at least threshold.",
    "meteor": "METEOR score against the reference in value is at least threshold.",
    "model-graded-closedqa": "Model-graded: the output meets the criterion in value (the judge must end its reply in Y or N; threshold is ignored).",
    "model-graded-factuality": "Same as factuality.",
    "moderation": "A moderation model did not flag the output.",
    "perplexity": "The perplexity is below threshold.",
    "perplexity-score": "The normalised perplexity score is at least threshold.",
    "python": "A Python expression or file (value) returns true or a score.",
    "regex": "The output matches the regular expression in value.",
    "rouge-n": "ROUGE-N score against the reference in value is at least threshold.",
    "ruby": "A Ruby expression or file (value) returns true or a score.",
    "similar": "The embedding similarity to value is at least threshold (default 0.75).",
    "similar:cosine": "Cosine embedding similarity to value is at least threshold.",
    "similar:dot": "Dot-product embedding similarity to value is at least threshold.",
    "similar:euclidean": "Euclidean embedding distance to value is at most threshold.",
    "starts-with": "The output starts with value.",
    "tool-call-f1": "F1 score of the tool calls against the expected ones in value.",
    "skill-used": "The agent used the skill named in value.",
    "trajectory:goal-success": "Model-graded: the agent's trajectory achieved the goal in value.",
    "trajectory:tool-args-match": "A tool in the trajectory was called with the arguments in value.",
    "trajectory:step-count": "The trajectory's step count is within the bounds in value.",
    "trajectory:tool-sequence": "The tools in the trajectory were called in the order in value.",
    "trajectory:tool-used": "The trajectory used the tool(s) in value.",
    "trace-error-spans": "The trace has at most the allowed error spans.",
    "trace-span-count": "The trace has the expected number of matching spans.",
    "trace-span-duration": "Matching trace spans finish within the duration in value.",
    "search-rubric": "Model-graded with web search: the output satisfies the rubric in value.",
    "webhook": "A webhook at the URL in value returns {pass: true}.",
    "word-count": "The output's word count equals value or lies within {min, max}.",
    "select-best": "Model-graded: a judge picks the best of the test's outputs by the criterion in value (the others fail).",
    "human": "Graded by a person in the web viewer.",
    "max-score": "Picks the output with the highest aggregate score of the other assertions (value: {method, weights, threshold}).",
    "assert-set": "A group of assertions with its own weight, metric and threshold.",
}


def _described(names: tuple[str, ...]) -> dict[str, str]:
    return {name: DESCRIPTIONS.get(name, f"promptfoo's '{name}' assertion.") for name in names}


BASE_ASSERTION_TYPES: dict[str, str] = _described(BASE_TYPES)
# assert-set is a shape of its own in promptfoo's schema (AssertionSetSchema), not a special type.
SPECIAL_ASSERTION_TYPES: dict[str, str] = _described((*SPECIAL_TYPES, "assert-set"))
REDTEAM_PREFIX = "promptfoo:redteam:"

ASSERTION_KEYS: dict[str, str] = {
    "type": "The assertion type; prefix 'not-' to invert a base type.",
    "value": "What the assertion checks against: a string, list, mapping or file:// reference (for llm-rubric: the rubric).",
    "config": "Extra settings passed to the assertion.",
    "threshold": "Minimum score to pass (for llm-rubric: the judge's score must also reach it; without it a 0 score still passes).",
    "weight": "Weight of this assertion in the test's score (default 1; 0 = informational).",
    "provider": "Grader for model-graded assertions: an id string, {id, config, ...}, or a type map {text|embedding|classification|moderation: ...}. Wins over test and defaultTest options.",
    "rubricPrompt": "Custom grading prompt (a string, a JSON chat array, or a list of messages); must use {{output}} and {{rubric}}.",
    "metric": "Name to aggregate this assertion's score under in reports.",
    "transform": "JavaScript that transforms the output before this assertion sees it.",
    "contextTransform": "JavaScript that extracts the context for context-* assertions.",
}
ASSERT_SET_KEYS: dict[str, str] = {
    "type": "Always 'assert-set'.",
    "assert": "The grouped assertions.",
    "weight": "Weight of the whole set in the test's score.",
    "metric": "Name to aggregate the set's score under.",
    "threshold": "Fraction of the set's weighted score needed to pass (default: all must pass).",
    "config": "Settings shared by the grouped assertions.",
}
MAX_SCORE_VALUE_KEYS = ("method", "weights", "threshold")


def is_known_assertion_type(name: str) -> bool:
    if name in BASE_ASSERTION_TYPES or name in SPECIAL_ASSERTION_TYPES:
        return True
    if name.startswith(REDTEAM_PREFIX) and len(name) > len(REDTEAM_PREFIX):
        return True
    return name.startswith("not-") and name[4:] in BASE_ASSERTION_TYPES


def known_assertion_types() -> list[str]:
    names = list(BASE_ASSERTION_TYPES) + list(SPECIAL_ASSERTION_TYPES)
    return names + ["not-" + name for name in BASE_ASSERTION_TYPES]


def describe_assertion_type(name: str) -> str | None:
    if name in BASE_ASSERTION_TYPES:
        return BASE_ASSERTION_TYPES[name]
    if name in SPECIAL_ASSERTION_TYPES:
        return SPECIAL_ASSERTION_TYPES[name]
    if name.startswith("not-") and name[4:] in BASE_ASSERTION_TYPES:
        return "Inverted: " + BASE_ASSERTION_TYPES[name[4:]]
    if name.startswith(REDTEAM_PREFIX):
        return "A red-team plugin's grader (generated by promptfoo redteam)."
    return None


# Which kind of grader provider each model-graded type asks getGradingProvider for.
TEXT_GRADED = frozenset(
    {
        "llm-rubric",
        "g-eval",
        "factuality",
        "model-graded-factuality",
        "model-graded-closedqa",
        "select-best",
        "answer-relevance",
        "context-faithfulness",
        "context-recall",
        "context-relevance",
        "conversation-relevance",
        "search-rubric",
        "trajectory:goal-success",
        "agent-rubric",  # getGradingProvider("text", …), which must be an agent (matchesAgentRubric)
    }
)
EMBEDDING_GRADED = frozenset({"similar", "similar:cosine", "similar:dot", "similar:euclidean"})
CLASSIFICATION_GRADED = frozenset({"classifier"})
MODERATION_GRADED = frozenset({"moderation"})


def base_type(name: str) -> str:
    return name[4:] if name.startswith("not-") and name[4:] in BASE_ASSERTION_TYPES else name


def grader_kind(name: str) -> str | None:
    """'text' | 'embedding' | 'classification' | 'moderation' for model-graded types, else None."""
    base = base_type(name)
    if base in TEXT_GRADED:
        return "text"
    if base in EMBEDDING_GRADED:
        return "embedding"
    if base in CLASSIFICATION_GRADED:
        return "classification"
    if base in MODERATION_GRADED:
        return "moderation"
    return None
