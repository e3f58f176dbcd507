"""``rubric calibrate`` with several ``--model``s (issue 28, item 2): the record is the panel's, as ``rubric
grade`` grades with it (fresh for the same models, stale with one removed), and per unit it holds each
judge's own figures against the labels and the judges' agreement with one another — every figure equal to
an independent computation from the scripted verdicts (scikit-learn's κ, statsmodels' Wilson interval) —,
the ambiguous flag, and the disagreeing items' verdicts and reasons side by side. A re-run writes the
same bytes and asks no judge again; with ``--repeat`` each judge's agreement with itself is recorded too."""

from __future__ import annotations

import csv
import json
import threading

import jsonschema
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.proportion import proportion_confint

from rubric_lsp.calibration import check, record
from rubric_lsp.calibration.measure import judge_of
from rubric_lsp.cli import main
from rubric_lsp.commands.grade import _settings as grade_settings
from rubric_lsp.commands.grade import build_parser as grade_parser
from rubric_lsp.document.positions import Span
from tests.calibration import dataset, status_for
from tests.conftest import REPO, use_judge
from tests.judge_server import Reply

ITEMS = 12
A, B = "openai/judge-a", "openai/judge-b"
DISAGREE = (0, 3, 4, 9)  # items whose "shows the working" verdict judge B gives the other way
FLIPPING = (1, 5, 7)  # with --repeat: items whose "shows the working" verdict judge A changes on every ask
FLIP = {"MET": "UNMET", "UNMET": "MET"}
REQUIREMENTS = {"correct": "Gives the right answer", "shows_work": "Shows the working"}


def two_judges(flipping: bool = False):
    """Judge A answers as the scripted judge (``flipping``: except that it alternates on FLIPPING per ask),
    judge B too, except on the DISAGREE items of shows_work; each says who it is in its reason."""
    asked: dict[tuple[str, str], int] = {}
    lock = threading.Lock()

    def reply(request):
        text, model = request.text, request.model
        status = status_for(text)
        work = "Shows the working" in text
        if model == "judge-b" and work and _about(text, DISAGREE):
            status = FLIP[status]
        if model == "judge-a" and flipping and work and _about(text, FLIPPING):
            with lock:
                count = asked[(model, text)] = asked.get((model, text), 0) + 1
            status = status if count % 2 else FLIP[status]
        return Reply.json({"criterion_status": status, "explanation": f"{model} says {status.lower()}"})

    return reply


def _about(text: str, items: tuple[int, ...]) -> bool:
    return any(f"answer {n}:" in text for n in items)


@pytest.fixture
def labelled(judge_server, tmp_path, monkeypatch):
    use_judge(monkeypatch, judge_server, "sk-test-judges", tmp_path / "cache")
    judge_server.handler = two_judges()
    path = tmp_path / "maths.dataset.json"
    path.write_text(json.dumps(dataset(ITEMS, "maths"), indent=2))
    return path


def run(capfd, *argv):
    code = main(list(argv))
    out, err = capfd.readouterr()
    return code, out, err


def verdicts(name: str) -> tuple[list[str], list[str], list[str]]:
    """The labels and each judge's scripted first answers for one criterion, item by item (no engine)."""
    items = dataset(ITEMS, "maths")["items"]
    truth = [item["ground_truth"][list(REQUIREMENTS).index(name)] for item in items]
    a = [status_for(f"{item['submission']}\n{REQUIREMENTS[name]}") for item in items]
    b = [FLIP[v] if name == "shows_work" and n in DISAGREE else v for n, v in enumerate(a)]
    return truth, a, b


def wilson(successes: int, n: int) -> list[float]:
    return [round(x, 4) for x in proportion_confint(successes, n, method="wilson")]


def record_of(labelled) -> dict:
    return json.loads(labelled.with_name(labelled.name + ".calibration.json").read_text())


