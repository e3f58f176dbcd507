"""The labelled smells corpus (../shared/corpus/smells, read in place) and the figures the smell rules reach on it.

GUIDE.md's smell names map to the rules' names below. A criterion's ``Reading`` is built from what the corpus
records of it: its text, its options' labels (autorubric), whether it is a penalty (a negative weight) and
its assertion type (a factuality value is content; select-best picks among responses). The held-out check
inside the shared half splits by source repository (every criterion of a repository on one side).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from rubric_lsp.rules.smells.detect import DETECTORS, smells
from rubric_lsp.rules.smells.reading import Reading
from rubric_lsp.rules.smells.rubric import lacks_penalties, overlaps

LABEL_OF = {
    "double-barreled": "double_barreled",
    "vague-wording": "vague_wording",
    "hedging-language": "hedging_language",
    "verbosity-rewarding": "verbosity_rewarding",
    "counting-dependent": "counting_dependent",
    "unfalsifiable": "unfalsifiable",
    "circular-criterion": "circular",
    "poorly-anchored-scale": "poorly_anchored_ordinal",
    "needs-external-knowledge": "needs_external_knowledge",
}


def corpus_dir(corpus: Path) -> Path:
    """The labelled smells under the shared corpus folder."""
    return corpus / "smells"


def load(folder: Path, name: str) -> list[dict]:
    with (folder / name).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def reading(row: dict) -> Reading:
    meta = row.get("meta") or {}
    weight = meta.get("weight")
    kind = meta.get("assert_type", "")
    return Reading(
        row["text"],
        tuple(str(o.get("label", "")) for o in row.get("options") or ()),
        penalty=(isinstance(weight, (int, float)) and weight < 0) or kind.startswith("not-"),
        scope="content" if kind.endswith("factuality") else "instruction",
        choice=kind.endswith("select-best"),
    )


@dataclass
class Figures:
    fired: int = 0
    right: int = 0  # fired and labelled TRUE
    positives: int = 0
    wrong: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float | None:
        return self.right / self.fired if self.fired else None

    @property
    def recall(self) -> float | None:
        return self.right / self.positives if self.positives else None


def held_out(repo: str) -> bool:
    """The repositories kept aside inside the shared half (about a third, chosen by a hash of the name)."""
    return int(hashlib.sha256(repo.encode()).hexdigest(), 16) % 3 == 0


def criterion_figures(rows: Iterable[dict]) -> dict[str, Figures]:
    out = {name: Figures() for name in DETECTORS}
    for row in rows:
        found = {hit.smell for hit in smells(reading(row))}
        for name, figures in out.items():
            truth = bool(row["labels"][LABEL_OF[name]])
            figures.positives += truth
            if name in found:
                figures.fired += 1
                figures.right += truth
                if not truth:
                    figures.wrong.append(row["id"])
            elif truth:
                figures.missed.append(row["id"])
    return out


def rubric_figures(criteria: list[dict], rubrics: list[dict], pairs: list[dict]) -> dict[str, Figures]:
    by_id = {row["id"]: row for row in criteria}
    labelled = {(p["a"], p["b"]): bool(p["label"]) for p in pairs}
    overlap, penalties = Figures(), Figures()
    for rubric in rubrics:
        ids = [i for i in rubric["criterion_ids"] if i in by_id]
        rows = [by_id[i] for i in ids]
        texts = [r["text"] for r in rows]
        penalised = [reading(r).penalty for r in rows]
        found = {(ids[o.first], ids[o.second]) for o in overlaps(texts, penalised)}
        for x in range(len(ids)):
            for y in range(x + 1, len(ids)):
                pair = (ids[x], ids[y])
                truth = labelled.get(pair, labelled.get((ids[y], ids[x]), False))
                overlap.positives += truth
                if pair in found:
                    overlap.fired += 1
                    overlap.right += truth
                    if not truth:
                        overlap.wrong.append("/".join(pair))
                elif truth:
                    overlap.missed.append("/".join(pair))
        if "no_negative_criteria" in rubric:
            truth = bool(rubric["no_negative_criteria"])
            penalties.positives += truth
            if lacks_penalties(penalised):
                penalties.fired += 1
                penalties.right += truth
                if not truth:
                    penalties.wrong.append(rubric["rubric_id"])
            elif truth:
                penalties.missed.append(rubric["rubric_id"])
    return {"overlapping-criteria": overlap, "no-penalties": penalties}


def table(figures: dict[str, Figures]) -> str:
    def fmt(value: float | None) -> str:
        return "—" if value is None else f"{value:.2f}"

    lines = ["| rule | fired | right | labelled TRUE | precision | recall |", "|---|---|---|---|---|---|"]
    for name, f in figures.items():
        lines.append(f"| {name} | {f.fired} | {f.right} | {f.positives} | {fmt(f.precision)} | {fmt(f.recall)} |")
    return "\n".join(lines)
