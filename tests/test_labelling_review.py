"""Review of disagreements, then refine: after a person changes labels on the page and rewords a criterion the
judge misread, ``rubric calibrate`` asks the judge again only about the criterion whose words changed (the other
criterion's verdicts come from the verdict cache: a label is no part of what the judge is asked), counted in the
judge's requests."""

from __future__ import annotations

import json

from rubric_lsp.cli import main
from rubric_lsp.labelling.session import Options, Session
from tests.conftest import use_judge
from tests.labelling_data import judge_reply, write_dataset


def completions(server) -> int:
    return sum(1 for r in server.requests if r.path.endswith("/chat/completions"))


def test_recalibrating_asks_the_judge_only_about_the_reworded_criterion(judge_server, tmp_path, monkeypatch, capfd):
    use_judge(monkeypatch, judge_server, "sk-test-label", tmp_path / "cache")
    judge_server.handler = judge_reply
    path = write_dataset(tmp_path, 4)
    data = json.loads(path.read_text())
    for item in data["items"][:4]:  # labelled: polite MET on all, tone Warm on all
        item["ground_truth"] = ["MET", "Warm"]
    path.write_text(json.dumps(data, indent=2) + "\n")
    assert main(["grade", str(path), "--format", "json", "--no-shuffle"]) == 0
    grading = tmp_path / "grading.json"
    grading.write_text(capfd.readouterr().out)
    assert main(["calibrate", str(path), "--no-shuffle"]) == 0
    capfd.readouterr()
    first = completions(judge_server)
    assert first == 2 * 5  # the grading: two criteria of five items; the calibration's came from the cache

    # Review on the page: the judge said UNMET on odd items' politeness; the person agrees on item 1 (changes
    # the label), keeps item 3's (the judge erred).
    session = Session(path, Options(labeller="ann", sources=(grading,)))
    rows = {r["number"]: r for r in session.review()["disagreements"] if r["unit"]["id"] == "polite"}
    assert sorted(rows) == [1, 3, 5]  # item 5: the fixture's already labelled "reply 99"
    session.change(rows[1]["key"], "polite", "UNMET")
    session.keep(rows[3]["key"], "polite")
    assert json.loads(path.read_text())["items"][0]["ground_truth"] == ["UNMET", "Warm"]
    assert completions(judge_server) == first  # the page asks no judge

    # Refine: reword the tone criterion (the judge read "warm" as "polite"), then calibrate again.
    text = path.read_text().replace("How warm is the reply?", "How warm, friendly and personal is the reply?")
    path.write_text(text)
    assert main(["calibrate", str(path), "--no-shuffle"]) == 0
    capfd.readouterr()
    asked = [r for r in judge_server.requests[first:] if r.path.endswith("/chat/completions")]
    assert len(asked) == 5 and all("friendly and personal" in r.text for r in asked)
    record = json.loads(path.with_name(path.name + ".calibration.json").read_text())
    assert [u["id"] for u in record["units"]] == ["polite", "tone"]
