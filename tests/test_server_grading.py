"""End-to-end: grading from the editor against a judge on 127.0.0.1.

Inlay hints, code lenses, hovers and expectation diagnostics after rubric-lsp.gradeText /
gradeDocument; cancel mid-grade; other requests answered while criteria are judged;
grade-on-save through the verdict cache. The judge is tests/judge_server.py, reached
through litellm's real HTTP client inside the server process.
"""

from __future__ import annotations

import asyncio
import threading

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.judge_server import JudgeServer, Reply
from tests.server_helpers import column, grading_session_fixture, judge_lifetime

JUDGE = JudgeServer().start()  # one per module: its address goes into the servers' settings

GRADING_PROFILES = [
    ("visual-studio-code", "push", "utf-16"),
    ("neovim@v0.11", "pull", "utf-8"),
    ("emacs@v29.1", "push", "utf-32"),
]
client = grading_session_fixture(
    JUDGE, GRADING_PROFILES, [f"{spec.split('@')[0]}-{mode}-{enc}" for spec, mode, enc in GRADING_PROFILES]
)
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]


_judge_lifetime = judge_lifetime(JUDGE)


@pytest.fixture(autouse=True)
def _fresh_judge():
    JUDGE.reset()
    JUDGE.latency_ms = 0
    JUDGE.default = Reply.json({"criterion_status": "MET", "explanation": "The response meets the criterion."})
    yield


RUBRIC = (
    "rubric:\n"
    '  - {name: "Café 🎉 greeting", weight: 8, requirement: "Greets the user warmly"}\n'
    "  - name: sign-off\n"
    "    weight: 2\n"
    "    requirement: Signs off politely\n"
    "  - name: sources\n"
    "    requirement: Cites a source for every claim\n"
)


async def execute(client: LanguageClient, command: str, argument: dict, timeout: float = 90):
    return await asyncio.wait_for(
        client.workspace_execute_command_async(types.ExecuteCommandParams(command=command, arguments=[argument])),
        timeout,
    )


async def hints(client: LanguageClient, uri: str) -> list[types.InlayHint]:
    result = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=1000, character=0)),
        )
    )
    return list(result or [])


async def lenses(client: LanguageClient, uri: str) -> list[str]:
    """The verdict lenses (not the "▶ Grade" lenses that start a grading)."""
    result = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return [lens.command.title for lens in result or [] if not lens.command.title.startswith("▶")]


def tagged(s, text: str) -> str:
    """The rubric with requirements of this profile's own: servers share the module's verdict cache."""
    tag = f"{s.spec} {s.mode}"
    return text.replace("    requirement: ", f"    requirement: ({tag}) ").replace(
        'requirement: "', f'requirement: "({tag}) '
    )


def end_of_line(s, text: str, line: int) -> int:
    return column(text.split("\n")[line], len(text.split("\n")[line]), s.encoding)


async def test_grade_text_shows_verdicts_inline(client: LanguageClient):
    s = client.rubric_session
    JUDGE.when(
        "Signs off politely", Reply.json({"criterion_status": "UNMET", "explanation": "It just stops; no sign-off."})
    )
    JUDGE.when(
        "Cites a source", Reply.json({"criterion_status": "CANNOT_ASSESS", "explanation": "No claims to check."})
    )
    text = tagged(s, RUBRIC)
    uri = s.open("grade/a.rubric.yaml", text)
    report = await execute(
        client, "rubric-lsp.gradeText", {"uri": uri, "text": "Hello there, friend!", "query": "Say hi"}
    )
    # skip strategy: CANNOT_ASSESS leaves 'sources' out; 8 of 10 → 0.8
    assert report["score"] == pytest.approx(0.8)
    assert [v["verdict"] for v in report["verdicts"]] == ["MET", "UNMET", "CANNOT_ASSESS"]
    shown = await hints(client, uri)
    assert [h.label for h in shown] == ["✓ MET", "✗ UNMET", "? CANNOT_ASSESS"]
    # after each criterion's first line, in the client's encoding (line 1 has é and an emoji)
    assert [(h.position.line, h.position.character) for h in shown] == [
        (1, end_of_line(s, text, 1)),
        (2, end_of_line(s, text, 2)),
        (5, end_of_line(s, text, 5)),
    ]
    assert "It just stops; no sign-off." in shown[1].tooltip.value
    assert [t for t in await lenses(client, uri)] == ["Graded: score 0.80"]
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=4, character=6)
        )
    )
    assert "It just stops; no sign-off." in hover.contents.value
    assert JUDGE.call_count == 3
    JUDGE.assert_never_saw("x-secret-never-sent")

    await execute(client, "rubric-lsp.clearVerdicts", {"uri": uri})
    assert await hints(client, uri) == [] and await lenses(client, uri) == []


