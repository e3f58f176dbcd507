"""``rubric label promptfooconfig.yaml --from results.json -o labels.csv`` on a results file promptfoo 0.123.1 wrote
with ratings given through its viewer's API (tests/data/promptfoo-recorded/ratings: recorded, not built): the
thumbs become labels-file rows (docs/calibration.md's columns) that ``rubric calibrate`` reads, a thumb on a test
with two rubrics is not guessed, the page continues from there, and promptfoo's judge's verdicts are the ones the
review weighs the labels against."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from rubric_lsp.cli import main
from rubric_lsp.labelling.session import Options, Session
from tests.conftest import use_judge
from tests.judge_server import Reply

RECORDED = Path(__file__).parent / "data" / "promptfoo-recorded" / "ratings"
HEADER = "config,test,assertion,output,query,verdict,labeller,note\n"
IMPORTED = (
    "promptfooconfig.yaml,1,polite,Reply to Ann,Reply to Ann,pass,ann,friendly enough\n"
    'promptfooconfig.yaml,2,polite,Reply to Bob,Reply to Bob,pass,ann,"polite, if short"\n'
)


def workspace(tmp_path: Path, api: str = "http://127.0.0.1:9/v1") -> tuple[Path, Path]:
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text((RECORDED / "ratings.config.yaml").read_text().replace("{API}", api))
    results = tmp_path / "results.json"
    shutil.copy(RECORDED / "ratings.results.json", results)
    return config, results


def test_the_recording_holds_the_viewer_s_ratings():
    data = json.loads((RECORDED / "ratings.results.json").read_text())
    assert data["metadata"]["promptfooVersion"] == "0.123.1"
    human = [
        [c for c in r["gradingResult"]["componentResults"] if (c.get("assertion") or {}).get("type") == "human"]
        for r in data["results"]["results"]
    ]
    assert [[(c["pass"], c["comment"]) for c in h] for h in human] == [
        [(True, "friendly enough")],
        [(True, "polite, if short")],
        [(False, "")],
        [],
    ]


def test_the_thumbs_become_a_labels_file(tmp_path, capfd):
    config, results = workspace(tmp_path)
    labels = tmp_path / "labels.csv"
    code = main(["label", str(config), "--from", str(results), "-o", str(labels), "--no-page", "--labeller", "ann"])
    out, err = capfd.readouterr()
    assert code == 0, err
    assert labels.read_text() == HEADER + IMPORTED
    assert "2 label(s) taken from" in out and "3 of 5 labelled" not in out and "2 of 5 labelled (4 items)" in out
    assert "the rating of test 3 is not taken: its test has several model-graded assertions" in err
    # Again: nothing new to take, the file unchanged.
    assert main(["label", str(config), "--from", str(results), "-o", str(labels), "--no-page"]) == 0
    assert labels.read_text() == HEADER + IMPORTED


def test_the_page_continues_from_the_imported_labels(tmp_path):
    config, results = workspace(tmp_path)
    labels = tmp_path / "labels.jsonl"
    session = Session(config, Options(labeller="bob", labels=labels, sources=(results,)))
    imported = [json.loads(line) for line in labels.read_text().splitlines()]
    assert [(r["test"], r["assertion"], r["verdict"], r["labeller"]) for r in imported] == [
        ("1", "polite", "pass", "bob"),
        ("2", "polite", "pass", "bob"),
    ]
    state = session.state()
    assert state["item"]["title"] == "test 3 (two rubrics)"  # the first item left to label
    units = state["item"]["units"]
    assert [(u["id"], [c["word"] for c in u["choices"]]) for u in units] == [
        ("test 3 polite", ["pass", "fail"]),
        ("test 3 assertion 2", ["pass", "fail"]),
    ]
    assert all(u["judge"] is None for u in units)
    state = session.answer(state["item"]["key"], "test 3 assertion 2", "fail", "long-winded")
    short = next(u for u in state["item"]["units"] if u["id"] == "test 3 assertion 2")
    assert short["judge"] == {"verdict": "pass", "reason": "Polite.", "votes": [], "score": 1.0, "threshold": None}
    last = json.loads(labels.read_text().splitlines()[-1])
    assert last == {
        "config": "promptfooconfig.yaml",
        "test": "3",
        "assertion": "2",
        "output": "Reply to Cy",
        "query": "Reply to Cy",
        "verdict": "fail",
        "labeller": "bob",
        "note": "long-winded",
    }
    session.undo()
    assert len(labels.read_text().splitlines()) == 2
    # The thumb on Bob's reply overturned promptfoo's judge: the review shows it.
    rows = session.review()["disagreements"]
    assert [(r["title"], r["label"]["word"], r["judge"]["verdict"], r["judge"]["reason"]) for r in rows] == [
        ("test 2 (farewell)", "pass", "fail", "Curt.")
    ]


def test_rubric_calibrate_reads_the_labels_file(tmp_path, judge_server, monkeypatch, capfd):
    use_judge(monkeypatch, judge_server, "sk-test-label", tmp_path / "cache")
    judge_server.default = lambda request: Reply.text(
        json.dumps({"pass": "Bob" not in request.text, "score": 1, "reason": "judged"})
    )
    config, results = workspace(tmp_path, judge_server.base_url)
    labels = tmp_path / "labels.csv"
    assert (
        main(["label", str(config), "--from", str(results), "-o", str(labels), "--no-page", "--labeller", "ann"]) == 0
    )
    capfd.readouterr()
    code = main(["calibrate", str(labels)])
    _out, err = capfd.readouterr()
    assert code == 0, err
    record = json.loads(config.with_name("promptfooconfig.yaml.calibration.json").read_text())
    figures = {u["id"]: u["figures"] for u in record["units"]}
    assert set(figures) == {"test 1 polite", "test 2 polite"}
    assert figures["test 1 polite"]["accuracy"]["successes"] == 1  # the judge passes Ann's reply, as ann did
    assert figures["test 2 polite"]["accuracy"]["successes"] == 0  # and fails Bob's, which ann passed