def test_each_judge_and_every_pair_against_an_independent_computation(labelled, judge_server, capfd):
    code, out, err = run(capfd, "calibrate", str(labelled), "--model", A, "--model", B)
    assert code == 0, err
    # Each model's calls are made once: graded alone, a judge's answers are the panel's, from the cache.
    assert judge_server.call_count == ITEMS * 2 * 2
    data = record_of(labelled)
    assert data["judge"]["models"] == [A, B]
    for unit in data["units"]:
        truth, a, b = verdicts(unit["id"])
        # The panel's figures: autorubric's majority of two, a tie taking the worst case (UNMET).
        panel = [x if x == y else "UNMET" for x, y in zip(a, b)]
        assert unit["figures"]["kappa"]["value"] == round(float(cohen_kappa_score(truth, panel)), 4)
        for own, judged, model in zip(unit["per_judge"], (a, b), (A, B)):
            agreed = sum(t == j for t, j in zip(truth, judged))
            assert own["model"] == model and own["figures"]["labels"] == ITEMS
            assert own["figures"]["accuracy"]["value"] == round(agreed / ITEMS, 4)
            assert own["figures"]["accuracy"]["interval"] == wilson(agreed, ITEMS)
            assert own["figures"]["kappa"]["value"] == round(float(cohen_kappa_score(truth, judged)), 4)
            assert "pass_rate" not in own["figures"] and "self_agreement" not in own
        together = unit["judge_agreement"]
        same = sum(x == y for x, y in zip(a, b))
        (pair,) = together["pairs"]
        assert pair["judges"] == [A, B]
        assert pair["agreement"] == {
            "value": round(same / ITEMS, 4),
            "successes": same,
            "n": ITEMS,
            "interval": wilson(same, ITEMS),
        }
        assert pair["kappa"]["statistic"] == "cohen"
        assert pair["kappa"]["value"] == round(float(cohen_kappa_score(a, b)), 4)
        assert together["unanimous"]["value"] == round(same / ITEMS, 4) and together["threshold"] == 0.8

    correct, work = data["units"]
    assert not correct["judge_agreement"]["ambiguous"] and "disagreements" not in correct["judge_agreement"]
    assert work["judge_agreement"]["ambiguous"]  # 8 of 12 < 0.8
    shown = work["judge_agreement"]["disagreements"]
    _, a, b = verdicts("shows_work")
    assert [d["item"] for d in shown] == list(DISAGREE)
    assert [d["verdicts"] for d in shown] == [[a[n], b[n]] for n in DISAGREE]
    assert shown[0]["reasons"] == [f"judge-a says {a[0].lower()}", f"judge-b says {b[0].lower()}"]  # side by side

    assert "judges agree 1.00 [0.76, 1.00] (κ 1.00) over 2 judges" in out
    assert f"judges agree 0.67 [0.39, 0.86] (κ {cohen_kappa_score(a, b):.2f}) over 2 judges AMBIGUOUS" in out
    assert f"    {A}: accuracy" in out and f"    {B}: accuracy" in out

    first = labelled.with_name(labelled.name + ".calibration.json").read_bytes()
    calls = judge_server.call_count
    code, _, err = run(capfd, "calibrate", str(labelled), "--model", A, "--model", B)
    assert code == 0, err
    assert labelled.with_name(labelled.name + ".calibration.json").read_bytes() == first  # a re-run: the same bytes
    assert judge_server.call_count == calls


