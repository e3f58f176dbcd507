"""The server imports litellm ahead (after start-up, once the editor is quiet) only where its judges are
called through it: a server grading against a local judge that takes the direct route never imports it
(seconds of CPU and ~170 MB, on every editor start). The server's modules are read at its exit through a
``sitecustomize`` on its path."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from rubric_lsp.engine import JudgeSettings
from rubric_lsp.engine.transports.direct import needs_litellm
from tests.judge_server import Reply
from tests.raw_client import RawClient, open_doc

RUBRIC = "rubric:\n  criteria:\n    - {name: polite, requirement: Is polite, weight: 1}\n"
LOCAL = "http://127.0.0.1:9/v1"
RECORD_MODULES = """
import atexit, json, os, sys
atexit.register(lambda: open(os.environ["RUBRIC_TEST_MODULES"], "w").write(json.dumps(sorted(sys.modules))))
"""


@pytest.mark.parametrize(
    ("settings", "needed"),
    [
        (JudgeSettings(model="openai/judge", api_base=LOCAL, env={}), False),  # the direct route
        (JudgeSettings(env={}), False),  # no judge and no key: no call can be made yet
        (JudgeSettings(model="openai/gpt-4o-mini", env={}), False),  # no key: refused before any call
        (JudgeSettings(model="openai/gpt-4o-mini", env={"OPENAI_API_KEY": "k"}), True),  # a hosted judge
        (JudgeSettings(model="openai/gpt-4o-mini", api_base=LOCAL, env={}), True),  # priced: litellm's route
        # a panel needs litellm when any of its judges does
        (JudgeSettings(model="openai/judge", models=["anthropic/claude-3-5-haiku"], api_base=LOCAL, env={}), False),
        (
            JudgeSettings(
                model="openai/judge",
                models=["anthropic/claude-3-5-haiku"],
                api_base=LOCAL,
                env={"ANTHROPIC_API_KEY": "k"},
            ),
            True,
        ),
    ],
)
def test_litellm_is_needed_only_where_a_judge_is_called_through_it(settings, needed, monkeypatch):
    monkeypatch.delenv("RUBRIC_JUDGE_TRANSPORT", raising=False)
    assert needs_litellm(settings) is needed


def _recording_modules(tmp_path: Path, warm_up_idle: str) -> tuple[dict[str, str], Path]:
    """A server's environment that writes the modules it loaded to the returned file at its exit, and the
    quiet it waits for before warming up."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(RECORD_MODULES)
    modules = tmp_path / "modules.json"
    environ = {
        "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
        "RUBRIC_TEST_MODULES": str(modules),
        "RUBRIC_LSP_WARM_UP_IDLE": warm_up_idle,
    }
    return environ, modules


def _grade_in_a_server(tmp_path: Path, judge_server, env: dict[str, str]) -> tuple[dict, list[str]]:
    """Start a server whose judge is ``judge_server``, let it be quiet well past the warm-up's wait, grade a
    response, stop it: its answer and the modules it had loaded."""
    environ, modules = _recording_modules(tmp_path, "0.1")
    environ.update({"RUBRIC_CACHE_DIR": str(tmp_path / "cache"), **env})
    judge = {"model": "openai/judge", "apiBase": judge_server.base_url}
    client = RawClient(tmp_path, env=environ)
    try:
        client.initialize(tmp_path, {"rubric": {"judge": judge}})
        uri = open_doc(client, tmp_path, RUBRIC)
        client.pump_until(lambda: uri in client.published, timeout=60)
        time.sleep(1.0)  # quiet for ten times the warm-up's wait: a server that would warm up has started
        answer = client.request(
            "workspace/executeCommand",
            {"command": "rubric-lsp.gradeText", "arguments": [{"uri": uri, "text": "Hello, happy to help."}]},
        )
    finally:
        client.close()
    return answer["result"], json.loads(modules.read_text())


def test_a_server_grading_against_a_local_judge_never_imports_litellm(tmp_path, judge_server, monkeypatch):
    monkeypatch.delenv("RUBRIC_JUDGE_TRANSPORT")  # the judge_server fixture sends grading through litellm
    judge_server.default = Reply.json({"criterion_status": "MET", "explanation": "polite"})
    result, modules = _grade_in_a_server(tmp_path, judge_server, {})
    assert result["score"] == 1.0 and judge_server.call_count == 1, result
    assert "rubric_lsp.engine.transports.direct" in modules
    assert "litellm" not in modules
    # Quiet, it loaded every format's rules, not only those of the rubric it had open.
    assert {f"rubric_lsp.formats.{name}.rules" for name in ("northstar", "promptfoo", "rubrics_task")} <= set(modules)


def test_a_server_whose_judge_goes_through_litellm_grades_through_it(tmp_path, judge_server):
    judge_server.default = Reply.json({"criterion_status": "MET", "explanation": "polite"})
    result, modules = _grade_in_a_server(tmp_path, judge_server, {"RUBRIC_JUDGE_TRANSPORT": "litellm"})
    assert result["score"] == 1.0 and judge_server.call_count == 1, result
    assert "litellm" in modules


def test_a_server_kept_busy_by_edits_warms_up_nothing(tmp_path):
    """While someone types, the warm-up waits: neither the other formats' rules nor the grading engine are
    imported (either one holds the event loop for a large part of a second)."""
    environ, modules = _recording_modules(tmp_path, "0.4")
    client = RawClient(tmp_path, env=environ)
    try:
        client.initialize(tmp_path)
        uri = open_doc(client, tmp_path, RUBRIC)
        client.pump_until(lambda: uri in client.published, timeout=60)
        for version in range(2, 22):  # an edit every 0.1 s for 2 s: never quiet for 0.4 s
            text = RUBRIC.replace("Is polite", f"Is polite {version}")
            change = {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}
            client.send("textDocument/didChange", change, request=False)
            time.sleep(0.1)
        client.pump_until(lambda: client.published[uri].get("version") == 21, timeout=60)
    finally:
        client.close()
    loaded = set(json.loads(modules.read_text()))
    assert "rubric_lsp.formats.autorubric.rules" in loaded  # the open rubric's own rules ran
    assert "rubric_lsp.server.grading_run" not in loaded
    assert "rubric_lsp.formats.promptfoo.rules" not in loaded
