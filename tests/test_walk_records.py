"""A folder lint decides from a record's name and size that it is a calibration record, before anything reads it
(issue 33, item 8): ten records beside a rubric are never opened (every ``os.open`` is counted), where each was
parsed only to be skipped (ten 7.8 MiB records cost 54 s). A file with a record's name but over a record's size is
no record of ours and is linted as any other file; a record a rubric's lint needs (RL020) is still read.
bench/bench_calibrate_io.py measures the time."""

from __future__ import annotations

import json
import os

from rubric_lsp.calibration import record
from rubric_lsp.cli import lint_main
from rubric_lsp.walk import iter_files

RUBRIC = "criteria:\n  - name: accuracy\n    weight: 5\n    requirement: States the correct final answer\n"


def _record_text(units: int) -> str:
    unit = {"id": "u", "fingerprints": dict.fromkeys(("text", "judge", "prompt", "settings", "all"), "0" * 16)}
    data = {"calibration": 1, "judge": {"models": ["openai/judge"]}, "units": [unit] * units}
    return json.dumps(data, indent=2)


def test_records_are_left_out_unread(tmp_path, monkeypatch, capfd):
    (tmp_path / "a.rubric.yaml").write_text(RUBRIC)
    text = _record_text(2000)  # ~300 KB each: what matters is that none is opened
    records = [tmp_path / f"r{n}.rubric.yaml.calibration.json" for n in range(10)]
    for path in records:
        path.write_text(text)
    at_bound = tmp_path / "sparse.CALIBRATION.JSON"  # a record's size at most, any case
    with at_bound.open("wb") as handle:
        handle.truncate(record.MAX_RECORD_BYTES)
    over = tmp_path / "big.calibration.json"  # no record of ours: linted as any JSON file
    with over.open("wb") as handle:
        handle.truncate(record.MAX_RECORD_BYTES + 1)

    assert sorted(p.name for p in iter_files(tmp_path)) == ["a.rubric.yaml", "big.calibration.json"]

    opened: list[str] = []
    real_open = os.open

    def counting_open(path, *args, **kwargs):
        opened.append(os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", counting_open)
    code = lint_main(["--format", "json", str(tmp_path)])
    monkeypatch.undo()
    found = json.loads(capfd.readouterr().out)
    assert code == 0 and not [d for d in found if d["code"] in ("RL008", "RL900")]
    names = {os.path.basename(p) for p in opened}
    assert "a.rubric.yaml" in names and "big.calibration.json" in names  # the counter sees what is read
    assert not names & {p.name for p in [*records, at_bound]}


def test_a_record_a_rubric_needs_is_still_read(tmp_path, capfd):
    (tmp_path / "a.rubric.yaml").write_text(RUBRIC)
    (tmp_path / "a.rubric.yaml.calibration.json").write_text("{not json")
    (tmp_path / "rubric-lint.toml").write_text("calibration = { required = true }\n")
    assert lint_main(["--format", "json", str(tmp_path)]) == 1
    found = json.loads(capfd.readouterr().out)
    assert any(d["code"] == "RL020" and "not a calibration record" in d["message"] for d in found)
    assert {d["path"] for d in found} == {str(tmp_path / "a.rubric.yaml")}  # the record itself is no lint subject
