"""NorthStar EvalRunRequest checks: each trips on the right line, and a near miss does not."""

from __future__ import annotations

import pytest

from rubric_lsp.fixes import apply_edits
from tests.helpers import codes, lines_of, lint

PATH = "judges.json"


def judge(
    scoring: str = '{"mode": "numeric", "min_score": 0, "max_score": 5, "passing_score": 4}', extra: str = ""
) -> str:
    """A request with one rubric judge; the scoring config is on line 7."""
    return (
        "{\n"
        '  "graders": [\n'
        "    {\n"
        '      "type": "rubric",\n'
        '      "name": "correctness",\n'
        '      "model": "gpt-4o",\n'
        f'      "scoring": {scoring},\n'
        f'      "rubric": "Grade correctness."{extra}\n'
        "    }\n"
        "  ]\n"
        "}\n"
    )


def run(text: str):
    result = lint(text, PATH)
    assert result.format is not None and result.format.name == "northstar-eval-run-request"
    return result


def test_valid_request_is_clean():
    assert run(judge()).diagnostics == []


@pytest.mark.parametrize(
    ("code", "scoring", "near_miss"),
    [
        ("NS101", '{"mode": "percent", "passing_score": 0.5}', '{"mode": "numeric", "passing_score": 0.5}'),
        ("NS101", '{"passing_score": 0.5}', '{"mode": "binary"}'),
        (
            "NS102",
            '{"mode": "numeric", "passingScore": 0.5, "passing_score": 0.5}',
            '{"mode": "numeric", "passing_score": 0.5}',
        ),
        (
            "NS103",
            '{"mode": "numeric", "min_score": 5, "max_score": 5, "passing_score": 5}',
            '{"mode": "numeric", "min_score": 4, "max_score": 5, "passing_score": 5}',
        ),
        (
            "NS103",
            '{"mode": "binary", "min_score": 1, "max_score": 0}',
            '{"mode": "binary", "min_score": 0, "max_score": 1}',
        ),
        ("NS104", '{"mode": "numeric", "max_score": 5}', '{"mode": "numeric", "max_score": 5, "passing_score": 3}'),
        (
            "NS105",
            '{"mode": "numeric", "max_score": 1, "passing_score": 4}',
            '{"mode": "numeric", "max_score": 5, "passing_score": 4}',
        ),
        (
            "NS105",
            '{"mode": "numeric", "min_score": 1, "max_score": 5, "passing_score": 0.5}',
            '{"mode": "numeric", "min_score": 0, "max_score": 5, "passing_score": 0.5}',
        ),
        (
            "NS106",
            '{"mode": "numeric", "max_score": 5, "passing_score": 4, "labels": {"high": "good"}}',
            '{"mode": "numeric", "max_score": 5, "passing_score": 4, "labels": {"5": "good"}}',
        ),
        ("NS001", '{"mode": "binary", "passing_score": 4}', '{"mode": "binary", "passing_score": 1}'),
        (
            "NS002",
            '{"mode": "numeric", "max_score": 5, "passing_score": 4, "labels": {"10": "great"}}',
            '{"mode": "numeric", "max_score": 5, "passing_score": 4, "labels": {"5": "great"}}',
        ),
        (
            "NS002",
            '{"mode": "numeric", "max_score": 5, "passing_score": 4, "labels": {"4.5": "good"}}',
            '{"mode": "numeric", "max_score": 1, "passing_score": 0.5, "labels": {"0.5": "ok"}}',
        ),
    ],
)
def test_scoring_checks_trip_on_the_scoring_line(code, scoring, near_miss):
    result = run(judge(scoring))
    assert lines_of(result, code) == [7], [(d.code, d.message) for d in result.diagnostics]
    assert code not in codes(run(judge(near_miss)))


