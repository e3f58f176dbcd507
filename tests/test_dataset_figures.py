"""A dataset result's agreement figures are the format's (engine/result.py: Figures): the HTML page and
the editor's lens print the labels the format gives and know no statistic's name."""

from __future__ import annotations

from types import SimpleNamespace

from rubric_lsp.document.positions import Position, Range
from rubric_lsp.engine.result import Figure, Figures
from rubric_lsp.formats.autorubric.grading.agreement import CriterionAgreement, DatasetResult
from rubric_lsp.reporters.grade.html import render
from rubric_lsp.server.verdicts import shown_for_dataset

REQUEST = SimpleNamespace(kind=SimpleNamespace(value="dataset"), path="d.json")
TOP = Range(Position(0, 0), Position(0, 0))
OURS = Figures(
    key="rho",
    label="ρ",
    ranked=(Figure("ρ", 0.5, (0.125, 0.875)),),
    brief=((Figure("ρ", 0.25), Figure("τ", None)),),
    interval="90 % interval",
    note="ρ is our own figure",
    chart="ρ per criterion",
)


def _dataset() -> DatasetResult:
    criterion = CriterionAgreement(0, "polite", "binary", abstain=frozenset({"CANNOT_ASSESS"}))
    for truth, judged in (("MET", "MET"), ("UNMET", "MET"), ("UNMET", "UNMET")):
        criterion.add(truth, judged)
    item = {"index": 0, "description": "", "score": 1.0, "error": None, "verdicts": ["MET"], "ground_truth": ["MET"]}
    item |= {"reasons": [""], "human_score": 1.0}
    return DatasetResult(items=[item], criteria=[criterion])


def test_the_page_and_the_lens_show_the_formats_own_figures():
    result = _dataset()
    result.figures = lambda: OURS  # type: ignore[method-assign]
    page = render(REQUEST, result)
    assert '<th data-type="num">ρ</th><th>ρ 90 % interval</th>' in page
    assert 'data-figure="rho:0" data-sort="0.5">0.500</td>' in page
    assert "0.125 – 0.875" in page and "1 items · ρ is our own figure" in page and "ρ per criterion" in page
    assert "κ" not in page and "kappa" not in page
    lens = shown_for_dataset(result.to_json(), "file:///d.json", TOP, OURS).lenses[0].title
    assert lens == "polite: accuracy 0.67 · ρ 0.25 · τ n/a · n=3 · abstentions 0"


def test_a_result_without_figures_shows_accuracy_alone():
    result = _dataset()
    result.figures = Figures  # type: ignore[method-assign]
    page = render(REQUEST, result)
    assert "interval" not in page.split("<h2>Confusion")[0] and 'data-figure="accuracy:0"' in page
    lens = shown_for_dataset(result.to_json(), "file:///d.json", TOP).lenses[0].title
    assert lens == "polite: accuracy 0.67 · n=3 · abstentions 0"


def test_autorubric_labels_its_kappa():
    figures = _dataset().figures()
    assert (figures.key, figures.label) == ("kappa", "κ") and figures.brief[0][0].label == "κ"
    assert figures.ranked[0].value == _dataset().to_json()["agreement"][0]["cohen_kappa"]
