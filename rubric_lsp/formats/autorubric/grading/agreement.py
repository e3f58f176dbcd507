"""Grading an autorubric dataset and measuring the judge against its ground truth.

The measures are autorubric 1.6.1's ``compute_metrics`` with its defaults
(``cannot_assess="exclude"``, ``na_mode="exclude"``), so a team sees the figures
autorubric would report for the same verdicts: per criterion, accuracy and Cohen's κ over
the pairs where neither the ground truth nor the judge abstained (CANNOT_ASSESS, or an NA
option), and for ordinal criteria the quadratic-weighted κ. Abstentions are counted apart
(both, judge only, truth only), and so are failed judgments, which are neither agreement
nor disagreement.

Memory stays flat in the number of items: items are graded through a window of a few times
the concurrency (``engine/windowed.py``) and each one's verdicts are folded into the
per-criterion agreement as they land, keeping only the item's output row.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

# The arithmetic is calibration's (one implementation for `rubric grade` and `rubric calibrate`).
from rubric_lsp.calibration.stats import bootstrap_kappas as bootstrap_kappas
from rubric_lsp.calibration.stats import cohen_kappa as cohen_kappa
from rubric_lsp.calibration.stats import kappa_interval
from rubric_lsp.document import Document, Node
from rubric_lsp.engine.report import GradeReport, usage_line
from rubric_lsp.engine.request import GradeRequest, GradeResult, RequestKind
from rubric_lsp.engine.result import Figure, Figures, Unit
from rubric_lsp.engine.runner import Grader, Grading, GradingError
from rubric_lsp.engine.usage import Usage
from rubric_lsp.engine.windowed import fold_in_order, quiet_collector
from rubric_lsp.formats.autorubric.grading import calibration
from rubric_lsp.formats.autorubric.grading.dataset_rubrics import DatasetError as DatasetError
from rubric_lsp.formats.autorubric.grading.dataset_rubrics import criteria_of, identity
from rubric_lsp.formats.autorubric.grading.dataset_units import dataset_units
from rubric_lsp.formats.autorubric.grading.inputs import refuse_unloadable
from rubric_lsp.formats.autorubric.grading.labels import refuse_unusable_labels
from rubric_lsp.formats.autorubric.grading.prompt import effective_option_index, effective_options
from rubric_lsp.formats.autorubric.grading.rescore import outcome_of
from rubric_lsp.formats.autorubric.grading.rubric import score_response
from rubric_lsp.formats.autorubric.loading import ground_truth_entries
from rubric_lsp.formats.autorubric.options import AutorubricOptions
from rubric_lsp.formats.autorubric.score import compute_score

# Items started but not yet folded, per concurrency slot: each item is several calls, so a
# window of 4 × concurrency items keeps every slot busy while one slow item holds the fold back.
ITEM_WINDOW_PER_CALL_SLOT = 4


@dataclass
class CriterionAgreement:
    index: int
    name: str
    kind: str  # binary | ordinal | nominal
    abstain: frozenset[Any] = frozenset()  # the categories that are abstentions (CANNOT_ASSESS, NA options)
    failed: int = 0
    pairs: list[tuple[Any, Any]] = field(default_factory=list)  # neither side abstained
    abstained_both: int = 0
    abstained_judge_only: int = 0
    abstained_truth_only: int = 0
    range: dict[str, Any] | None = None  # where the criterion is written (the shared rubric's)
    disagreeing: list[int] = field(default_factory=list)  # the items where the judge and the label differ
    labels: tuple[str, ...] = ()  # each category's name: binary verdicts, or the options' labels by index
    criterion: Any = None  # the CriterionInput measured (its text, for a calibration record)
    # Each labelled item's verdict, abstentions included (None: the call failed), and where the item's
    # verdict list holds it: the repeats of ``rubric calibrate --repeat`` are compared through it.
    judged: dict[int, tuple[Any, int]] = field(default_factory=dict)
    # Every graded item's verdict category, labelled or not (failed calls left out): its pass rate.
    verdict_counts: Counter[Any] = field(default_factory=Counter)

    def add(self, truth: Any, judged: Any, item: int | None = None) -> None:
        truth_abstains, judge_abstains = truth in self.abstain, judged in self.abstain
        if truth_abstains and judge_abstains:
            self.abstained_both += 1
        elif judge_abstains:
            self.abstained_judge_only += 1
        elif truth_abstains:
            self.abstained_truth_only += 1
        else:
            self.pairs.append((truth, judged))
            if truth != judged and item is not None:
                self.disagreeing.append(item)

    @property
    def compared(self) -> int:
        return len(self.pairs)

    def to_json(self) -> dict[str, Any]:
        agreed = sum(truth == judged for truth, judged in self.pairs)
        data: dict[str, Any] = {
            "index": self.index,
            "name": self.name,
            "kind": self.kind,
            "compared": self.compared,
            "failed": self.failed,
            "abstained": {
                "both": self.abstained_both,
                "judge_only": self.abstained_judge_only,
                "truth_only": self.abstained_truth_only,
            },
            "accuracy": agreed / self.compared if self.compared else None,
            "cohen_kappa": cohen_kappa(self.pairs),
            "range": self.range,
            "disagreeing": self.disagreeing,
        }
        if self.kind == "ordinal":
            data["quadratic_weighted_kappa"] = cohen_kappa(self.pairs, "quadratic")
        data["kappa_interval"] = self.kappa_interval()
        data["confusion"] = self.confusion()
        return data

    def kappa_interval(self, level: float = 0.95) -> list[float] | None:
        """The interval of κ (quadratic-weighted for ordinal) over the compared pairs, as a calibration record
        gives it (``stats.kappa_interval``: Fieller's, never zero-width); None when κ is undefined."""
        return kappa_interval(self.pairs, "quadratic" if self.kind == "ordinal" else None, level=level)

    def confusion(self) -> dict[str, Any]:
        """Counts of (human label, judged verdict) over the compared pairs: ``matrix[truth][judged]``.

        Every category of the scale is a row and a column, used or not (abstentions aside): an
        option the judge never picks is an empty column, which is what a reader looks for.
        """
        scale: set[Any] = set(range(len(self.labels))) if self.labels else {"MET", "UNMET"}
        used = {c for pair in self.pairs for c in pair}
        categories = sorted((scale - self.abstain) | used, key=lambda c: (str(type(c)), c))
        position = {c: i for i, c in enumerate(categories)}
        matrix = [[0] * len(categories) for _ in categories]
        for truth, judged in self.pairs:
            matrix[position[truth]][position[judged]] += 1
        return {"labels": [self._name(c) for c in categories], "matrix": matrix}

    def _name(self, category: Any) -> str:
        if isinstance(category, int) and 0 <= category < len(self.labels):
            return self.labels[category]
        return str(category)


@dataclass
class DatasetResult:
    items: list[dict[str, Any]]
    criteria: list[CriterionAgreement]
    usage: Usage = field(default_factory=Usage)  # every judge call of the run (a resumed run's included)
    model: str | None = None
    _json: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    kind = "dataset"

    def units(self) -> list[Unit]:
        return list(dataset_units(self.items, self.criteria))

    def to_json(self) -> dict[str, Any]:
        # Computed once: the CLI asks twice (the run file's figures, then the output), and the
        # bootstrap intervals are the costliest figures of a large dataset.
        if self._json is None:
            agreement = [c.to_json() for c in self.criteria]
            self._json = {"items": self.items, "agreement": agreement, "usage": self.usage.to_json()}
            if (incomplete := self.incomplete) is not None:
                self._json["incomplete"] = incomplete
        return self._json

    @property
    def failed(self) -> bool:
        return False  # agreement is a measurement, not a pass/fail

    def figures(self) -> Figures:
        """Cohen's κ beside each criterion's accuracy, as the faces show it (engine/result.py)."""
        return agreement_figures(self.to_json()["agreement"])

    def calibration_units(self, doc: Document, options: Mapping[str, Any]) -> list[Any]:
        """The measured criteria as calibration units (``rubric calibrate``; ``doc``, ``options``: the graded
        dataset and the request's grading options)."""
        return calibration.units(self, doc, options)

    def pass_counts(self) -> dict[str, tuple[int, int]]:
        """Each binary criterion's (MET, MET + UNMET) over every graded item: the pass rate ``rubric grade``
        corrects for the judge's measured sensitivity and specificity (abstentions and failures left out)."""
        return {
            c.name: (c.verdict_counts["MET"], c.verdict_counts["MET"] + c.verdict_counts["UNMET"])
            for c in self.criteria
            if c.kind == "binary"
        }

    @property
    def incomplete(self) -> str | None:
        """A measurement resting on fewer judgments than asked (any failed call), or on none compared."""
        failed = sum(c.failed for c in self.criteria)
        if failed:
            asked = sum(
                c.failed + c.compared + c.abstained_both + c.abstained_judge_only + c.abstained_truth_only
                for c in self.criteria
            )
            return f"{failed} of {asked} judgment(s) failed; the agreement figures leave them out"
        if self.criteria and not any(c.compared for c in self.criteria):
            return "no criterion has a judged pair to compare with its label: nothing was measured"
        return None

    def text_lines(self) -> list[str]:
        lines = []
        for item in self.items:
            score = "no score" if item["score"] is None else f"{item['score']:.3f}"
            lines.append(f"item {item['index']}: {score}  {item.get('description') or ''}")
        lines.append("\nagreement with ground truth (per criterion):")
        lines.extend(_agreement_line(c, data) for c, data in zip(self.criteria, self.to_json()["agreement"]))
        lines.append(
            "(abstentions and failed judgments are left out of accuracy and κ, as autorubric's compute_metrics does by default)"
        )
        lines.append(usage_line(self.model, self.usage))
        return lines


def agreement_figures(agreement: list[dict[str, Any]]) -> Figures:
    """The report ranks and charts by κ, quadratic-weighted for an ordinal criterion (with its bootstrap
    interval); the editor's lens shows Cohen's κ, the figure ``text_lines`` prints first."""
    return Figures(
        key="kappa",
        label="κ",
        ranked=tuple(
            Figure("κ", c.get("quadratic_weighted_kappa", c["cohen_kappa"]), c.get("kappa_interval")) for c in agreement
        ),
        brief=tuple((Figure("κ", c.get("cohen_kappa")),) for c in agreement),
        interval="95 % interval",
        note="abstentions and failed judgments are left out of accuracy and κ · κ is quadratic-weighted for ordinal "
        "criteria · interval: 95 % bootstrap",
        chart="κ per criterion, worst first (95 % bootstrap interval)",
    )


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _agreement_line(c: CriterionAgreement, data: dict[str, Any]) -> str:
    qwk = f"  qwk {_figure(data['quadratic_weighted_kappa'])}" if "quadratic_weighted_kappa" in data else ""
    abstained = data["abstained"]
    apart = (
        f", abstained: both {abstained['both']}, judge only {abstained['judge_only']}, truth only {abstained['truth_only']}"
        if any(abstained.values())
        else ""
    )
    return (
        f"  {c.name}: accuracy {_figure(data['accuracy'])}  κ {_figure(data['cohen_kappa'])}{qwk}"
        f"  (n={c.compared}, failed={c.failed}{apart})"
    )


async def grade(doc: Document, request: GradeRequest, grading: Grading) -> GradeResult:
    """The autorubric dataset's grader (``Format.grader``): agreement with the items' labels."""
    if request.kind not in (RequestKind.DATASET, RequestKind.EXAMPLES):
        raise GradingError(
            "This is an autorubric dataset: grade it without --response (`rubric grade DATASET.json`) to measure "
            "the judge's agreement with its ground truth."
        )

    refuse_unloadable(doc, dataset=True)
    refuse_unusable_labels(doc)  # a label autorubric refuses is refused, never left out of the figures
    try:
        return await grade_dataset(doc, grading, limit=request.limit, options=AutorubricOptions.of(request.options))
    except DatasetError as exc:
        raise GradingError(str(exc)) from None


async def grade_dataset(
    doc: Document, grading: Grading, *, limit: int | None = None, options: AutorubricOptions | None = None
) -> DatasetResult:
    root = doc.root
    items_node = root.get("items") if root is not None and root.is_map else None
    if root is None or items_node is None or not items_node.is_seq:
        raise DatasetError("The dataset has no 'items' list.")
    shared_node = root.get("rubric")
    prompt = _text(root.get("prompt"))

    shared, shared_guidelines = criteria_of(doc, shared_node)
    options = options or AutorubricOptions()
    run = grading.start()
    models = run.settings.judge_models()
    # The run's judges, shared by every item (checks every credential before any call): an item's
    # own judges would only count its usage apart, which the dataset's figures do not show, and
    # cost ~0.7 ms each to set up (measured).
    judges = run.judges_for_models()
    plans = []
    for position, item in enumerate(items_node.value[: limit or None]):
        if not item.is_map:
            continue
        own = item.get("rubric")
        criteria, guidelines = (
            criteria_of(doc, own)
            if own is not None and not (own.is_scalar and own.value is None)
            else (shared, shared_guidelines)
        )
        if not criteria:
            raise DatasetError(f"Item {position} has no rubric and the dataset has none either.")
        submission = _text(item.get("submission"))
        if submission is None:
            raise DatasetError(f"Item {position} has no 'submission' text.")
        plans.append((position, item, criteria, guidelines, submission))
    if not any(_has_ground_truth(p[1]) for p in plans):
        # autorubric's compute_metrics refuses after grading; refusing first spends no judge calls.
        raise DatasetError(
            "No valid items with ground truth found: autorubric measures agreement only against items "
            "with a 'ground_truth' list. Add the human verdicts, or grade each submission with --response."
        )
    grading.expect(sum(len(p[2]) for p in plans) * len(models))

    # One entry per criterion: the shared rubric's criteria in order, then each criterion of
    # an item's own rubric (a converted multi-turn Rubrics task has one per turn), pooled
    # across the items whose rubrics hold the same criterion.
    agreements: dict[tuple[Any, ...], CriterionAgreement] = {}
    for criterion in shared:
        agreements.setdefault(identity(criterion), _agreement_for(criterion, len(agreements)))
    items_out: list[dict[str, Any]] = []

    def grade_item(plan: Any) -> Callable[[], Awaitable[tuple[Any, GradeReport]]]:
        async def one() -> tuple[Any, GradeReport]:
            _position, item, criteria, guidelines, submission = plan
            query = _text(item.get("prompt")) or prompt
            report = await score_response(judges, criteria, submission, query, guidelines, run, grading, options)
            return plan, report

        return one

    def fold(graded: tuple[Any, GradeReport]) -> None:
        """One item's verdicts into the agreement and its output row; the report itself is dropped."""
        (position, item, criteria, _, _), report = graded
        truth = _truth(item)
        items_out.append(
            {
                "index": position,
                "range": doc.range(item).to_json(),
                "description": _text(item.get("description")),
                "score": report.score,
                "error": report.error,
                "verdicts": [v.verdict for v in report.verdicts],
                "ground_truth": truth if isinstance(truth, list) else None,
                "reasons": [v.error or v.reason for v in report.verdicts],
                "human_score": _human_score(criteria, truth, options),
            }
        )
        _tally(agreements, criteria, report)
        if isinstance(truth, list):
            _compare(agreements, criteria, report, truth, position)

    # A window of items in flight (a few times the concurrency, so the judge never waits for
    # work), each folded in the dataset's order as it lands: memory stays flat in the item count.
    window = ITEM_WINDOW_PER_CALL_SLOT * max(1, run.settings.concurrency)
    # The collector out of the way, and verdict-cache entries (one file per call) written off the
    # event loop, all done by the end (windowed.quiet_collector, VerdictCache.deferred).
    writes = run.cache.deferred() if run.cache is not None else nullcontext()
    with quiet_collector(), writes:
        await fold_in_order((grade_item(p) for p in plans), window, fold)
    return DatasetResult(items_out, list(agreements.values()), run.usage(), ", ".join(models))


def _truth(item: Node) -> list[Any] | None:
    """The item's ground truth as autorubric reads it (an object's keys, a string's characters)."""

    node = item.get("ground_truth")
    read = ground_truth_entries(node) if node is not None and node.value is not None else None
    return None if read is None else [value for _node, value in read]


def _has_ground_truth(item: Node) -> bool:
    node = item.get("ground_truth")
    return node is not None and not (node.is_scalar and node.value is None)


def _compare(
    agreements: dict[tuple[Any, ...], CriterionAgreement],
    criteria: list[Any],
    report: GradeReport,
    truth: list[Any],
    position: int | None = None,
) -> None:
    """Add one item's judged verdicts against its labels to each criterion's agreement."""
    for slot, (criterion, verdict, wanted) in enumerate(zip(criteria, report.verdicts, truth)):
        agreement = agreements.get(identity(criterion))
        if agreement is None:
            agreement = agreements[identity(criterion)] = _agreement_for(criterion, len(agreements))
        if not isinstance(wanted, str):
            continue
        if verdict.failed or verdict.failed_votes:  # a stand-in vote is no verdict to measure a judge by
            agreement.failed += 1
            if position is not None:
                agreement.judged[position] = (None, slot)
            continue
        expected = _category(criterion.criterion, wanted)
        judged = _category(criterion.criterion, verdict.verdict)
        if position is not None:
            agreement.judged[position] = (judged, slot)
        if expected is not None and judged is not None:
            agreement.add(expected, judged, position)


def _tally(agreements: dict[tuple[Any, ...], CriterionAgreement], criteria: list[Any], report: GradeReport) -> None:
    """Count one item's judged verdicts, labelled or not, into each criterion's verdict counts."""
    for criterion, verdict in zip(criteria, report.verdicts):
        agreement = agreements.get(identity(criterion))
        if agreement is None:
            agreement = agreements[identity(criterion)] = _agreement_for(criterion, len(agreements))
        if not verdict.failed:
            agreement.verdict_counts[_category(criterion.criterion, verdict.verdict)] += 1


def _human_score(criteria: list[Any], truth: Any, options: AutorubricOptions) -> float | None:
    """The score the item's labels give under the same scoring as the judge's (None: labels missing or unusable)."""

    if not isinstance(truth, list) or len(truth) != len(criteria) or not all(isinstance(t, str) for t in truth):
        return None
    try:
        outcomes = [outcome_of(criterion, label)[0] for criterion, label in zip(criteria, truth, strict=True)]
        return compute_score(outcomes, options.cannot_assess, options.partial_credit, normalize=options.normalize)
    except (GradingError, ValueError, ZeroDivisionError):
        return None


def _agreement_for(item: Any, index: int) -> CriterionAgreement:
    criterion = item.criterion
    if criterion.options is None:
        return CriterionAgreement(
            index, item.name, "binary", abstain=frozenset({"CANNOT_ASSESS"}), range=item.range, criterion=item
        )

    options = effective_options(criterion)
    kind = "ordinal" if criterion.scale_type == "ordinal" else "nominal"
    abstain = frozenset(i for i, o in enumerate(options) if o.na)
    return CriterionAgreement(
        index,
        item.name,
        kind,
        abstain=abstain,
        range=item.range,
        labels=tuple(str(o.label) for o in options),
        criterion=item,
    )


def _category(criterion: Any, label: str) -> Any:
    if criterion.options is None:
        return label if label in ("MET", "UNMET", "CANNOT_ASSESS") else None

    return effective_option_index(criterion, label)


def _text(node: Node | None) -> str | None:
    if node is None or not node.is_scalar or not isinstance(node.value, str):
        return None
    return node.value


# What Format.grader names: annotated, so that mypy checks ``grade`` against the engine's protocol.
GRADER: Grader = grade
