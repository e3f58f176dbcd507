"""End-to-end: every rule's fix as a quick fix, "disable CODE on this line", fix-all."""

from __future__ import annotations

import fnmatch

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from rubric_lsp.fixes import apply_edits
from rubric_lsp.formats.registry import all_rules, get_format
from rubric_lsp.lint import lint_text
from tests.conftest import SAMPLES
from tests.server_helpers import column, session_fixture

client = session_fixture()
pytestmark = pytest.mark.asyncio(loop_scope="module")


def _file_name(format_name: str) -> str | None:
    fmt = get_format(format_name)
    if fmt is None:
        return None
    for pattern in fmt.file_patterns:
        name = pattern.replace("*", "case")
        if fnmatch.fnmatch(name, pattern) and not any(c in name for c in "[]?"):
            return name
    # No file pattern of its own (detected by content): a plain name in its first language.
    return f"case.{fmt.languages[0]}" if fmt.languages else None


def fixable_examples() -> list[tuple[str, str, str]]:
    """(code, file name, text) for every fixable rule whose documented bad example trips it with a fix."""
    found = []
    for rule in all_rules():
        if not rule.fixable or not rule.bad:
            continue
        names = [_file_name(f) for f in rule.formats if f != "*"] or ["case.rubric.yaml", "case.rubric.json"]
        for name in names:
            if name is None:
                continue
            text = rule.bad if rule.bad.endswith("\n") else rule.bad + "\n"
            result = lint_text(text, name, explicit=False)
            if any(d.code == rule.code and d.fix is not None for d in result.diagnostics):
                found.append((rule.code, name, text))
                break
    return found


# Documents for fixable rules whose documented example trips the rule without its fix (the fix
# needs a context the example does not show); every other rule's case is its registry example.
OPTIONS = "    options:\n      - {label: Poor, value: 0}\n      - {label: Good, value: 1}\n"
NS_JUDGE = '{"graders": [{"type": "rubric", "name": "j", "model": "gpt-4o", %s}]}\n'
CASES = {
    "AR104": (
        "case.rubric.yaml",
        "rubric:\n  - requirement: How clear?\n    scale_type: ordinl\n" + OPTIONS,
    ),
    "AR022": (
        "case.rubric.yaml",
        "criteria:\n  - name: polite\n    requirement: Is polite\nexamples:\n  - name: e1\n    respone: Hello\n",
    ),
    "AR023": (
        "case.rubric.yaml",
        "criteria:\n  - name: polite\n    requirement: Is polite\nexamples:\n"
        "  - name: e1\n    response: Hello\n    expect:\n      verdicts: {polit: MET}\n",
    ),
    "NS107": ("judges.json", '{"graders": [{"type": "rubirc", "name": "j", "model": "gpt-4o"}]}\n'),
    "NS101": ("judges.json", NS_JUDGE % '"scoring": {"mode": "numerc"}'),
}


# Our own sample (samples/rubrics-task), so the case exists on a clone without ../shared.
TASK_SAMPLE = SAMPLES / "rubrics-task" / "task.json"
# Rubrics task: the sample with one mistake each (first occurrence replaced).
TASK_MUTATIONS = {
    "RT101": ('"value": "minor_issues"', '"value": "minor_issue"'),
    "RT100": ('"status": "completed"', '"status": "complted"'),
}
_task = TASK_SAMPLE.read_text(encoding="utf-8")
for _code, (_old, _new) in TASK_MUTATIONS.items():
    assert _old in _task, f"{TASK_SAMPLE} no longer contains {_old}: pick another mistake for {_code}"
    CASES[_code] = ("task.json", _task.replace(_old, _new, 1))


def all_examples() -> list[tuple[str, str, str]]:
    found = {code: (code, name, text) for code, name, text in fixable_examples()}
    for code, (name, text) in CASES.items():
        if code not in found:
            found[code] = (code, name, text)
    return sorted(found.values())


EXAMPLES = all_examples()


async def _actions(client: LanguageClient, uri: str, diag: types.Diagnostic, only=None) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag], only=only),
        )
    )
    return [a for a in result or [] if isinstance(a, types.CodeAction)]  # not the "Grade this …" commands


async def test_every_fixable_rule_has_a_case_that_trips_it():
    # Each fixable rule must be exercised below through the server, so a rule whose fix
    # cannot be reached from a real document shows up here instead of being skipped.
    covered = set()
    for code, name, text in EXAMPLES:
        result = lint_text(text, name, explicit=False)
        if any(d.code == code and d.fix is not None for d in result.diagnostics):
            covered.add(code)
    # The smell rules' fixes (RL301's split) come in the editor's second publish: tests/test_server_smells.py.
    fixable = {r.code for r in all_rules() if r.fixable and not r.code.startswith("RL3")}
    assert fixable - covered == set()


def _without_smells(found: list[types.Diagnostic]) -> list[types.Diagnostic]:
    """The editor's findings less the smell rules' (docs/smells.md: on in the editor, and published after the
    lint's own findings, so a read may come before or after them): what ``lint_text`` reports by default."""
    return [d for d in found if not str(d.code).startswith("RL3")]


