"""The NorthStar samples shipped in samples/northstar are detected and lint clean."""

from __future__ import annotations

import pytest

from rubric_lsp.lint import lint_path
from tests.conftest import SAMPLES

KINDS = {
    "eval_run_request.json": "northstar-eval-run-request",
    "cases.jsonl": "northstar-eval-cases",
    "cases.json": "northstar-eval-cases",
}


@pytest.mark.parametrize("name", sorted(KINDS))
def test_sample_lints_clean(name):
    result = lint_path(SAMPLES / "northstar" / name)
    assert result.format is not None and result.format.name == KINDS[name]
    assert result.diagnostics == [], [(d.code, d.range.start.line + 1, d.message) for d in result.diagnostics]


def test_every_sample_is_listed():
    assert sorted(p.name for p in (SAMPLES / "northstar").iterdir()) == sorted(KINDS)
