"""Several labellers: ``rubric calibrate`` puts people's agreement with one another beside the judge's, per unit
(the ceiling a judge can reach), from the labels log of a dataset and from a labels file's ``labeller`` column."""

from __future__ import annotations

import json

import pytest

from rubric_lsp.cli import main
from rubric_lsp.labelling.session import Options, Session
from tests.conftest import use_judge
from tests.labelling_data import judge_reply, write_dataset

ANN = {1: ("MET", "Warm"), 2: ("UNMET", "Cold"), 3: ("MET", "Warm"), 4: ("UNMET", "Warm"), 5: ("MET", "Cold")}
ANN[6] = ("MET", "Warm")
BOB = {1: ("MET", "Warm"), 2: ("UNMET", "Warm"), 3: ("UNMET", "Warm"), 4: ("UNMET", "Warm"), 5: ("MET", "Cold")}


def kappa_by_hand(first: list[str], second: list[str]) -> float:
    """Cohen's κ from its definition, (p_o − p_e) / (1 − p_e): an independent check of the record's."""
    n = len(first)
    observed = sum(a == b for a, b in zip(first, second)) / n
    expected = sum((first.count(c) / n) * (second.count(c) / n) for c in set(first) | set(second))
    return (observed - expected) / (1 - expected)


def label(path, who, labels, again=False):
    session = Session(path, Options(labeller=who, again=again))
    state = session.state()
    while state["item"] is not None and state["item"]["number"] in labels:
        number = state["item"]["number"]
        polite, tone = labels[number]
        session.answer(state["item"]["key"], "polite", polite)
        session.answer(state["item"]["key"], "tone", tone)
        state = session.go()
        if state["item"] is not None and state["item"]["number"] == number:
            break


def test_people_agreement_beside_the_judge_s(judge_server, tmp_path, monkeypatch, capfd):
    use_judge(monkeypatch, judge_server, "sk-test-label", tmp_path / "cache")
    judge_server.handler = judge_reply
    path = write_dataset(tmp_path, 6)
    label(path, "ann", ANN)
    label(path, "bob", BOB, again=True)
    log = [json.loads(line) for line in path.with_name(path.name + ".labellers.jsonl").read_text().splitlines()]
    assert sum(e["labeller"] == "bob" and not e["file"] for e in log) == 10  # second opinions, never in the file
    capfd.readouterr()
    assert main(["calibrate", str(path), "--no-shuffle"]) == 0
    out = capfd.readouterr().out
    record = json.loads(path.with_name(path.name + ".calibration.json").read_text())
    people = {u["id"]: u["people_agreement"] for u in record["units"]}
    for place, unit in enumerate(("polite", "tone")):
        (pair,) = people[unit]["pairs"]
        assert pair["labellers"] == ["ann", "bob"]
        assert (pair["agreement"]["successes"], pair["agreement"]["n"]) == (4, 5)
        by_hand = kappa_by_hand([ANN[n][place] for n in BOB], [BOB[n][place] for n in BOB])
        assert pair["kappa"]["value"] == pytest.approx(by_hand, abs=5e-5)  # the record keeps 4 places
        low, high = pair["kappa"]["interval"]
        assert -1 <= low < by_hand < high <= 1
        line = f"people: ann and bob agree 0.80 [{pair['agreement']['interval'][0]:.2f}, "
        name = {"polite": "κ", "tone": "qwk"}[unit]  # tone is a scale: its two options' weighted κ is Cohen's
        assert line in out and f"· {name} {by_hand:.2f} [{low:.2f}, {high:.2f}]" in out
    # polite: p_o 0.8, p_e 0.6·0.4 + 0.4·0.6 = 0.48; tone: p_o 0.8, p_e 0.6·0.8 + 0.4·0.2 = 0.56
    assert [round(people[u]["pairs"][0]["kappa"]["value"], 3) for u in ("polite", "tone")] == [0.615, 0.545]
    # The judge's figures are over the labels the file holds (ann's six and the fixture's one), as before.
    assert {u["id"]: u["figures"]["labels"] for u in record["units"]} == {"polite": 7, "tone": 7}


def test_a_labels_file_s_labellers_too(tmp_path):
    from rubric_lsp.labelling import people

    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(
        "prompts: ['Reply to {{name}}']\nproviders: [echo]\ntests:\n  - vars: {name: Ann}\n    assert:\n"
        "      - type: llm-rubric\n        value: Is polite\n        metric: polite\n"
    )
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "config,test,assertion,output,verdict,labeller\n"
        "promptfooconfig.yaml,1,polite,hi Ann,pass,ann\n"
        "promptfooconfig.yaml,1,polite,hi Ann,fail,bob\n"
        "promptfooconfig.yaml,1,polite,bye Ann,fail,ann\n"
        "promptfooconfig.yaml,1,polite,bye Ann,fail,bob\n"
    )
    found = people.agreement(labels, config)
    (pair,) = found["test 1 polite"]["pairs"]
    assert pair["labellers"] == ["ann", "bob"] and (pair["agreement"]["successes"], pair["agreement"]["n"]) == (1, 2)
