"""The fix guard and `--fix` safety (issue 13, items 6, 7, 16, 17): each reproduction as a test."""

from __future__ import annotations

import gc
import json
import os
import stat
import weakref
from dataclasses import replace

import pytest

import rubric_lsp.commands.lint as command
import rubric_lsp.fixes as fixes
from rubric_lsp.cli import lint_main
from rubric_lsp.diagnostics import Diagnostic, Fix, Severity
from rubric_lsp.document.issues import TextEdit
from rubric_lsp.document.positions import Span
from rubric_lsp.fixes import fix_until_settled, select_fixes
from rubric_lsp.lint import LintResult, lint_text

ANCHORED = "criteria:\n  - requirement: x\n    label: &a on\n    other: *a\n"
TYPO = "criteria:\n  - requirment: Cites a source\n    weight: 2\n"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = lint_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def relinter(path: str, calls: list | None = None):
    def relint(text: str) -> LintResult:
        if calls is not None:
            calls.append(text)
        return lint_text(text, path)

    return relint


def with_fix(result: LintResult, code: str, edits: list[TextEdit], severity=Severity.INFO) -> LintResult:
    """``result`` with one more (made-up) finding carrying ``edits`` as a safe fix, first in line."""
    lines = result.document.lines
    span = edits[0].span
    extra = Diagnostic(code, severity, f"made-up {code}", span, lines.range(span), fix=Fix("made up", edits))
    return replace(result, diagnostics=[extra, *result.diagnostics])


# -- item 6: the RL005 quoting fix keeps anchors and tags ------------------------------


def test_yaml11_quoting_keeps_the_anchor_so_aliases_still_resolve(tmp_path, capsys):
    path = tmp_path / "a.rubric.yaml"
    path.write_text(ANCHORED)
    run(capsys, "--fix", str(path))
    fixed = path.read_text()
    assert fixed == ANCHORED.replace("&a on", '&a "on"')
    result = lint_text(fixed, str(path))
    assert result.document.readable and not [d for d in result.diagnostics if d.code in ("RL001", "RL005")]


def test_yaml11_quoting_keeps_a_tag_and_an_anchor_on_the_next_line():
    text = "criteria:\n  - requirement: x\n    label: &b !!bool\n      yes\n    other: *b\n"
    diag = next(d for d in lint_text(text, "t.rubric.yaml").diagnostics if d.code == "RL005" and d.fix)
    assert [(text[e.span.start : e.span.end], e.new_text) for e in diag.fix.edits] == [("yes", '"yes"')]


# -- the guard: fixes that break parsing or add findings are dropped, and said so --------


def yes_rows(count: int) -> str:
    """Criteria whose requirement is the YAML 1.1 boolean ``yes``: one RL005 quoting fix each (an
    autorubric file: promptfoo's js-yaml reads YAML 1.2, so RL005 is not reported there)."""
    return "".join(f"  - {{name: c{i}, requirement: yes}}\n" for i in range(count))


def test_a_fix_that_breaks_parsing_is_dropped_and_the_others_applied():
    text = "criteria:\n  - requirement: x\n    name: yes\n"
    base = lint_text(text, "g.rubric.yaml")
    broken = with_fix(base, "ZZ001", [TextEdit(Span(0, 0), "[")])
    outcome = fix_until_settled(broken, relinter("g.rubric.yaml"))
    assert outcome.text == text.replace("name: yes", 'name: "yes"')
    assert [(d.code, d.reason) for d in outcome.dropped] == [("ZZ001", "it would stop the file from parsing")]
    assert outcome.settled and outcome.applied == 1


def test_a_fix_that_adds_a_warning_is_dropped_but_one_adding_info_is_kept():
    text = "criteria:\n  - requirement: x\n    weight: 2\n"
    base = lint_text(text, "w.rubric.yaml")
    at = text.index("requirement")
    bad = with_fix(base, "ZZ002", [TextEdit(Span(at, at + len("requirement")), "requirment")])
    outcome = fix_until_settled(bad, relinter("w.rubric.yaml"))
    assert outcome.text == text
    assert outcome.dropped and outcome.dropped[0].reason.startswith("it would add a finding: AR")


def test_many_fixes_with_one_bad_cost_a_few_relints_and_only_the_bad_one_is_dropped():
    text = "criteria:\n" + yes_rows(64)
    base = lint_text(text, "many.rubric.yaml")
    bad = with_fix(base, "ZZ003", [TextEdit(Span(len(text), len(text)), "  - [\n")])
    calls: list[str] = []
    outcome = fix_until_settled(bad, relinter("many.rubric.yaml", calls))
    assert outcome.applied == 64 and [d.code for d in outcome.dropped] == ["ZZ003"]
    assert outcome.text.count('requirement: "yes"') == 64
    assert len(calls) <= 2 * 8 + 2  # a bisection, not a re-lint per fix


