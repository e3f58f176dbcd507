"""Smells beside the evidence: ``rubric calibrate`` prints each unit's smells next to its κ and says whether the
units with smells agree less with people in this workspace (or that there are too few to tell); the editor's
hover on a calibrated criterion names its smells beside its record (tests/test_server_smells.py); a dataset
grading's text and HTML page show each criterion's smells beside its agreement figures."""

from __future__ import annotations

import json

from rubric_lsp.cli import main
from rubric_lsp.document.positions import Span
from rubric_lsp.lint import lint_text
from rubric_lsp.rules.smells.evidence import FEW, comparison, named, smells_within
from tests import report_browser
from tests.calibration import dataset, reply_for
from tests.conftest import require, use_judge


def test_rubric_calibrate_prints_smells_next_to_kappa(judge_server, tmp_path, monkeypatch, capfd):
    use_judge(monkeypatch, judge_server, "sk-smells", tmp_path / "cache")
    judge_server.handler = lambda request: reply_for(request.text)
    data = dataset(12, "maths")
    data["rubric"][1]["requirement"] = "Shows the working and is polite"  # double-barreled, vague
    path = tmp_path / "maths.dataset.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    assert main(["calibrate", str(path)]) == 0
    out = capfd.readouterr().out
    record = json.loads(path.with_name("maths.dataset.json.calibration.json").read_text())
    kappa = next(u for u in record["units"] if u["id"] == "shows_work")["figures"]["kappa"]["value"]
    assert f"  shows_work: κ {kappa:.2f} · RL301 double-barreled, RL302 vague-wording" in out.splitlines()
    assert "  correct:" not in out.split("smells (docs/smells.md):")[1]  # a unit without smells is not listed
    assert "  with smells: 1 unit(s)" in out and "  without: 1 unit(s)" in out
    assert "too few to tell whether smelly criteria agree less here (1 and 1 units with a κ" in out


def _unit(kappa: float | None, accuracy: float) -> dict:
    return {"kappa": {"value": kappa}, "accuracy": {"value": accuracy}}


def test_the_comparison_needs_enough_units_a_side():
    few = comparison([(_unit(0.2, 0.6), ["RL301"])] + [(_unit(0.8, 0.9), [])] * 7)
    assert "too few to tell" in few[-1] and "1 and 7 units with a κ" in few[-1]
    enough = comparison([(_unit(0.3, 0.7), ["RL302"])] * FEW + [(_unit(0.7, 0.9), [])] * FEW)
    assert enough[0] == f"  with smells: {FEW} unit(s), mean κ 0.30 (of {FEW}), mean accuracy 0.70"
    assert enough[-1].startswith("  units with smells agree less with people here: their mean κ is 0.40 lower")
    same = comparison([(_unit(0.8, 0.9), ["RL302"])] * FEW + [(_unit(0.7, 0.9), [])] * FEW)
    assert "agree no less" in same[-1]
    # a unit whose labels are all one class has no κ: counted as a unit, not as a κ
    none = comparison([(_unit(None, 1.0), ["RL301"])] * FEW + [(_unit(0.7, 0.9), [])] * FEW)
    assert "(of 0)" in none[0] and "too few to tell" in none[-1]


def test_a_units_smells_are_the_findings_inside_its_span():
    text = "- name: a\n  requirement: Shows the working and is polite\n  weight: 1\n- name: b\n  requirement: Cites a source\n  weight: 1\n"
    found = lint_text(text, "r.rubric.yaml", smells=True).diagnostics
    first = Span(0, text.index("- name: b"))
    assert smells_within(found, first) == ["RL301", "RL302"]  # RL311 (the rubric's) is no unit's
    assert smells_within(found, Span(text.index("- name: b"), len(text))) == []
    assert named(["RL301", "RL302"]) == "RL301 double-barreled, RL302 vague-wording"


def test_a_dataset_grading_shows_each_criterions_smells_beside_its_figures(judge_server, tmp_path, monkeypatch, capfd):
    require(report_browser.available(), "Chromium opens the report")
    use_judge(monkeypatch, judge_server, "sk-smells", tmp_path / "cache")
    judge_server.handler = lambda request: reply_for(request.text)
    data = dataset(12, "maths")
    data["rubric"][1]["requirement"] = "Shows the working and is polite"
    path = tmp_path / "maths.dataset.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    page = tmp_path / "report.html"
    main(["grade", str(path), "--report", str(page)])
    out = capfd.readouterr().out
    assert "smells of the criteria (docs/smells.md):\n  shows_work: RL301 double-barreled, RL302 vague-wording" in out
    figures = report_browser.load(page).figures()
    assert figures["smells:1"] == "RL301 double-barreled, RL302 vague-wording" and figures["smells:0"] == ""
