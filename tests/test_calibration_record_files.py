"""Record files written as carefully as SQLite writes its own (issue 33, item 6).

- ``rubric calibrate -o`` refuses, before any judge call, the labelled file itself, a labels file's config, an
  existing file that is not a calibration record, a folder and a device node; each is left as it was.
- A record is written through a symlink (the link stays a link, its target gets the record); to a temporary file
  no other writer names, renamed over the old one; one writer at a time (the folder's lock).
- Two writers and a reader, each a process of its own, bounded: every read is a whole record, no write fails.
- A number outside a float's range (``1`` and 400 zeros, ``1e400``), NaN and Infinity make a record one line of
  error for the lint (RL020, not RL900) and for ``rubric grade``, never an OverflowError.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from rubric_lsp.calibration import record, record_file
from rubric_lsp.cli import lint_main, main
from tests.calibration import LABELS_REQUEST, dataset, labels_judge, reply_for
from tests.conftest import use_judge


@pytest.fixture
def labelled(judge_server, tmp_path, monkeypatch):
    use_judge(monkeypatch, judge_server, "sk-test-record-files", tmp_path / "cache")
    judge_server.handler = lambda request: reply_for(request.text)
    path = tmp_path / "maths.dataset.json"
    path.write_text(json.dumps(dataset(6, "maths"), indent=2))
    return path


def run(capfd, *argv):
    code = main(list(argv))
    out, err = capfd.readouterr()
    return code, out, err


def _sample(marker: int = 0, units: int = 1) -> dict:
    """A record (``units`` of them: a large one takes long enough to write that writers overlap)."""
    entry = {"title": "t" * 200, "kind": "binary", "text": {"n": marker}, "prompt": "p", "figures": {}}
    return record.build(
        tool_version="0.1.0",
        date="2026-11-26",
        source="set.json",
        judge=record.JudgeDescription(("openai/judge",), "", {"temperature": 0.0}),
        units=[{"id": "correct" if n == 0 else f"unit {n}", **entry} for n in range(units)],
    )


def test_o_never_replaces_the_labelled_file_another_file_a_folder_or_a_device(labelled, judge_server, capfd):
    folder = labelled.parent
    readme = folder / "README.md"
    readme.write_text("# the team's notes\n")
    (folder / "records").mkdir()
    empty = folder / "empty.calibration.json"
    empty.write_bytes(b"")
    before = labelled.read_bytes()
    cases = {
        str(labelled): "which the record is made from",
        str(readme): "exists and is not a calibration record (not JSON)",
        str(empty): "exists and is not a calibration record (empty)",
        str(folder / "records"): "is a folder",
        os.devnull: "is not a regular file",
    }
    for target, message in cases.items():
        code, _, err = run(capfd, "calibrate", str(labelled), "-o", target)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (target, err)
    assert judge_server.call_count == 0  # each refused before any judge call
    assert labelled.read_bytes() == before and readme.read_text() == "# the team's notes\n"
    assert empty.read_bytes() == b"" and (folder / "records").is_dir()
    # A hard link to the labelled file is the labelled file too.
    os.link(labelled, folder / "linked.json")
    code, _, err = run(capfd, "calibrate", str(labelled), "-o", str(folder / "linked.json"))
    assert code == 2 and "which the record is made from" in err


def test_o_never_replaces_a_labels_files_config_or_the_labels_file(judge_server, tmp_path, capfd, monkeypatch):
    use_judge(monkeypatch, judge_server, "sk-test-record-files", tmp_path / "cache")
    judge_server.handler = labels_judge
    request = tmp_path / "run.json"
    request.write_text(json.dumps(LABELS_REQUEST))
    labels = tmp_path / "labels.csv"
    labels.write_text("config,grader,output,verdict\nrun.json,safety,please,pass\n")
    for target in (request, labels):
        before = target.read_bytes()
        code, _, err = run(capfd, "calibrate", str(labels), "-o", str(target))
        assert code == 2 and "which the record is made from" in err and target.read_bytes() == before
    assert judge_server.call_count == 0


def test_a_record_is_written_through_a_symlink_and_replaces_only_a_record(labelled, capfd, tmp_path):
    kept = tmp_path / "kept"
    kept.mkdir()
    target = kept / "maths.dataset.json.calibration.json"
    target.write_text(record.dumps(_sample()))
    link = labelled.with_name(labelled.name + ".calibration.json")
    link.symlink_to(target)
    code, _, err = run(capfd, "calibrate", str(labelled))
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(target)  # the link stays a link
    assert record.read(target)["source"] != "set.json"  # its target holds the new record
    assert not [p.name for p in (tmp_path / "kept").iterdir() if p.name.endswith(".tmp")]
    # A damaged record of ours is replaced; a dangling link gets its target.
    target.write_text('{"calibration": 1, "tool": {"name": "rubric-lsp"}, "units": "damaged"}')
    assert record.save(link, _sample()) and record.read(target)["units"][0]["id"] == "correct"
    target.unlink()
    assert record.save(link, _sample()) and link.is_symlink() and target.is_file()


def test_one_writer_at_a_time(tmp_path, monkeypatch):
    path = tmp_path / "x.calibration.json"
    monkeypatch.setattr(record_file, "LOCK_WAIT_SECONDS", 0.05)
    with record_file.writer_lock(path):  # another writer holds the folder's lock
        with pytest.raises(record_file.RecordFileError, match="another process has been writing"):
            record.save(path, _sample())
        assert not path.exists()
    assert record.save(path, _sample()) and record.read(path)  # the lock is released with its holder


WRITES, READS = 60, 150
# Each writer and the reader is a Python process of its own (subprocess: no multiprocessing resource tracker
# outliving the test); what a process failed at goes to its standard error and exit code.
_WRITER = """
import json, sys
from pathlib import Path
from rubric_lsp.calibration import record
sample = json.loads(Path(sys.argv[2]).read_text())
for _ in range(int(sys.argv[3])):
    record.write(Path(sys.argv[1]), sample)
