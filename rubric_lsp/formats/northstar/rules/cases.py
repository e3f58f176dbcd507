"""Eval-case dataset errors: what makes NorthStar refuse the dataset (NS200–NS205), and the cases checker."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rubric_lsp.diagnostics import Severity
from rubric_lsp.formats.errors import Problem, error_span
from rubric_lsp.formats.northstar import CASES
from rubric_lsp.formats.northstar import model as M
from rubric_lsp.formats.northstar.rules.common import key_rename, parent_map, plain_message
from rubric_lsp.formats.northstar.view import CasesView, read_cases
from rubric_lsp.formats.registry import checker
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule
from rubric_lsp.rules.suggest import did_you_mean
from rubric_lsp.rules.unknown_keys import RENAME_SAFETY

if TYPE_CHECKING:
    from pydantic import BaseModel

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

DATASET_SHAPE = rule(
    "NS200",
    "invalid-dataset-shape",
    E,
    "The file is not an eval dataset NorthStar can read, or a JSONL line is not one JSON object.",
    'NorthStar reads a JSON dataset as one case, a list of cases or {"cases": [...]}, and a JSONL '
    "dataset as one case object per line; anything else is refused.",
    bad=(
        '{"cases": {"id": "capital-fr", "messages": [{"role": "user", "content": "Capital of France?"}, {"role": "assistant", "content": "Paris."}]}}'
    ),
    good=(
        '{"cases": [\n'
        '  {"id": "capital-fr", "messages": [{"role": "user", "content": "Capital of France?"}, {"role": "assistant", "content": "Paris."}]}\n'
        "]}"
    ),
    formats=(CASES,),
    checked_against="NorthStar's public head (sidmanale643/northstar fa05d08): src/northstar/evals/dataset.py (Dataset.from_json, Dataset.from_jsonl)",
)

MISSING_CASE_FIELD = rule(
    "NS201",
    "missing-case-field",
    E,
    "An eval case has no `id` or no `messages`.",
    "Both are required by NorthStar's EvalCase; the dataset is refused without them.",
    bad='{"id": "case-1", "expected": {"goal": "greet"}}',
    good='{"id": "case-1", "messages": [{"role": "assistant", "content": "hi"}], "expected": {"goal": "greet"}}',
    formats=(CASES,),
    checked_against="NorthStar's public head (sidmanale643/northstar fa05d08): src/northstar/evals/models.py (EvalCase: id, messages required)",
)

UNKNOWN_CASE_KEY = rule(
    "NS202",
    "unknown-case-key",
    E,
    "An eval case (or its `expected`, `metrics`) has a key NorthStar does not know.",
    "NorthStar's eval models forbid unknown keys, so a typo such as `expect` or `max_tools_calls` "
    "makes the whole dataset fail to load.",
    bad=(
        '{"cases": [\n'
        '  {"id": "capital-fr", "messages": [{"role": "user", "content": "Capital of France?"}, {"role": "assistant", "content": "Paris."}],\n'
        '   "expected": {"goal": "Name the capital of France.", "max_tools_calls": 1}}\n'
        "]}"
    ),
    good=(
        '{"cases": [\n'
        '  {"id": "capital-fr", "messages": [{"role": "user", "content": "Capital of France?"}, {"role": "assistant", "content": "Paris."}],\n'
        '   "expected": {"goal": "Name the capital of France.", "max_tool_calls": 1}}\n'
        "]}"
    ),
    fix="rename the key to the nearest known one",
    fix_safety=RENAME_SAFETY,
    formats=(CASES,),
    checked_against="NorthStar's public head (sidmanale643/northstar fa05d08): src/northstar/evals/models.py (EvalModel: extra='forbid')",
)

NEGATIVE_LIMIT = rule(
    "NS203",
    "negative-limit",
    E,
    "A limit in `expected` is negative (or a ratio is outside [0, 1]).",
    "max_tool_calls, max_latency_ms and max_cost_usd must be non-negative (trace limits likewise); "
    "NorthStar refuses the case otherwise.",
    bad=(
        '{"cases": [\n'
        '  {"id": "capital-fr", "messages": [{"role": "user", "content": "Capital of France?"}, {"role": "assistant", "content": "Paris."}],\n'
        '   "expected": {"goal": "Name the capital of France.", "max_tool_calls": -1}}\n'
        "]}"
    ),
    good=(
        '{"cases": [\n'
        '  {"id": "capital-fr", "messages": [{"role": "user", "content": "Capital of France?"}, {"role": "assistant", "content": "Paris."}],\n'
        '   "expected": {"goal": "Name the capital of France.", "max_tool_calls": 0}}\n'
        "]}"
    ),
    formats=(CASES,),
    checked_against="NorthStar's public head (sidmanale643/northstar fa05d08): src/northstar/evals/models.py (EvalExpected, TraceExpected validators)",
)

DUPLICATE_CASE_ID = rule(
    "NS204",
    "duplicate-case-id",
    E,
    "Two eval cases have the same id.",
    "Results are reported per case id; two cases with one id cannot be told apart.",
    bad=(
        '{"cases": [\n'
        '  {"id": "capital-fr", "messages": [{"role": "user", "content": "Capital of France?"}, {"role": "assistant", "content": "Paris."}]},\n'
        '  {"id": "capital-fr", "messages": [{"role": "user", "content": "Capital of Germany?"}, {"role": "assistant", "content": "Berlin."}]}\n'
        "]}"
    ),
    good=(
        '{"cases": [\n'
        '  {"id": "capital-fr", "messages": [{"role": "user", "content": "Capital of France?"}, {"role": "assistant", "content": "Paris."}]},\n'
        '  {"id": "capital-de", "messages": [{"role": "user", "content": "Capital of Germany?"}, {"role": "assistant", "content": "Berlin."}]}\n'
        "]}"
    ),
    formats=(CASES,),
)

CASE_FIELD = rule(
    "NS205",
    "invalid-case-field",
    E,
    "An eval-case field has a value of the wrong type.",
    "NorthStar validates cases with pydantic and refuses the dataset on the first bad field (for "
    "example 'messages' that is not a list of objects, or a 'goal' that is not text).",
    bad='{"id": 1, "messages": "hi"}',
    good='{"id": "1", "messages": [{"role": "user", "content": "hi"}]}',
    formats=(CASES,),
    checked_against="NorthStar's public head (sidmanale643/northstar fa05d08): src/northstar/evals/models.py (EvalCase, EvalExpected) and dataset.py",
)


def cases_view(ctx: CheckContext) -> CasesView | None:
    if "northstar.cases" not in ctx.cache:
        doc = ctx.document
        ctx.cache["northstar.cases"] = (
            read_cases(doc.root, jsonl=doc.language == "jsonl") if doc.root is not None else None
        )
    return ctx.cache["northstar.cases"]


def _known_case_keys(path: tuple) -> set[str] | None:
    models: dict[str, type[BaseModel]] = {
        "": M.EvalCase,
        "expected": M.EvalExpected,
        "metrics": M.EvalMetrics,
        "trace": M.TraceExpected,
    }
    # The model that holds the unknown key: the last named level of the path.
    named = [p for p in path if isinstance(p, str)]
    parent = named[-2] if len(named) >= 2 else ""
    if parent == "tool_arguments":
        return set(M.ExpectedToolArguments.model_fields)
    if parent == "allowed_state_transitions":
        return set(M.ExpectedStateTransition.model_fields)
    model = models.get(parent)
    return set(model.model_fields) if model is not None else None


@checker(CASES)
def check_cases(ctx: CheckContext) -> None:
    view = cases_view(ctx)
    if view is None:
        ctx.report(
            DATASET_SHAPE,
            ctx.document.lines.single_line_span(0),
            "The file is empty: an eval dataset needs at least one case.",
        )
        return
    jsonl = ctx.document.language == "jsonl"
    for problem in view.problems:
        related = [(node, text) for node, text in problem.related if node is not None]
        if problem.kind in ("dataset-shape", "case-not-mapping"):
            message = problem.message
            if jsonl and problem.kind == "case-not-mapping":
                message = (
                    f"Line {ctx.document.lines.position(problem.node.start).line + 1}: "
                    + message[0].lower()
                    + message[1:]
                )
            ctx.report(DATASET_SHAPE, ctx.compact(problem.node), message)
        elif problem.kind == "duplicate-case-id":
            ctx.report(DUPLICATE_CASE_ID, problem.node, problem.message, related=related)
        else:
            _report_case_error(ctx, problem)


def _report_case_error(ctx: CheckContext, problem: Problem) -> None:
    error = problem.error
    assert error is not None
    span = error_span(error, ctx.line_span)
    path = error.path
    if error.type == "missing":
        if error.missing_key in ("id", "messages") and len(path) == 0:
            what = (
                "an 'id' (unique in the dataset)"
                if error.missing_key == "id"
                else "'messages' (the conversation, a list of chat messages)"
            )
            ctx.report(
                MISSING_CASE_FIELD,
                span,
                f"This case has no {what}; NorthStar's EvalCase requires it and refuses the dataset.",
            )
        else:
            ctx.report(
                CASE_FIELD,
                span,
                f"'{'.'.join(map(str, path))}' has no '{error.missing_key}'; NorthStar refuses the case.",
            )
    elif error.type == "extra_forbidden" and error.key_node is not None:
        known = _known_case_keys(path) or set()
        parent = parent_map(ctx, error.key_node)
        suggestion, fix = (
            key_rename(ctx, parent, error.key_node, known) if parent is not None and known else (None, None)
        )
        where = ".".join(str(p) for p in path[:-1] if isinstance(p, str)) or "case"
        message = (
            f"Unknown key '{error.key_node.value}' in {where}: NorthStar forbids unknown keys and refuses the dataset."
        )
        if fix is not None and suggestion is not None:
            message += did_you_mean(str(error.key_node.value), suggestion)
        ctx.report(UNKNOWN_CASE_KEY, error.key_node, message, fix=fix)
    elif error.type in ("ns_negative_limit", "ns_ratio_range"):
        ctx.report(NEGATIVE_LIMIT, span, error.message + "; NorthStar refuses the case.")
    else:
        field = ".".join(str(p) for p in path) or "case"
        ctx.report(CASE_FIELD, span, f"'{field}': {plain_message(error.message)}; NorthStar refuses the case.")
