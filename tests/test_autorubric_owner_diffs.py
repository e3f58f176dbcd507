"""Issue 24 item 9c: four held-out autorubric cases where rubric-lsp said otherwise than autorubric 1.6.1.

Each case is a minimal document of our own, loaded (or scored) by the installed autorubric itself;
the linter's errors and ``rubric grade``'s answers must agree with it: an error ⇔ autorubric refuses,
and where it loads, we read the values it reads.
"""

from __future__ import annotations

import json

import pytest

from rubric_lsp.cli import main
from rubric_lsp.diagnostics import Severity
from rubric_lsp.lint import lint_text
from tests.conftest import import_or_require


@pytest.fixture(scope="module")
def autorubric():
    return import_or_require("autorubric")


def _errors(text: str, path: str) -> list:
    return [d for d in lint_text(text, path).diagnostics if d.severity == Severity.ERROR]


def _refusal(autorubric, kind: str, text: str) -> Exception | None:
    try:
        if kind == "rubric":
            autorubric.Rubric.from_yaml(text)
        else:
            autorubric.RubricDataset.from_json(text)
    except Exception as exc:
        return exc
    return None


OK = "- requirement: Gives the right answer\n"
# (id, text, the code of the first error when autorubric refuses the rubric, None when it loads it)
RUBRICS = [
    ("binary criterion key", OK + "- requirement: Cites sources\n  !!binary cmVx: x\n", "AR104"),
    ("number criterion key", OK + "- requirement: Cites sources\n  1: x\n", "AR104"),
    ("binary weight that reads as a number", OK + "- requirement: Cites sources\n  weight: !!binary MQ==\n", None),
    ("binary weight that does not", OK + "- requirement: Cites sources\n  weight: !!binary YWJj\n", "AR104"),
    ("binary requirement", "- requirement: !!binary Q2l0ZXMgc291cmNlcw==\n", None),
    (
        "binary option value",
        "- requirement: x\n  options:\n    - {label: a, value: !!binary MA==}\n    - {label: b, value: 1}\n",
        None,
    ),
    (
        "binary option key",
        "- requirement: x\n  options:\n    - {label: a, value: 0, !!binary eHg=: 1}\n    - {label: b, value: 1}\n",
        None,
    ),
    ("binary scale_type", "- requirement: x\n  scale_type: !!binary bm9taW5hbA==\n", "AR104"),
    ("binary guidelines", "guidelines: !!binary eHg=\nrubric:\n  - requirement: x\n", "AR107"),
]


@pytest.mark.parametrize(("text", "code"), [case[1:] for case in RUBRICS], ids=[case[0] for case in RUBRICS])
def test_binary_values_and_keys_as_autorubric_loads_them(autorubric, text: str, code: str | None) -> None:
    refused = _refusal(autorubric, "rubric", text)
    errors = _errors(text, "case.rubric.yaml")
    assert (refused is not None) == (code is not None), refused
    assert [d.code for d in errors][:1] == ([code] if code else [])
    if refused is None:  # loaded: the criteria we grade with are autorubric's
        from rubric_lsp.document import parse_document
        from rubric_lsp.formats.autorubric.view import read_rubric

        view = read_rubric(parse_document(text, "case.rubric.yaml").root)
        theirs = autorubric.Rubric.from_yaml(text).rubric
        assert [(c.criterion.requirement, c.criterion.weight) for c in view.entries] == [
            (c.requirement, c.weight) for c in theirs
        ]


def test_a_binary_key_is_refused_with_autorubrics_reason(autorubric) -> None:
    text = RUBRICS[0][1]
    assert "keywords must be strings" in str(_refusal(autorubric, "rubric", text))
    [error] = _errors(text, "case.rubric.yaml")
    assert "keywords must be strings" in error.message and "binary" in error.message
    assert "AR001" not in [d.code for d in lint_text(text, "case.rubric.yaml").diagnostics]


def _dataset(ground_truth: object, criteria: int = 1) -> str:
    rubric = [{"requirement": f"Criterion {n}"} for n in range(criteria)]
    item = {"submission": "Plants use chlorophyll.", "description": "good", "ground_truth": ground_truth}
    return json.dumps({"prompt": "Explain photosynthesis", "rubric": rubric, "items": [item]})


