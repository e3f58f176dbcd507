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
    bad="tests:\n  - assert:\n      - type: llm-rubric\n        value: Rate the clarity of the answer from 1 to 10\n        threshold: 0.8",
    good="tests:\n  - assert:\n      - type: llm-rubric\n        value: Rate the clarity of the answer from 0.0 to 1.0\n        threshold: 0.8",
    formats=F,
)

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


def score_checks(ctx, report, view, a: AssertionInfo, text: str, threshold, value_node: Node) -> None:
    asks_number = _ASKS_NUMBER.search(text)
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


def number_of(node: Node | None) -> float | None:
    if node is None or not node.is_scalar or isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
        return None
    return float(node.value)
