"""The smell rules measured on the hand-labelled criteria of ../shared/corpus/smells (read in place).

Precision is what each rule must keep (≥ 0.8 on the criteria it fires on, for every rule on by default);
recall matters for the three common smells (≥ 0.5 for double-barreled, vague-wording and
poorly-anchored-scale). The figures are printed per rule (``pytest -s``) for the whole shared half and for a
held-out third of its repositories, so that a rule tuned on some sources is seen to carry over to the others.
A rule off by default (RL310, overlapping-criteria) is measured and printed, not held to the floor.
"""

from __future__ import annotations

import pytest

from tests.conftest import CORPUS
from tests.smells_corpus import (
    LABEL_OF,
    corpus_dir,
    criterion_figures,
    held_out,
    load,
    rubric_figures,
    table,
)

FOLDER = corpus_dir(CORPUS)
pytestmark = pytest.mark.skipif(
    not (FOLDER / "criteria.jsonl").is_file(), reason=f"the labelled smells corpus is not at {FOLDER}"
)

PRECISION = 0.8
RECALL = {"double-barreled": 0.5, "vague-wording": 0.5, "poorly-anchored-scale": 0.5}
OFF_BY_DEFAULT = {"overlapping-criteria"}


@pytest.fixture(scope="module")
def criteria() -> list[dict]:
    return load(FOLDER, "criteria.jsonl")


@pytest.fixture(scope="module")
def figures(criteria):
    found = criterion_figures(criteria)
    found.update(rubric_figures(criteria, load(FOLDER, "rubrics.jsonl"), load(FOLDER, "pairs.jsonl")))
    print(f"\nshared half ({len(criteria)} criteria):\n{table(found)}")
    return found


def test_every_smell_of_the_guide_has_a_rule(criteria):
    assert set(LABEL_OF.values()) == set(criteria[0]["labels"])


@pytest.mark.parametrize("name", [n for n in [*LABEL_OF, "no-penalties", "overlapping-criteria"]])
def test_precision_on_the_criteria_a_rule_fires_on(figures, name):
    found = figures[name]
    assert found.fired, f"{name} fires on no labelled criterion"
    if name in OFF_BY_DEFAULT:
        assert found.precision is not None and found.precision < PRECISION, (
            f"{name} reaches {found.precision:.2f}: it may be on by default now (docs/smells.md, rules.py)"
        )
        return
    assert found.precision >= PRECISION, f"{name}: {found.precision:.2f}, wrongly flagged: {found.wrong}"


@pytest.mark.parametrize("name", sorted(RECALL))
def test_recall_of_the_common_smells(figures, name):
    found = figures[name]
    assert found.recall is not None and found.recall >= RECALL[name], f"{name}: missed {found.missed}"


def test_held_out_repositories_keep_the_precision(criteria):
    """Every repository lands on one side of the split, so a rule shaped on one source's wording cannot look
    good on the other side for it."""
    aside = [row for row in criteria if held_out(row["source"]["repo"])]
    rest = [row for row in criteria if not held_out(row["source"]["repo"])]
    assert aside and rest
    found = criterion_figures(aside)
    print(f"\nheld-out repositories ({len(aside)} criteria):\n{table(found)}")
    print(f"the other repositories ({len(rest)} criteria):\n{table(criterion_figures(rest))}")
    for name, figures in found.items():
        if figures.fired >= 3:
            assert figures.precision >= PRECISION, f"{name} on held-out repositories: wrongly flagged {figures.wrong}"