# (id, ground truth, criteria, whether autorubric loads it)
GROUND_TRUTHS = [
    ("object read by its keys", {"MET": "why"}, 1, True),
    ("object of two keys", {"MET": "a", "UNMET": "b"}, 2, True),
    ("object of the wrong length", {"MET": "why"}, 2, False),
    ("object with a key that is no verdict", {"met": "why"}, 1, False),
    ("string read by its characters", "MET", 3, False),
    ("empty object", {}, 1, False),
    ("number", 1, 1, False),
    ("boolean", True, 1, False),
    ("list", ["MET"], 1, True),
]


@pytest.mark.parametrize(
    ("truth", "criteria", "loads"), [c[1:] for c in GROUND_TRUTHS], ids=[c[0] for c in GROUND_TRUTHS]
)
def test_ground_truth_is_read_as_autorubric_reads_it(autorubric, truth: object, criteria: int, loads: bool) -> None:
    text = _dataset(truth, criteria)
    refused = _refusal(autorubric, "dataset", text)
    assert (refused is None) == loads, refused
    errors = _errors(text, "case.dataset.json")
    assert (not errors) == loads, [d.message for d in errors]
    if loads:
        from rubric_lsp.document import parse_document
        from rubric_lsp.formats.autorubric.loading import ground_truth_entries

        item = parse_document(text, "case.dataset.json").root.get("items").value[0]
        ours = [value for _node, value in ground_truth_entries(item.get("ground_truth"))]
        theirs = autorubric.RubricDataset.from_json(text).items[0].ground_truth
        assert ours == [str(v.value) if hasattr(v, "value") else v for v in theirs]


def test_an_object_ground_truth_is_a_warning_that_says_what_autorubric_reads() -> None:
    diagnostics = lint_text(_dataset({"MET": "names chlorophyll"}), "case.dataset.json").diagnostics
    assert [(d.code, d.severity) for d in diagnostics] == [("AR209", Severity.WARNING)]
    assert '["MET"]' in diagnostics[0].message and "values are dropped" in diagnostics[0].message


RUBRIC = "- requirement: Gives the right answer\n  weight: 10\n- requirement: How much detail?\n  options:\n    - {label: none, value: 0}\n    - {label: lots, value: 1}\n"
NA_LABEL = "Cannot assess / not applicable"


def test_verdicts_with_the_injected_na_label_are_refused_as_compute_score_refuses_them(autorubric, tmp_path, capfd):
    rubric = autorubric.Rubric.from_yaml(RUBRIC)
    with pytest.raises(ValueError, match="Label 'Cannot assess / not applicable' not found") as raised:
        rubric.compute_score(["MET", NA_LABEL])
    (tmp_path / "rubric.yaml").write_text(RUBRIC)
    (tmp_path / "v.json").write_text(json.dumps(["MET", NA_LABEL]))
    code = main(["grade", str(tmp_path / "rubric.yaml"), "--verdicts", str(tmp_path / "v.json")])
    _out, err = capfd.readouterr()
    assert code == 2 and str(raised.value) in err
    # A real option label is scored as compute_score scores it.
    (tmp_path / "v.json").write_text(json.dumps(["MET", "none"]))
    code = main(["grade", str(tmp_path / "rubric.yaml"), "--verdicts", str(tmp_path / "v.json"), "--format", "json"])
    out, _ = capfd.readouterr()
    assert code == 0 and json.loads(out)["score"] == pytest.approx(rubric.compute_score(["MET", "none"]))


def test_a_report_row_with_the_injected_na_option_is_an_abstention(tmp_path, capfd):
    """Rows of `rubric grade --format json` output: autorubric's grader reports the option it showed
    the judge (CANONICAL_NA_OPTION) as an NA pick, scored as an abstention."""
    (tmp_path / "rubric.yaml").write_text(RUBRIC)
    rows = [{"verdict": "MET"}, {"verdict": NA_LABEL}]
    (tmp_path / "v.json").write_text(json.dumps(rows))
    code = main(["grade", str(tmp_path / "rubric.yaml"), "--verdicts", str(tmp_path / "v.json"), "--format", "json"])
    out, _ = capfd.readouterr()
    assert code == 0 and json.loads(out)["score"] == pytest.approx(1.0)  # skipped: MET alone


def test_grading_measures_agreement_with_the_ground_truth_autorubric_reads() -> None:
    from rubric_lsp.document import parse_document
    from rubric_lsp.formats.autorubric.grading.agreement import _truth

    items = parse_document(_dataset({"MET": "why"}), "case.dataset.json").root.get("items")
    assert _truth(items.value[0]) == ["MET"]
