"""``rubric review --calibrate LABELLED.jsonl``: the review measured against people's labels, per smell, through
the calibration machinery (engine/calibrating.py, calibration/measure.py) and the scripted judge. The smells
corpus's criteria.jsonl is such a set as it is (read in place: ../shared/corpus/smells, skipped when absent)."""

from __future__ import annotations

import json
import re

import pytest
from sklearn.metrics import cohen_kappa_score

from rubric_lsp.calibration import record
from rubric_lsp.cli import main
from rubric_lsp.review.labels import GUIDE_NAMES
from rubric_lsp.review.questions import QUESTIONS
from tests.conftest import CORPUS, use_judge
from tests.judge_server import Reply

SMELLS = [q.smell for q in QUESTIONS]
CORPUS_SET = CORPUS / "smells" / "criteria.jsonl"

# Eight criteria of our own, each labelled for two smells (the others not labelled).
ROWS = [
    ("c1", "Acknowledges the order and offers a refund", {"double-barreled": True, "vague-wording": False}),
    ("c2", "Names Canberra as the capital", {"double-barreled": False, "vague-wording": False}),
    ("c3", "Is polite and professional", {"double-barreled": False, "vague-wording": True}),
    ("c4", "Finds the bug and proposes a fix", {"double-barreled": True, "vague-wording": False}),
    ("c5", "Uses an appropriate tone", {"double-barreled": False, "vague-wording": True}),
    ("c6", "Lists the three largest cities", {"double-barreled": False, "vague-wording": False}),
    ("c7", "Explains the cause well and cites a source", {"double-barreled": True, "vague-wording": True}),
    ("c8", "Gives the total of 220", {"double-barreled": False, "vague-wording": False}),
]
# What the scripted judge answers: the labels, except where it is wrong.
WRONG = {("c6", "double-barreled"), ("c7", "vague-wording"), ("c2", "vague-wording")}


def shown(request) -> str:
    """The criterion's text as the judge is shown it."""
    found = re.search(r"<<<\n(.*)\n>>>", request.messages[-1]["content"], re.DOTALL)
    assert found is not None
    return found.group(1)


def reply_with(answer_of) -> callable:
    def handler(request) -> Reply:
        text = shown(request)
        return Reply.json({s: {"present": answer_of(text, s), "words": "", "reason": f"{s}?"} for s in SMELLS})

    return handler


def our_answer(text: str, smell: str) -> bool:
    row_id, _, labels = next(r for r in ROWS if r[1] == text)
    truth = labels.get(smell, False)
    return (not truth) if (row_id, smell) in WRONG else truth


@pytest.fixture
def labelled(judge_server, tmp_path, monkeypatch):
    use_judge(monkeypatch, judge_server, "sk-review-calibrate", tmp_path / "cache")
    judge_server.handler = reply_with(our_answer)
    path = tmp_path / "criteria.jsonl"
    path.write_text("".join(json.dumps({"id": i, "text": t, "labels": lab}) + "\n" for i, t, lab in ROWS), "utf-8")
    return path


def run(capfd, *argv):
    code = main(["review", *argv])
    out, err = capfd.readouterr()
    return code, out, err


def test_agreement_per_smell_is_the_independently_computed_one(labelled, judge_server, tmp_path, capfd):
    written = tmp_path / "review.calibration.json"
    code, out, err = run(capfd, "--calibrate", str(labelled), "--output", str(written))
    assert code == 0, err
    assert judge_server.call_count == len(ROWS)  # one question per criterion, every smell answered at once
    data = record.read(written)
    units = {u["id"]: u for u in data["units"]}
    assert list(units) == SMELLS  # one unit per smell, the review rubric's order
    for smell in ("double-barreled", "vague-wording"):
        truth = [lab[smell] for _, _, lab in ROWS]
        judged = [our_answer(text, smell) for _, text, _ in ROWS]
        figures = units[smell]["figures"]
        assert figures["labels"] == len(ROWS)
        assert figures["accuracy"]["value"] == round(sum(t == j for t, j in zip(truth, judged)) / len(ROWS), 4)
        assert figures["kappa"]["value"] == round(float(cohen_kappa_score(truth, judged)), 4)
    assert units["hedging-language"]["figures"]["labels"] == 0  # no row labels it: no figure, not a fake one
    lines = out.splitlines()
    assert lines[0].startswith(f"the review against the labels of {labelled} (8 criteria, openai/judge)")
    assert any(line.strip().startswith("double-barreled: 8 labels · accuracy 0.88") for line in lines)

    # A second calibration is replayed from the verdict cache: no new judge call, the same figures.
    code, out_again, _ = run(capfd, "--calibrate", str(labelled))
    assert code == 0 and judge_server.call_count == len(ROWS) and out_again.splitlines()[1:] == lines[1:-1]


def test_a_failed_judgment_is_counted_apart_and_never_agreement(labelled, judge_server, capfd):
    judge_server.handler = lambda request: (
        Reply.garbage() if "Canberra" in shown(request) else reply_with(our_answer)(request)
    )
    code, out, err = run(capfd, "--calibrate", str(labelled), "--format", "json", "--retries", "0")
    assert code == 2 and "2 labelled answer(s) failed" in err  # its two labelled smells
    units = {u["id"]: u for u in json.loads(out)["units"]}
    assert units["double-barreled"]["figures"]["failed"] == 1 and units["double-barreled"]["figures"]["labels"] == 7


def test_a_bad_row_is_refused_naming_its_line(labelled, judge_server, capfd):
    labelled.write_text(labelled.read_text() + '{"text": "Is kind", "labels": {"rudeness": true}}\n', "utf-8")
    code, _, err = run(capfd, "--calibrate", str(labelled))
    assert code == 2 and f"{labelled}:9: 'rudeness' is no smell the review asks about" in err
    assert judge_server.call_count == 0


@pytest.mark.skipif(not CORPUS_SET.is_file(), reason=f"the labelled smells corpus is not at {CORPUS_SET}")
def test_the_smells_corpus_is_a_labelled_set_as_it_is(judge_server, tmp_path, monkeypatch, capfd):
    """The corpus's rows are read in place, their guide names are the review's smells: a judge answering
    exactly the labels agrees on every row it answered."""
    rows = [json.loads(line) for line in CORPUS_SET.read_text(encoding="utf-8").splitlines() if line.strip()][:40]
    labels = {row["text"].strip(): row["labels"] for row in rows}
    use_judge(monkeypatch, judge_server, "sk-review-corpus", tmp_path / "cache")
    judge_server.handler = reply_with(lambda text, smell: labels[text.strip()][_guide_name(smell)])
    code, out, err = run(capfd, "--calibrate", str(CORPUS_SET), "--limit", "40", "--format", "json")
    assert code == 0, err
    references = sum(str((row.get("meta") or {}).get("assert_type", "")).endswith("factuality") for row in rows)
    units = {u["id"]: u for u in json.loads(out)["units"]}
    assert set(units) == set(SMELLS)
    for smell, unit in units.items():
        assert unit["figures"]["labels"] == len(rows) - references  # a reference answer is not reviewed
        assert unit["figures"]["accuracy"]["value"] == 1.0, smell


def _guide_name(smell: str) -> str:
    return next(guide for guide, own in GUIDE_NAMES.items() if own == smell)