@pytest.mark.parametrize("code,name,text", EXAMPLES, ids=[e[0] for e in EXAMPLES])
async def test_quick_fix_applies_and_relints_clean(client: LanguageClient, code: str, name: str, text: str):
    s = client.rubric_session
    uri = s.open(f"fix-{code}/{name}", text)
    path = str(s.root / f"fix-{code}" / name)
    for _round in range(10):
        fixable = [
            d for d in lint_text(s.texts[uri], path, explicit=False).diagnostics if d.code == code and d.fix is not None
        ]
        if not fixable:
            break
        target = fixable[0]
        line = s.texts[uri].split("\n")[target.range.start.line]
        start = column(line, target.range.start.character, s.encoding)
        diags = [
            d
            for d in await s.diagnostics(uri)
            if d.code == code and (d.range.start.line, d.range.start.character) == (target.range.start.line, start)
        ]
        assert diags, f"{code} not reported at {target.range.start} in the client's encoding"
        actions = [
            a
            for a in await _actions(client, uri, diags[0])
            if a.kind == types.CodeActionKind.QuickFix and f"({code})" in a.title and a.edit is not None
        ]
        assert actions, f"no quick fix offered for {code}"
        assert actions[0].is_preferred == target.fix.safe
        expected = apply_edits(s.texts[uri], target.fix.edits)
        new_text = await s.apply(uri, actions[0].edit)
        assert new_text == expected  # the LSP edit is the rule's edit, in the client's encoding
    else:
        raise AssertionError(f"{code} still fixable after 10 rounds")
    # re-linted: what the server reports now is what the linter says about the fixed text,
    # and nothing fixable of this rule is left
    after = _without_smells(await s.diagnostics(uri))
    core = lint_text(s.texts[uri], path, explicit=False).diagnostics
    assert sorted(str(d.code) for d in after) == sorted(d.code for d in core)
    assert not [d for d in core if d.code == code and d.fix is not None]


async def test_disable_on_this_line(client: LanguageClient):
    s = client.rubric_session
    text = "rubric:\n  - requirement: Says bonjour ✓ é\n    weight: [1]\n"
    uri = s.open("disable/a.rubric.yaml", text)
    diag = next(d for d in await s.diagnostics(uri) if d.code == "AR104")
    action = next(a for a in await _actions(client, uri, diag) if a.title == "Disable AR104 on this line")
    new_text = await s.apply(uri, action.edit)
    assert new_text.split("\n")[2] == "    weight: [1]  # rubric-lint: disable=AR104"
    assert [d.code for d in await s.diagnostics(uri)] == []


async def test_disable_extends_an_existing_directive(client: LanguageClient):
    s = client.rubric_session
    text = "rubric:\n  - requirement: ok\n    weight: [1]  # rubric-lint: disable=AR001\n"
    uri = s.open("disable/c.rubric.yaml", text)
    diag = next(d for d in await s.diagnostics(uri) if d.code == "AR104")
    action = next(a for a in await _actions(client, uri, diag) if a.title == "Disable AR104 on this line")
    new_text = await s.apply(uri, action.edit)
    assert new_text.split("\n")[2] == "    weight: [1]  # rubric-lint: disable=AR001,AR104"
    assert await s.diagnostics(uri) == []


async def test_disable_not_offered_inside_a_multiline_scalar_or_json(client: LanguageClient):
    s = client.rubric_session
    # a comment at the end of line 3 would become part of the quoted string
    uri = s.open("disable/m.rubric.yaml", 'rubric:\n  - requirement: ok\n    weight: "three\n      four"\n')
    diag = next(d for d in await s.diagnostics(uri) if d.code == "AR104")
    assert diag.range.start.line == 2
    assert not [a for a in await _actions(client, uri, diag) if a.title.startswith("Disable")]
    uri = s.open("disable/b.rubric.json", '{"rubric": [{"requirement": "ok", "weight": [1]}]}\n', language="json")
    diag = next(d for d in await s.diagnostics(uri) if d.code == "AR104")
    assert not [a for a in await _actions(client, uri, diag) if a.title.startswith("Disable")]


async def test_fix_all(client: LanguageClient):
    s = client.rubric_session
    if not EXAMPLES:
        pytest.skip("no fixable rules")
    text = "rubric:\n  - requirment: Says hello\n    weight: 2\n  - requirement: Says bye\n    wieght: 3\n"
    uri = s.open("fixall/a.rubric.yaml", text)
    before = await s.diagnostics(uri)
    assert [d.code for d in before].count("AR001") == 2 or len(before) >= 2
    actions = await _actions(client, uri, before[0], only=["source.fixAll.rubric"])
    assert [a.kind for a in actions] == ["source.fixAll.rubric"]
    new_text = await s.apply(uri, actions[0].edit)
    assert "requirement: Says hello" in new_text and "weight: 3" in new_text
    remaining = _without_smells(await s.diagnostics(uri))
    core = lint_text(new_text, "a.rubric.yaml", explicit=False)
    assert not [d for d in core.diagnostics if d.fix is not None and d.fix.safe]
    assert len(remaining) == len(core.diagnostics)


async def test_fix_all_keeps_anchors_and_adds_no_finding(client: LanguageClient):
    """The editor's fix-all goes through the same guard as --fix (issue 13, items 6 and 8)."""
    s = client.rubric_session
    text = "criteria:\n  - requirment: x\n    label: &a on\n    other: *a\n"
    uri = s.open("fixall/anchored.rubric.yaml", text)
    before = await s.diagnostics(uri)
    actions = await _actions(client, uri, before[0], only=["source.fixAll.rubric"])
    assert [a.kind for a in actions] == ["source.fixAll.rubric"]
    new_text = await s.apply(uri, actions[0].edit)
    assert 'label: &a "on"' in new_text and "other: *a" in new_text
    old = lint_text(text, "anchored.rubric.yaml", explicit=False)
    new = lint_text(new_text, "anchored.rubric.yaml", explicit=False)
    assert new.document.readable
    serious = {(d.code, d.message) for d in old.diagnostics if d.severity <= 2}
    assert all((d.code, d.message) in serious for d in new.diagnostics if d.severity <= 2)