def test_the_panel_record_is_fresh_for_the_same_panel_and_stale_without_one_judge(labelled, judge_server, capfd):
    assert run(capfd, "calibrate", str(labelled), "--model", A, "--model", B)[0] == 0
    calls = judge_server.call_count
    code, out, err = run(capfd, "grade", str(labelled), "--require-calibrated", "--model", A, "--model", B)
    assert code == 2 and judge_server.call_count == calls  # an ambiguous unit is not calibrated: refused first
    assert "1 of 2 unit(s) are not calibrated: shows_work: ambiguous: its judges" in err, err
    (labelled.parent / "rubric-lint.toml").write_text("calibration = { allow-ambiguous = true }\n")
    code, out, err = run(capfd, "grade", str(labelled), "--require-calibrated", "--model", A, "--model", B)
    assert code == 0, err
    assert "correct: fresh · calibrated · κ" in out
    assert "shows_work: fresh · calibrated · ambiguous: its judges disagree · κ" in out  # the judge card names why
    code, out, err = run(capfd, "grade", str(labelled), "--model", A, "--model", B, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    jsonschema.validate(data, json.loads((REPO / "schemas" / "rubric-grade-output.schema.json").read_text()))
    assert [u["ambiguous"] for u in data["judge_card"]["units"]] == [[], ["its judges disagree"]]
    calls = judge_server.call_count
    code, out, err = run(capfd, "grade", str(labelled), "--require-calibrated", "--model", A)
    assert code == 2 and "correct: stale: its judge changed" in err and "shows_work: stale: its judge changed" in err
    assert judge_server.call_count == calls  # refused before any judge call


def test_repeat_with_two_judges_records_each_judges_agreement_with_itself(labelled, judge_server, capfd):
    judge_server.handler = two_judges(flipping=True)
    code, out, err = run(capfd, "calibrate", str(labelled), "--model", A, "--model", B, "--repeat", "3")
    assert code == 0, err
    assert judge_server.call_count == ITEMS * 2 * 2 * 3  # each judge asked 3 times; alone, replayed from the cache
    correct, work = record_of(labelled)["units"]
    own_a, own_b = work["per_judge"]
    assert own_a["self_agreement"]["repeats"] == 3 and own_a["self_agreement"]["ambiguous"]
    assert own_a["self_agreement"]["unanimous"]["value"] == round((ITEMS - len(FLIPPING)) / ITEMS, 4)
    assert own_b["self_agreement"]["unanimous"]["value"] == 1.0 and not own_b["self_agreement"]["ambiguous"]
    assert correct["per_judge"][0]["self_agreement"]["unanimous"]["value"] == 1.0
    # The panel's own self-agreement: a flip of A turns a 2-0 into a tie (the worst case) or back.
    panel = work["self_agreement"]
    assert panel["repeats"] == 3 and panel["unanimous"]["value"] < 1.0
    # Judge against judge and each judge's figures: the first ask, as `rubric grade` would give them.
    truth, a, b = verdicts("shows_work")
    same = sum(x == y for x, y in zip(a, b))
    assert work["judge_agreement"]["pairs"][0]["agreement"]["successes"] == same
    assert own_a["figures"]["kappa"]["value"] == round(float(cohen_kappa_score(truth, a)), 4)
    assert "self-agreement" in out and "judges agree" in out

    first = labelled.with_name(labelled.name + ".calibration.json").read_bytes()
    calls = judge_server.call_count
    assert run(capfd, "calibrate", str(labelled), "--model", A, "--model", B, "--repeat", "3")[0] == 0
    assert judge_server.call_count == calls
    assert labelled.with_name(labelled.name + ".calibration.json").read_bytes() == first


def test_no_cache_asks_each_judge_once_and_keeps_nothing(labelled, judge_server, capfd, tmp_path):
    code, _, err = run(capfd, "calibrate", str(labelled), "--model", A, "--model", B, "--no-cache")
    assert code == 0, err
    # Graded alone, each judge's answers are still the panel's: a cache of the calibration's own.
    assert judge_server.call_count == ITEMS * 2 * 2
    assert not (tmp_path / "cache").exists()
    work = record_of(labelled)["units"][1]
    assert work["judge_agreement"]["pairs"][0]["agreement"]["successes"] == ITEMS - len(DISAGREE)


def test_one_judge_records_no_judge_agreement(labelled, capfd):
    assert run(capfd, "calibrate", str(labelled), "--model", A)[0] == 0
    assert all("per_judge" not in u and "judge_agreement" not in u for u in record_of(labelled)["units"])


def test_the_rule_and_the_hover_name_why_a_unit_is_ambiguous(tmp_path):
    from rubric_lsp.calibration import evidence, record
    from rubric_lsp.calibration.measure import build_record
    from rubric_lsp.calibration.units import Labelled, UnitSamples

    truths = ["MET", "UNMET"] * 6

    def judged(flip: set[int]) -> UnitSamples:
        verdicts = {i: ("UNMET" if t == "MET" else "MET") if i in flip else t for i, t in enumerate(truths)}
        return UnitSamples(
            "tone", "x", "binary", {"requirement": "x"}, "p", ("MET", "UNMET"), {"MET": "MET", "UNMET": "UNMET"},
            positive="MET", judged=verdicts, pairs=[(truths[i], v) for i, v in verdicts.items()],
            labelled={i: Labelled(evidence.item_mark(i), evidence.label_mark(t), t) for i, t in enumerate(truths)},
        )  # fmt: skip

    a, b = judged(set()), judged({0, 1, 2, 3})
    data = build_record(
        [[a]], record.JudgeDescription((A, B), "", {}), tool_version="0", date="2026-11-20", source="s.json",
        judges=[[[a]], [[b]]], models=[A, B],
    )  # fmt: skip
    entry = data["units"][0]
    unit = check.CalibrationUnit("tone", {"requirement": "x"}, "p", Span(0, 1))
    found = check.Match(unit, data, entry, tmp_path / "s.json.calibration.json")
    kappa = entry["figures"]["kappa"]
    low, high = kappa["interval"]
    assert check.summary(found) == (
        f"κ 1.00 [{low:.2f}, {high:.2f}] over 12 labels · judge-a, judge-b · 2026-11-20 · ambiguous: its judges disagree"
    )
    assert check.problems(found, check.CalibrationSettings()) == [
        f"The criterion 'tone' is ambiguous: its judges ({A}, {B}) agreed on 0.67 of the items (below 0.8)."
    ]
    assert check.problems(found, check.CalibrationSettings(allow_ambiguous=True)) == []


PROMPTFOO = """\
prompts: ["Reply to {{name}}"]
providers: [echo]
tests:
  - vars: {name: Ann}
    assert:
      - type: llm-rubric
        value: Is polite
        metric: polite
"""
# (output, human verdict): both judges pass an output that says "please"; judge B passes "thanks" too.
LABELLED = [
    ("please sit, Ann", "pass"),
    ("go away, Ann", "fail"),
    ("move, Ann", "fail"),
    ("please leave, Ann", "fail"),
    ("thanks, Ann", "pass"),
    ("please wait, Ann", "pass"),
    ("shoo, Ann", "fail"),
]


def test_a_labels_file_with_two_judges(judge_server, tmp_path, monkeypatch, capfd):
    """A promptfoo assertion: ``rubric grade`` grades it with one judge (promptfoo has one grader per
    assertion, no panel), so ``rubric calibrate`` grades it with the first --model: the record is judge A's,
    fresh for ``rubric grade --model A``; each judge's own figures and their agreement besides."""
    code, out, err = _calibrate_promptfoo(judge_server, tmp_path, monkeypatch, capfd)
    assert code == 0, err
    assert f"({A}; each of {A}, {B} alone)" in out
    assert sorted(r.model for r in judge_server.requests) == ["judge-a"] * len(LABELLED) + ["judge-b"] * len(LABELLED)
    data = json.loads((tmp_path / "promptfooconfig.yaml.calibration.json").read_text())
    # The record's judge is the one `rubric grade --model A` grades with: its fingerprints are fresh for it.
    assert data["judge"]["models"] == [A]
    graded_with = judge_of(grade_settings(grade_parser().parse_args(["x", "--model", A])).resolved())
    assert {k: data["judge"]["settings"][k] for k in graded_with.settings} == dict(graded_with.settings)
    (unit,) = data["units"]
    assert unit["fingerprints"]["judge"] == record.fingerprint([A])
    assert [j["model"] for j in unit["per_judge"]] == [A, B] and unit["judge_agreement"]["models"] == [A, B]
    truth = [v for _, v in LABELLED]
    a = ["pass" if "please" in o else "fail" for o, _ in LABELLED]
    b = ["pass" if "please" in o or "thanks" in o else "fail" for o, _ in LABELLED]
    assert unit["figures"]["kappa"]["value"] == round(float(cohen_kappa_score(truth, a)), 4)  # the first judge's
    assert [j["figures"]["kappa"]["value"] for j in unit["per_judge"]] == [
        round(float(cohen_kappa_score(truth, judged)), 4) for judged in (a, b)
    ]
    (pair,) = unit["judge_agreement"]["pairs"]
    assert pair["agreement"]["successes"] == len(LABELLED) - 1 and pair["agreement"]["n"] == len(LABELLED)
    assert pair["kappa"]["value"] == round(float(cohen_kappa_score(a, b)), 4)
    assert not unit["judge_agreement"]["ambiguous"]  # 6 of 7 agree: above 0.8


def test_a_promptfoo_record_of_two_judges_is_fresh_for_grading_with_the_first(
    judge_server, tmp_path, monkeypatch, capfd
):
    assert _calibrate_promptfoo(judge_server, tmp_path, monkeypatch, capfd)[0] == 0
    config = tmp_path / "promptfooconfig.yaml"
    (tmp_path / "out.txt").write_text("please sit, Ann")
    argv = ("grade", str(config), "--response", str(tmp_path / "out.txt"), "--require-calibrated")
    code, out, err = run(capfd, *argv, "--model", A)
    assert code == 0, err
    assert "fresh" in out
    calls = judge_server.call_count
    code, _, err = run(capfd, *argv, "--model", B)
    assert code == 2 and "stale: its judge changed" in err
    assert judge_server.call_count == calls


def _calibrate_promptfoo(judge_server, tmp_path, monkeypatch, capfd):
    """``rubric calibrate`` of PROMPTFOO's assertion from a labels file of LABELLED, with judges A and B."""
    use_judge(monkeypatch, judge_server, "sk-test-judges", tmp_path / "cache")

    def reply(request):
        text = request.text
        output = text[
            text.rindex("<Output>") :
        ]  # the user turn of promptfoo's llm-rubric prompt (its system one has examples)
        polite = "please" in output or (request.model == "judge-b" and "thanks" in output)
        return Reply.json({"reason": f"{request.model}: {polite}", "pass": polite, "score": float(polite)})

    judge_server.handler = reply
    (tmp_path / "promptfooconfig.yaml").write_text(PROMPTFOO)
    rows = [
        {"config": "promptfooconfig.yaml", "test": 1, "assertion": "polite", "output": o, "verdict": v}
        for o, v in LABELLED
    ]
    with (tmp_path / "labels.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return run(capfd, "calibrate", str(tmp_path / "labels.csv"), "--model", A, "--model", B)


def test_a_panel_judge_failing_every_call_is_incomplete_and_counted(labelled, judge_server, capfd):
    """Issue 33, item 5: judge B answers HTTP 500 to every call. The panel's grading is incomplete (exit 2), and
    its calibration record counts every failed ask — the panel's verdicts B's stand-in votes entered, and B's own
    calls alone — and never presents a stand-in vote as a verdict; the gate refuses the units."""
    scripted = two_judges()
    judge_server.handler = lambda request: Reply.server_error(500) if request.model == "judge-b" else scripted(request)
    code, out, err = run(
        capfd, "grade", str(labelled), "--model", A, "--model", B, "--retries", "0", "--format", "json"
    )
    data = json.loads(out)
    assert code == 2 and data.get("incomplete"), err
    assert all(c["failed"] == ITEMS for c in data["agreement"])  # every labelled item's panel verdict had one
    code, out, err = run(capfd, "calibrate", str(labelled), "--model", A, "--model", B, "--retries", "0")
    assert code == 2 and "incomplete" in err
    for unit in record_of(labelled)["units"]:
        assert unit["figures"]["labels"] == 0  # no stand-in vote measured as the panel's verdict
        assert unit["figures"]["failed"] == 2 * ITEMS  # the panel's items and judge B's own calls alone
        assert [j["figures"]["failed"] for j in unit["per_judge"]] == [0, ITEMS]
    code, _, err = run(capfd, "grade", str(labelled), "--model", A, "--model", B, "--require-calibrated")
    assert code == 2 and "incomplete: 24 judge call(s) failed while calibrating" in err
