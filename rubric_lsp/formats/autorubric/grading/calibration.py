"""An autorubric dataset's measured criteria as calibration units (``rubric calibrate``, docs/calibration.md).

A unit is a criterion, pooled across the items whose rubrics hold it (``dataset_rubrics.identity``). Its text
(what makes a record stale) is what the judge reads of it: the requirement, whether it describes a flaw
(a negative weight adds a line to the prompt), the options' labels and which abstain, the scale and the
per-criterion aggregation, and the rubric's guidelines. A weight's size or an option's value changes the
score, never a verdict, so it does not make a record stale.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from rubric_lsp.calibration.units import UnitSamples
from rubric_lsp.document import Document
from rubric_lsp.formats.autorubric.grading.dataset_rubrics import criteria_of, identity

BINARY_CATEGORIES = ("MET", "UNMET")
# The grading options that change a verdict (options.py): the others change the score only.
VERDICT_OPTIONS = ("shuffle_options", "aggregation")


def unit_text(criterion: Any, guidelines: str | None) -> dict[str, Any]:
    """What the judge reads of one criterion (``criterion``: the format's Criterion model)."""
    from rubric_lsp.formats.autorubric.grading.prompt import effective_options

    text: dict[str, Any] = {"requirement": criterion.requirement, "flaw": criterion.weight < 0}
    if criterion.options is not None:
        text["options"] = [{"label": str(o.label), "na": bool(o.na)} for o in effective_options(criterion)]
        text["scale"] = criterion.scale_type
        text["aggregation"] = criterion.aggregation
    if guidelines:
        text["guidelines"] = guidelines
    return text


def prompt_fingerprint() -> str:
    """A hash of the prompts the judge is sent: the system prompts, the reply formats and the templates
    (rendered for placeholder inputs), and the prompt version the verdict cache keys on."""
    from rubric_lsp.engine.judge import PROMPT_VERSION
    from rubric_lsp.formats.autorubric.grading import prompt
    from rubric_lsp.formats.autorubric.model import Criterion, CriterionOption

    sample = Criterion(requirement="{requirement}", weight=-1)
    options = [CriterionOption(label="{option}", value=0), CriterionOption(label="{na}", value=0, na=True)]
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
    from rubric_lsp.formats.autorubric.options import AutorubricOptions

    read = AutorubricOptions.of(options)
    settings = {name: getattr(read, name) for name in VERDICT_OPTIONS}
    guidelines = _guidelines_by_criterion(doc)
    prompt = prompt_fingerprint()
    reasons = {row["index"]: row["reasons"] for row in result.items}
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
            )
        )
    return out


def _guidelines_by_criterion(doc: Document) -> dict[Any, str | None]:
    """Each criterion's rubric guidelines, the first rubric (shared, then each item's own) holding it."""

    root = doc.root
    rubrics = [root.get("rubric")] if root is not None and root.is_map else []
    items = root.get("items") if root is not None and root.is_map else None
    if items is not None and items.is_seq:
        rubrics += [item.get("rubric") for item in items.value if item.is_map]
    found: dict[Any, str | None] = {}
    for node in rubrics:
        if node is None or (node.is_scalar and node.value is None):
            continue
        criteria, guidelines = criteria_of(doc, node)
        for criterion in criteria:
            found.setdefault(_key(criterion), guidelines)
    return found


def _key(source: Any) -> Any:

    return identity(source)
