"""``rubric calibrate``: against the local scripted judge, the record is written beside the dataset, its
figures equal an independent computation from the judge's scripted verdicts, a re-run gives the same
bytes, and ``--repeat`` measures a judge that flips on some items."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa
from statsmodels.stats.proportion import proportion_confint

from rubric_lsp.cli import main
from tests.calibration import dataset, reply_for, status_for
from tests.conftest import use_judge
from tests.judge_server import Reply

ITEMS = 12
FLIPPING = (1, 5, 7)  # items whose "shows the working" verdict changes on every ask


@pytest.fixture
def labelled(judge_server, tmp_path, monkeypatch):
    use_judge(monkeypatch, judge_server, "sk-test-calibrate", tmp_path / "cache")
    judge_server.handler = lambda request: reply_for(request.text)
    path = tmp_path / "maths.dataset.json"
    path.write_text(json.dumps(dataset(ITEMS, "maths"), indent=2))
    return path


def calibrate(capfd, *argv):
    code = main(["calibrate", *argv])
    out, err = capfd.readouterr()
    return code, out, err


def scripted_verdicts(name: str) -> tuple[list[str], list[str]]:
    """The labels and the judge's scripted verdicts for one criterion, item by item (independent of the engine)."""
    requirement = {"correct": "Gives the right answer", "shows_work": "Shows the working"}[name]
    column = 0 if name == "correct" else 1
    items = dataset(ITEMS, "maths")["items"]
    truth = [item["ground_truth"][column] for item in items]
    judged = [status_for(f"{item['submission']}\n{requirement}") for item in items]
    return truth, judged


def test_the_record_holds_the_independently_computed_figures(labelled, judge_server, capfd):
    code, out, err = calibrate(capfd, str(labelled))
    assert code == 0, err
    path = labelled.with_name("maths.dataset.json.calibration.json")
    data = json.loads(path.read_text())
    assert data["source"] == "maths.dataset.json" and data["judge"]["models"] == ["openai/judge"]
    # The judge's settings and the format's options that change a verdict (not --cannot-assess: a score's).
    assert data["judge"]["settings"] == {
        "temperature": 0.0,
        "max_tokens": None,
        "shuffle_options": True,
        "aggregation": "majority",
    }
    assert [u["id"] for u in data["units"]] == ["correct", "shows_work"]  # the file's order
    for unit in data["units"]:
        truth, judged = scripted_verdicts(unit["id"])
        f = unit["figures"]
        n = len(truth)
        agreed = sum(t == j for t, j in zip(truth, judged))
        assert f["labels"] == n and f["balance"] == {"MET": truth.count("MET"), "UNMET": truth.count("UNMET")}
        assert f["accuracy"]["value"] == round(agreed / n, 4)
        assert f["accuracy"]["interval"] == [round(x, 4) for x in proportion_confint(agreed, n, method="wilson")]
        assert f["kappa"]["value"] == round(float(cohen_kappa_score(truth, judged)), 4)
        positives = [j for t, j in zip(truth, judged) if t == "MET"]
        negatives = [j for t, j in zip(truth, judged) if t == "UNMET"]
        tp, tn = positives.count("MET"), negatives.count("UNMET")
        assert f["sensitivity"]["value"] == round(tp / len(positives), 4)
        assert f["specificity"]["value"] == round(tn / len(negatives), 4)
        assert f["sensitivity"]["interval"] == [
            round(x, 4) for x in proportion_confint(tp, len(positives), method="wilson")
        ]
        se, sp, observed = tp / len(positives), tn / len(negatives), judged.count("MET") / n
        if se + sp > 1:
            assert f["pass_rate"]["corrected"] == round(min(1, max(0, (observed + sp - 1) / (se + sp - 1))), 4)
        assert f["failed"] == 0 and set(unit["fingerprints"]) == {"text", "judge", "prompt", "settings", "all"}
    assert "correct: 12 labels" in out and "shows_work: 12 labels" in out
    first = path.read_bytes()
    calls = judge_server.call_count
    code, _, err = calibrate(capfd, str(labelled))
    assert code == 0, err
    assert path.read_bytes() == first  # a re-run: the same bytes
    assert judge_server.call_count == calls  # answered from the verdict cache
    assert main(["grade", str(labelled), "--format", "json"]) == 0
    assert judge_server.call_count == calls  # the first ask's cache keys are rubric grade's own
    capfd.readouterr()

    # A later day that measures the same keeps the file, date included (no diff to review).
    path.write_text(path.read_text().replace(data["date"], "2000-01-01"))
    dated = path.read_bytes()
    assert calibrate(capfd, str(labelled))[0] == 0
    assert path.read_bytes() == dated


