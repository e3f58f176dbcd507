"""Issue 33, items 1 and 2: a calibration record is bound to its evidence, and one decision (``gate.decide``) says
whether a unit is calibrated, in the same words for RL020 and ``rubric grade --require-calibrated``.

Each defect class of the issue is reproduced on records built from seeded samples: a forged or emptied figure
block is damaged and never corrects a pass rate; flipped, cut or added labels make the unit stale, counted; a
unit with nothing compared, failed calls, ambiguity or a κ whose interval falls below ``min-kappa`` is not
calibrated, and the lint and the gate say so alike."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from rubric_lsp.calibration import check, evidence, gate, record, status
from rubric_lsp.calibration.measure import build_record
from rubric_lsp.calibration.units import CurrentUnit, Labelled, UnitSamples
from rubric_lsp.document.positions import Span

JUDGE = record.JudgeDescription(("openai/judge",), "", {"temperature": 0.0, "max_tokens": None})
TEXT = {"requirement": "Gives the right answer"}
SETTINGS = check.CalibrationSettings()


def samples(seed: int, n: int, agree: float = 0.8, fail_every: int = 0, ask: int = 0) -> UnitSamples:
    """A binary unit over ``n`` seeded items: each label MET or UNMET, the judge agreeing with it at ``agree``."""
    rng = random.Random(seed)
    truths = [rng.choice(("MET", "UNMET")) for _ in range(n)]
    flip = random.Random(seed * 7 + ask)
    judged = {
        i: None
        if fail_every and i % fail_every == 0
        else t
        if flip.random() < agree
        else ("UNMET" if t == "MET" else "MET")
        for i, t in enumerate(truths)
    }
    return UnitSamples(
        id="correct",
        title="Gives the right answer",
        kind="binary",
        text=TEXT,
        prompt="p1",
        categories=("MET", "UNMET"),
        names={"MET": "MET", "UNMET": "UNMET", "CANNOT_ASSESS": "CANNOT_ASSESS"},
        positive="MET",
        pairs=[(truths[i], v) for i, v in judged.items() if v is not None],
        failed=sum(v is None for v in judged.values()),
        judged=judged,
        labelled={
            i: Labelled(evidence.item_mark(f"response {i}"), evidence.label_mark(t), t) for i, t in enumerate(truths)
        },
    )


def labels_of(unit: UnitSamples) -> dict[str, dict[str, str]]:
    """The labelled set now, as a format's ``labelled`` hook says it: exactly the unit's labels."""
    return {unit.id: {seen.item: seen.label for seen in unit.labelled.values()}}


def written(tmp_path: Path, passes: list[list[UnitSamples]], **kwargs) -> tuple[Path, dict]:
    data = build_record(passes, JUDGE, tool_version="0", date="2026-11-20", source="set.json", **kwargs)
    path = tmp_path / "set.json.calibration.json"
    record.write(path, data)
    return path, record.read(path)


def decided(path: Path, data: dict, now, settings: check.CalibrationSettings = SETTINGS) -> tuple[list[str], list[str]]:
    """What RL020 and --require-calibrated say of the record's unit: (the lint's messages, the gate's reasons)."""
    records = check.Records(found=[(path, data)], labelled_now=lambda _source: now)
    unit = check.CalibrationUnit("correct", TEXT, "p1", Span(0, 1))
    lint = check.problems(check.match(unit, records, ("openai/judge",)), settings)
    current = CurrentUnit("correct", "Gives the right answer", TEXT, "p1")
    found = status.statuses([current], records, JUDGE, rules=gate.Rules.of(settings))
    return lint, found[0]["reasons"]


def same_words(lint: list[str], reasons: list[str]) -> None:
    """The lint says each of the gate's reasons, word for word."""
    assert len(lint) == len(reasons)
    for message, reason in zip(lint, reasons):
        assert reason in message


def test_a_fresh_record_is_calibrated_and_its_figures_are_its_evidences(tmp_path):
    unit = samples(1, 40)
    path, data = written(tmp_path, [[unit]])
    entry = data["units"][0]
    assert len(entry["evidence"]["items"]) == 40 and entry["evidence"]["columns"] == [{"ask": 1}]
    assert data["labelled"]["items"] == 40 and len(data["labelled"]["fingerprint"]) == 16
    derived = evidence.figures_of(entry["evidence"], "binary", {})
    assert derived.figures["labels"] == entry["figures"]["labels"] == 40
    assert evidence.mismatch(entry["figures"], derived) is None
    assert decided(path, data, labels_of(unit)) == ([], [])