def test_fixes_that_never_settle_stop_after_the_bounded_rounds_and_say_so():
    text = "criteria:\n  - requirement: x\n"
    calls: list[str] = []

    def relint(new: str) -> LintResult:  # every text offers one more harmless fix
        calls.append(new)
        return with_fix(lint_text(new, "s.rubric.yaml"), "ZZ004", [TextEdit(Span(len(new), len(new)), "#\n")])

    start = with_fix(lint_text(text, "s.rubric.yaml"), "ZZ004", [TextEdit(Span(len(text), len(text)), "#\n")])
    outcome = fix_until_settled(start, relint)
    assert not outcome.settled and outcome.unsettled == 1 and outcome.rounds == fixes.MAX_FIX_ROUNDS
    assert len(calls) == fixes.MAX_FIX_ROUNDS


def test_the_cli_names_a_dropped_fix_and_the_file_stays_parseable(tmp_path, capsys, monkeypatch):
    path = tmp_path / "d.rubric.yaml"
    path.write_text(TYPO)
    real = command.lint_text
    first = [True]

    def lint_with_a_bad_fix(data, name, **kwargs):
        result = real(data, name, **kwargs)
        if first[0]:
            first[0] = False
            return with_fix(result, "RL005", [TextEdit(Span(0, 0), "{")], Severity.WARNING)
        return result

    monkeypatch.setattr(command, "lint_text", lint_with_a_bad_fix)
    _code, _out, err = run(capsys, "--fix", str(path))
    assert f"{path}:1:1: RL005 fix not applied: it would stop the file from parsing" in err
    assert lint_text(path.read_text(), str(path)).document.readable


# -- item 17: fix-all is linear; the JSON reporter is not the slow part ----------------


def test_twenty_thousand_fixes_go_in_with_one_relint_a_round():
    text = "criteria:\n" + yes_rows(20000)
    base = lint_text(text, "many.rubric.yaml")
    assert sum(1 for d in base.diagnostics if d.code == "RL005") == 20000
    edits, count = select_fixes(base.diagnostics)
    assert count == 20000 and len(edits) == 20000
    calls: list[str] = []
    outcome = fix_until_settled(base, relinter("many.rubric.yaml", calls))
    assert outcome.applied == 20000 and outcome.settled and len(calls) == 1
    assert outcome.text.count('requirement: "yes"') == 20000


def test_select_fixes_keeps_the_first_of_overlapping_fixes_and_one_insertion_per_point():
    def diag(edits):
        span = edits[0].span
        return Diagnostic("ZZ", Severity.WARNING, "m", span, None, fix=Fix("t", edits))  # type: ignore[arg-type]

    diags = [
        diag([TextEdit(Span(10, 20), "a")]),
        diag([TextEdit(Span(15, 25), "b")]),  # overlaps the first
        diag([TextEdit(Span(20, 20), "c")]),  # touches its end: kept
        diag([TextEdit(Span(20, 20), "d")]),  # a second insertion at 20: left for the next round
        diag([TextEdit(Span(0, 2), "e"), TextEdit(Span(12, 13), "f")]),  # one of its edits overlaps
        diag([TextEdit(Span(30, 32), "g"), TextEdit(Span(31, 33), "h")]),  # overlaps itself
    ]
    edits, count = select_fixes(diags)
    assert count == 2 and [e.new_text for e in edits] == ["a", "c"]


# -- item 7: unwritable files, files changed meanwhile, atomic writes -------------------


def test_a_read_only_file_is_reported_and_the_others_are_still_fixed(tmp_path, capsys):
    locked, other = tmp_path / "a.rubric.yaml", tmp_path / "b.rubric.yaml"
    locked.write_text(TYPO.replace("weight: 2", "name: yes"))
    other.write_text(TYPO.replace("weight: 2", "name: yes"))
    locked.chmod(0o444)
    try:
        code, out, err = run(capsys, "--fix", str(tmp_path))
    finally:
        locked.chmod(0o644)
    assert code == 2
    assert f"{locked}: cannot write the fixes: the file is read-only" in err
    assert locked.read_text() == TYPO.replace("weight: 2", "name: yes")
    assert 'name: "yes"' in other.read_text()
    assert f"{locked}:3:11: RL005" in out  # its findings are still reported
    assert "Traceback" not in err


