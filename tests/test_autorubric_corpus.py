"""Real autorubric files lint clean; the samples show what they claim to show."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from rubric_lsp.diagnostics import Severity
from rubric_lsp.lint import lint_path
from tests.conftest import CORPUS, SAMPLES, import_or_require

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

CORPUS_FILES = sorted((CORPUS / "autorubric").rglob("*.json")) if CORPUS.is_dir() else []
SAMPLE_DIR = SAMPLES / "autorubric"
GOOD_SAMPLES = sorted(p for p in SAMPLE_DIR.iterdir() if not p.name.startswith("bad"))
BAD_SAMPLES = sorted(p for p in SAMPLE_DIR.iterdir() if p.name.startswith("bad"))


def _findings(path: Path, *severities: Severity):
    result = lint_path(path)
    return [(d.code, d.range.start.line + 1, d.message) for d in result.diagnostics if d.severity in severities]


def test_corpus_is_there(corpus):
    assert len(CORPUS_FILES) == 11


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_real_autorubric_files_have_no_error_or_warning(path):
    result = lint_path(path)
    assert result.format is not None and result.format.name.startswith("autorubric")
    assert _findings(path, Severity.ERROR, Severity.WARNING) == []


@pytest.mark.parametrize("path", GOOD_SAMPLES, ids=lambda p: p.name)
def test_good_samples_lint_without_any_finding(path):
    assert _findings(path, Severity.ERROR, Severity.WARNING, Severity.INFO) == []


@pytest.mark.slow
@pytest.mark.parametrize("path", GOOD_SAMPLES, ids=lambda p: p.name)
def test_good_samples_load_in_autorubric(path):
    autorubric = import_or_require("autorubric")
    if "dataset" in path.name:
        assert len(autorubric.RubricDataset.from_file(str(path))) > 0
    else:
        assert autorubric.Rubric.from_file(str(path)).rubric


@pytest.mark.parametrize("path", BAD_SAMPLES, ids=lambda p: p.name)
def test_bad_samples_agree_with_autorubric(path):
    autorubric = import_or_require("autorubric")
    errors = _findings(path, Severity.ERROR)
    try:
        if "dataset" in path.name:
            autorubric.RubricDataset.from_file(str(path))
        else:
            autorubric.Rubric.from_file(str(path))
        refused = False
    except Exception:
        refused = True
    assert refused == any(code != "AR108" for code, _line, _msg in errors)


def test_good_rubric_sample_carries_graded_examples():
    text = (SAMPLE_DIR / "refund-reply.rubric.yaml").read_text()
    assert "\nexamples:" in text and "expect:" in text


_ANNOTATION = re.compile(r"#.*?\b(AR\d{3})\b(?:\s*\+\s*(AR\d{3}))?")


def test_annotated_bad_rubric_reports_each_code_on_its_line():
    path = SAMPLE_DIR / "bad-rubric.rubric.yaml"
    expected = set()
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        for match in _ANNOTATION.finditer(line):
            expected.update((code, number) for code in match.groups() if code)
    assert len(expected) >= 10
    found = {(code, line) for code, line, _ in _findings(path, Severity.ERROR, Severity.WARNING, Severity.INFO)}
    # A criterion-level finding sits on the criterion's first line, which may be the line above.
    missing = {(code, line) for code, line in expected if (code, line) not in found and (code, line - 1) not in found}
    assert not missing, sorted(found)


def test_bad_samples_show_real_findings():
    expected = {
        "bad-weights.rubric.json": {"AR014", "AR018", "AR013", "AR004", "AR010"},
        "bad-ground-truth.dataset.json": {"AR202", "AR204", "AR205", "AR206", "AR207", "AR208"},
    }
    for name, wanted in expected.items():
        got = {code for code, _line, _msg in _findings(SAMPLE_DIR / name, Severity.ERROR, Severity.WARNING)}
        assert wanted <= got, (name, wanted - got)


def test_fix_repairs_the_bad_samples_in_place(tmp_path):
    import json
    import shutil

    from rubric_lsp.cli import main

    for name in ("bad-ground-truth.dataset.json", "bad-rubric.rubric.yaml", "bad-weights.rubric.json"):
        shutil.copy(SAMPLE_DIR / name, tmp_path / name)
    main(["lint", "--fix", "-q", str(tmp_path)])
    data = json.loads((tmp_path / "bad-ground-truth.dataset.json").read_text())
    assert data["items"][0]["ground_truth"] == ["MET", "Very clear"]
    assert data["items"][1]["ground_truth"] == ["UNMET", "Very clear"]
    weights = json.loads((tmp_path / "bad-weights.rubric.json").read_text())
    assert "scale_type" not in weights[1]
    assert weights[0]["weight"] == -10  # the sign flip is unsafe: not applied by --fix
    fixed = {d.code for d in lint_path(tmp_path / "bad-rubric.rubric.yaml").diagnostics}
    assert not fixed & {"AR013", "AR021", "AR001"}
    assert "AR103" not in fixed  # renaming 'requirment' restored the requirement