@pytest.mark.parametrize(
    ("forge", "why"),
    [
        (lambda e: e.update(figures={}), "its labels is nothing where its evidence gives 40"),
        (
            lambda e: e["figures"].update(labels=100_000, kappa={"statistic": "cohen", "value": 1.0, "n": 100_000}),
            "its labels is 100000 where its evidence gives 40",
        ),
        (lambda e: e["figures"]["kappa"].update(value=0.99), "its kappa.value is 0.99 where its evidence gives"),
        (lambda e: e["figures"].update(failed=0) or e["evidence"]["items"].__setitem__(0, "x"), "is not '<item>"),
        (lambda e: e.pop("evidence"), "it holds no evidence of its figures"),
    ],
)
def test_a_forged_or_emptied_figure_block_is_damaged(tmp_path, forge, why):
    unit = samples(2, 40)
    path, data = written(tmp_path, [[unit]])
    forge(data["units"][0])
    lint, reasons = decided(path, data, labels_of(unit))
    assert len(reasons) == 1 and reasons[0].startswith("damaged: ") and why in reasons[0], reasons
    same_words(lint, reasons)
    # and it never corrects a pass rate
    records = check.Records(found=[(path, data)], labelled_now=lambda _source: labels_of(unit))
    found = status.statuses([CurrentUnit("correct", "x", TEXT, "p1")], records, JUDGE)
    rate = status.pass_rates({"correct": (30, 50)}, found)[0]
    assert found[0]["status"] == "damaged" and rate["corrected"] is None and found[0]["figures"] == {}


def test_changed_labels_make_the_unit_stale_naming_how_many(tmp_path):
    unit = samples(3, 12)
    path, data = written(tmp_path, [[unit]])
    now = labels_of(unit)
    flipped = {unit.id: {item: evidence.label_mark("other " + label) for item, label in now[unit.id].items()}}
    lint, reasons = decided(path, data, flipped)
    assert reasons == ["stale: its labels changed since 2026-11-20: 12 of 12 differ (12 relabelled)"]
    same_words(lint, reasons)
    cut = {unit.id: dict(list(now[unit.id].items())[:2])}
    assert decided(path, data, cut)[1] == ["stale: its labels changed since 2026-11-20: 10 of 12 differ (10 gone)"]
    grown = {unit.id: {**now[unit.id], evidence.item_mark("new"): evidence.label_mark("MET")}}
    assert decided(path, data, grown)[1] == ["stale: its labels changed since 2026-11-20: 1 of 12 differ (1 added)"]
    assert decided(path, data, "no such file")[1] == [
        "stale: its labels changed since 2026-11-20: its labelled set set.json cannot be read (no such file)"
    ]
    # a record made with --limit measured the first items only: items after them are no change to it
    path, data = written(tmp_path, [[unit]], limit=12)
    assert decided(path, data, grown) == ([], [])


def test_nothing_compared_is_never_calibrated_and_never_called_one_category(tmp_path):
    unit = samples(4, 6, fail_every=1)  # every call failed: nothing compared
    path, data = written(tmp_path, [[unit]])
    lint, reasons = decided(path, data, labels_of(unit), check.CalibrationSettings(min_kappa=0.6))
    assert reasons == [
        "short of labels: nothing was compared (0 labels), min-labels 1",
        "incomplete: 6 judge call(s) failed while calibrating",
    ]
    assert not any("one category" in message for message in lint)
    same_words(lint, reasons)


def test_failed_asks_of_every_repeat_are_counted_and_refused(tmp_path):
    first = samples(5, 20)
    later = samples(5, 20, fail_every=4, ask=1)  # the second ask fails on 5 items
    path, data = written(tmp_path, [[first], [later]])
    entry = data["units"][0]
    assert entry["figures"]["failed"] == 5 and entry["evidence"]["columns"] == [{"ask": 1}, {"ask": 2}]
    lint, reasons = decided(path, data, labels_of(first), check.CalibrationSettings(allow_ambiguous=True))
    assert reasons == ["incomplete: 5 judge call(s) failed while calibrating"]
    same_words(lint, reasons)


def test_ambiguity_comes_from_the_evidence_and_refuses_unless_allowed(tmp_path):
    first, second = samples(6, 30, agree=0.6), samples(6, 30, agree=0.6, ask=1)
    path, data = written(tmp_path, [[first], [second]], threshold=0.9)
    assert data["units"][0]["self_agreement"]["ambiguous"]
    lint, reasons = decided(path, data, labels_of(first))
    assert len(reasons) == 1 and reasons[0].startswith("ambiguous: the judge agreed with itself on ")
    same_words(lint, reasons)
    assert decided(path, data, labels_of(first), check.CalibrationSettings(allow_ambiguous=True)) == ([], [])
    # a forged flag is not what decides: the evidence is
    forged = copy.deepcopy(data)
    forged["units"][0]["self_agreement"]["ambiguous"] = False
    assert decided(path, forged, labels_of(first))[1] == reasons
    forged["units"][0]["self_agreement"].pop("threshold")
    assert decided(path, forged, labels_of(first))[1][0].startswith("damaged: its evidence holds several asks")