def test_a_write_that_fails_is_an_error_line_not_the_end_of_the_run(tmp_path, capsys, monkeypatch):
    first, second = tmp_path / "a.rubric.yaml", tmp_path / "b.rubric.yaml"
    for path in (first, second):
        path.write_text("criteria:\n  - requirement: x\n    name: yes\n")
    real = os.replace
    refused = []

    def replace_once(src, dst):
        if not refused:
            refused.append(dst)
            raise PermissionError(13, "Permission denied")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", replace_once)
    code, _out, err = run(capsys, "--fix", str(tmp_path))
    assert code == 2 and "cannot write the fixes: Permission denied" in err
    assert sorted('"yes"' in p.read_text() for p in (first, second)) == [False, True]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left behind


def test_a_file_edited_while_fix_runs_is_left_as_the_user_saved_it(tmp_path, capsys, monkeypatch):
    path = tmp_path / "a.rubric.yaml"
    path.write_text("criteria:\n  - requirement: x\n    name: yes\n")
    saved = "criteria:\n  - requirement: edited meanwhile\n    name: yes\n"
    real = fixes.fix_until_settled

    def slow_fix(*args, **kwargs):
        path.write_text(saved)  # the editor saves while the fixes are computed
        return real(*args, **kwargs)

    monkeypatch.setattr(fixes, "fix_until_settled", slow_fix)
    code, _out, err = run(capsys, "--fix", str(path))
    assert code == 2 and f"{path}: changed on disk since it was read; left as it is" in err
    assert path.read_text() == saved


def test_fixed_files_keep_their_mode_bom_and_line_endings(tmp_path, capsys):
    path = tmp_path / "a.rubric.yaml"
    path.write_bytes(b"\xef\xbb\xbfcriteria:\r\n  - requirement: x\r\n    name: yes\r\n")
    path.chmod(0o640)
    run(capsys, "--fix", str(path))
    assert path.read_bytes() == b'\xef\xbb\xbfcriteria:\r\n  - requirement: x\r\n    name: "yes"\r\n'
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


# -- item 16: results are reported as they come, never kept ---------------------------


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_a_folder_run_keeps_no_result_once_reported(tmp_path, capsys, monkeypatch, fmt):
    for i in range(12):
        (tmp_path / f"r{i}.rubric.yaml").write_text(TYPO if i % 2 else "criteria:\n  - requirement: x\n")
    real = command.lint_text
    alive: list[weakref.ref] = []
    most = [0]

    def counting(*args, **kwargs):
        gc.collect()
        most[0] = max(most[0], sum(1 for ref in alive if ref() is not None))
        result = real(*args, **kwargs)
        alive.append(weakref.ref(result))
        return result

    monkeypatch.setattr(command, "lint_text", counting)
    code, out, _err = run(capsys, "--format", fmt, str(tmp_path))
    assert code == 1 and len(alive) == 12
    assert most[0] <= 1, f"{most[0]} earlier results still held while linting the next file"
    if fmt == "json":
        rows = json.loads(out)
        assert len(rows) >= 6 and {r["path"] for r in rows} == {
            str(tmp_path / f"r{i}.rubric.yaml") for i in (1, 3, 5, 7, 9, 11)
        }
    if fmt == "sarif":
        run_ = json.loads(out)["runs"][0]
        rules = [r["id"] for r in run_["tool"]["driver"]["rules"]]
        assert len(run_["results"]) >= 6 and len(rules) == len(set(rules)) == len(
            {r["ruleId"] for r in run_["results"]}
        )
        assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in run_["results"])


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_machine_formats_are_whole_documents_with_no_findings(tmp_path, capsys, fmt):
    (tmp_path / "ok.rubric.yaml").write_text("criteria:\n  - requirement: x\n")
    code, out, _ = run(capsys, "--format", fmt, str(tmp_path))
    doc = json.loads(out)
    assert code == 0
    assert doc == [] if fmt == "json" else (doc["runs"][0]["results"] == [] and doc["version"] == "2.1.0")


def test_a_bad_fix_in_the_middle_leaves_the_fixes_around_it_at_the_right_places():
    text = "criteria:\n" + yes_rows(40)
    base = lint_text(text, "many.rubric.yaml")
    at = text.index("c20,")
    bad = with_fix(base, "ZZ005", [TextEdit(Span(at, at + 1), "[")])
    order = bad.diagnostics[1:]
    order.insert(20, bad.diagnostics[0])  # halving must shift the later half past the earlier's edits
    outcome = fix_until_settled(replace(bad, diagnostics=order), relinter("many.rubric.yaml"))
    assert [d.code for d in outcome.dropped] == ["ZZ005"] and outcome.applied == 40
    assert outcome.text == text.replace("requirement: yes", 'requirement: "yes"')
