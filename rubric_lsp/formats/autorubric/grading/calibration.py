"""An autorubric dataset's measured criteria as calibration units (``rubric calibrate``, docs/calibration.md).

A unit is a criterion, pooled across the items whose rubrics hold it (``dataset_rubrics.identity``). Its text
(what makes a record stale) is what the judge reads of it: the requirement, whether it describes a flaw
(a negative weight adds a line to the prompt), the options' labels and which abstain, the scale and the
per-criterion aggregation, and the rubric's guidelines. A weight's size or an option's value changes the
score, never a verdict, so it does not make a record stale.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rubric_lsp.calibration import evidence
from rubric_lsp.calibration.check import CalibrationUnit
from rubric_lsp.calibration.hook import CalibrationHook, Graded
from rubric_lsp.calibration.units import CurrentUnit, Labelled, UnitSamples
from rubric_lsp.document import Document, Node
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.autorubric.grading.dataset_rubrics import criteria_of, identity
from rubric_lsp.formats.autorubric.grading.inputs import criterion_inputs
from rubric_lsp.formats.autorubric.loading import ground_truth_entries
from rubric_lsp.formats.autorubric.options import AutorubricOptions
from rubric_lsp.formats.autorubric.view import read_rubric

BINARY_CATEGORIES = ("MET", "UNMET")
# The grading options that change a verdict (options.py): the others change the score only.
VERDICT_OPTIONS = ("shuffle_options", "aggregation")


def unit_text(criterion: Any, guidelines: str | None) -> dict[str, Any]:
    """What the judge reads of one criterion (``criterion``: the view's CriterionValues)."""
    from rubric_lsp.formats.autorubric.grading.prompt import effective_options

    text: dict[str, Any] = {"requirement": criterion.requirement, "flaw": criterion.weight < 0}
    if criterion.options is not None:
        text["options"] = [{"label": str(o.label), "na": bool(o.na)} for o in effective_options(criterion)]
        text["scale"] = criterion.scale_type
        text["aggregation"] = criterion.aggregation
    if guidelines:
        text["guidelines"] = guidelines
    return text


@functools.cache  # the same for every criterion of every file: rendered once per process (the lint asks on each run)
def prompt_fingerprint() -> str:
    """A hash of the prompts the judge is sent: the system prompts, the reply formats and the templates
    (rendered for placeholder inputs), and the prompt version the verdict cache keys on."""
    from rubric_lsp.engine.judge import PROMPT_VERSION
    from rubric_lsp.formats.autorubric.fields import CriterionValues, OptionValues
    from rubric_lsp.formats.autorubric.grading import prompt

    sample = CriterionValues(requirement="{requirement}", weight=-1.0)
    options = [OptionValues(label="{option}", value=0.0), OptionValues(label="{na}", value=0.0, na=True)]
    parts = [
        PROMPT_VERSION,
        prompt.BINARY_FORMAT,
        prompt.CHOICE_FORMAT,
        prompt.binary_messages(sample, "{response}", "{query}", "{guidelines}"),
        prompt.choice_messages(sample, options, "{response}", "{query}", "{guidelines}"),
    ]
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def units(result: Any, doc: Document, options: Mapping[str, Any]) -> list[UnitSamples]:
    """Each criterion the dataset grading measured (``result``: its DatasetResult), in the file's order."""
    read = AutorubricOptions.of(options)
    settings = {name: getattr(read, name) for name in VERDICT_OPTIONS}
    guidelines = _guidelines_by_criterion(doc)
    prompt = prompt_fingerprint()
    reasons = {row["index"]: row["reasons"] for row in result.items}
    truths = {row["index"]: row["ground_truth"] for row in result.items}
    marks = item_marks(doc)
    out = []
    for agreement in result.criteria:
        source = agreement.criterion
        criterion = source.criterion
        if agreement.kind == "binary":
            categories: tuple[Any, ...] = BINARY_CATEGORIES
            names: dict[Any, str] = {c: c for c in (*BINARY_CATEGORIES, "CANNOT_ASSESS")}
        else:
            categories = tuple(i for i in range(len(agreement.labels)) if i not in agreement.abstain)
            names = dict(enumerate(agreement.labels))
        out.append(
            UnitSamples(
                id=agreement.name,
                title=criterion.requirement,
                kind=agreement.kind,
                text=unit_text(criterion, guidelines.get(_key(source))),
                prompt=prompt,
                settings=settings,
                categories=categories,
                names=names,
                positive="MET" if agreement.kind == "binary" else None,
                pairs=list(agreement.pairs),
                abstained={
                    "both": agreement.abstained_both,
                    "judge_only": agreement.abstained_judge_only,
                    "truth_only": agreement.abstained_truth_only,
                },
                failed=agreement.failed,
                judged={item: category for item, (category, _slot) in agreement.judged.items()},
                reasons={
                    item: str(reasons[item][slot] or "")
                    for item, (_category, slot) in agreement.judged.items()
                    if item in reasons and slot < len(reasons[item])
                },
                labelled={
                    item: _labelled(agreement, marks[item], truths[item][slot])
                    for item, (_category, slot) in agreement.judged.items()
                    if item in marks and isinstance(truths.get(item), list) and slot < len(truths[item])
                },
            )
        )
    return out


def _labelled(agreement: Any, item: str, wanted: Any) -> Labelled:
    return Labelled(item, evidence.label_mark(wanted), _category(agreement, wanted))


def _category(agreement: Any, label: Any) -> Any:
    """A label's category as the dataset grading read it (``agreement._category``): a binary verdict, or the
    option's position among the effective options (matched as autorubric matches labels); None for neither."""
    if not isinstance(label, str):
        return None
    if agreement.kind == "binary":
        return label if label in (*BINARY_CATEGORIES, "CANNOT_ASSESS") else None
    wanted = label.strip().lower()
    return next((i for i, name in enumerate(agreement.labels) if str(name).strip().lower() == wanted), None)


def _truth(item: Node) -> list[Any] | None:
    """An item's ground truth as autorubric reads it (``agreement._truth``: an object's keys, a string's characters)."""
    node = item.get("ground_truth")
    read = ground_truth_entries(node) if node is not None and node.value is not None else None
    return None if read is None else [value for _node, value in read]


def _item_mark(item: Node, prompt: Any) -> str:
    """What the judge reads of a dataset item besides its criteria: its submission and its question."""
    own = item.get("prompt")
    return evidence.item_mark({"submission": to_plain(item.get("submission")), "prompt": to_plain(own) or prompt})


def _items(doc: Document) -> tuple[list[Node], Any]:
    root = doc.root
    items = root.get("items") if root is not None and root.is_map else None
    prompt = to_plain(root.get("prompt")) if root is not None and root.is_map else None
    return (list(items.value) if items is not None and items.is_seq else []), prompt


def item_marks(doc: Document) -> dict[int, str]:
    """Each item's mark (``evidence.item_mark``), by its position in the dataset's items."""
    items, prompt = _items(doc)
    return {position: _item_mark(item, prompt) for position, item in enumerate(items) if item.is_map}


def dataset_labels(doc: Document) -> dict[str, dict[str, str]]:
    """The labels the dataset holds now (``CalibrationHook.labelled``): per criterion (pooled as the grading
    pools them, named by the first), each item's label marks, as a record's evidence holds them."""
    items, prompt = _items(doc)
    root = doc.root
    try:
        shared, _ = criteria_of(doc, root.get("rubric") if root is not None and root.is_map else None)
    except Exception:  # an invalid rubric: the grading refuses it, so no label of it is measured
        return {}
    names: dict[Any, str] = {}
    found: dict[str, dict[str, list[str]]] = {}
    for criterion in shared:
        names.setdefault(identity(criterion), criterion.name)
    for item in items:
        if not item.is_map:
            continue
        own = item.get("rubric")
        try:
            criteria = (
                criteria_of(doc, own)[0] if own is not None and not (own.is_scalar and own.value is None) else shared
            )
        except Exception:
            continue
        truth = _truth(item)
        if not isinstance(truth, list):
            continue
        mark = _item_mark(item, prompt)
        for criterion, wanted in zip(criteria, truth):
            name = names.setdefault(identity(criterion), criterion.name)
            if isinstance(wanted, str):
                found.setdefault(name, {}).setdefault(mark, []).append(evidence.label_mark(wanted))
    return {name: {item: "+".join(sorted(labels)) for item, labels in marks.items()} for name, marks in found.items()}


def _guidelines_by_criterion(doc: Document) -> dict[Any, str | None]:
    """Each criterion's rubric guidelines, the first rubric (shared, then each item's own) holding it."""
    found: dict[Any, str | None] = {}
    for criterion, guidelines in _criteria(doc):
        found.setdefault(_key(criterion), guidelines)
    return found


def _key(source: Any) -> Any:

    return identity(source)


def rubric_units(doc: Document, options: Mapping[str, Any]) -> list[CurrentUnit]:
    """A rubric's criteria as they are now (``rubric grade --require-calibrated``, the judge card)."""
    inputs, guidelines = criterion_inputs(doc)
    return [_current(item, guidelines, options) for item in inputs]


def dataset_units(doc: Document, options: Mapping[str, Any]) -> list[CurrentUnit]:
    """A dataset's criteria as they are now, pooled as its grading pools them (``dataset_rubrics.identity``)."""
    found: dict[Any, CurrentUnit] = {}
    for criterion, guidelines in _criteria(doc):  # the first rubric holding a criterion gives its guidelines
        if identity(criterion) not in found:
            found[identity(criterion)] = _current(criterion, guidelines, options)
    return list(found.values())


def _criteria(doc: Document) -> list[tuple[Any, str | None]]:
    root = doc.root
    rubrics = [root.get("rubric")] if root is not None and root.is_map else []
    items = root.get("items") if root is not None and root.is_map else None
    if items is not None and items.is_seq:
        rubrics += [item.get("rubric") for item in items.value if item.is_map]
    out: list[tuple[Any, str | None]] = []
    for node in rubrics:
        if node is None or (node.is_scalar and node.value is None):
            continue
        criteria, guidelines = criteria_of(doc, node)
        out.extend((criterion, guidelines) for criterion in criteria)
    return out


def _current(item: Any, guidelines: str | None, options: Mapping[str, Any]) -> CurrentUnit:
    read = AutorubricOptions.of(options)
    return CurrentUnit(
        id=item.name,
        title=item.criterion.requirement,
        text=unit_text(item.criterion, guidelines),
        prompt=prompt_fingerprint(),
        settings={name: getattr(read, name) for name in VERDICT_OPTIONS},
        binary=item.criterion.options is None,
    )


def judge_card(doc: Document, options: Mapping[str, Any], units: list[CurrentUnit]) -> list[tuple[str, str]]:
    """The format's part of the judge card (``rubric grade``'s reports): its scale, how an abstention and a
    tie are handled, and how several judges' votes combine, in autorubric's words."""
    read = AutorubricOptions.of(options)
    binary = sum(u.binary for u in units)
    scales = [f"MET / UNMET ({binary} criteria)"] if binary else []
    for scale in sorted({u.text.get("scale") or "ordinal" for u in units if not u.binary}):
        count = sum(1 for u in units if not u.binary and (u.text.get("scale") or "ordinal") == scale)
        scales.append(f"{scale} options ({count} criteria)")
    counted = read.cannot_assess + (f" (credit {read.partial_credit:g})" if read.cannot_assess == "partial" else "")
    return [
        ("scale", "; ".join(scales) or "no criteria"),
        (
            "abstention",
            f"CANNOT_ASSESS or an option marked na; in the score: {counted}; "
            "left out of agreement with labels (autorubric's compute_metrics default)",
        ),
        (
            "ties",
            "several judges: a binary tie takes the worst case for the criterion's sign; "
            "a multi-choice near-tie the worst option",
        ),
        (
            "aggregation",
            f"several judges' binary votes: {read.aggregation}; multi-choice: each criterion's own "
            "(ordinal mean, nominal mode unless written)",
        ),
        ("option order", "shuffled, seeded" if read.shuffle_options else "as authored"),
    ]


def document_units(doc: Document, view: Any) -> list[CalibrationUnit]:
    """Each criterion of a rubric or a dataset (shared rubric, then the items'
    own, pooled as the dataset grading pools them), with the text the judge reads of it and where it is.
    Criteria autorubric would refuse are left out: other rules report them, and no judge reads them."""
    root = doc.root
    if root is None:
        return []
    if view is not None:  # a rubric file: the view its checkers built
        rubrics = [view]
    else:
        nodes = [root.get("rubric")] if root.is_map else []
        items = root.get("items") if root.is_map else None
        if items is not None and items.is_seq:
            nodes += [item.get("rubric") for item in items.value if item.is_map]
        rubrics = [
            read_rubric(node) for node in nodes if node is not None and not (node.is_scalar and node.value is None)
        ]
    prompt = prompt_fingerprint()
    out: dict[Any, CalibrationUnit] = {}
    for rubric in rubrics:
        for entry in rubric.entries:
            criterion = entry.criterion
            if criterion is None:
                continue
            key = identity(CriterionKey(entry.label, criterion))
            if key in out:
                continue
            node = entry.node
            where = next(
                (node.get(k) for k in ("name", "requirement") if node.is_map and node.get(k) is not None), node
            )
            out[key] = CalibrationUnit(
                entry.label, unit_text(criterion, rubric.guidelines), prompt, where.span, extent=node.span
            )
    return list(out.values())


@dataclass(frozen=True)
class CriterionKey:
    """What ``identity`` reads of a criterion: its name and the criterion."""

    name: str
    criterion: Any


class _Calibration:
    """``Format.calibration`` of a rubric (``dataset=False``) or a dataset: a unit is a criterion."""

    def __init__(self, dataset: bool):
        self.dataset = dataset

    def document_units(self, doc: Document, view: Any) -> list[CalibrationUnit]:
        return document_units(doc, view)

    def current_units(self, doc: Document, graded: Graded) -> list[CurrentUnit]:
        return (dataset_units if self.dataset else rubric_units)(doc, graded.options)

    def judge_card(self, doc: Document, graded: Graded, units: list[CurrentUnit]) -> list[tuple[str, str]]:
        return judge_card(doc, graded.options, units)

    def labelled(self, doc: Document) -> dict[str, dict[str, str]]:
        """A dataset's labels now, per criterion; a rubric holds none (its records come from datasets)."""
        return dataset_labels(doc) if self.dataset else {}


# What the formats' ``calibration`` name (annotated: mypy checks them against the protocol).
RUBRIC_CALIBRATION: CalibrationHook = _Calibration(dataset=False)
DATASET_CALIBRATION: CalibrationHook = _Calibration(dataset=True)