def test_min_kappa_is_met_by_the_lower_bound_and_says_so_with_n(tmp_path):
    perfect = samples(7, 12, agree=1.0)
    path, data = written(tmp_path, [[perfect]])
    kappa = data["units"][0]["figures"]["kappa"]
    assert kappa["value"] == 1.0 and kappa["n"] == 12 and kappa["interval"][0] < 0.9  # 12 labels: never [1, 1]
    lint, reasons = decided(path, data, labels_of(perfect), check.CalibrationSettings(min_kappa=0.9))
    low = kappa["interval"][0]
    assert reasons == [
        f"below min-kappa 0.9: κ 1.00 [{low:.2f}, 1.00] over 12 labels, its lower bound {low:.2f} short of it"
    ]
    same_words(lint, reasons)
    assert decided(path, data, labels_of(perfect), check.CalibrationSettings(min_kappa=round(low - 0.01, 2))) == (
        [],
        [],
    )
    # κ 0.00 (a judge that always says MET) fails the lint and the gate alike
    always = samples(8, 30)
    always.judged = dict.fromkeys(always.judged, "MET")
    path, data = written(tmp_path, [[always]])
    lint, reasons = decided(path, data, labels_of(always), check.CalibrationSettings(min_kappa=0.2))
    assert (
        len(reasons) == 1 and reasons[0].startswith("below min-kappa 0.2: κ 0.00 [") and "over 30 labels" in reasons[0]
    )
    same_words(lint, reasons)


def test_the_refusal_names_the_reasons(tmp_path):
    unit = samples(9, 12)
    path, data = written(tmp_path, [[unit]])
    data["units"][0]["figures"] = {}
    records = check.Records(found=[(path, data)], labelled_now=lambda _source: labels_of(unit))
    found = status.statuses([CurrentUnit("correct", "x", TEXT, "p1")], records, JUDGE)
    why = status.refusal(found, records)
    assert why is not None and why.startswith(
        "--require-calibrated: 1 of 1 unit(s) are not calibrated: correct: damaged: "
    )


@pytest.mark.parametrize("items", [12, 10_000])
def test_what_a_record_keeps_per_unit(tmp_path, items, capsys):
    unit = samples(10, items)
    path, data = written(tmp_path, [[unit]])
    size = len(json.dumps(data["units"][0]["evidence"], indent=2))
    whole = path.stat().st_size
    with capsys.disabled():
        print(f"\n{items} items: the unit's evidence {size / 1024:.1f} KiB, the whole record {whole / 1024:.1f} KiB")
    assert size < 60 * items + 400  # ~40 bytes a labelled item, a single ask
    # the figures computed again from 10,000 lines stay cheap enough for every lint
    assert gate.decide(gate.Found(data, data["units"][0], path), gate.Rules(), lambda _s: labels_of(unit)).calibrated


def test_rows_labelling_one_output_alike_are_one_line_standing_for_them(tmp_path):
    # A labels file labels the same few outputs over many rows: each distinct line is written once with its
    # count, and the figures, the gate and the labels' staleness read the same as from one line per row.
    base = samples(3, 20)
    assert not base.failed and len(base.pairs) == 20
    rows = 20 * 500
    repeated = UnitSamples(
        **{
            **base.__dict__,
            "pairs": base.pairs * 500,
            "judged": {i: base.judged[i % 20] for i in range(rows)},
            "labelled": {i: base.labelled[i % 20] for i in range(rows)},
        }
    )
    path, data = written(tmp_path, [[repeated]])
    unit = data["units"][0]
    assert len(unit["evidence"]["items"]) == 20 and all(line.endswith(" *500") for line in unit["evidence"]["items"])
    assert unit["figures"]["labels"] == rows
    assert evidence.mismatch(unit["figures"], evidence.figures_of(unit["evidence"], "binary", None)) is None
    marks: dict[str, list[str]] = {}
    for seen in repeated.labelled.values():  # the labelled set now: each item's labels, as a labels file gives them
        marks.setdefault(seen.item, []).append(seen.label)
    now = {repeated.id: {item: "+".join(sorted(m)) for item, m in marks.items()}}
    assert gate.decide(gate.Found(data, unit, path), gate.Rules(), lambda _s: now).calibrated


@pytest.mark.parametrize(
    "first,second",
    [("*1", ""), ("*0", ""), ("*x", ""), ("*99999999999", ""), ("*9999999", "*9999999")],
    ids=["one", "zero", "not-a-number", "ten-digits", "past-the-limit"],
)
def test_a_count_that_is_none_or_too_large_is_damaged(tmp_path, first, second):
    _path, data = written(tmp_path, [[samples(3, 4)]])
    items = data["units"][0]["evidence"]["items"]
    items[0] += f" {first}"
    if second:
        items[1] += f" {second}"
    with pytest.raises(evidence.Damaged):
        evidence.rows_of(data["units"][0]["evidence"])
