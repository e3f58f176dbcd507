"""A labelling session on an autorubric dataset: what each answer, undo, review action and second labeller
writes, byte for byte, and what the page is told (blind until answered)."""

from __future__ import annotations

import json

import pytest

from rubric_lsp.labelling.session import LabellingError, Options, Session
from tests.labelling_data import dataset_text, labelled_text, write_dataset


def grading(tmp_path, items=12):
    """A ``rubric grade --format json`` output's shape: even items MET/Cold, odd UNMET/Warm (as tests/labelling_data's judge)."""
    rows = [
        {
            "index": i,
            "description": f"case {i + 1}",
            "verdicts": ["MET", "Cold"] if (i + 1) % 2 == 0 else ["UNMET", "Warm"],
            "reasons": [f"polite-reason-{i + 1}", f"tone-reason-{i + 1}"],
        }
        for i in range(items)
    ]
    path = tmp_path / "grading.json"
    path.write_text(json.dumps({"items": rows, "agreement": []}))
    return path


def log_lines(path):
    log = path.with_name(path.name + ".labellers.jsonl")
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def units_of(state):
    return {u["id"]: u for u in state["item"]["units"]}


def test_an_item_is_written_whole_with_its_notes_and_undo_takes_labels_back(tmp_path):
    path = write_dataset(tmp_path)
    original = path.read_text()
    session = Session(path, Options(labeller="ann"))
    key = session.state()["item"]["key"]
    session.answer(key, "polite", "UNMET", "  curt,\n no greeting ")
    assert path.read_text() == original  # half an item: autorubric refuses a partial list
    assert log_lines(path) == [
        {
            "item": 1,
            "key": key,
            "unit": "polite",
            "label": "UNMET",
            "labeller": "ann",
            "note": "curt, no greeting",
            "file": True,
        }
    ]
    state = session.answer(key, "tone", "Cold")
    expected = labelled_text(original, {1: ("UNMET", "Cold")}).replace(
        '"ground_truth": ["UNMET", "Cold"]',
        '"ground_truth": ["UNMET", "Cold"],\n      "ground_truth_reasons": ["curt, no greeting", null]',
    )
    assert path.read_text() == expected
    assert state["progress"]["done"] == 4 and state["can_undo"]
    session.answer(key, "tone", "Warm")  # a change is one edit, in place
    assert path.read_text() == expected.replace('["UNMET", "Cold"]', '["UNMET", "Warm"]')
    session.undo()
    assert path.read_text() == expected
    session.undo()
    assert path.read_text() == original and [e["unit"] for e in log_lines(path)] == ["polite"]
    session.undo()
    assert path.read_text() == original and log_lines(path) == []
    with pytest.raises(LabellingError, match="nothing to undo"):
        session.undo()


def test_a_word_the_unit_does_not_take_is_refused(tmp_path):
    path = write_dataset(tmp_path)
    session = Session(path, Options(labeller="ann"))
    key = session.state()["item"]["key"]
    with pytest.raises(LabellingError, match="'Lukewarm' is not a verdict of 'tone' \\(it takes Cold, Warm\\)"):
        session.answer(key, "tone", "Lukewarm")
    with pytest.raises(LabellingError, match="no unit 'style'"):
        session.answer(key, "style", "MET")
    with pytest.raises(LabellingError, match="no longer in the file"):
        session.answer("0" * 12, "polite", "MET")


def test_blind_until_answered(tmp_path):
    path = write_dataset(tmp_path)
    session = Session(path, Options(labeller="ann", sources=(grading(tmp_path),)))
    state = session.state()
    units = units_of(state)
    assert all(u["judge"] is None and u["judged"] for u in units.values())
    assert "polite-reason-1" not in json.dumps(state)
    state = session.answer(state["item"]["key"], "polite", "MET")
    units = units_of(state)
    assert units["polite"]["judge"] == {
        "verdict": "UNMET",
        "reason": "polite-reason-1",
        "votes": [],
        "score": None,
        "threshold": None,
    }
    assert units["tone"]["judge"] is None and "tone-reason-1" not in json.dumps(state)
    seen = Session(path, Options(labeller="ann", blind=False, sources=(grading(tmp_path),))).state()
    assert units_of(seen)["tone"]["judge"]["reason"] == "tone-reason-1"