def test_output_and_refusals(labelled, tmp_path, capfd):
    out_path = tmp_path / "elsewhere" / "record.json"
    out_path.parent.mkdir()
    code, _, err = calibrate(capfd, str(labelled), "--output", str(out_path))
    assert code == 0, err
    assert json.loads(out_path.read_text())["source"] == "../maths.dataset.json"

    rubric = tmp_path / "plain.rubric.yaml"
    rubric.write_text("- name: a\n  requirement: Is polite\n")
    code, _, err = calibrate(capfd, str(rubric))
    assert code == 2 and "is no labelled set to calibrate the judge against" in err
    assert not (tmp_path / "plain.rubric.yaml.calibration.json").exists()
    code, _, err = calibrate(capfd, str(tmp_path / "missing.json"))
    assert code == 2 and "cannot read" in err


def test_failed_calls_are_counted_apart_and_exit_2(labelled, judge_server, capfd):
    judge_server.handler = lambda request: (
        Reply.error(400, "bad request") if "answer 2:" in request.text else reply_for(request.text)
    )
    code, _, err = calibrate(capfd, str(labelled), "--retries", "0", "--no-cache")
    assert code == 2 and "incomplete: 2 judge call(s) failed" in err
    data = json.loads(labelled.with_name("maths.dataset.json.calibration.json").read_text())
    assert [u["figures"]["failed"] for u in data["units"]] == [1, 1]
    assert [u["figures"]["labels"] for u in data["units"]] == [ITEMS - 1, ITEMS - 1]


def flipping_judge():
    """The scripted judge, except that the FLIPPING items' "shows the working" verdict alternates per ask."""
    asked: dict[str, int] = {}
    lock = threading.Lock()

    def reply(request):
        text = request.text
        flips = "Shows the working" in text and any(f"answer {n}:" in text for n in FLIPPING)
        if not flips:
            return reply_for(text)
        with lock:
            count = asked[text] = asked.get(text, 0) + 1
        status = status_for(text) if count % 2 else ("UNMET" if status_for(text) == "MET" else "MET")
        return Reply.json({"criterion_status": status, "explanation": f"ask {count}: {status.lower()}"})

    return reply


def test_repeat_asks_again_and_finds_the_ambiguous_criterion(labelled, judge_server, capfd):
    judge_server.handler = flipping_judge()
    code, out, err = calibrate(capfd, str(labelled), "--repeat", "3")
    assert code == 0, err
    assert judge_server.call_count == ITEMS * 2 * 3  # no repeat was answered from the first ask's cache
    data = json.loads(labelled.with_name("maths.dataset.json.calibration.json").read_text())
    correct, work = data["units"]
    assert correct["self_agreement"]["unanimous"]["value"] == 1.0 and not correct["self_agreement"]["ambiguous"]
    repeats = work["self_agreement"]
    unanimous = (ITEMS - len(FLIPPING)) / ITEMS
    assert repeats["unanimous"]["value"] == round(unanimous, 4) and repeats["ambiguous"]  # below 0.8
    assert repeats["pairwise"] == round((ITEMS - len(FLIPPING) + len(FLIPPING) / 3) / ITEMS, 4)
    _, judged = scripted_verdicts("shows_work")
    flip = {"MET": "UNMET", "UNMET": "MET"}
    answers = [[j, flip[j], j] if n in FLIPPING else [j] * 3 for n, j in enumerate(judged)]
    table, _ = aggregate_raters(np.array([[a == "MET" for a in row] for row in answers], dtype=int))
    assert repeats["fleiss_kappa"] == round(float(fleiss_kappa(table)), 4)
    shown = repeats["disagreements"]
    assert [d["item"] for d in shown] == list(FLIPPING)
    assert shown[0]["verdicts"] == answers[FLIPPING[0]]
    assert [r.split(":")[0] for r in shown[0]["reasons"]] == ["ask 1", "ask 2", "ask 3"]  # side by side
    assert "AMBIGUOUS" in out
    # The figures against the labels are the first ask's, as `rubric grade` would give.
    truth, _ = scripted_verdicts("shows_work")
    assert work["figures"]["kappa"]["value"] == round(float(cohen_kappa_score(truth, judged)), 4)

    first = labelled.with_name("maths.dataset.json.calibration.json").read_bytes()
    calls = judge_server.call_count
    code, _, err = calibrate(capfd, str(labelled), "--repeat", "3")
    assert code == 0, err
    assert judge_server.call_count == calls  # every repeat replayed from the cache: the same samples
    assert labelled.with_name("maths.dataset.json.calibration.json").read_bytes() == first
