"""Completion reads its probe off the event loop: a key's probe is read in full (~0.13 s in a 1.3 MB config),
and meanwhile the loop answers the other requests (hover, a grading's progress, a cancel)."""

from __future__ import annotations

import asyncio
import threading

from rubric_lsp.server import completion
from rubric_lsp.server.main import build_server
from tests.server_helpers import Responses, in_process_sender

CONFIG = "prompts: [a]\nproviders: [openai:gpt-4.1-mini]\ntests:\n  - vars: {q: x}\n    assert:\n      - type: \n"


async def _complete(line: int, character: int) -> dict:
    ls = build_server()
    responses = Responses()
    ls.protocol.set_writer(responses)

    send = in_process_sender(ls)
    uri = "file:///nowhere/promptfooconfig.yaml"
    send("initialize", {"processId": None, "rootUri": "file:///nowhere", "capabilities": {}}, 1)
    send("initialized", {})
    send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": CONFIG}})
    at = {"line": line, "character": character}
    send("textDocument/completion", {"textDocument": {"uri": uri}, "position": at}, 2)
    for _ in range(600):
        if (answer := responses.answer(2)) is not None:
            ls.lint_pool.shutdown(wait=True)
            return answer
        await asyncio.sleep(0.05)
    raise AssertionError("no answer to the completion request")


def test_the_probe_is_read_off_the_event_loop(monkeypatch):
    threads: list[int] = []
    read = completion.completions

    def spy(*args, **kwargs):
        threads.append(threading.get_ident())
        return read(*args, **kwargs)

    monkeypatch.setattr(completion, "completions", spy)
    answer = asyncio.run(_complete(5, len("      - type: ")))
    labels = [item["label"] for item in answer["result"]["items"]]
    assert "llm-rubric" in labels
    assert threads and threading.get_ident() not in threads  # asyncio.run's loop runs on this thread
