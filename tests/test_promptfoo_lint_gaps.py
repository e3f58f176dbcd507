"""Issue 34 item 6: the lint gaps on real configs, each pinned to what promptfoo 0.123.1 did with the config.

``tests/data/promptfoo-lint-gaps/recorded.json`` holds promptfoo's own run of each config (its
``record.py`` re-records it with the echo provider): the error each test row ended in, the prompt it
sent, or the message a refused config stopped with. Each finding here must be an error that quotes
promptfoo's message, and each control (a row promptfoo ran without that error) must get none.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rubric_lsp.diagnostics import Severity
from rubric_lsp.lint import lint_path, lint_text

RECORDED = json.loads((Path(__file__).parent / "data" / "promptfoo-lint-gaps" / "recorded.json").read_text())

# assertion-needs: the test's description -> the rule that must report its assertion.
NEEDS = {
    "meteor": "PF111",
    "search-rubric": "PF111",
    "skill-used": "PF111",
    "cost": "PF117",
    "latency": "PF117",
    "not-latency": "PF117",
    "context-faithfulness": "PF118",
    "context-relevance": "PF118",
    "numeric-query": "PF118",
    "no-vars": "PF118",
}


def _lint_case(name: str, tmp_path: Path):
    case = RECORDED[name]
    for file, text in case["files"].items():
        (tmp_path / file).write_text(text)
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(case["config"])
    return lint_path(config, root_dir=tmp_path).diagnostics


def _errors(diagnostics, code: str | None = None) -> list:
    return [d for d in diagnostics if d.severity == Severity.ERROR and (code is None or d.code == code)]


def _test_lines(config: str) -> dict[str, range]:
    """description -> the 0-based lines of that test."""
    lines = config.splitlines()
    starts = [(i, m.group(1)) for i, line in enumerate(lines) if (m := re.match(r"  - description: (.+)$", line))]
    bounds = [*[i for i, _ in starts[1:]], len(lines)]
    return {name: range(i, end) for (i, name), end in zip(starts, bounds, strict=True)}


def test_every_assertion_promptfoo_errors_on_is_an_error_quoting_promptfoo(tmp_path):
    case = RECORDED["assertion-needs"]
    found = _lint_case("assertion-needs", tmp_path)
    lines = _test_lines(case["config"])
    rows = {row["description"]: row for row in case["results"]}
    assert set(NEEDS) | {"ok-cost-zero", "ok-query"} == set(rows)
    for description, code in NEEDS.items():
        said = rows[description]["error"]
        assert said, f"promptfoo ran {description} without an error"
        mine = [d for d in _errors(found, code) if d.range.start.line in lines[description]]
        assert len(mine) == 1, (description, [(d.code, d.range.start.line, d.message) for d in found])
        assert f"'{said}'" in mine[0].message, (said, mine[0].message)


def test_the_controls_promptfoo_ran_get_no_error(tmp_path):
    case = RECORDED["assertion-needs"]
    found = _lint_case("assertion-needs", tmp_path)
    lines = _test_lines(case["config"])
    rows = {row["description"]: row for row in case["results"]}
    for description in ("ok-cost-zero", "ok-query"):
        assert rows[description]["assertions"], f"promptfoo did not run {description}'s assertion"
        assert "requires" not in (rows[description]["error"] or "") and "threshold" not in (
            rows[description]["error"] or ""
        )
        assert [d.message for d in _errors(found) if d.range.start.line in lines[description]] == []


def test_a_prompt_object_sends_its_id_and_says_so(tmp_path):
    case = RECORDED["prompt-objects"]
    found = _errors(_lint_case("prompt-objects", tmp_path), "PF119")
    sent = {row["prompt_label"]: row["prompt"] for row in case["results"]}
    assert sent["Chart writer"] == "chartwright" and sent["Summary"] == "summary"  # promptfoo's own run
    by_line = {d.range.start.line: d for d in found}
    assert sorted(by_line) == [3, 6]  # the `file:` and `template:` keys
    assert "'file'" in by_line[3].message and "'chartwright'" in by_line[3].message
    assert "'file://prompt.txt'" in by_line[3].message
    assert "'template'" in by_line[6].message and "'summary'" in by_line[6].message
    # The controls: the id names a file promptfoo reads, is the prompt text, or `raw` is there.
    assert sent["ok-id-is-the-text"] == "Tell me about charts" and sent["ok-raw"] == "Raw charts"
    assert any(
        label.startswith("ok-id-is-a-file") and text.startswith("The real prompt") for label, text in sent.items()
    )


def test_the_fix_moves_the_ignored_key_to_raw_and_is_unsafe():
    text = "prompts:\n  - id: chartwright\n    label: Charts\n    file: file://prompt.txt\nproviders: [echo]\n"
    (diagnostic,) = [d for d in lint_text(text, "promptfooconfig.yaml").diagnostics if d.code == "PF119"]
    assert diagnostic.fix is not None and not diagnostic.fix.safe
    assert [e.new_text for e in diagnostic.fix.edits] == ["raw"]


@pytest.mark.parametrize("name", ["prompt-object-without-id", "prompt-object-raw-only"])
def test_a_prompt_object_without_an_id_needs_raw_and_label(name, tmp_path):
    said = RECORDED[name]["refused"]
    assert said.startswith("Invalid prompt object: ")
    (diagnostic,) = _errors(_lint_case(name, tmp_path), "PF109")
    assert f"'{said}'" in diagnostic.message  # JSON.stringify's spelling, as promptfoo prints it


def test_no_prompts_and_no_prompt_var_is_an_error(tmp_path):
    (row,) = RECORDED["no-prompts"]["results"]
    assert row["prompt"] == "" and row["prompt_label"] == "{{prompt}}"
    (diagnostic,) = _errors(_lint_case("no-prompts", tmp_path), "PF121")
    assert "'{{prompt}}'" in diagnostic.message and "empty" in diagnostic.message


def test_a_prompt_var_makes_the_default_prompt_work(tmp_path):
    (row,) = RECORDED["no-prompts-prompt-var"]["results"]
    assert row["prompt"] == "Name a fjord"
    assert _errors(_lint_case("no-prompts-prompt-var", tmp_path)) == []


def test_a_misspelt_prompts_key_is_an_error_with_a_safe_rename_when_certainly_broken(tmp_path):
    (row,) = RECORDED["misspelt-prompts"]["results"]
    assert row["prompt"] == ""  # promptfoo ignored `promts` and ran '{{prompt}}'
    found = _lint_case("misspelt-prompts", tmp_path)
    (diagnostic,) = _errors(found, "PF121")
    assert "'promts' is ignored" in diagnostic.message and "Did you mean 'prompts'?" in diagnostic.message
    assert diagnostic.fix is not None and diagnostic.fix.safe
    assert [d for d in found if d.code == "PF001"] == []  # reported once, by the error


def test_agent_rubric_is_a_known_type(tmp_path):
    assert RECORDED["agent-rubric"]["said"] == "Configuration is valid."
    assert [d for d in _lint_case("agent-rubric", tmp_path) if d.code == "PF100"] == []


def test_a_select_typo_is_skipped_and_the_message_says_so(tmp_path):
    rows = RECORDED["select-typo"]["results"]
    assert all(row["error"] is None and row["assertions"] == [] for row in rows)  # never run, no error
    (diagnostic,) = _errors(_lint_case("select-typo", tmp_path), "PF100")
    assert "skips it without a word" in diagnostic.message and "Did you mean 'select-best'?" in diagnostic.message


def test_csv_tests_without_a_prompt_column_send_empty_prompts(tmp_path):
    rows = RECORDED["no-prompts-csv"]["results"]
    assert [row["prompt"] for row in rows] == ["", ""]
    (diagnostic,) = _errors(_lint_case("no-prompts-csv", tmp_path), "PF121")
    assert "every prompt it sends is empty" in diagnostic.message


@pytest.mark.parametrize(
    "columns",
    ["prompt,topic\nhi,a\n", "topic,__prefix\na,Say\n", "topic,__providerOutput\na,fixed\n"],
)
def test_csv_tests_that_give_the_prompt_something_are_left_alone(columns, tmp_path):
    (tmp_path / "cases.csv").write_text(columns)
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text("providers: [echo]\ntests: file://cases.csv\n")
    assert [d for d in lint_path(config, root_dir=tmp_path).diagnostics if d.code == "PF121"] == []


@pytest.mark.parametrize(
    "text",
    [
        # the target builds its own request from the vars
        "providers:\n  - id: https\n    config: {url: 'http://localhost/x', body: {q: '{{q}}'}}\ntests:\n  - vars: {q: hi}\n",
        "providers: [file://provider.py]\ntests:\n  - vars: {q: hi}\n",
        "providers: ['{{ env.PROVIDER }}']\ntests:\n  - vars: {q: hi}\n",
        # the test writes around the prompt, or answers for the target
        "providers: [echo]\ntests:\n  - vars: {q: hi}\n    options: {prefix: 'Say '}\n",
        "providers: [echo]\ntests:\n  - vars: {q: hi}\n    providerOutput: fixed\n",
        # no tests: often a base config merged with the suite that has them (`-c base -c suite`)
        "providers: [openai:gpt-4.1-mini]\ndefaultTest:\n  options: {timeout: 1000}\n",
        # a red-team config: `redteam generate` writes the prompt var into every test
        "targets: [openai:gpt-4.1-mini]\nredteam: {purpose: bank}\ntests:\n  - vars: {q: hi}\n",
    ],
)
def test_no_error_where_the_default_prompt_may_not_be_what_is_sent(text):
    assert [d for d in lint_text(text, "promptfooconfig.yaml").diagnostics if d.code == "PF121"] == []
