"""Several outputs of one prompt compared (``rubric grade`` with several ``--response``): each output
graded against the tests (``response.py``), then each test's ``select-best`` (``select_best.py``)
and ``max-score`` (seed 003), as promptfoo applies them: the comparison first, which max-score
leaves out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from rubric_lsp.document import Document
from rubric_lsp.engine.report import GradeReport
from rubric_lsp.engine.runner import GradingError
from rubric_lsp.engine.settings import JudgeSettings
from rubric_lsp.formats.promptfoo.grading.assertions import GRADED_TYPES, compared_threshold
from rubric_lsp.formats.promptfoo.grading.deterministic import evaluate
from rubric_lsp.formats.promptfoo.grading.prompts import js_number_text
from rubric_lsp.formats.promptfoo.grading.response import grade_promptfoo
from rubric_lsp.formats.promptfoo.grading.select_best import add_verdicts, grade_select_best
from rubric_lsp.formats.promptfoo.grading.swap import swapped
from rubric_lsp.formats.promptfoo.reading import read_config


async def grade_promptfoo_outputs(
    doc: Document,
    responses: list[str],
    query: str | None,
    settings: JudgeSettings,
    *,
    test_index: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """``graded_outputs``'s JSON."""
    data, _ = await graded_outputs(doc, responses, query, settings, test_index=test_index, on_progress=on_progress)
    return data


async def graded_outputs(
    doc: Document,
    responses: list[str],
    query: str | None,
    settings: JudgeSettings,
    *,
    test_index: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    swap: bool = False,
) -> tuple[dict[str, Any], list[GradeReport]]:
    """Grade several outputs of the same prompt and apply each test's ``max-score`` (seed 003) and
    ``select-best`` (``select_best``).

    Returns ``{"outputs": [report JSON per response], "max_score": [selection per test],
    "select_best": [comparison per test]}`` (``select_best_usage`` too when a comparison ran),
    and the reports.
    Only the model-graded assertions are run here; other assertions of the test (contains,
    python, ...) are listed in ``left_out`` and take no part in the aggregate. ``swap``: each
    select-best is asked again with the outputs reversed (``swap.py``), under ``"swap"``.
    """
    if len(responses) < 2:
        raise GradingError(
            "max-score and select-best need at least 2 outputs to choose between; pass --response once per output."
        )
    if doc.root is None:
        raise GradingError("The file is empty.")
    # One output per prompt (promptfoo's columns): each is graded against its own prompt.
    own_prompts = read_config(doc.root, doc.path, doc).prompt_count == len(responses)
    reports = await asyncio.gather(
        *(
            grade_promptfoo(
                doc,
                r,
                query,
                settings,
                test_index=test_index,
                on_progress=on_progress,
                compared=True,
                prompt_index=position if own_prompts else 0,
            )
            for position, r in enumerate(responses)
        )
    )
    if doc.root is None:
        raise GradingError("The file is empty.")
    view = read_config(doc.root, doc.path, doc)
    numbers = [test_index + 1] if test_index is not None else list(range(1, view.test_count + 1))
    # promptfoo compares (select-best) before it applies max-score, which leaves the comparison out.
    compared, compare_usage = await grade_select_best(doc, view, numbers, responses, settings)
    add_verdicts(reports, compared)
    selections = [e for e in (_max_score(doc, view, number, reports, responses) for number in numbers) if e is not None]
    result: dict[str, Any] = {
        "outputs": [r.to_json() for r in reports],
        "max_score": selections,
        "select_best": compared,
    }
    if compared:
        result["select_best_usage"] = compare_usage.to_json()
    if swap:
        result["swap"] = await swapped(doc, view, numbers, responses, compared, settings)
    return result, list(reports)


def _max_score(
    doc: Document, view: Any, number: int, reports: list[GradeReport], responses: list[str]
) -> dict[str, Any] | None:
    """Test ``number``'s max-score over the outputs' reports (None when the test has none)."""
    test = view.test_number(number)
    if test is None:
        return None
    top = test.top_assertions
    max_scores = [a for a in top if a.type == "max-score"]
    if not max_scores:
        return None
    chosen = max_scores[0]
    config = chosen.value if isinstance(chosen.value, dict) else {}
    method = config.get("method", "average")
    given = config.get("weights")
    weights: dict[str, Any] = given if isinstance(given, dict) else {}
    threshold = config.get("threshold")
    others = [a for a in top if a.type not in ("max-score", "select-best")]
    node = chosen.ref_node or chosen.node
    entry: dict[str, Any] = {
        "test": number,
        "range": doc.range(node).to_json() if chosen.source.is_config else None,
        "method": method,
    }
    if len(max_scores) > 1:
        entry["note"] = "Only the first max-score of a test counts; the others are ignored."
    if not others:
        entry["error"] = (
            "This test has no other assertion to score; promptfoo's whole eval crashes at the end and writes nothing."
        )
        return entry
    graded = [a for a in others if a.type in GRADED_TYPES]
    test_vars = view.test_vars(number)
    # Deterministic checks promptfoo evaluates without code count too (per output); the rest is left out.
    checked = [
        a
        for a in others
        if a.type not in GRADED_TYPES
        and all(evaluate(a.type or "", a.value, r, test_vars) is not None for r in responses)
    ]
    entry["left_out"] = [a.type for a in others if a.type not in GRADED_TYPES and a not in checked]
    scores: list[float | None] = []
    for report, response in zip(reports, responses):
        by_node = {id(node_): verdict for (n, node_), verdict in zip(report.links, report.verdicts) if n == number}
        total = weight_sum = 0.0
        for assertion in graded + checked:
            weight = weights.get(assertion.type, 1)
            weight = float(weight) if isinstance(weight, (int, float)) and not isinstance(weight, bool) else 1.0
            if assertion in checked:
                value = evaluate(assertion.type or "", assertion.value, response, test_vars) or 0.0
            else:
                verdict = by_node.get(id(assertion.node))
                value = (
                    0.0
                    if verdict is None or verdict.failed
                    else (verdict.score if verdict.score is not None else float(bool(verdict.passed)))
                )
            total += value * weight
            weight_sum += weight
        if not graded and not checked:
            scores.append(None)
        else:
            scores.append(total if method == "sum" else (total / weight_sum if weight_sum else 0.0))
    entry["scores"] = scores
    winner: int | None = None
    best = 0.0
    for position, score in enumerate(scores):
        if score is not None and (winner is None or score > best):  # first strictly greater wins; ties keep the first
            winner, best = position, score
    threshold = compared_threshold(threshold, None)  # JavaScript's `<` turns a string threshold into a number
    if winner is not None and threshold is not None and best < threshold:
        entry["reason"] = (
            f"The best score {best:.3g} is below the threshold {js_number_text(threshold)}, so no output passes."
        )
        winner = None
    entry["winner"] = winner
    entry["passed"] = [position == winner for position in range(len(reports))]
    return entry
