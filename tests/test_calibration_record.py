"""calibration/record.py: the record round-trips, is the same bytes on a re-run, refuses damaged files
with one clear line, and names what made a unit stale."""

from __future__ import annotations

import json
import os

import pytest

from rubric_lsp.calibration import record
from rubric_lsp.calibration.units import UnitSamples, figures

JUDGE = record.JudgeDescription(("openai/gpt-4.1-mini",), "", {"temperature": 0.0, "shuffle_options": True})
TEXT = {"requirement": "Gives the right answer", "flaw": False}


def sample_record(judge: record.JudgeDescription = JUDGE, date: str = "2026-11-26") -> dict:
    unit = UnitSamples(
        id="correct",
        title="Gives the right answer",
        kind="binary",
        text=TEXT,
        prompt="p1",
        categories=("MET", "UNMET"),
        names={"MET": "MET", "UNMET": "UNMET"},
        positive="MET",
        pairs=[("MET", "MET")] * 7 + [("MET", "UNMET")] * 2 + [("UNMET", "UNMET")] * 3 + [("UNMET", "MET")],
        abstained={"both": 0, "judge_only": 1, "truth_only": 0},
    )
    entry = {"id": unit.id, "title": unit.title, "kind": unit.kind, "text": unit.text, "prompt": unit.prompt}
    return record.build(
        tool_version="0.1.0", date=date, source="set.json", judge=judge, units=[{**entry, "figures": figures(unit)}]
    )


def test_round_trip_and_stable_bytes(tmp_path):
    path = tmp_path / "set.json.calibration.json"
    record.write(path, sample_record())
    first = path.read_bytes()
    record.write(path, sample_record())
    assert path.read_bytes() == first  # the same figures, the same bytes
    back = record.read(path)
    assert back == json.loads(record.dumps(sample_record()))
    assert record.dumps(back) == first.decode("utf-8")  # reading and writing again changes nothing
    assert first.endswith(b"\n") and b"NaN" not in first
    text = first.decode("utf-8")
    assert list(json.loads(text)) == sorted(json.loads(text))  # keys sorted
    accuracy = back["units"][0]["figures"]["accuracy"]
    assert accuracy["value"] == round(10 / 13, 4) and accuracy["n"] == 13
    assert not list(tmp_path.glob(".*tmp"))  # written whole, through a renamed temporary file


def test_a_new_date_alone_is_no_change():
    assert record.same_but_date(sample_record(date="2026-11-26"), sample_record(date="2026-12-24"))
    other = record.JudgeDescription(("openai/gpt-5",), "", JUDGE.settings)
    assert not record.same_but_date(sample_record(), sample_record(judge=other))


def test_record_path_is_beside_the_file(tmp_path):
    assert record.record_path(tmp_path / "a.dataset.json") == tmp_path / "a.dataset.json.calibration.json"


DAMAGED = {
    "not JSON": b"{units: []",
    "not UTF-8": b'{"calibration": 1, "x": "\xff"}',
    "NaN": b'{"calibration": NaN}',
    "a list": b"[1, 2]",
    "nested too deeply": b"[" * 100_000 + b"]" * 100_000,
    "another version": b'{"calibration": 99, "judge": {"models": []}, "units": []}',
    "no units": b'{"calibration": 1, "judge": {"models": []}}',
    "a unit without an id": b'{"calibration": 1, "judge": {"models": []}, "units": [{"fingerprints": {}}]}',
    "no fingerprints": b'{"calibration": 1, "judge": {"models": []}, "units": [{"id": "a", "fingerprints": {"text": 1}}]}',
}


@pytest.mark.parametrize("name", DAMAGED)
def test_a_damaged_record_is_one_clear_error(tmp_path, name):
    path = tmp_path / "x.calibration.json"
    path.write_bytes(DAMAGED[name])
    with pytest.raises(record.RecordError) as raised:
        record.read(path)
    message = str(raised.value)
    assert message.startswith(str(path)) and "\n" not in message and len(message) < 400


def test_a_record_too_large_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    monkeypatch.setattr(record, "MAX_RECORD_BYTES", 1000)
    path = tmp_path / "x.calibration.json"
    path.write_text(json.dumps({"pad": "x" * 2000}))
    with pytest.raises(record.RecordError, match="not a calibration record"):
        record.read(path)
    with pytest.raises(record.RecordError, match="cannot read"):
        record.read(tmp_path / "missing.calibration.json")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_or_a_folder_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "fifo.calibration.json"
    os.mkfifo(fifo)
    for path in (fifo, tmp_path):
        with pytest.raises(record.RecordError, match="not a regular file"):
            record.read(path)


def test_staleness_names_each_cause():
    unit = record.find_unit(sample_record(), "correct")
    judge = record.JudgeDescription(JUDGE.models, "p1", JUDGE.settings)
    assert record.staleness(unit, TEXT, judge) == []
    assert record.staleness(unit, {**TEXT, "requirement": "Gives the correct answer"}, judge) == ["text"]
    assert record.staleness(unit, TEXT, record.JudgeDescription(("openai/gpt-5",), "p1", JUDGE.settings)) == ["judge"]
    assert record.staleness(unit, TEXT, record.JudgeDescription(JUDGE.models, "p2", JUDGE.settings)) == ["prompt"]
    hotter = record.JudgeDescription(JUDGE.models, "p1", {**JUDGE.settings, "temperature": 0.7})
    assert record.staleness(unit, TEXT, hotter) == ["settings"]
    everything = record.JudgeDescription(("x/y",), "p9", {})
    assert record.staleness(unit, {}, everything) == ["text", "judge", "prompt", "settings"]
    assert record.find_unit(sample_record(), "missing") is None
