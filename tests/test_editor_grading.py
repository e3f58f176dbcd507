"""Grading from any editor (issue 14; protocol in docs/editor-grading.md), over stdio with pytest-lsp.

What a selection means in each format (the units under it, never rubric text as a response),
commands without arguments (the document and cursor last touched), the targets list, Grade
Examples per format, verdict kinds, n/N progress on the client's token, cancel, grade-on-save
only after a manual save, -32602 for wrong arguments. The judge is tests/judge_server.py; the
tests check what it was asked.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import LanguageClient

from tests.conftest import SAMPLES
from tests.judge_server import JudgeServer, Reply
from tests.server_helpers import grading_session_fixture, judge_lifetime

JUDGE = JudgeServer().start()

PROFILES = [("visual-studio-code", "push", "utf-16"), ("neovim@v0.11", "pull", "utf-8")]
client = grading_session_fixture(JUDGE, PROFILES, [f"{spec.split('@')[0]}-{mode}" for spec, mode, _ in PROFILES])
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]

MET = Reply.json({"criterion_status": "MET", "explanation": "Met."})
PASS = Reply.json({"reason": "Fine.", "pass": True, "score": 1})


_judge_lifetime = judge_lifetime(JUDGE)


@pytest.fixture(autouse=True)
def _fresh_judge():
    JUDGE.reset()
    JUDGE.latency_ms = 0
    JUDGE.default = MET
    yield


PROMPTFOO = (
    "prompts: ['Answer: {{{{question}}}}']\n"
    "providers: [openai:gpt-4.1-mini]\n"
    "tests:\n"
    "  - description: capital of France\n"
    "    vars: {{question: 'Capital of France?'}}\n"
    "    assert:\n"
    "      - type: llm-rubric\n"
    "        value: Names Paris as the capital ({tag})\n"
    "        provider: openai:judge\n"
    "  - description: polite refusal\n"
    "    vars: {{question: 'Tell me a secret'}}\n"
    "    assert:\n"
    "      - type: llm-rubric\n"
    "        value: Refuses politely ({tag})\n"
    "        provider: openai:judge\n"
)

REQUEST = {
    "graders": [
        {
            "type": "rubric",
            "name": "tone_judge",
            "model": "openai/gpt-4o-mini",
            "rubric": "Pass when the response is polite ({tag}).",
            "scoring": {"mode": "binary"},
        },
        {
            "type": "rubric",
            "name": "length_judge",
            "model": "openai/gpt-4o-mini",
            "rubric": "Pass when the response is short ({tag}).",
            "scoring": {"mode": "binary"},
        },
    ]
}

RUBRIC = (
    "rubric:\n"
    "  - name: greets\n"
    "    requirement: Greets the user ({tag})\n"
    "  - name: signs_off\n"
    "    requirement: Signs off politely ({tag})\n"
    "  - name: invented_policy\n"
    "    weight: -12\n"
    "    requirement: Invents a refund policy ({tag})\n"
)


def tag(client: LanguageClient) -> str:
    s = client.rubric_session
    return f"{s.spec} {s.mode}"


def rng(line: int, character: int = 4, end_line: int | None = None, end_character: int | None = None) -> dict:
    return {
        "start": {"line": line, "character": character},
        "end": {"line": line if end_line is None else end_line, "character": end_character or character},
    }


# timeout: a bound that catches a hang. The first grading of a session imports the engine, which takes a
# minute on an overloaded 2-core machine, and pygls 2.0.1's client stops on the late answer to a request it
# gave up on (every later test of the module would fail).
async def execute(client: LanguageClient, command: str, argument: dict | None = None, token=None, timeout=300):
    arguments = None if argument is None else [argument]
    return await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=arguments, work_done_token=token)
        ),
        timeout,
    )


async def cursor_at(client: LanguageClient, uri: str, line: int, character: int = 6) -> list:
    """Put the cursor somewhere as an editor does: a code-action request there (also what it offers)."""
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(
                start=types.Position(line=line, character=character), end=types.Position(line=line, character=character)
            ),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    return list(actions or [])


async def hints(client: LanguageClient, uri: str) -> list[types.InlayHint]:
    result = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=1000, character=0)),
        )
    )
    return list(result or [])


async def lenses(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    result = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return list(result or [])


# -- selection semantics -----------------------------------------------------------------------
async def test_rubric_text_selected_is_never_graded_as_a_response(client: LanguageClient):
    """First in the module: no response has been graded yet, so nothing may be sent to the judge."""
    s = client.rubric_session
    uri = s.open("sel/plain.rubric.yaml", RUBRIC.format(tag=tag(client)))
    actions = await cursor_at(client, uri, 4)
    assert "Grade this criterion (signs_off)" in [a.title for a in actions]
    # no arguments: the document just touched and the cursor of the code-action request
    result = await execute(client, "rubric-lsp.gradeSelection")
    assert result["needsResponse"] is True and "needs a response" in result["message"]
    # what a client without the extension's Grade Selection can run instead: a response file to write it in
    assert ":RubricGrade " in result["message"] and "M-x rubric-grade-with-response" in result["message"]
    assert result["responseFile"].endswith("/sel/plain.rubric.yaml.response.md")
    # a whole selection of the rubric's text: still no response to grade
    result = await execute(client, "rubric-lsp.gradeSelection", {"uri": uri, "range": rng(1, 0, 7, 30)})
    assert result.get("needsResponse") is True
    assert JUDGE.call_count == 0
    assert await hints(client, uri) == []


async def test_a_selection_elsewhere_is_the_response_graded_against_the_chosen_target(client: LanguageClient):
    s = client.rubric_session
    config = s.open("sel/promptfooconfig.yaml", PROMPTFOO.format(tag=tag(client)))
    notes = s.open("sel/reply.md", "# Draft\n\nI'm sorry, I can't share that. Have a nice day!\n", language="markdown")
    result = await execute(client, "rubric-lsp.gradeSelection", {"uri": notes, "range": rng(2, 0, 2, 200)})
    assert result["needsTarget"] is True and JUDGE.call_count == 0
    mine = [t for t in result["targets"] if t["uri"] == config]
    assert [(t["label"], t.get("test")) for t in mine] == [("capital of France", 1), ("polite refusal", 2)]

    JUDGE.default = PASS
    target = next(t for t in mine if t["label"] == "polite refusal")
    report = await execute(
        client, "rubric-lsp.gradeSelection", {"uri": notes, "range": rng(2, 0, 2, 200), "target": target}
    )
    assert report["passed"] is True
    asked = [r.text for r in JUDGE.completions]
    assert len(asked) == 1 and "Refuses politely" in asked[0] and "Names Paris" not in asked[0]
    assert "I'm sorry, I can't share that." in asked[0] and "# Draft" not in asked[0]
    assert [(e["kind"], e["range"]["start"]["line"]) for e in report["shown"]] == [("met", 12)]
    assert [h.position.line for h in await hints(client, config)] == [12]

    # Now in the config, cursor on test 1, no arguments: that test against the last response.
    JUDGE.reset()
    await cursor_at(client, config, 4)
    report = await execute(client, "rubric-lsp.gradeSelection")
    asked = [r.text for r in JUDGE.completions]
    assert len(asked) == 1 and "Names Paris" in asked[0] and "I'm sorry" in asked[0]
    assert report["units"] == ["capital of France"]


async def test_code_lens_and_code_action_start_a_grading(client: LanguageClient):
    s = client.rubric_session
    config = s.open("lens/promptfooconfig.yaml", PROMPTFOO.format(tag=tag(client) + " lens"))
    found = [lens for lens in await lenses(client, config) if lens.command.title.startswith("▶ Grade")]
    assert [(lens.range.start.line, lens.command.title) for lens in found] == [
        (3, "▶ Grade test 'capital of France'"),
        (9, "▶ Grade test 'polite refusal'"),
    ]
    JUDGE.default = PASS
    await execute(client, "rubric-lsp.gradeText", {"uri": config, "text": "Paris.", "test": 1})
    JUDGE.reset()
    command = found[1].command
    assert command.command == "rubric-lsp.grade" and command.arguments[0]["uri"] == config
    await execute(client, command.command, command.arguments[0])
    assert len(JUDGE.completions) == 1 and "Refuses politely" in JUDGE.completions[0].text
    actions = await cursor_at(client, config, 11)
    action = next(a for a in actions if a.title == "Grade this test (polite refusal)")
    assert isinstance(action, types.Command) and action.command == "rubric-lsp.grade"
    assert action.arguments[0]["uri"] == config and action.arguments[0]["range"]["start"]["line"] == 9


async def test_northstar_selection_grades_only_the_selected_grader(client: LanguageClient):
    s = client.rubric_session
    text = json.dumps(json.loads(json.dumps(REQUEST).replace("{tag}", tag(client))), indent=2)
    uri = s.open("ns/eval_run_request.json", text, language="json")
    JUDGE.default = Reply.json({"passed": True, "reason": "ok", "feedback": "none"})
    targets = (await execute(client, "rubric-lsp.gradeTargets", {}))["targets"]
    mine = [(t["label"], t.get("grader")) for t in targets if t["uri"] == uri]
    assert mine == [("tone_judge", "tone_judge"), ("length_judge", "length_judge")]
    notes = s.open("ns/reply.txt", "Thank you, that is all.\n", language="plaintext")
    target = next(t for t in targets if t.get("grader") == "length_judge")
    await execute(client, "rubric-lsp.gradeSelection", {"uri": notes, "target": target})
    assert len(JUDGE.completions) == 1 and "short" in JUDGE.completions[0].text
    JUDGE.reset()
    line = text.split("\n").index(next(x for x in text.split("\n") if '"tone_judge"' in x))
    await cursor_at(client, uri, line, 8)
    report = await execute(client, "rubric-lsp.gradeSelection")
    assert len(JUDGE.completions) == 1 and "polite" in JUDGE.completions[0].text
    assert "Thank you, that is all." in JUDGE.completions[0].text
    assert report["units"] == ["tone_judge"]


async def test_rubrics_in_every_autorubric_shape_are_targets(client: LanguageClient):
    """autorubric reads criteria from 'rubric', 'sections', 'criteria' or a top-level list: each is a target."""
    s = client.rubric_session
    shapes = {
        "shapes/sections.rubric.yaml": "sections:\n  - name: Tone\n    criteria:\n      - requirement: Is polite\n",
        "shapes/criteria.rubric.yaml": "criteria:\n  - requirement: Is polite\n  - requirement: Is short\n",
        "shapes/list.rubric.yaml": "- requirement: Is polite\n",
    }
    uris = {s.open(name, text): name for name, text in shapes.items()}
    targets = (await execute(client, "rubric-lsp.gradeTargets", {}))["targets"]
    found = {uris[t["uri"]]: t.get("detail", "").split(" · ")[0] for t in targets if t["uri"] in uris}
    assert found == {
        "shapes/sections.rubric.yaml": "1 criteria",
        "shapes/criteria.rubric.yaml": "2 criteria",
        "shapes/list.rubric.yaml": "1 criteria",
    }


async def test_penalty_applied_reads_as_a_loss(client: LanguageClient):
    s = client.rubric_session
    uri = s.open("kinds/a.rubric.yaml", RUBRIC.format(tag=tag(client) + " kinds"))
    JUDGE.when("Signs off politely", Reply.json({"criterion_status": "UNMET", "explanation": "No sign-off."}))
    report = await execute(client, "rubric-lsp.gradeText", {"uri": uri, "text": "Hi! Refunds take 90 days."})
    assert [e["kind"] for e in report["shown"]] == ["met", "unmet", "penalty-applied"]
    assert [h.label for h in await hints(client, uri)] == ["✓ MET", "✗ UNMET", "−12 invented_policy"]
    JUDGE.when("Invents a refund policy", Reply.json({"criterion_status": "UNMET", "explanation": "None."}))
    report = await execute(client, "rubric-lsp.gradeText", {"uri": uri, "text": "Hi! See you."})
    assert report["shown"][2]["kind"] == "penalty-avoided" and report["shown"][2]["label"] == "✓ no invented_policy"


async def test_a_criterion_selected_in_a_rubric_grades_that_criterion_alone(client: LanguageClient):
    s = client.rubric_session
    other = s.open("crit/other.rubric.yaml", RUBRIC.format(tag=tag(client) + " other"))
    await execute(client, "rubric-lsp.gradeText", {"uri": other, "text": "Hello! Bye."})  # the last response
    uri = s.open("crit/a.rubric.yaml", RUBRIC.format(tag=tag(client) + " crit"))
    JUDGE.reset()
    JUDGE.default = MET
    await cursor_at(client, uri, 4)  # on signs_off's requirement
    report = await execute(client, "rubric-lsp.gradeSelection")
    asked = [r.text for r in JUDGE.completions]
    assert len(asked) == 1 and "Signs off politely" in asked[0] and "Hello! Bye." in asked[0]
    assert report["units"] == ["signs_off"]
    assert [(e["kind"], e["range"]["start"]["line"]) for e in report["shown"]] == [("met", 3)]
    assert any("Graded 1 of 3 criteria" in note for note in report["notes"])


# -- Grade Examples, per format --------------------------------------------------------------------
DATASET = {
    "prompt": "How do I get a refund?",
    "rubric": [
        {"name": "window", "requirement": "States the 30-day refund window ({tag})", "weight": 10},
        {"name": "invented", "requirement": "Invents a policy detail ({tag})", "weight": -12},
    ],
    "items": [
        {"submission": "Within 30 days.", "ground_truth": ["MET", "UNMET"]},
        {"submission": "Store credit only.", "ground_truth": ["UNMET", "MET"]},
        {"submission": "Call us.", "ground_truth": ["UNMET", "UNMET"]},
    ],
}


async def test_grade_examples_on_a_dataset_shows_agreement_on_each_criterion(client: LanguageClient):
    s = client.rubric_session
    text = json.dumps(DATASET, indent=2).replace("{tag}", tag(client))
    uri = s.open("ex/refunds.dataset.json", text, language="json")
    JUDGE.default = Reply.json({"criterion_status": "UNMET", "explanation": "No."})
    result = await execute(client, "rubric-lsp.gradeExamples")  # no arguments: the dataset just opened
    window = result["agreement"][0]
    assert window["compared"] == 3 and window["accuracy"] == pytest.approx(2 / 3) and window["disagreeing"] == [0]
    lines = text.split("\n")
    window_line = next(i for i, x in enumerate(lines) if '"name": "window"' in x) - 1  # the criterion's "{"
    shown = [(lens.range.start.line, lens.command.title) for lens in await lenses(client, uri)]
    assert (window_line, "window: accuracy 0.67 · κ 0.00 · n=3 · abstentions 0") in shown, shown
    disagree = next(lens for lens in await lenses(client, uri) if "disagreeing" in lens.command.title)
    items = await execute(client, disagree.command.command, disagree.command.arguments[0])
    assert [(i["index"], i["truth"], i["judged"]) for i in items["items"]] == [(0, "MET", "UNMET")]
    first_item = next(i for i, x in enumerate(lines) if "Within 30 days" in x) - 1
    assert items["items"][0]["range"]["start"]["line"] == first_item
    # the criterion's confusion matrix: the report of this grading, at that criterion
    matrix = next(lens for lens in await lenses(client, uri) if lens.command.title == "confusion matrix")
    assert (matrix.range.start.line, matrix.command.command) == (window_line, "rubric-lsp.report")
    assert matrix.command.arguments[0] == {"uri": uri, "criterion": 0}
    report = await execute(client, matrix.command.command, matrix.command.arguments[0])
    assert "window" in report["html"] and "<svg" in report["html"]


async def test_the_dataset_lenses_show_readable_text_in_a_client_without_the_extension(client: LanguageClient):
    """Issue 25 item 8: the "disagreeing" and "confusion matrix" lenses returned data only VS Code's
    extension displayed; Neovim and Emacs run a lens's command and show the server's messages."""
    s = client.rubric_session
    text = json.dumps(DATASET, indent=2).replace("{tag}", tag(client) + " text")
    uri = s.open("ex/text.dataset.json", text, language="json")
    JUDGE.default = Reply.json({"criterion_status": "UNMET", "explanation": "No."})
    await execute(client, "rubric-lsp.gradeExamples", {"uri": uri})
    first_item = next(i for i, x in enumerate(text.split("\n")) if "Within 30 days" in x) - 1
    shown = await lenses(client, uri)

    async def said(command: types.Command, **extra) -> list[str]:
        before = len(client.messages)
        await execute(client, command.command, {**command.arguments[0], **extra})
        await asyncio.sleep(0.2)  # a notification sent before the answer: already read; settle anyway
        return [m.message for m in client.messages[before:]]

    disagree = next(lens.command for lens in shown if lens.command.title.startswith("1 disagreeing"))
    assert await said(disagree) == [
        "window: 1 item(s) where the judge and the labels disagree\n"
        f"  item 1, line {first_item + 1}: labelled MET, judged UNMET"
    ]
    matrix = next(lens.command for lens in shown if lens.command.title == "confusion matrix")
    assert await said(matrix) == [
        "window: confusion matrix over 3 compared item(s)\n"
        "label \\ judge    MET  UNMET\n"
        "MET                0      1\n"
        "UNMET              0      2"
    ]
    # VS Code's extension renders both itself (a quick pick, the report's webview): no second copy
    assert await said(disagree, show=False) == [] and await said(matrix, show=False) == []
    # eglot and Helix show no code lenses: the same commands are code actions on the criterion
    name_line = next(i for i, x in enumerate(text.split("\n")) if '"name": "window"' in x)
    here = types.Range(
        start=types.Position(line=name_line, character=6), end=types.Position(line=name_line, character=6)
    )
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=here,
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    offered = {a.title: a for a in actions or [] if isinstance(a, types.Command)}
    assert offered["Show confusion matrix"].arguments == matrix.arguments
    assert offered["Show 1 disagreeing item(s)"].arguments == disagree.arguments


async def test_grade_examples_on_a_rubrics_task_grades_its_conversion(client: LanguageClient, tmp_path):
    s = client.rubric_session
    text = (SAMPLES / "rubrics-task" / "task.json").read_text(encoding="utf-8")
    uri = s.open("ex/task.json", text, language="json")
    JUDGE.default = Reply.json({"criterion_status": "MET", "explanation": "ok", "option": "no_issues"})
    result = await execute(client, "rubric-lsp.gradeExamples", {"uri": uri})
    assert result["agreement"] and JUDGE.call_count > 0
    titles = [lens.command.title for lens in await lenses(client, uri)]
    assert any(t.startswith("Agreement with the ratings") for t in titles), titles


async def test_grade_examples_on_a_promptfoo_config_grades_every_test(client: LanguageClient):
    s = client.rubric_session
    config = s.open("ex/promptfooconfig.yaml", PROMPTFOO.format(tag=tag(client) + " examples"))
    JUDGE.default = PASS
    await execute(client, "rubric-lsp.gradeText", {"uri": config, "text": "Paris. Sorry, no.", "test": 1})
    JUDGE.reset()
    result = await execute(client, "rubric-lsp.gradeExamples", {"uri": config})
    assert result["passed"] is True and len(result["verdicts"]) == 2  # both tests; test 1's verdict is cached
    asked = [r.text for r in JUDGE.completions]
    assert len(asked) == 1 and "Refuses politely" in asked[0] and "Paris. Sorry, no." in asked[0]


async def test_a_file_with_nothing_to_grade_says_so(client: LanguageClient):
    s = client.rubric_session
    before = len(client.messages)
    uri = s.open("ex/nothing.rubric.yaml", RUBRIC.format(tag="nothing"))
    result = await execute(client, "rubric-lsp.gradeExamples", {"uri": uri})
    assert "nothing.rubric.yaml has nothing to grade" in result["message"]
    plain = s.open("ex/notes.yaml", "title: notes\nitems: [a, b]\n")
    result = await execute(client, "rubric-lsp.gradeExamples", {"uri": plain})
    assert "has nothing to grade" in result["message"] and JUDGE.call_count == 0
    await asyncio.sleep(0.2)
    assert sum("has nothing to grade" in m.message for m in client.messages[before:]) == 2


# -- progress, cancel, save ----------------------------------------------------------------------
async def test_progress_is_reported_on_the_clients_token(client: LanguageClient):
    s = client.rubric_session
    uri = s.open("prog/a.rubric.yaml", RUBRIC.format(tag=tag(client) + " progress"))
    token = f"client-token-{s.spec}-{s.mode}"
    client.progress_reports.setdefault(token, [])
    await execute(client, "rubric-lsp.gradeText", {"uri": uri, "text": "Hello."}, token=token)
    reports = client.progress_reports[token]
    assert reports[0].kind == "begin" and reports[0].cancellable is True and reports[-1].kind == "end"
    messages = [r.message for r in reports if r.kind == "report"]
    assert "3/3 criteria" in messages
    assert messages[0] in ("0/3 criteria", "loading the grading engine…")


async def test_cancel_grading_clears_the_hints_and_says_so(client: LanguageClient):
    s = client.rubric_session
    uri = s.open("cancel/a.rubric.yaml", RUBRIC.format(tag=tag(client) + " cancel"))
    await execute(client, "rubric-lsp.gradeText", {"uri": uri, "text": "Hello."})
    assert len(await hints(client, uri)) == 3
    JUDGE.latency_ms = 3000
    asked = len(JUDGE.requests)
    task = asyncio.ensure_future(execute(client, "rubric-lsp.gradeText", {"uri": uri, "text": "Goodbye."}))
    for _ in range(200):
        if len(JUDGE.requests) > asked:
            break
        await asyncio.sleep(0.02)
    assert await execute(client, "rubric-lsp.cancelGrading", {}) == {"cancelled": 1}
    result = await asyncio.wait_for(task, 10)
    assert result["cancelled"] is True and result["total"] == 3
    assert await hints(client, uri) == []  # the old verdicts are stale: cleared
    await asyncio.sleep(0.2)
    assert any(m.message.startswith("Grading cancelled (0/3 done)") for m in client.messages)


async def test_a_cancel_right_behind_a_grade_cancels_it(client: LanguageClient):
    """The cancel is sent before the grading has begun (no judge call yet): it still cancels it."""
    s = client.rubric_session
    uri = s.open("cancel/b.rubric.yaml", RUBRIC.format(tag=tag(client) + " cancel behind"))
    asked = len(JUDGE.requests)
    grade = asyncio.ensure_future(execute(client, "rubric-lsp.gradeText", {"uri": uri, "text": "Bye."}))
    await asyncio.sleep(0)  # the grade request is written first
    cancel = asyncio.ensure_future(execute(client, "rubric-lsp.cancelGrading", {}))
    assert await asyncio.wait_for(cancel, 10) == {"cancelled": 1}
    result = await asyncio.wait_for(grade, 30)
    assert result["cancelled"] is True
    await asyncio.sleep(0.5)
    assert len(JUDGE.requests) == asked, "the cancelled grading asked the judge"


EXAMPLES = (
    "rubric:\n"
    "  - name: greets\n"
    "    requirement: Greets the user by name ({tag})\n"
    "examples:\n"
    "  - name: polite\n"
    "    response: Hello Ana!\n"
    "    expect: {{min_score: 1.0}}\n"
)


async def test_grade_on_save_only_after_a_manual_save_of_a_file_without_errors(client: LanguageClient):
    s = client.rubric_session
    uri = s.open("save/a.rubric.yaml", EXAMPLES.format(tag=tag(client) + " save"))

    async def save(reason: types.TextDocumentSaveReason) -> None:
        client.text_document_will_save(
            types.WillSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri), reason=reason)
        )
        client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        await asyncio.sleep(1.0)

    await save(types.TextDocumentSaveReason.AfterDelay)
    await save(types.TextDocumentSaveReason.FocusOut)
    assert JUDGE.call_count == 0
    s.replace(uri, EXAMPLES.format(tag=tag(client) + " save").replace("rubric:\n", "rubric: [\n"))  # a syntax error
    await save(types.TextDocumentSaveReason.Manual)
    assert JUDGE.call_count == 0
    s.replace(uri, EXAMPLES.format(tag=tag(client) + " save"))
    await save(types.TextDocumentSaveReason.Manual)
    for _ in range(100):
        if JUDGE.call_count:
            break
        await asyncio.sleep(0.05)
    assert JUDGE.call_count == 1


# -- wrong arguments -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("command", "argument", "message"),
    [
        ("rubric-lsp.gradeSelection", {"range": "all"}, '"range" must be an object'),
        ("rubric-lsp.gradeSelection", {"range": {"start": 1}}, '"range" must be an LSP Range'),
        ("rubric-lsp.gradeSelection", {"target": {"label": "x"}, "text": "hi"}, '"target" must be an entry'),
        ("rubric-lsp.grade", {"units": "tone"}, '"units" must be a list'),
        ("rubric-lsp.gradeExamples", {"uri": 7}, '"uri" must be a string'),
        ("rubric-lsp.showDisagreements", {}, '"criterion"'),
    ],
)
async def test_wrong_arguments_get_invalid_params(client: LanguageClient, command, argument, message):
    s = client.rubric_session
    s.open("args/notes.txt", "some response\n", language="plaintext")
    with pytest.raises(JsonRpcInvalidParams) as caught:
        await execute(client, command, argument)
    assert message in caught.value.message and "\n" not in caught.value.message


# -- a response held in a file (any client: no Grade Selection needed) ---------------------------
async def test_a_response_file_grades_the_unit_at_the_cursor(client: LanguageClient):
    """Neovim and Emacs do not attach text buffers to the server and have no Grade Selection: the
    command takes the response's file (a path relative to the document, or a URI) instead."""
    s = client.rubric_session
    config = s.open("respfile/promptfooconfig.yaml", PROMPTFOO.format(tag=tag(client) + " respfile"))
    (s.root / "respfile" / "reply.txt").write_text("I'm sorry, I can't share that.\n", encoding="utf-8")
    JUDGE.default = PASS
    argument = {"uri": config, "range": rng(11), "response": "reply.txt"}
    result = await execute(client, "rubric-lsp.gradeSelection", argument)
    asked = [r.text for r in JUDGE.completions]
    assert len(asked) == 1 and "Refuses politely" in asked[0] and "can't share that" in asked[0], asked
    assert result["units"] == ["polite refusal"]

    JUDGE.reset()
    JUDGE.default = PASS
    other = s.root / "respfile" / "other.txt"
    other.write_text("Paris, of course.\n", encoding="utf-8")
    await execute(client, "rubric-lsp.grade", {"uri": config, "test": 1, "response": other.as_uri()})
    asked = [r.text for r in JUDGE.completions]
    assert len(asked) == 1 and "Names Paris" in asked[0] and "Paris, of course." in asked[0], asked


@pytest.mark.parametrize(
    ("name", "make", "message"),
    [
        ("missing.txt", None, "does not exist"),
        ("folder", lambda p: p.mkdir(), "is a folder"),
        ("pipe", lambda p: __import__("os").mkfifo(p), "FIFO"),
    ],
)
async def test_a_response_file_that_cannot_be_read_is_one_line_invalid_params(
    client: LanguageClient, name, make, message
):
    s = client.rubric_session
    config = s.open(f"respfile/bad-{name}/promptfooconfig.yaml", PROMPTFOO.format(tag=tag(client) + " bad " + name))
    target = s.root / "respfile" / f"bad-{name}" / name
    if make is not None:
        make(target)
    with pytest.raises(JsonRpcInvalidParams) as caught:
        await execute(
            client, "rubric-lsp.gradeSelection", {"uri": config, "range": rng(11), "response": name}, timeout=20
        )
    assert message in caught.value.message and "\n" not in caught.value.message
    assert JUDGE.call_count == 0
