"""Custom rubricPrompt templates (PF008)."""

from __future__ import annotations

import json
import re

from rubric_lsp.document import Node
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.errors import describe_type
from rubric_lsp.formats.promptfoo.assertion_types import base_type
from rubric_lsp.formats.promptfoo.resolve import ConfigView, Source
from rubric_lsp.formats.promptfoo.rules.common import F, W, text_of
from rubric_lsp.formats.promptfoo.rules.schema import INVALID_FIELD
from rubric_lsp.rules.registry import rule

RUBRIC_PROMPT = rule(
    "PF008",
    "suspicious-rubric-prompt",
    W,
    "A custom rubricPrompt that promptfoo will not use as intended.",
    "A rubricPrompt that looks like JSON but does not parse is sent as one plain message; one that "
    "never uses {{output}} or {{rubric}} grades nothing; an llm-rubric prompt that never asks for "
    "pass/score gets replies promptfoo cannot read; {steps, evaluate} objects are for g-eval only.",
    bad='defaultTest:\n  options:\n    rubricPrompt: \'[{"role": "user", "content": "Grade {{output}} against {{rubric}}. Reply with JSON {pass, score, reason}"}\'  # no closing ]\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite',
    good='defaultTest:\n  options:\n    rubricPrompt: \'[{"role": "user", "content": "Grade {{output}} against {{rubric}}. Reply with JSON {pass, score, reason}"}]\'\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite',
    formats=F,
)


def check_rubric_prompts(ctx, report, view: ConfigView) -> None:
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
        if not (node.is_map or node.is_seq or (node.is_scalar and isinstance(node.value, str))):
            if node.is_scalar and node.value is None:
                continue
            report(
                INVALID_FIELD,
                source,
                node,
                f"'rubricPrompt' is {describe_type(node.value)}; promptfoo expects a string, a list of chat messages "
                "or a file:// reference, and its graders fail on anything else.",
            )
            continue
        if not ctx.enabled(RUBRIC_PROMPT):
            continue
        for message in _rubric_prompt_problems(node, kinds):
            report(
                RUBRIC_PROMPT,
                source,
                node if node.end - node.start < 300 or not source.is_config else ctx.line_span(node),
                message,
            )


def _rubric_prompt_problems(node: Node, kinds: set[str]) -> list[str]:  # noqa: C901 - one branch per prompt shape
    problems = []
    if node.is_map:
        if node.has("steps") or node.has("evaluate"):
            if kinds and kinds != {"g-eval"}:
                problems.append(
                    "A {steps, evaluate} rubricPrompt is read only by g-eval; "
                    f"{', '.join(sorted(kinds - {'g-eval'}))} gets it as a prompt it cannot use."
                )
            evaluate = text_of(node.get("evaluate"))
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
            except json.JSONDecodeError as exc:
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
    elif "llm-rubric" in kinds and not re.search(r"\{\{\s*output\b", text):
        # llm-rubric renders {output, rubric}; factuality and closedqa name the output {{completion}}
        problems.append(
            "This rubricPrompt never uses {{output}}, so the judge grades the rubric without seeing the output. "
            "Add {{output}} where the response belongs."
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