async def test_verdicts_follow_edits_and_an_edited_criterion_loses_its_verdict(client: LanguageClient):
    s = client.rubric_session
    JUDGE.when("Signs off politely", Reply.json({"criterion_status": "UNMET", "explanation": "No sign-off."}))
    text = tagged(s, RUBRIC)
    uri = s.open("grade/follow.rubric.yaml", text)
    await execute(client, "rubric-lsp.gradeText", {"uri": uri, "text": "Hello there, friend!"})
    assert [(h.position.line, h.label) for h in await hints(client, uri)] == [
        (1, "✓ MET"),
        (2, "✗ UNMET"),
        (5, "✓ MET"),
    ]

    edited = "# reviewed by the team\n\n" + text.replace("Signs off politely", "Signs off warmly")
    s.replace(uri, edited)
    shown = await hints(client, uri)
    # two lines above moved everything down; the sign-off criterion was edited: its verdict is gone
    assert [(h.position.line, h.label) for h in shown] == [(3, "✓ MET"), (7, "✓ MET")]
    assert [h.position.character for h in shown] == [end_of_line(s, edited, 3), end_of_line(s, edited, 7)]
    assert len(await lenses(client, uri)) == 1
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=8, character=6)
        )
    )
    assert "The response meets the criterion." in hover.contents.value  # the sources verdict, on its new line

    # an incremental change (how VS Code and Neovim send edits): delete the two added lines
    s.versions[uri] += 1
    s.texts[uri] = "\n".join(edited.split("\n")[2:])
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=s.versions[uri]),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=0, character=0), end=types.Position(line=2, character=0)
                    ),
                    text="",
                )
            ],
        )
    )
    assert [(h.position.line, h.label) for h in await hints(client, uri)] == [(1, "✓ MET"), (5, "✓ MET")]


EXAMPLES_RUBRIC = (
    "rubric:\n"
    "  - name: greets\n"
    "    requirement: Greets the user by name\n"
    "  - name: concise\n"
    "    requirement: Is at most two sentences long\n"
    "examples:\n"
    "  - name: polite\n"
    "    response: Hello Ana! Bye.\n"
    "    expect: {min_score: 1.0}\n"
    "  - name: rambling\n"
    "    response: Hello Ana. Let me tell you a long story. It goes on. And on.\n"
    "    expect: {min_score: 0.9, verdicts: {concise: MET}}\n"
)


async def grading_diagnostics(s, uri: str) -> list[types.Diagnostic]:
    for _ in range(100):
        found = [
            d
            for d in await s.diagnostics(uri)
            if d.severity == types.DiagnosticSeverity.Information and d.code == "grading"
        ]
        if found:
            return found
        await asyncio.sleep(0.05)
    return []


async def test_grade_document_checks_expectations(client: LanguageClient):
    s = client.rubric_session
    JUDGE.when(
        lambda r: "at most two sentences long" in r.text and "long story" in r.text,
        Reply.json({"criterion_status": "UNMET", "explanation": "Four sentences."}),
    )
    uri = s.open("grade/b.rubric.yaml", EXAMPLES_RUBRIC)
    result = await execute(client, "rubric-lsp.gradeDocument", {"uri": uri})
    assert [e["met"] for e in result["examples"]] == [True, False]
    titles = await lenses(client, uri)
    assert titles == ["polite: score 1.00 ✓ as expected", "rambling: score 0.50 ✗ expectation not met"]
    raw = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    raw = [lens for lens in raw if not lens.command.title.startswith("▶")]
    assert raw[0].range.start.line == 6 and raw[1].range.start.line == 9  # on each example
    assert raw[0].command.command == "rubric-lsp.gradeDocument" and list(raw[0].command.arguments) == [{"uri": uri}]
    # one hint per example and criterion (never merged), and the failed expectation on its `expect` line
    shown = sorted((h.position.line, h.label) for h in await hints(client, uri))
    assert shown == [
        (1, "polite: ✓ MET"),
        (1, "rambling: ✓ MET"),
        (3, "polite: ✓ MET"),
        (3, "rambling: ✗ UNMET"),
        (11, "rambling: ✗ expectation not met"),
        (11, "rambling: ✗ expectation not met"),
    ]
    assert [e["kind"] for e in result["shown"] if e.get("example") == "rambling"] == [
        "met",
        "unmet",
        "expectation-failed",
        "expectation-failed",
    ]
    found = await grading_diagnostics(s, uri)
    assert len(found) == 2 and all(d.range.start.line == 11 for d in found)
    # on the entries that failed: `min_score: 0.9` and `concise: MET`
    line = EXAMPLES_RUBRIC.split("\n")[11]
    starts = sorted(d.range.start.character for d in found)
    assert starts == [column(line, line.index("0.9"), s.encoding), column(line, line.index("concise"), s.encoding)]
    assert any("rambling" in d.message for d in found)