def test_a_second_labeller_gives_second_opinions_blind_to_the_first(tmp_path):
    path = write_dataset(tmp_path, 2)
    ann = Session(path, Options(labeller="ann"))
    for _ in range(2):
        key = ann.state()["item"]["key"]
        ann.answer(key, "polite", "MET")
        ann.answer(key, "tone", "Warm")
        ann.go()
    labelled = path.read_text()
    bob = Session(path, Options(labeller="bob", again=True))
    state = bob.state()
    assert state["progress"] == {"done": 0, "total": 6, "items": 3}
    first = units_of(state)["polite"]
    assert first["others"] == [] and first["held"] is None  # ann's label hidden until bob answers
    state = bob.answer(state["item"]["key"], "polite", "UNMET", "rude opening")
    assert units_of(state)["polite"]["held"] == {"word": "MET", "labeller": "ann", "note": ""}
    assert path.read_text() == labelled  # a second opinion goes to the log alone
    assert {
        (e["labeller"], e["label"], e["file"])
        for e in log_lines(path)
        if e["key"] == state["item"]["key"] and e["unit"] == "polite"
    } == {
        ("ann", "MET", True),
        ("bob", "UNMET", False),
    }
    people = next(f for f in state["figures"] if f["unit"] == "polite")["people"]
    assert people["labellers"] == ["ann", "bob"]
    assert people["pairs"][0]["agreement"]["n"] == 1 and people["pairs"][0]["agreement"]["successes"] == 0
    # Without --again bob has nothing left to label: the file holds every label.
    assert Session(path, Options(labeller="bob")).state()["item"] is None


def test_labels_given_by_hand_are_done_and_kept(tmp_path):
    path = write_dataset(tmp_path, 1)
    text = path.read_text()
    assert Session(path, Options(labeller="ann")).state()["progress"] == {"done": 2, "total": 4, "items": 2}
    session = Session(path, Options(labeller="ann", again=True))
    state = session.go(next(q["key"] for q in session.state()["queue"] if q["number"] == 2))
    assert state["item"]["title"] == "already labelled"
    session.answer(state["item"]["key"], "polite", "UNMET")  # the file's own label is not overwritten
    assert path.read_text() == text


def test_review_keep_change_and_undo(tmp_path):
    path = write_dataset(tmp_path, 2)
    session = Session(path, Options(labeller="ann", sources=(grading(tmp_path, 2),)))
    key = session.state()["item"]["key"]
    session.answer(key, "polite", "MET")  # the judge said UNMET on item 1
    session.answer(key, "tone", "Warm")  # and Warm: agreed
    original = path.read_text()
    rows = session.review()["disagreements"]
    assert [(r["number"], r["unit"]["id"], r["label"]["word"], r["judge"]["verdict"], r["kept"]) for r in rows] == [
        (1, "polite", "MET", "UNMET", False)
    ]
    assert rows[0]["unit"]["open"]["vscode"].endswith(f"{path.resolve()}:5:5")  # the criterion's line
    session.keep(key, "polite")
    assert session.review()["disagreements"][0]["kept"] is True
    assert path.read_text() == original and log_lines(path)[0]["reviewed"] == "UNMET"
    session.change(key, "polite", "UNMET")
    assert '"ground_truth": ["UNMET", "Warm"]' in path.read_text()
    assert session.review()["disagreements"] == []
    session.undo()
    assert path.read_text() == original and log_lines(path)[0]["reviewed"] == "UNMET"


