"""NorthStar eval-case datasets: JSON in its three shapes and JSON Lines."""

from __future__ import annotations

import pytest

from rubric_lsp.fixes import apply_edits
from tests.helpers import codes, lines_of, lint

CASE = '{"id": "case-1", "messages": [{"role": "assistant", "content": "hi"}], "expected": {"goal": "greet"}}'


def run(text: str, path: str = "cases.jsonl"):
    result = lint(text, path)
    assert result.format is not None and result.format.name == "northstar-eval-cases", result.format
    return result


@pytest.mark.parametrize(
    ("text", "path"),
    [
        (CASE + "\n", "single.json"),
        ("[\n  " + CASE + "\n]\n", "list.json"),
        ('{"cases": [\n  ' + CASE + "\n]}\n", "wrapped.json"),
        (CASE + "\n\n" + CASE.replace("case-1", "case-2") + "\n", "cases.jsonl"),
    ],
)
def test_each_shape_is_detected_and_clean(text, path):
    assert run(text, path).diagnostics == []


def jsonl(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def test_missing_id_and_messages_on_their_lines():
    result = run(
        jsonl(CASE, '{"id": "case-2", "expected": {"goal": "x"}}', '{"messages": [], "expected": {"goal": "x"}}')
    )
    assert lines_of(result, "NS201") == [2, 3]
    assert "NS201" not in codes(run(jsonl(CASE, CASE.replace("case-1", "case-2"))))


def test_unknown_keys_are_errors_with_a_rename_fix():
    text = jsonl(CASE, CASE.replace("case-1", "case-2").replace('"goal"', '"gaol"'))
    result = run(text)
    assert lines_of(result, "NS202") == [2]
    [diag] = [d for d in result.diagnostics if d.code == "NS202"]
    assert "'goal'" in diag.message
    assert run(apply_edits(text, diag.fix.edits)).diagnostics == []


def test_unknown_top_level_case_key():
    result = run(jsonl(CASE.replace('"expected"', '"expect"')))
    [diag] = [d for d in result.diagnostics if d.code == "NS202"]
    assert diag.range.start.line == 0 and "'expected'" in diag.message


@pytest.mark.parametrize("limit", ["max_tool_calls", "max_latency_ms", "max_cost_usd"])
def test_negative_limits(limit):
    bad = CASE.replace('{"goal": "greet"}', f'{{"goal": "greet", "{limit}": -1}}')
    assert lines_of(run(jsonl(CASE.replace("case-1", "c0"), bad)), "NS203") == [2]
    assert "NS203" not in codes(run(jsonl(bad.replace("-1", "0"))))


def test_trace_ratio_out_of_range():
    bad = CASE.replace('{"goal": "greet"}', '{"trace": {"min_retrieval_recall": 1.5}}')
    assert lines_of(run(jsonl(bad)), "NS203") == [1]
    assert "NS203" not in codes(run(jsonl(bad.replace("1.5", "1.0"))))


def test_single_string_lists_are_accepted():
    ok = CASE.replace('{"goal": "greet"}', '{"goal": "greet", "contains": "hi", "context": "x"}')
    assert run(jsonl(ok)).diagnostics == []


def test_duplicate_case_ids():
    result = run(jsonl(CASE, CASE.replace("greet", "wave"), CASE.replace("case-1", "case-3")))
    assert lines_of(result, "NS204") == [2]
    [diag] = [d for d in result.diagnostics if d.code == "NS204"]
    assert diag.related  # points at the first case


def test_jsonl_bad_lines_are_reported_on_their_own_line():
    text = jsonl(CASE, '{"id": "case-2", "messages": [}', "[1, 2]", CASE.replace("case-1", "case-4"))
    result = run(text)
    assert lines_of(result, "RL001") == [2]
    assert "line 2" in next(d for d in result.diagnostics if d.code == "RL001").message
    assert lines_of(result, "NS200") == [3]
    assert "Line 3" in next(d for d in result.diagnostics if d.code == "NS200").message
    # The good lines are still checked.
    assert codes(run(jsonl(CASE, CASE))).count("NS204") == 1


def test_jsonl_of_only_broken_lines_is_still_reported():
    result = run(jsonl('{"id": "a", "messages": [', "{oops}"))
    assert lines_of(result, "RL001") == [1, 2]


def test_wrong_types():
    result = run(jsonl('{"id": 7, "messages": "hi"}'))
    assert lines_of(result, "NS205") == [1, 1]
    assert "NS205" not in codes(run(jsonl('{"id": "7", "messages": []}')))


def test_cases_key_must_hold_a_list():
    result = run('{\n  "cases": {"id": "a", "messages": []}\n}\n', "wrapped.json")
    assert lines_of(result, "NS200") == [2]


def test_view_gives_cases_in_order():
    from rubric_lsp.document import parse_document
    from rubric_lsp.formats.northstar.view import read_cases

    doc = parse_document(jsonl(CASE, CASE.replace("case-1", "case-2")), "c.jsonl")
    view = read_cases(doc.root, jsonl=True)
    assert [c.id for c in view.valid_cases] == ["case-1", "case-2"]
    assert doc.range(view.cases[1].node).start.line == 1


def test_jsonl_trailing_comma_is_one_fixable_error_on_its_line():
    text = jsonl(CASE, CASE.replace("case-1", "case-2").replace('"greet"}', '"greet",}'))
    result = run(text)
    [diag] = result.diagnostics
    assert (diag.code, diag.range.start.line + 1) == ("RL006", 2)
    assert diag.message.startswith("Trailing comma on line 2")
    assert run(apply_edits(text, diag.fix.edits)).diagnostics == []


def test_cases_list_near_miss():
    assert run('{\n  "cases": [{"id": "a", "messages": []}]\n}\n', "wrapped.json").diagnostics == []
