"""Grading an autorubric dataset and measuring the judge against its ground truth.

Per criterion: accuracy, Cohen's κ, and for ordinal multi-choice criteria the
quadratic-weighted κ (categories ordered by option value). Items whose judgment failed
are counted apart, never as agreement or disagreement.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from rubric_lsp.document import Document, Node
from rubric_lsp.formats.autorubric.score import find_option
from rubric_lsp.grading.report import GradeReport


class DatasetError(ValueError):
    pass


def cohen_kappa(pairs: Sequence[tuple[Any, Any]], categories: Sequence[Any], weights: str | None = None) -> float | None:
    """Cohen's κ of (truth, judged) pairs over ``categories`` (ordered for ``weights='quadratic'``).

    None when undefined (no pairs, or chance agreement is total and nothing disagrees).
    """
    if not pairs:
        return None
    index = {c: i for i, c in enumerate(categories)}
    k = len(categories)
    n = len(pairs)
    observed = [[0.0] * k for _ in range(k)]
    for truth, judged in pairs:
        observed[index[truth]][index[judged]] += 1
    rows = [sum(observed[i]) for i in range(k)]
    cols = [sum(observed[i][j] for i in range(k)) for j in range(k)]

    def weight(i: int, j: int) -> float:
        if weights == "quadratic":
            return ((i - j) ** 2) / ((k - 1) ** 2) if k > 1 else 0.0
        return 0.0 if i == j else 1.0

    disagreement = sum(weight(i, j) * observed[i][j] for i in range(k) for j in range(k)) / n
    expected = sum(weight(i, j) * rows[i] * cols[j] for i in range(k) for j in range(k)) / (n * n)
    if expected == 0:
        return 1.0 if disagreement == 0 else None
    return 1.0 - disagreement / expected


@dataclass
class CriterionAgreement:
    index: int
    name: str
    kind: str  # binary | ordinal | nominal
    compared: int = 0
    agreed: int = 0
    failed: int = 0
    pairs: list[tuple[Any, Any]] = field(default_factory=list)
    categories: list[Any] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "index": self.index,
            "name": self.name,
            "kind": self.kind,
            "compared": self.compared,
            "failed": self.failed,
            "accuracy": self.agreed / self.compared if self.compared else None,
            "cohen_kappa": cohen_kappa(self.pairs, self.categories),
        }
        if self.kind == "ordinal":
            data["quadratic_weighted_kappa"] = cohen_kappa(self.pairs, self.categories, "quadratic")
        return data


@dataclass
class DatasetResult:
    items: list[dict[str, Any]]
    criteria: list[CriterionAgreement]
    reports: list[GradeReport]

    def to_json(self) -> dict[str, Any]:
        return {"items": self.items, "agreement": [c.to_json() for c in self.criteria]}


async def grade_dataset(doc: Document, settings: Any, *, limit: int | None = None, on_progress: Callable[[int, int], None] | None = None) -> DatasetResult:
    from rubric_lsp.formats.autorubric.view import read_rubric
    from rubric_lsp.grading.autorubric_grader import CriterionInput, grade_criteria
    from rubric_lsp.grading.engine import Run
    from rubric_lsp.grading.judge import Judge

    root = doc.root
    items_node = root.get("items") if root is not None and root.is_map else None
    if items_node is None or not items_node.is_seq:
        raise DatasetError("The dataset has no 'items' list.")
    shared_node = root.get("rubric")
    prompt = _text(root.get("prompt"))

    def criteria_of(node: Node | None) -> tuple[list[CriterionInput], str | None]:
        if node is None or (node.is_scalar and node.value is None):
            return [], None
        view = read_rubric(node)
        if view.problems or any(e.criterion is None for e in view.entries):
            where = doc.range(view.problems[0].node).start.line + 1 if view.problems else 0
            raise DatasetError(f"A rubric in the dataset is invalid (line {where}): {view.problems[0].message if view.problems else 'no criteria'}")
        return [CriterionInput(e.index, e.criterion, e.label, doc.range(e.node).to_json()) for e in view.entries], view.guidelines

    shared, shared_guidelines = criteria_of(shared_node)
    run = Run.start(settings)
    s = run.settings
    models = s.judge_models()
    for model in models:
        run.judge(model=model)
    plans = []
    for position, item in enumerate(items_node.value[: limit or None]):
        if not item.is_map:
            continue
        own = item.get("rubric")
        criteria, guidelines = criteria_of(own) if own is not None and not (own.is_scalar and own.value is None) else (shared, shared_guidelines)
        if not criteria:
            raise DatasetError(f"Item {position} has no rubric and the dataset has none either.")
        submission = _text(item.get("submission"))
        if submission is None:
            raise DatasetError(f"Item {position} has no 'submission' text.")
        plans.append((position, item, criteria, guidelines, own is None or (own.is_scalar and own.value is None), submission))

    total = sum(len(p[2]) for p in plans) * len(models)
    progress = {"done": 0}

    def tick(_d: int, _t: int) -> None:
        progress["done"] += 1
        if on_progress:
            on_progress(progress["done"], total)

    async def one(plan: Any) -> GradeReport:
        position, item, criteria, guidelines, _, submission = plan
        judges = [Judge(s, m, run.semaphore, run.cache) for m in models]
        query = _text(item.get("prompt")) or prompt
        return await grade_criteria(judges, criteria, submission, query, guidelines, strategy=s.cannot_assess, partial_credit=s.partial_credit,
                                    normalize=s.normalize, shuffle=s.shuffle_options, seed=s.seed, aggregation=s.aggregation, on_progress=tick)

    tasks = [asyncio.ensure_future(one(p)) for p in plans]
    try:
        reports = list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        raise

    agreements = [_agreement_for(c) for c in shared]
    items_out = []
    for plan, report in zip(plans, reports):
        position, item, criteria, _, uses_shared, _ = plan
        truth = _plain(item.get("ground_truth"))
        items_out.append({"index": position, "description": _text(item.get("description")), "score": report.score, "error": report.error,
                          "verdicts": [v.verdict for v in report.verdicts], "ground_truth": truth if isinstance(truth, list) else None})
        if not uses_shared or not isinstance(truth, list):
            continue
        for agreement, criterion, verdict, wanted in zip(agreements, criteria, report.verdicts, truth):
            if not isinstance(wanted, str):
                continue
            if verdict.failed:
                agreement.failed += 1
                continue
            expected = _category(criterion.criterion, wanted)
            judged = _category(criterion.criterion, verdict.verdict)
            if expected is None or judged is None:
                continue
            agreement.compared += 1
            agreement.agreed += expected == judged
            agreement.pairs.append((expected, judged))
    return DatasetResult(items_out, agreements, reports)


def _agreement_for(item: Any) -> CriterionAgreement:
    criterion = item.criterion
    if criterion.options is None:
        return CriterionAgreement(item.index, item.name, "binary", categories=["MET", "UNMET", "CANNOT_ASSESS"])
    from rubric_lsp.grading.autorubric_grader import effective_options

    options = effective_options(criterion)
    if criterion.scale_type == "ordinal":
        scored = sorted((i for i, o in enumerate(options) if not o.na), key=lambda i: options[i].value)
        # NA categories sit after the scale so they count as disagreement but do not stretch it.
        ordered = scored + [i for i, o in enumerate(options) if o.na]
        return CriterionAgreement(item.index, item.name, "ordinal", categories=ordered)
    return CriterionAgreement(item.index, item.name, "nominal", categories=list(range(len(options))))


def _category(criterion: Any, label: str) -> Any:
    if criterion.options is None:
        return label if label in ("MET", "UNMET", "CANNOT_ASSESS") else None
    from rubric_lsp.grading.autorubric_grader import effective_options

    options = effective_options(criterion)
    wanted = label.strip().lower()
    for index, option in enumerate(options):
        if option.label.strip().lower() == wanted:
            return index
    try:
        return find_option(criterion, label)
    except ValueError:
        return None


def _text(node: Node | None) -> str | None:
    if node is None or not node.is_scalar or not isinstance(node.value, str):
        return None
    return node.value


def _plain(node: Node | None) -> Any:
    if node is None:
        return None
    from rubric_lsp.document.nodes import to_plain

    return to_plain(node)
