"""The largest inputs lint to the right answer. How fast is measured in bench/bench_promptfoo.py (the
largest example against the didChange budget, 3,000 tests against 300), never here: a timed assertion
measures the machine the suite shares."""

from __future__ import annotations

import pytest

from rubric_lsp.lint import lint_text
from tests.conftest import CORPUS

LARGEST = CORPUS / "promptfoo" / "examples" / "redteam-medical-agent" / "redteam.yaml"


def test_largest_example_lints_as_a_promptfoo_config():
    if not LARGEST.is_file():
        pytest.skip("corpus not found")
    data = LARGEST.read_bytes()
    assert len(data) > 1_000_000
    result = lint_text(data, str(LARGEST))
    assert result.format is not None and result.format.name == "promptfoo-config"
    assert not [d for d in result.diagnostics if d.severity.name == "ERROR"]


def test_many_model_graded_tests_lint_clean():
    tests = "".join(
        f"  - vars: {{question: 'q{i}'}}\n    assert:\n      - type: llm-rubric\n        value: Answers {{{{question}}}} well\n"
        f"        threshold: 0.5\n      - type: contains\n        value: x\n"
        for i in range(3000)
    )
    text = (
        "prompts: [a, b]\nproviders: [openai:gpt-5]\ndefaultTest:\n  options:\n    provider: openai:gpt-5-mini\ntests:\n"
        + tests
    )
    result = lint_text(text, "promptfooconfig.yaml")
    assert [d.code for d in result.diagnostics] == []
    # A finding planted in the last test is still found: the whole file was read, not a prefix.
    broken = text.rstrip("\n").rsplit("threshold: 0.5", 1)
    planted = lint_text(broken[0] + "threshold: 5" + broken[1] + "\n", "promptfooconfig.yaml")
    assert planted.diagnostics
