"""The NorthStar EvalRunRequest's grader (``Format.grader``): one response through the request's LLM judges."""

from __future__ import annotations

from dataclasses import replace

from rubric_lsp.document import Document, Node
from rubric_lsp.engine.judge import Judge
from rubric_lsp.engine.request import GradeRequest, GradeResult, RequestKind
from rubric_lsp.engine.runner import Grader, Grading, GradingError, UnsupportedRequest
from rubric_lsp.formats.northstar.grading.graders import (
    DEFAULT_JUDGE_MODEL,
    GraderInput,
    GraderRequestError,
    grade_graders,
    read_graders,
    skip_reason,
)
from rubric_lsp.formats.northstar.grading.labels import grade_labels


def has_graders(root: Node | None) -> bool:
    if root is None or not root.is_map:
        return False
    graders = root.get("graders")
    return graders is not None and graders.is_seq


async def grade(doc: Document, request: GradeRequest, grading: Grading) -> GradeResult:
    if doc.root is None or not has_graders(doc.root):
        raise GradingError(NOT_A_REQUEST)
    if request.kind is RequestKind.LABELS:  # rubric calibrate LABELS.csv: each row through grade() below
        try:
            plan = read_graders(doc.root, lambda node: doc.range(node).to_json())
        except GraderRequestError as exc:
            raise GradingError(str(exc)) from None
        return await grade_labels(doc, request, grading, plan.judges, grade)
    if request.kind is not RequestKind.RESPONSE:
        raise UnsupportedRequest(request.kind, "a NorthStar EvalRunRequest grades one response")
    try:
        plan = read_graders(doc.root, lambda node: doc.range(node).to_json())
    except GraderRequestError as exc:
        raise GradingError(str(exc)) from None
    if request.units:  # graded from the editor: only the graders the selection picked
        plan.judges = [g for g in plan.judges if g.name in request.units]
        plan.not_run = [n for n in plan.not_run if any(f"'{u}'" in n for u in request.units)]
    if not plan.judges:
        others = f" (it has {', '.join(plan.not_run)}, which are not LLM judges)" if plan.not_run else ""
        raise GradingError(f"This EvalRunRequest has no LLM graders (type 'rubric' or 'faithfulness') to run{others}.")
    settings = grading.settings
    # --model / RUBRIC_JUDGE_MODEL stand in for every judge's model (to try a request on another
    # judge); otherwise each grader's own model, and NorthStar's default where it names none.
    explicit_model = settings.model or settings.environ().get("RUBRIC_JUDGE_MODEL")
    first = next((g.model for g in plan.judges if g.model), DEFAULT_JUDGE_MODEL)
    run = grading.start(replace(settings, model=explicit_model or first))

    def judge_for(grader: GraderInput) -> Judge:
        model = explicit_model or grader.model or DEFAULT_JUDGE_MODEL
        return run.judge(replace(run.settings, model=model, temperature=grader.temperature))

    # Credentials are checked for every grader that will call its judge, before any call is made.
    for grader in plan.judges:
        if grader.config_error is None and skip_reason(grader, request.query) is None:
            judge_for(grader)
    grading.expect(len(plan.judges))
    return await grade_graders(judge_for, plan, request.response, request.query, on_progress=grading.tick)


NOT_A_REQUEST = "This is a NorthStar eval dataset; grade against the EvalRunRequest that holds the graders."


# What Format.grader names: annotated, so that mypy checks ``grade`` against the engine's protocol.
GRADER: Grader = grade
