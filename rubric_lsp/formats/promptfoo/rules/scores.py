"""Scores and thresholds of model-graded assertions (PF002, PF003)."""

from __future__ import annotations

import re

from rubric_lsp.diagnostics import Fix
from rubric_lsp.document import Node
from rubric_lsp.formats.promptfoo.resolve import AssertionInfo
from rubric_lsp.formats.promptfoo.rules.common import F, W, insert_key
from rubric_lsp.rules.registry import rule

SCORE_WITHOUT_THRESHOLD = rule(
    "PF002",
    "score-without-threshold",
    W,
    "An llm-rubric tells the judge how to score but sets no threshold and never says when to pass: the score decides nothing.",
    "promptfoo's verdict is the judge's `pass` (true when the judge leaves it out); the score counts only "
    "with a `threshold` (pass and score ≥ threshold). Its default grading prompt does ask the judge for "
    "`pass`, but a rubric that says 'return 0 or 1' or 'rate it 1-10' and nothing about passing leaves "
    "that call to the judge's reading: a 0 passes whenever the judge says `pass: true`. A number that "
    "counts something ('1-5 words', 'return to 0') is not a scoring instruction and is not reported.",
    bad="tests:\n  - assert:\n      - type: llm-rubric\n        value: |\n          Return 0 if the response is incorrect\n          Return 1 if the response is correct",
    good="tests:\n  - assert:\n      - type: llm-rubric\n        value: |\n          Return 0 if the response is incorrect\n          Return 1 if the response is correct\n        threshold: 1",
    fix="add a threshold to the assertion",
    fix_safety="Unsafe: a threshold changes which outputs pass, and the number is a guess (even 1 for a 0-or-1 score).",
    formats=F,
    checked_against="promptfoo 0.123.1's src/matchers.ts (matchesLlmRubric, DEFAULT_GRADING_PROMPT; runJsonGradingPrompt: `pass = parsed.pass ?? true`, the score counts only with a threshold)",
)

SCALE_MISMATCH = rule(
    "PF003",
    "rubric-scale-mismatch",
    W,
    "The rubric asks for a score on a scale other than 0–1 but the threshold is on 0–1.",
    "llm-rubric compares the judge's raw score with the threshold: with a 1–10 scale, a threshold "
    "of 0.8 is met by every score.",
    bad="tests:\n  - assert:\n      - type: llm-rubric\n        value: Rate the clarity of the answer from 1 to 10\n        threshold: 0.8",
    good="tests:\n  - assert:\n      - type: llm-rubric\n        value: Rate the clarity of the answer from 0.0 to 1.0\n        threshold: 0.8",
    formats=F,
)

# A scoring instruction, not any number in the rubric: "1-5 words max", "1-5 specific AC" or "queue
# depth return to 0" count things. A number is a score only beside a scoring word (score, rate,
# grade, scale) in the same sentence, or right after "return"/"respond with"/"give"… followed by
# "if", "or", "points" or the end of the clause ("Return 1 if correct", "Output 0 or 1").
_SCORE_WORD = r"\b(?:scor(?:e|es|ed|ing)|rat(?:e|es|ed|ing)|grad(?:e|es|ed|ing)|scale)\b"
_NUM = r"(?<![\d.])\d+(?:\.\d+)?(?!\d|\.\d)"  # a full stop may end the sentence after it
_SPAN = rf"(?P<low>{_NUM})\s*(?:-|–|to|or|/)\s*(?P<high>{_NUM})|\bbetween\s+{_NUM}\s+and\s+(?P<top2>{_NUM})|\bout\s+of\s+(?P<top>{_NUM})"
_SCALE = re.compile(
    rf"{_SCORE_WORD}[^.\n]{{0,40}}?(?:{_SPAN})|(?:{_SPAN.replace('?P<', '?P<b_')})[^.\n]{{0,20}}?{_SCORE_WORD}", re.I
)
_SCORE_NUMBER = re.compile(
    rf"{_SCORE_WORD}\s+(?:(?:of|it|as|a|an|at)\s+)?(?:=\s*|:\s*)?{_NUM}\s*(?:\+|(?=(?:if|when|otherwise)\b))", re.I
)
_RETURN_NUMBER = re.compile(
    r"\b(?:return|respond\s+with|reply\s+with|answer\s+with|output|give|assign|award)\s+"
    r"(?:(?:a|the|only|just)\s+)?(?:(?:score|rating|value)\s+(?:of\s+)?)?(?<![\d.])\d+(?:\.\d+)?(?!\d|\.\d)"
    r"(?=\s*(?:if|when|for|or|otherwise|points?)\b|\s*[.,;:)\"']|\s*$)",
    re.I | re.M,
)


def scoring_instruction(text: str) -> str | None:
    """The words of ``text`` that ask the judge for a number, or None."""
    found = [m for m in (p.search(text) for p in (_SCALE, _SCORE_NUMBER, _RETURN_NUMBER)) if m is not None]
    return min(found, key=lambda m: m.start()).group(0).strip() if found else None


def wide_scale(text: str) -> str | None:
    """A scoring scale whose top is above 1 ("rate it from 1 to 10", "score out of 5"), or None."""
    for m in _SCALE.finditer(text):
        groups = m.groupdict()
        top = next((groups[g] for g in ("high", "top", "top2", "b_high", "b_top", "b_top2") if groups[g]), None)
        if top is not None and float(top) > 1:
            return m.group(0).strip()
    return None


_ASKS_PASS = re.compile(r"\bpass(?:es|ed|ing)?\b|\bfail(?:s|ed|ing|ure)?\b|\"pass\"", re.IGNORECASE)

_BINARY = re.compile(r"(?<![\d.])0\s*(?:or|/)\s*1(?![\d.])|\breturn\s+[01]\b", re.IGNORECASE)

_STATED_THRESHOLD = re.compile(r"(?<![\d.])(0\.\d+)\s*\+|at least (0\.\d+)", re.IGNORECASE)


def score_checks(ctx, report, view, a: AssertionInfo, text: str, threshold, value_node: Node) -> None:
    asks_number = scoring_instruction(text)
    set_threshold = number_of(a.set_node.get("threshold")) if a.set_node is not None else None
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
            edit = insert_key(ctx, a.node, f"threshold: {number}")
            if edit:
                # Unsafe: a threshold decides which outputs pass (issue 13: "adding a threshold").
                fix = Fix(f"Add 'threshold: {number}'", [edit], safe=False)
        report(
            SCORE_WITHOUT_THRESHOLD,
            a.source,
            a.node.get("type"),
            f"This rubric asks the judge for a score ('{asks_number}') but sets no threshold: promptfoo's verdict "
            "is then the judge's `pass` alone (true when the judge leaves it out), whatever the score, so a 0 "
            f"still passes when the judge says `pass: true`. Add 'threshold: {number}' to make the score decide.",
            fix,
        )
    wide = wide_scale(text)
    if wide and threshold is not None and threshold <= 1.0:
        report(
            SCALE_MISMATCH,
            a.source,
            a.node.get("threshold"),
            f"The rubric asks for a score '{wide}' but the threshold {threshold:g} is on a 0–1 scale: almost every "
            "score meets it. Ask for a score from 0.0 to 1.0, or raise the threshold to the rubric's scale.",
        )


def number_of(node: Node | None) -> float | None:
    if node is None or not node.is_scalar or isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
        return None
    return float(node.value)