def test_unknown_scoring_key_fix_renames_it():
    text = judge('{"mode": "numeric", "passing_scor": 0.5}')
    result = run(text)
    [diag] = [d for d in result.diagnostics if d.code == "NS102"]
    assert "passing_score" in diag.message and diag.fix is not None
    assert run(apply_edits(text, diag.fix.edits)).diagnostics == []


def test_scoring_mode_typo_gets_a_fix():
    result = run(judge('{"mode": "Numeric", "passing_score": 0.5}'))
    [diag] = [d for d in result.diagnostics if d.code == "NS101"]
    assert diag.fix is not None and diag.fix.edits[0].new_text == '"numeric"'


def test_threshold_with_scoring_is_ignored_and_fix_removes_it():
    text = judge(extra=',\n      "threshold": 0.9')
    result = run(text)
    assert lines_of(result, "NS003") == [9]
    [diag] = [d for d in result.diagnostics if d.code == "NS003"]
    assert run(apply_edits(text, diag.fix.edits)).diagnostics == []
    # Near miss: a threshold without a scoring config is what NorthStar uses.
    no_scoring = judge().replace(
        '      "scoring": {"mode": "numeric", "min_score": 0, "max_score": 5, "passing_score": 4},\n',
        '      "threshold": 0.9,\n',
    )
    assert "NS003" not in codes(run(no_scoring))


def test_temperature_above_zero_warns_with_unsafe_fix():
    result = run(judge(extra=',\n      "temperature": 0.7'))
    assert lines_of(result, "NS004") == [9]
    [diag] = [d for d in result.diagnostics if d.code == "NS004"]
    assert diag.fix is not None and not diag.fix.safe
    assert "NS004" not in codes(run(judge(extra=',\n      "temperature": 0.0')))


def test_temperature_outside_northstar_range_is_an_error():
    assert lines_of(run(judge(extra=',\n      "temperature": 3')), "NS107") == [9]


def test_unknown_grader_key_warns_and_suggests():
    result = run(judge(extra=',\n      "rubirc": "x"'))
    assert lines_of(result, "NS005") == [9]
    assert "NS005" not in codes(
        run(
            judge(extra=',\n      "threshold": 0.5').replace(
                '"scoring": {"mode": "numeric", "min_score": 0, "max_score": 5, "passing_score": 4},\n      ', ""
            )
        )
    )


def test_scoring_key_at_grader_level_is_pointed_out():
    result = run(judge(extra=',\n      "passing_score": 4'))
    [diag] = [d for d in result.diagnostics if d.code == "NS005"]
    assert "inside 'scoring'" in diag.message


REQUEST_SHAPES = [
    ('{"graders": {"type": "rubric"}}\n', 1),
    ('{\n  "graders": [\n    "rubric"\n  ]\n}\n', 3),
]


@pytest.mark.parametrize(("text", "line"), REQUEST_SHAPES)
def test_request_shape(text, line):
    assert lines_of(run(text), "NS100") == [line]


def test_empty_grader_list_is_fine():
    assert run('{"graders": []}\n').diagnostics == []


def test_grader_without_model_or_name():
    text = '{\n  "graders": [\n    {\n      "type": "rubric",\n      "rubric": "x"\n    }\n  ]\n}\n'
    result = run(text)
    assert lines_of(result, "NS107") == [3, 4]  # missing name (the grader), missing model (its type)
    fixed = text.replace('"rubric": "x"', '"rubric": "x", "name": "j", "model": "gpt-4o"')
    assert run(fixed).diagnostics == []


def test_unknown_grader_type_suggests():
    text = '{\n  "graders": [\n    {"type": "rubrik", "name": "j", "model": "m"}\n  ]\n}\n'
    result = run(text)
    [diag] = [d for d in result.diagnostics if d.code == "NS107"]
    assert diag.range.start.line + 1 == 3 and "rubric" in diag.message and diag.fix is not None