def held_judge() -> threading.Event:
    """Every judge call waits unanswered until the returned event is set (set it in a ``finally``):
    what a test sees meanwhile cannot have waited for the judge, however slow the machine."""
    release = threading.Event()
    met = Reply.json({"criterion_status": "MET", "explanation": "The response meets the criterion."})

    def hold(request) -> Reply:
        release.wait(120)  # a bound that ends a failed test's hold, never a wait the test counts on
        return met

    JUDGE.default = hold
    return release


async def until(condition, what: str) -> None:
    """Poll ``condition`` until true; the 60 s bound catches a hang, not a slow machine."""
    for _ in range(3000):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"not within 60 s: {what}")


async def test_cancel_mid_grade(client: LanguageClient):
    s = client.rubric_session
    release = held_judge()
    try:
        text = tagged(s, RUBRIC.replace("Greets the user warmly", "Greets the user kindly"))
        uri = s.open("grade/c.rubric.yaml", text)
        before = set(client.progress_reports)
        task = asyncio.ensure_future(execute(client, "rubric-lsp.gradeText", {"uri": uri, "text": "Hi"}))

        def fresh() -> list:
            return [t for t in client.progress_reports if t not in before and client.progress_reports[t]]

        await until(fresh, "progress reported")
        await until(lambda: JUDGE.call_count == 3, "the three judge calls sent (and held)")  # mid-grade
        token = fresh()[0]
        assert client.progress_reports[token][0].cancellable is True
        client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
        result = await asyncio.wait_for(task, 60)
        # Cancelled while the judge still held every call: the cancel did not wait for an answer.
        assert result == {"cancelled": True, "done": 0, "total": 3}
    finally:
        release.set()
    assert await hints(client, uri) == []
    # the server is still fine
    assert await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )


async def test_requests_answer_quickly_while_grading(client: LanguageClient):
    s = client.rubric_session
    text = tagged(
        s,
        "rubric:\n" + "".join(f"  - name: c{i}\n    requirement: Mentions point {i} in slow mode\n" for i in range(8)),
    )
    uri = s.open("grade/d.rubric.yaml", text)
    await s.diagnostics(uri)
    release = held_judge()
    try:
        task = asyncio.ensure_future(execute(client, "rubric-lsp.gradeText", {"uri": uri, "text": "Points 1 to 8."}))
        await until(lambda: JUDGE.max_in_flight >= 4, "four judge calls in flight")
        for i in range(8):
            hover = client.text_document_hover_async(
                types.HoverParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    position=types.Position(line=1 + 2 * (i % 8), character=6),
                )
            )
            await asyncio.wait_for(hover, 60)
        # Every hover was answered while the judge held every call: none waited for the grading.
        assert not task.done()
    finally:
        release.set()
    report = await task
    assert len(report["verdicts"]) == 8


async def test_judge_failure_shows_a_warning_and_the_server_survives(client: LanguageClient):
    s = client.rubric_session
    JUDGE.default = Reply.text("I would rather not say.")  # no verdict in the reply: a parse failure
    JUDGE.when("Greets", Reply.json({"criterion_status": "MET", "explanation": "ok"}))
    if s.spec == "visual-studio-code":  # HTTP 500s are retried for seconds: one profile is enough
        JUDGE.when("Cites a source", Reply.server_error(status=500))
    uri = s.open("grade/e.rubric.yaml", tagged(s, RUBRIC.replace("warmly", "at all")))
    report = await execute(client, "rubric-lsp.gradeText", {"uri": uri, "text": "Hi"})
    labels = [h.label for h in await hints(client, uri)]
    assert labels[0] == "✓ MET" and labels[1:] == ["⚠ judge error", "⚠ judge error"]
    assert report["verdicts"][1]["error"].startswith("parse")
    expected = "infrastructure" if s.spec == "visual-studio-code" else "parse"
    assert report["verdicts"][2]["error"].startswith(expected)
    tooltip = (await hints(client, uri))[1].tooltip.value
    assert "Judge error" in tooltip and "counted as" in tooltip


