"""promptfoo's ``model-graded-closedqa``, ``factuality`` and ``g-eval`` assertions (semantics.md §2).

What promptfoo computes, read from its ``src/matchers/llmGrading.ts`` (``matchesClosedQa``,
``matchesFactuality``, ``matchesGEval``) and the handlers in ``src/assertions/``
(``modelGradedClosedQa.ts``, ``factuality.ts``, ``geval.ts``); the prompts are promptfoo's own
(``owner_prompts``), sent without JSON mode (promptfoo's plain grading provider):

``model-graded-closedqa``
    Variables: the test vars, then ``input`` (the prompt), ``criteria`` (the rendered ``value``)
    and ``completion`` (the output) over them (0.123.1 spreads the vars first). The judge reasons and ends with ``Y``
    or ``N``: pass iff the reply, trailing whitespace removed, ends in ``Y``; score 1 or 0;
    ``threshold`` is not used. A reply ending in neither letter is unreadable (a ``parse``
    failure here; promptfoo scores it as a plain FAIL).
``factuality`` (alias ``model-graded-factuality``)
    Variables: the test vars, then ``input``, ``ideal`` (the rendered ``value``) and
    ``completion`` over them. The judge picks category A–E, as JSON ``{"category", "reason"}`` or, failing that,
    as a legacy ``(X)`` answer. Each category's score comes from ``options.factuality``
    (``subset`` A, ``superset`` B, ``agree`` C, ``disagree`` D, ``differButFactual`` E;
    defaults 1, 1, 1, 0, 1); pass iff that score is above 0. ``threshold`` is ignored. A
    category letter outside A–E is a ``parse`` failure.
``g-eval``
    Two judge calls per criterion (``value`` is a string or a list of strings). First the
    judge turns ``criteria`` into ``{"steps": [...]}`` (a non-empty list of non-empty
    strings); then it rates the reply with ``criteria``, ``steps`` (joined by ``"\\n- "``),
    ``maxScore`` (``"10"``), ``input`` and ``output`` — the test vars are not passed — as
    ``{"score": 0..10, "reason": "..."}`` (a number or numeric string in range, a non-empty
    reason, or the call fails). score = raw / 10, averaged over a list of criteria;
    pass = score >= threshold, where threshold is the assertion's own ``threshold`` or 0.7.
    A custom ``rubricPrompt`` counts only as an object ``{steps, evaluate}`` (each part
    replaces one prompt); any other shape is ignored, as promptfoo does.

``not-``: promptfoo 0.123.1 ignores it for closedqa and factuality and inverts g-eval;
``assertions`` applies it per the targeted release (``versions``) and never inverts a failure.

Where we read replies more robustly than promptfoo: promptfoo finds g-eval's JSON with a
single-line regular expression, so a judge that pretty-prints ``{"score": ...}`` over several
lines fails there; we take the last fitting JSON object wherever it is, multi-line or fenced,
as for llm-rubric (``replies.extract``, with ``ambiguous`` when fitting objects disagree), and
set aside ``<think>`` reasoning before looking at closedqa's last letter or a legacy
factuality answer.

The prompt (``input``): promptfoo passes the rendered prompt and refuses to grade these types
without one; ``grade_promptfoo`` passes ``--query`` or else the config's first prompt rendered
with the test vars, and without either the assertion is an error verdict, not a guess.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rubric_lsp.engine.failures import JudgeFailure
from rubric_lsp.engine.judge import Judge
from rubric_lsp.engine.replies import extract, snippet, strip_thinking
from rubric_lsp.formats.promptfoo.grading.owner_prompts import (
    GEVAL_PROMPT_EVALUATE,
    GEVAL_PROMPT_STEPS,
    OPENAI_CLOSED_QA_PROMPT,
    PROMPTFOO_FACTUALITY_PROMPT,
)
from rubric_lsp.formats.promptfoo.grading.prompts import owner_messages, render, try_parse
from rubric_lsp.formats.promptfoo.grading.reply_objects import reply_objects
from rubric_lsp.formats.promptfoo.grading.sent import kept, noting

GEVAL_MAX_SCORE = 10
GEVAL_DEFAULT_THRESHOLD = 0.7

# options.factuality key, default score, and promptfoo's description (the reason when the judge gives none).
FACTUALITY_CATEGORIES = {
    "A": ("subset", 1.0, "The submitted answer is a subset of the expert answer and is fully consistent with it."),
    "B": ("superset", 1.0, "The submitted answer is a superset of the expert answer and is fully consistent with it."),
    "C": ("agree", 1.0, "The submitted answer contains all the same details as the expert answer."),
    "D": ("disagree", 0.0, "There is a disagreement between the submitted answer and the expert answer."),
    "E": (
        "differButFactual",
        1.0,
        "The answers differ, but these differences don't matter from the perspective of factuality.",
    ),
}

JSON_REPLY = {"type": "json_object"}


@dataclass
class Outcome:
    """A judged assertion before ``not-`` inversion."""

    passed: bool
    score: float
    reason: str
    ambiguous: bool = False
    cached: bool = False


def base_of(type_name: str) -> str:
    return type_name[4:] if type_name.startswith("not-") else type_name


def config_failure(message: str) -> JudgeFailure:
    return JudgeFailure("unknown", message, "config")


def messages_for(
    rubric_prompt: Any, default: str, variables: dict[str, Any], json_reply: bool = False
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """promptfoo's messages: its prompt (``owner_prompts``), or the custom one, rendered as promptfoo
    renders it (an empty custom prompt falls back to the default too). No JSON mode: promptfoo
    grades closedqa, factuality and g-eval with its plain grading provider."""
    return owner_messages(rubric_prompt, default, variables), JSON_REPLY if json_reply else None


def built_later(
    rubric_prompt: Any, default: str, variables: dict[str, Any], parsed: dict[str, str]
) -> Callable[[], list[dict[str, Any]]]:
    """``messages_for``'s messages with ``variables`` and, over them, each of ``parsed``'s texts as
    promptfoo hands it over (``try_parse``), built when the judge asks for them: inside its prompt
    window (``Judge.ask``), since the output and its parsed copy may be megabytes."""

    def build() -> list[dict[str, Any]]:
        late = {name: try_parse(text) for name, text in parsed.items()}
        return messages_for(rubric_prompt, default, {**variables, **late})[0]

    return build


def parse_closedqa(content: str) -> tuple[bool, str]:
    text = strip_thinking(content).rstrip()
    if text.endswith("Y"):
        return True, text
    if text.endswith("N"):
        return False, text
    raise JudgeFailure("parse", f"The grader's reply does not end in Y or N: {snippet(text[-120:])!r}", "bad_reply")


def parse_factuality(content: str) -> tuple[str, str, bool]:
    """(category letter, reason, ambiguous): the concluding ``{"category", ...}`` object (found as
    promptfoo finds objects: ``reply_objects``), else a legacy ``(X)`` answer."""
    candidates = [o for o in reply_objects(strip_thinking(content)) if isinstance(o.get("category"), str)]
    if candidates:
        chosen = candidates[-1]
        ambiguous = len({o["category"].strip().upper() for o in candidates}) > 1
        letter = chosen["category"].strip().upper()
        if letter not in FACTUALITY_CATEGORIES:
            raise JudgeFailure(
                "parse", f"The grader chose category {letter!r}; expected one of A, B, C, D, E.", "bad_reply"
            )
        reason = chosen.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            reason = f"Category {letter}: {FACTUALITY_CATEGORIES[letter][2]}"
        return letter, reason.strip(), ambiguous
    visible = strip_thinking(content)
    match = re.search(r"([a-eA-E])\)", visible)
    if match is None:
        raise JudgeFailure(
            "parse", f"The grader's reply names no factuality category (A-E): {snippet(visible)!r}", "bad_reply"
        )
    return match.group(1).upper(), visible[match.end() :].strip() or visible.strip(), False


def parse_steps(content: str) -> tuple[list[str], bool]:
    found = extract(content, lambda o: "steps" in o, lambda o: o.get("steps"))
    if found is None:
        raise JudgeFailure(
            "parse", f'The grader proposed no {{"steps": [...]}} object: {snippet(content)!r}', "bad_reply"
        )
    steps = found.value["steps"]
    if not isinstance(steps, list) or not steps or not all(isinstance(step, str) and step.strip() for step in steps):
        raise JudgeFailure(
            "parse",
            f"The grader's evaluation steps must be a non-empty list of non-empty strings, not {snippet(repr(steps))}.",
            "bad_reply",
        )
    return steps, found.ambiguous


def parse_geval_score(content: str) -> tuple[float, str, bool]:
    found = extract(content, lambda o: "score" in o, lambda o: o.get("score"))
    if found is None:
        raise JudgeFailure(
            "parse", f'The grader\'s reply has no {{"score", "reason"}} object: {snippet(content)!r}', "bad_reply"
        )
    raw = _finite(found.value["score"])
    if raw is None:
        raise JudgeFailure("parse", f"The grader's score {found.value['score']!r} is not a number.", "bad_reply")
    if not 0 <= raw <= GEVAL_MAX_SCORE:
        raise JudgeFailure("parse", f"The grader's score {raw:g} is outside 0-{GEVAL_MAX_SCORE}.", "bad_reply")
    reason = found.value.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise JudgeFailure("parse", "The grader gave no reason with its score.", "bad_reply")
    return raw, reason, found.ambiguous


def _finite(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str) and value.strip():
        try:
            number = float(value)
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def factuality_scores(options: Any) -> dict[str, float]:
    """Score per category: ``options.factuality`` over the defaults (an absent or null key keeps its default)."""
    given = options if isinstance(options, dict) else {}
    scores = {}
    for letter, (key, default, _) in FACTUALITY_CATEGORIES.items():
        value = given.get(key)
        if value is None:
            scores[letter] = default
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            raise config_failure(
                f"options.factuality.{key} is {value!r}; it must be a number (the score of category {letter})."
            )
        else:
            scores[letter] = float(value)
    return scores


def _string_value(item: Any, test_vars: dict[str, Any]) -> str:
    if not isinstance(item.value, str):
        raise config_failure(
            f"{base_of(item.type)} needs a string value; promptfoo rejects {type(item.value).__name__} {snippet(repr(item.value))}."
        )
    return render(item.value, test_vars)


async def grade_model_graded(
    item: Any,
    judge: Judge,
    output: str,
    prompt_input: str | None,
    factuality_options: Any,
    sent: list[Any] | None = None,
) -> Outcome:
    """One closedqa / factuality / g-eval assertion. Raises JudgeFailure (never a verdict) when it cannot be judged.

    ``sent`` gets the messages of each judge call, in order (the report shows them)."""
    sent = [] if sent is None else sent
    base = base_of(item.type)
    test_vars = item.vars
    if not prompt_input:
        raise config_failure(
            f"{base} grades the output against the prompt it answers: pass --query (the config's first prompt could not be read statically)."
        )
    if base == "g-eval":
        return await _grade_geval(item, judge, output, prompt_input, test_vars, sent)
    if base == "model-graded-closedqa":
        # promptfoo 0.123.1 spreads the test vars first: a var named input/criteria/completion is hidden.
        criteria = _string_value(item, test_vars)
        (passed, reason), cached = await judge.ask(
            noting(
                built_later(
                    item.rubric_prompt,
                    OPENAI_CLOSED_QA_PROMPT,
                    {**test_vars, "input": prompt_input, "criteria": criteria},
                    {"completion": output},
                ),
                sent,
                output,
            ),
            None,
            parse_closedqa,
        )
        return Outcome(passed, 1.0 if passed else 0.0, reason, cached=cached)
    scores = factuality_scores(factuality_options)
    ideal = _string_value(item, test_vars)
    (letter, reason, ambiguous), cached = await judge.ask(
        noting(
            built_later(
                item.rubric_prompt,
                PROMPTFOO_FACTUALITY_PROMPT,
                {**test_vars, "input": prompt_input, "ideal": ideal},
                {"completion": output},
            ),
            sent,
            output,
        ),
        None,
        parse_factuality,
    )
    score = scores[letter]
    return Outcome(score > 0, score, reason, ambiguous=ambiguous, cached=cached)


async def _grade_geval(
    item: Any, judge: Judge, output: str, prompt_input: str, test_vars: dict[str, Any], sent: list[Any]
) -> Outcome:
    value = item.value
    if isinstance(value, str):
        criteria = [render(value, test_vars)]
    elif isinstance(value, list) and value and all(isinstance(part, str) for part in value):
        criteria = [render(part, test_vars) for part in value]
    else:
        raise config_failure("g-eval needs a string value or a non-empty list of strings (one criterion each).")
    threshold = item.threshold if item.threshold is not None else GEVAL_DEFAULT_THRESHOLD
    parts = item.rubric_prompt if isinstance(item.rubric_prompt, dict) else {}
    scores: list[float] = []
    reasons: list[str] = []
    ambiguous = False
    cached = True
    for position, criterion in enumerate(criteria):
        try:
            messages, reply_format = messages_for(parts.get("steps"), GEVAL_PROMPT_STEPS, {"criteria": criterion})
            sent.append(kept(messages))
            (steps, steps_ambiguous), steps_cached = await judge.ask(messages, reply_format, parse_steps)
            variables = {"criteria": criterion, "steps": "\n- ".join(steps), "maxScore": str(GEVAL_MAX_SCORE)}
            (raw, reason, score_ambiguous), score_cached = await judge.ask(
                noting(
                    built_later(
                        parts.get("evaluate"),
                        GEVAL_PROMPT_EVALUATE,
                        variables,
                        {"input": prompt_input, "output": output},
                    ),
                    sent,
                    output,
                ),
                None,
                parse_geval_score,
            )
        except JudgeFailure as failure:
            if len(criteria) > 1:  # promptfoo stops at the first failed criterion too
                raise JudgeFailure(
                    failure.category,
                    f"criterion {position + 1}/{len(criteria)} ({criterion[:60]!r}): {failure.message}",
                    failure.kind,
                ) from failure
            raise
        scores.append(raw / GEVAL_MAX_SCORE)
        reasons.append(reason)
        ambiguous = ambiguous or steps_ambiguous or score_ambiguous
        cached = cached and steps_cached and score_cached
    score = sum(scores) / len(scores)
    return Outcome(score >= threshold, score, "\n\n".join(reasons), ambiguous=ambiguous, cached=cached)