def test_code_regex_and_trace_graders_need_their_fields():
    text = (
        '{\n  "graders": [\n'
        '    {"type": "python", "name": "a", "code": "x"},\n'
        '    {"type": "regex", "name": "b", "pattern": "x", "target": "final_response", "flags": []},\n'
        '    {"type": "trace", "name": "c", "check": "unnecesary_tool_loop"}\n'
        "  ]\n}\n"
    )
    result = run(text)
    assert lines_of(result, "NS107") == [3, 5]
    trace = next(d for d in result.diagnostics if d.range.start.line + 1 == 5)
    assert "unnecessary_tool_loop" in trace.message


def test_duplicate_grader_names():
    text = (
        '{\n  "graders": [\n'
        '    {"type": "rubric", "name": "judge", "model": "m", "rubric": "r"},\n'
        '    {"type": "rubric", "name": "judge", "model": "m", "rubric": "r"}\n'
        "  ]\n}\n"
    )
    result = run(text)
    assert lines_of(result, "NS108") == [4]
    assert (
        run(
            text.replace('"judge", "model": "m", "rubric": "r"}\n  ]', '"judge2", "model": "m", "rubric": "r"}\n  ]')
        ).diagnostics
        == []
    )


def test_faithfulness_judge_accepted():
    text = '{"graders": [{"type": "faithfulness", "name": "f", "model": "gpt-4o"}]}\n'
    assert run(text).diagnostics == []


def test_request_view_exposes_graders_with_nodes():
    from rubric_lsp.document import parse_document
    from rubric_lsp.formats.northstar.view import read_request

    doc = parse_document(judge(), PATH)
    view = read_request(doc.root)
    [entry] = view.graders
    assert entry.grader.name == "correctness"
    scoring = entry.grader.effective_scoring()
    assert (scoring.mode, scoring.passing_score, scoring.normalized(4)) == ("numeric", 4.0, 0.8)
    assert doc.range(entry.field_node("model")).start.line == 5


def test_default_scoring_uses_threshold():
    from rubric_lsp.formats.northstar.model import GraderConfig, JudgeScoringConfig

    assert GraderConfig(name="j", model="m").effective_scoring().passing_score == 0.5
    assert GraderConfig(type="faithfulness", name="f", model="m").effective_scoring().passing_score == 0.7
    assert GraderConfig(name="j", model="m", threshold=0.9).effective_scoring().passing_score == 0.9
    assert JudgeScoringConfig(mode="binary", max_score=5).passing_score == 5


SKIP_REQUEST = '{\n  "graders": [\n    {"type": "rubric", "name": "j", "model": "m"},\n    {"type": "faithfulness", "name": "f", "model": "m"}\n  ]\n}\n'


def test_judges_skipped_on_every_sibling_case(tmp_path):
    (tmp_path / "datasets").mkdir()
    (tmp_path / "datasets" / "cases.jsonl").write_text(
        '{"id": "a", "messages": [{"role": "assistant", "content": "hi"}]}\n'
    )
    request = tmp_path / "judges.json"
    request.write_text(SKIP_REQUEST)
    from rubric_lsp.lint import lint_path

    result = lint_path(request)
    assert lines_of(result, "NS006") == [3, 4]
    # Near miss: one case with a goal and context is enough for both judges.
    (tmp_path / "datasets" / "cases.jsonl").write_text(
        '{"id": "a", "messages": [], "expected": {"goal": "greet", "context": "x"}}\n'
    )
    assert "NS006" not in codes(lint_path(request))


def test_threshold_fix_when_it_is_the_first_key():
    text = '{"graders": [{"threshold": 0.8, "type": "rubric", "name": "j", "model": "m", "rubric": "r", "scoring": {"mode": "binary"}}]}\n'
    [diag] = run(text).diagnostics
    assert diag.code == "NS003"
    fixed = apply_edits(text, diag.fix.edits)
    assert fixed.startswith('{"graders": [{"type": "rubric"') and run(fixed).diagnostics == []