def test_a_change_of_another_labellers_label_keeps_theirs_as_a_second_opinion(tmp_path):
    path = write_dataset(tmp_path, 1)
    ann = Session(path, Options(labeller="ann"))
    key = ann.state()["item"]["key"]
    ann.answer(key, "polite", "MET")
    ann.answer(key, "tone", "Warm")
    before = path.read_text()
    bob = Session(path, Options(labeller="bob", again=True))
    bob.change(key, "polite", "UNMET")
    assert '"ground_truth": ["UNMET", "Warm"]' in path.read_text()
    polite = {(e["labeller"], e["label"], e["file"]) for e in log_lines(path) if e["unit"] == "polite"}
    assert polite == {("ann", "MET", False), ("bob", "UNMET", True)}
    bob.undo()
    assert path.read_text() == before
    assert {(e["labeller"], e["file"]) for e in log_lines(path)} == {("ann", True)}


def test_labels_follow_an_item_that_moves_and_an_edit_made_meanwhile_is_kept(tmp_path):
    path = write_dataset(tmp_path, 3)
    session = Session(path, Options(labeller="ann"))
    key = session.state()["item"]["key"]
    session.answer(key, "polite", "MET")
    # Someone reorders the items and edits a description while the page is open.
    data = json.loads(path.read_text())
    data["items"] = [data["items"][2], data["items"][1], data["items"][0], data["items"][3]]
    data["items"][1]["description"] = "edited meanwhile"
    path.write_text(json.dumps(data, indent=2) + "\n")
    state = session.answer(key, "tone", "Cold")
    written = json.loads(path.read_text())
    assert written["items"][2]["ground_truth"] == ["MET", "Cold"] and written["items"][2]["description"] == "case 1"
    assert written["items"][1]["description"] == "edited meanwhile"
    assert state["item"]["number"] == 3


def test_a_file_no_format_labels_and_a_bad_source_are_refused_in_one_line(tmp_path):
    other = tmp_path / "notes.json"
    other.write_text('{"hello": 1}')
    with pytest.raises(LabellingError, match="no kind of file rubric-lsp knows"):
        Session(other, Options(labeller="ann"))
    path = write_dataset(tmp_path, 1)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(LabellingError, match=r"bad\.json: not JSON"):
        Session(path, Options(labeller="ann", sources=(bad,)))
    with pytest.raises(LabellingError, match="no grading or results"):
        Session(path, Options(labeller="ann", sources=(other,)))
    with pytest.raises(LabellingError, match="keeps its labels itself"):
        Session(path, Options(labeller="ann", labels=tmp_path / "labels.csv"))
    log = path.with_name(path.name + ".labellers.jsonl")
    log.write_text("not a log\n")
    with pytest.raises(ValueError, match=r"labellers\.jsonl line 1: not a labels log entry"):
        Session(path, Options(labeller="ann")).state()


def test_the_dataset_text_is_the_shared_fixture():
    assert dataset_text(1).count('"description"') == 2


def test_a_grading_s_json_and_its_run_file_give_the_same_verdicts(tmp_path, judge_server, monkeypatch, capfd):
    from rubric_lsp.cli import main
    from tests.conftest import use_judge
    from tests.labelling_data import judge_reply

    use_judge(monkeypatch, judge_server, "sk-test-label", tmp_path / "cache")
    judge_server.handler = judge_reply
    path = write_dataset(tmp_path, 3)
    run = tmp_path / "run.sqlite"
    assert main(["grade", str(path), "--format", "json", "--no-shuffle", "--run", str(run)]) == 0
    out, _err = capfd.readouterr()
    printed = tmp_path / "grading.json"
    printed.write_text(out)
    seen = []
    for source in (printed, run):
        session = Session(path, Options(labeller="ann", blind=False, sources=(source,)))
        seen.append(
            sorted((u["id"], u["judge"]["verdict"], u["judge"]["reason"]) for u in units_of(session.state()).values())
        )
    assert seen[0] == seen[1] == [("polite", "UNMET", "polite-reason-1"), ("tone", "Warm", "tone-reason-1")]
    unfinished = tmp_path / "unfinished.sqlite"
    import sqlite3

    with sqlite3.connect(unfinished) as db:
        db.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.close()
    with pytest.raises(LabellingError, match="the run has not finished"):
        Session(path, Options(labeller="ann", sources=(unfinished,)))