"""
_READER = """
import json, sys
from pathlib import Path
from rubric_lsp.calibration import record
markers, problems = set(), []
for _ in range(int(sys.argv[2])):
    try:
        markers.add(json.dumps(record.read(Path(sys.argv[1]))["units"][0]["fingerprints"]["text"]))
    except (record.RecordError, OSError) as exc:  # a partial file is refused
        problems.append(str(exc))
print(json.dumps({"markers": sorted(markers), "problems": problems}))
"""


def test_two_writers_and_a_reader_never_see_a_partial_record(tmp_path):
    path = tmp_path / "x.calibration.json"
    record.write(path, _sample(0))
    commands = []
    for marker in (1, 2):
        sample = tmp_path / f"sample{marker}.json"
        sample.write_text(json.dumps(_sample(marker, units=300)))
        commands.append([sys.executable, "-c", _WRITER, str(path), str(sample), str(WRITES)])
    commands.append([sys.executable, "-c", _READER, str(path), str(READS)])
    processes = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for c in commands]
    outcomes = []
    try:
        for process in processes:
            out, err = process.communicate(timeout=120)
            outcomes.append((process.returncode, out, err))
    finally:
        for process in processes:  # bounded: a hang fails the test, never the run
            if process.poll() is None:
                process.kill()
                process.communicate()
    assert [code for code, _, _ in outcomes] == [0, 0, 0], [err[-2000:] for _, _, err in outcomes]
    seen = json.loads(outcomes[-1][1])
    assert not seen["problems"], seen["problems"][:5]
    assert seen["markers"]  # the reader read whole records
    assert record.read(path) and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("number", ["1" + "0" * 400, "1e400", "-1e400", "NaN", "Infinity", "-Infinity"])
def test_a_number_a_float_cannot_hold_is_one_record_error(labelled, capfd, number):
    code, _, err = run(capfd, "calibrate", str(labelled))
    assert code == 0, err
    path = labelled.with_name(labelled.name + ".calibration.json")
    text = path.read_text()
    damaged = text.replace('"labels": 6', f'"labels": {number}', 1)
    assert damaged != text
    path.write_text(damaged)
    with pytest.raises(record.RecordError) as refused:
        record.read(path)
    assert len(str(refused.value).splitlines()) == 1 and str(path) in str(refused.value)
    # The lint: one RL020 finding naming the record and the number, no internal error (RL900).
    assert lint_main(["--format", "json", str(labelled)]) == 0  # calibration not required: an info finding
    found = json.loads(capfd.readouterr().out)
    assert not [d for d in found if d["code"] == "RL900"]
    words = "is not a number JSON allows" if number.lstrip("-")[0].isalpha() else "is outside a float's range"
    assert [d["code"] for d in found if words in d["message"] and str(path) in d["message"]] == ["RL020"], found
    # Grading with the record: one line, no traceback; grading without requiring it still grades.
    code, out, err = run(capfd, "grade", str(labelled), "--require-calibrated")
    assert code == 2 and "not a calibration record" in err and "Traceback" not in err
    code, out, err = run(capfd, "grade", str(labelled), "--format", "json")
    assert code in (0, 1) and json.loads(out)["judge_card"] and "Traceback" not in err