async def test_grade_on_save_uses_the_cache(client: LanguageClient):
    s = client.rubric_session
    # criteria of their own, so no verdict is in the cache from the tests above
    text = tagged(
        s, EXAMPLES_RUBRIC.replace("by name", "by their name").replace("two sentences", "two short sentences")
    )
    uri = s.open("grade/f.rubric.yaml", text)

    async def save_and_wait(expected_calls: int) -> None:
        client.text_document_will_save(
            types.WillSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=uri), reason=types.TextDocumentSaveReason.Manual
            )
        )
        client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        for _ in range(600):
            titles = await lenses(client, uri)
            if titles and JUDGE.call_count >= expected_calls and saved_count() > seen:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"no grading after save; {JUDGE.call_count} calls, lenses {titles}")

    def saved_count() -> int:
        return sum(1 for r in client.progress_reports.values() for v in r if getattr(v, "kind", "") == "end")

    seen = saved_count()
    await save_and_wait(4)  # 2 examples × 2 criteria
    assert JUDGE.call_count == 4
    seen = saved_count()
    await save_and_wait(4)  # unchanged: every verdict from the cache
    assert JUDGE.call_count == 4
    # change one criterion: only its 2 judgments are new
    changed = text.replace("at most two short sentences long", "at most three short sentences long")
    s.replace(uri, changed)
    seen = saved_count()
    await save_and_wait(6)
    assert JUDGE.call_count == 6


PROMPTFOO = (
    "prompts: ['Answer: {{question}}']\n"
    "providers: [openai:gpt-4.1-mini]\n"
    "tests:\n"
    "  - description: capital ✓\n"
    "    vars: {question: 'Capital of France?'}\n"
    "    assert:\n"
    "      - type: llm-rubric\n"
    "        value: Names Paris as the capital ({tag})\n"
    "        provider: openai:judge\n"
    "      - type: select-best\n"
    "        value: Names Paris\n"
)


REFUND_CONFIG = (
    "prompts: ['Reply to: {{q}}']\n"
    "providers: [openai:gpt-4.1-mini]\n"
    "tests:\n"
    "  - vars: {q: where is my money}\n"
    "    assert:\n"
    "      - type: icontains\n"
    "        value: REFUND\n"
    "      - type: llm-rubric\n"
    "        value: Is polite ({tag})\n"
    "        provider: openai:judge\n"
)


async def test_inline_grading_counts_a_failing_deterministic_assertion_and_refuses_unknown_types(
    client: LanguageClient,
):
    """Issue 25: the lens is promptfoo's result (a failing icontains fails the test) and icontains has its verdict."""
    s = client.rubric_session
    JUDGE.default = Reply.json({"reason": "Polite.", "pass": True, "score": 0.9})
    uri = s.open("grade/refund/promptfooconfig.yaml", REFUND_CONFIG.replace("{tag}", f"{s.spec} {s.mode}"))
    report = await execute(client, "rubric-lsp.gradeText", {"uri": uri, "text": "We are sorry.", "test": 1})
    assert report["passed"] is False and report["tests"][0]["passed"] is False, report
    shown = await hints(client, uri)
    assert [(h.position.line, h.label) for h in shown] == [(5, "✗ FAIL"), (7, "✓ PASS")]
    assert 'Expected output to contain "REFUND"' in shown[0].tooltip.value
    titles = await lenses(client, uri)
    assert titles[0] == "Graded: score 0.45 ✗ failed", titles
    unknown = REFUND_CONFIG.replace("icontains", "not-empty").replace("{tag}", f"{s.spec} {s.mode} unknown")
    uri = s.open("grade/refund-unknown/promptfooconfig.yaml", unknown)
    calls = JUDGE.call_count
    refused = await execute(client, "rubric-lsp.gradeText", {"uri": uri, "text": "We are sorry.", "test": 1})
    assert "PF100 Unknown assertion type 'not-empty'" in refused["error"] and JUDGE.call_count == calls


async def test_grade_text_on_a_promptfoo_config_marks_the_assertion(client: LanguageClient):
    s = client.rubric_session
    JUDGE.default = Reply.json({"reason": "Paris is named.", "pass": True, "score": 1})
    text = PROMPTFOO.replace("{tag}", f"{s.spec} {s.mode}")
    uri = s.open("grade/promptfooconfig.yaml", text)
    report = await execute(client, "rubric-lsp.gradeText", {"uri": uri, "text": "It is Paris.", "test": 1})
    assert report.get("passed") is True, report
    shown = await hints(client, uri)
    assert [(h.position.line, h.label) for h in shown] == [(6, "✓ PASS")]
    assert "Paris is named." in shown[0].tooltip.value
    titles = await lenses(client, uri)
    assert titles[0].startswith("Graded: score 1.00") and any(
        "'select-best' is not part of a test's result" in t for t in titles[1:]
    )
