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
from rubric_lsp.engine.report import GradeReport, Verdict
from rubric_lsp.engine.runner import GradingError
from rubric_lsp.engine.settings import JudgeSettings
from rubric_lsp.formats.promptfoo.grading import max_score
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
    max-score counts every assertion of the test as promptfoo does (``max_score``); those not known here
    (python, a failed judge call, ...) are listed in ``left_out`` and make the scores ranges. ``swap``: each
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
    return max_score_entry(doc, number, test.top_assertions, [test_verdicts(r, number) for r in reports])


def test_verdicts(report: GradeReport, number: int) -> list[Verdict]:
    """The verdicts of test ``number`` in an output's report (each assertion's, an assert-set's children included)."""
    return [v for (n, _), v in zip(report.links, report.verdicts) if n == number]


def max_score_entry(doc: Document, number: int, top: list[Any], outputs: list[list[Verdict]]) -> dict[str, Any] | None:
    """A test's max-score choice (``max_score``) among ``outputs`` (each output's verdicts of the test), None when
    the test has no max-score."""
    max_scores = [a for a in top if a.type == "max-score"]
    if not max_scores:
        return None
    chosen = max_scores[0]
    method, weights, threshold = max_score.options(chosen.value)
    node = chosen.ref_node or chosen.node
    entry: dict[str, Any] = {
        "test": number,
        "range": doc.range(node).to_json() if chosen.source.is_config else None,
        "method": method,
    }
    if len(max_scores) > 1:
        entry["note"] = "Only the first max-score of a test counts; the others are ignored."
    scored = [max_score.output_score(vs, [v.name.split(": ", 1)[-1] for v in vs], method, weights) for vs in outputs]
    if any(s is None for s in scored):
        entry["error"] = (
            "This test has no other assertion to score; promptfoo's whole eval crashes at the end and writes nothing."
        )
        return entry
    known = [s for s in scored if s is not None]
    entry["left_out"] = sorted({t for s in known for t in s.unknown})  # not known here: the scores' ranges hold them
    entry["scores"] = [s.known for s in known]
    if any(s.known is None for s in known):
        entry["ranges"] = [[s.low, s.high] for s in known]
    choice = max_score.choose(known, threshold)
    if "undecided" in choice:
        entry.update(winner=None, passed=[None] * len(known), undecided=choice["undecided"])
        return entry
    entry.update(winner=choice["winner"], passed=choice["passed"], reasons=choice["reasons"])
    if "reason" in choice:
        entry["reason"] = choice["reason"]
    return entry
