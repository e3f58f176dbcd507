"""A labels file is read against the labelled set's items in time linear in its rows: each row finds its item
by lookup (labelling/table.py's RowIndex), not by trying every item (``rubric calibrate`` on 5,000 rows over
1,000 outputs spent ~45 s there; a million rows would not have finished). Counted in Python calls, which no
machine's speed or load moves."""

from __future__ import annotations

import random
import sys
from pathlib import Path

from rubric_lsp.calibration import evidence, record
from rubric_lsp.labelling import people
from rubric_lsp.labelling.table import Row, RowIndex, matches
from tests.helpers import python_calls

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
from bench_calibrate_io import CONFIG  # noqa: E402  (bench/: the config its million-row figure labels)


def _people_agreement_calls(tmp_path: Path, rows: int, outputs: int) -> int:
    folder = tmp_path / f"{rows}-{outputs}"
    folder.mkdir()
    config = folder / "promptfooconfig.yaml"
    config.write_text(CONFIG)
    rng = random.Random(rows)
    lines = ["test,assertion,output,verdict,labeller"]
    for n in range(rows):
        lines.append(f"1,polite,o{rng.randrange(outputs)},{rng.choice(['pass', 'fail'])},{'ab'[n % 2]}")
    labels = folder / "labels.csv"
    labels.write_text("\n".join(lines) + "\n")
    found: dict = {}
    calls = python_calls(lambda: found.update(people.agreement(labels, config)))
    assert found, "two people labelled the same outputs: their agreement is measured"
    return calls


def test_reading_labels_grows_with_the_rows_not_rows_times_items(tmp_path):
    small = _people_agreement_calls(tmp_path, 400, 100)
    large = _people_agreement_calls(tmp_path, 1600, 400)  # 4x the rows and 4x the items
    assert large / small < 6, (small, large)  # linear: ~4x; a row tried against every item: ~16x


def test_the_index_answers_what_trying_each_candidate_in_turn_answers():
    rng = random.Random(36)
    names = ["test", "assertion", "output", "grader"]
    candidates = []
    for n in range(300):
        chosen = rng.sample(names, rng.randint(0, 3))
        candidates.append(({name: rng.choice(["1", " 1", "2", "o", "o "]) for name in chosen}, n))
    index: RowIndex[int] = RowIndex()
    for wanted, answer in candidates:
        index.add(wanted, answer)
    for _ in range(2000):
        fields = {name: rng.choice(["1", "2", "o", " o", ""]) for name in rng.sample(names, rng.randint(0, 4))}
        row = Row(fields, 0, 0, 1)
        expected = next((answer for wanted, answer in candidates if matches(row, wanted)), None)
        assert index.first(row) == expected, fields


def _people_agreement_peak(tmp_path: Path, rows: int) -> int:
    import tracemalloc

    folder = tmp_path / f"peak-{rows}"
    folder.mkdir()
    config = folder / "promptfooconfig.yaml"
    config.write_text(CONFIG)
    lines = ["test,assertion,output,verdict,labeller"]
    lines += [f"1,polite,o{n % 200},{'pass' if n % 3 else 'fail'},{'ab'[n // 200 % 2]}" for n in range(rows)]
    labels = folder / "labels.csv"
    labels.write_text("\n".join(lines) + "\n")
    people.agreement(labels, config)  # imports and caches outside the measure
    tracemalloc.start()
    try:
        found = people.agreement(labels, config)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found
    return peak


def test_people_agreement_holds_no_row_of_a_labels_file_it_has_read(tmp_path):
    """The rows are read one at a time and folded into who said what per item: the memory grows with the
    file's text, not with a row object and a label object per row (a million rows held ~0.9 GB)."""
    small, large = _people_agreement_peak(tmp_path, 5_000), _people_agreement_peak(tmp_path, 40_000)
    assert large - small < 40 * (40_000 - 5_000), (small, large)  # < 40 bytes a row more: the text's ~30


def test_a_remembered_mark_is_the_mark_of_the_value_and_of_no_other():
    """Marks of strings are remembered (a labels file repeats its outputs and labels): each must stay
    ``record.fingerprint``'s, and values Python finds equal but JSON does not (1 and True) never share one."""
    values = [
        {"output": "o1", "query": None},
        {"query": None, "output": "o1"},
        {"output": "o1", "query": ""},
        {"output": 1, "query": None},
        {"output": True, "query": None},
        {"output": 1.0},
        ["verdict", "pass"],
        ("verdict", "pass"),
        ["score", 1],
        ["score", True],
        ["é", "\u2028", None],
        {"a": {"b": "c"}},
        {},
        [],
        {1: "x"},
        "plain",
    ]
    for value in values * 2:  # the second time from what was remembered
        assert evidence.item_mark(value) == record.fingerprint(value)[: evidence.ITEM_DIGITS], value
        assert evidence.label_mark(value) == record.fingerprint(value)[: evidence.LABEL_DIGITS], value
    assert evidence.label_mark(["score", 1]) != evidence.label_mark(["score", True])


def test_a_labels_file_s_repeated_rows_are_marked_once(monkeypatch):
    fingerprinted: list[object] = []
    real = record.fingerprint
    monkeypatch.setattr(record, "fingerprint", lambda value: fingerprinted.append(value) or real(value))
    evidence._remembered.cache_clear()
    rng = random.Random(7)
    for _ in range(2000):
        output = f"o{rng.randrange(50)}"
        evidence.item_mark({"output": output, "query": None})
        evidence.label_mark(("verdict", rng.choice(["pass", "fail"])))
        evidence.row_key({"test": "1", "assertion": "1", "output": output, "verdict": "pass"})
    assert len(fingerprinted) <= 50 + 2 + 1, len(fingerprinted)  # one per distinct output, label and key
