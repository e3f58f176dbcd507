"""A labelled set of criteria for the review's own calibration (``rubric review --calibrate LABELLED.jsonl``).

One JSON object a line: a criterion and, for each smell a person decided, whether it has it. The smells
corpus's rows are read as they are (``text``, ``options`` with their ``label``s, ``meta.weight`` and
``meta.assert_type``, ``labels`` under the labelling guide's names), so its labels are the review's labels;
a row of our own may say it shortly::

    {"id": "c1", "text": "Is polite and fixes the bug", "levels": [], "penalty": false,
     "labels": {"double-barreled": true, "vague-wording": true}}

A smell a row does not label is left out of that smell's figures for it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rubric_lsp.calibration.labels import LabelsError
from rubric_lsp.document.files import TooLarge, read_regular_text
from rubric_lsp.review.prompt import Criterion
from rubric_lsp.review.questions import BY_SMELL

MAX_LABELS_BYTES = 16 * 1024 * 1024  # a labelled set of criteria is read whole (the limit labels files had)

# The labelling guide's names for the smells (../shared/corpus/smells/GUIDE.md), beside the rules' own.
GUIDE_NAMES = {
    "double_barreled": "double-barreled",
    "vague_wording": "vague-wording",
    "hedging_language": "hedging-language",
    "verbosity_rewarding": "verbosity-rewarding",
    "counting_dependent": "counting-dependent",
    "unfalsifiable": "unfalsifiable",
    "circular": "circular-criterion",
    "poorly_anchored_ordinal": "poorly-anchored-scale",
    "needs_external_knowledge": "needs-external-knowledge",
}


@dataclass(frozen=True)
class LabelledCriterion:
    id: str
    criterion: Criterion
    labels: dict[str, bool] = field(default_factory=dict)  # smell -> whether a person found it
    reference: bool = False  # a reference answer (promptfoo's factuality value): not a criterion, not reviewed


def is_review_labels(path: Path) -> bool:
    return path.suffix.lower() == ".jsonl"


def read_labelled(path: Path) -> list[LabelledCriterion]:
    """Every row of ``path``; LabelsError (naming the line) for one that cannot be used."""
    try:
        text = read_regular_text(path, MAX_LABELS_BYTES)
    except TooLarge:
        raise LabelsError(f"{path}: larger than {MAX_LABELS_BYTES // (1024 * 1024)} MB") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LabelsError(f"cannot read {path}: {exc}") from None
    rows: list[LabelledCriterion] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(line)
        except ValueError as exc:
            raise LabelsError(f"{where}: not a JSON object: {exc}") from None
        rows.append(_row(data, where, len(rows)))
    if not rows:
        raise LabelsError(f"{path}: no labelled criterion")
    return rows


def _row(data: Any, where: str, index: int) -> LabelledCriterion:
    if not isinstance(data, dict) or not isinstance(data.get("text"), str) or not data["text"].strip():
        raise LabelsError(f"{where}: each row needs the criterion's 'text'")
    labels_in = data.get("labels")
    if not isinstance(labels_in, dict):
        raise LabelsError(f"{where}: 'labels' must be an object of smell: true/false")
    labels = {}
    for name, value in labels_in.items():
        smell = GUIDE_NAMES.get(name, name)
        if smell not in BY_SMELL:
            raise LabelsError(f"{where}: '{name}' is no smell the review asks about ({', '.join(BY_SMELL)})")
        if not isinstance(value, bool):
            raise LabelsError(f"{where}: the label of '{name}' must be true or false")
        labels[smell] = value
    meta: dict[str, Any] = data["meta"] if isinstance(data.get("meta"), dict) else {}
    weight, kind = meta.get("weight"), str(meta.get("assert_type") or "")
    levels = data.get("levels")
    if levels is None:
        levels = [o.get("label", "") for o in data.get("options") or () if isinstance(o, dict)]
    if not isinstance(levels, list) or not all(isinstance(level, (str, int, float)) for level in levels):
        raise LabelsError(f"{where}: 'levels' must be a list of the levels' texts")
    penalty = data.get("penalty")
    if penalty is None:
        penalty = (isinstance(weight, (int, float)) and weight < 0) or kind.startswith("not-")
    row_id = str(data.get("id") or f"row {index + 1}")
    criterion = Criterion(
        f"'{row_id}'", data["text"], tuple(str(v) for v in levels), bool(penalty), "select-best" in kind
    )
    return LabelledCriterion(row_id, criterion, labels, reference=kind.endswith("factuality"))
