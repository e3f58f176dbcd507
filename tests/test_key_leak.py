"""No API key in any output: canary keys in the environment and in a promptfoo grader config,
a judge that quotes back the credential it was sent, and every reporter and cache checked.

The canaries are not shaped like ``sk-…`` keys on purpose: only the redaction of configured
keys (not the shape-based fallback) can catch them.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from rubric_lsp.engine.store.cache import CACHE_FILE
from rubric_lsp.redaction import redact_report
from tests.judge_server import JudgeServer, Reply
from tests.raw_client import RawClient

ROOT = Path(__file__).resolve().parent.parent
ENV_KEY = "CANARYenvKEY0123456789abc"
CONFIG_KEY = "CANARYcfgKEY9876543210xyz"
HEADER_KEY = "CANARYhdrTOKEN5555555555"
CANARIES = (ENV_KEY, CONFIG_KEY, HEADER_KEY)

# Every field any format's reply parser reads, each quoting the credential the judge received.
ECHO = {
    "criterion_status": "MET",
    "explanation": "You sent {authorization} ({token}).",
    "selected_option": 1,
    "pass": True,
    "score": 4,
    "reason": "You sent {authorization} ({token}).",
}
# NorthStar refuses a reply with keys it does not know.
NORTHSTAR_ECHO = {"score": 4, "reason": "You sent {authorization} ({token}).", "feedback": "key {token}"}

PROMPTFOO = f"""\
prompts: ["Answer: {{{{question}}}}"]
providers: [openai:gpt-4.1-mini]
defaultTest:
  options:
    provider:
      id: openai:chat:judge
      config:
        apiKey: {CONFIG_KEY}
        temperature: 0
        headers:
          Authorization: Bearer {HEADER_KEY}
tests:
  - vars: {{question: "Capital of France?"}}
    assert:
      - type: llm-rubric
        value: Names Paris
"""

NORTHSTAR = json.dumps(
    {
        "graders": [
            {
                "type": "rubric",
                "name": "correctness",
                "model": "openai/judge",
                "rubric": "Is it correct?",
                "scoring": {"mode": "numeric", "min_score": 0, "max_score": 5, "passing_score": 4},
            }
        ]
    }
)


def files_under(folder: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file())


def assert_no_canary(*texts: str) -> None:
    for text in texts:
        for canary in CANARIES:
            assert canary not in text, f"{canary} leaked: ...{text[max(0, text.find(canary) - 200) :][:400]}"


@pytest.fixture
def judge():
    with JudgeServer() as server:
        yield server


@pytest.fixture
def grading_env(judge, tmp_path, monkeypatch):
    judge.default = Reply.echo(ECHO)
    env = {
        "OPENAI_API_KEY": ENV_KEY,
        "RUBRIC_JUDGE_API_BASE": judge.base_url,
        "RUBRIC_JUDGE_MODEL": "openai/judge",
        "RUBRIC_CACHE_DIR": str(tmp_path / "cache"),
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    (tmp_path / "response.txt").write_text("Paris.")
    (tmp_path / "promptfooconfig.yaml").write_text(PROMPTFOO)
    (tmp_path / "run.json").write_text(NORTHSTAR)
    return tmp_path


GRADED = {
    "autorubric rubric": (ROOT / "samples/autorubric/refund-reply.rubric.yaml", True),
    "autorubric dataset": (ROOT / "samples/autorubric/refund-replies.dataset.json", False),
    "autorubric examples": (ROOT / "samples/autorubric/refund-reply.rubric.yaml", False),
    "promptfoo config": (Path("promptfooconfig.yaml"), True),
    "northstar request": (Path("run.json"), True),
}


@pytest.mark.parametrize("output", ["json", "text"])
@pytest.mark.parametrize("kind", list(GRADED))
def test_a_judge_that_echoes_the_key_is_redacted_everywhere(grading_env, judge, capfd, monkeypatch, kind, output):
    from rubric_lsp.cli import main

    if kind == "promptfoo config":
        monkeypatch.delenv("RUBRIC_JUDGE_MODEL")  # a judge model of our own would replace the config's grader
    if kind == "northstar request":
        judge.default = Reply.echo(NORTHSTAR_ECHO)

    path, with_response = GRADED[kind]
    argv = ["grade", str(path if path.is_absolute() else grading_env / path), "--format", output]
    if with_response:
        argv += ["--response", str(grading_env / "response.txt"), "--query", "Capital of France?"]
    if kind == "autorubric examples":
        argv.append("--examples")
    if kind == "autorubric dataset":
        argv += ["--limit", "2"]
    main(argv)
    out, err = capfd.readouterr()
    assert judge.call_count > 0, err
    sent = {r.headers.get("authorization") for r in judge.completions}
    expected = f"Bearer {CONFIG_KEY}" if kind == "promptfoo config" else f"Bearer {ENV_KEY}"
    assert expected in sent  # the judge really received (and echoed) the canary
    cache = files_under(grading_env / "cache")
    assert "You sent Bearer ***" in cache  # the reply was cached, redacted
    assert_no_canary(out, err, cache)
    if kind in ("autorubric rubric", "promptfoo config", "northstar request"):
        assert "***" in out  # the reason is shown, redacted


def test_a_cache_entry_written_before_redaction_is_redacted_when_read(grading_env, judge, capfd):
    from rubric_lsp.cli import main

    judge.default = Reply.echo(NORTHSTAR_ECHO)
    argv = ["grade", str(grading_env / "run.json"), "--response", str(grading_env / "response.txt"), "--format", "json"]
    main(argv)
    capfd.readouterr()
    with sqlite3.connect(grading_env / "cache" / CACHE_FILE) as cache:  # what an older version stored
        rows = cache.execute("SELECT key, content FROM verdicts").fetchall()
        assert rows
        for key, content in rows:
            cache.execute("UPDATE verdicts SET content = ? WHERE key = ?", (content.replace("***", ENV_KEY), key))
    calls = judge.call_count
    main(argv)
    out, err = capfd.readouterr()
    assert judge.call_count == calls  # served from the cache
    assert "***" in out
    assert_no_canary(out, err)


# -- lint reporters --------------------------------------------------------------------------

# PF009: the shorthand grader drops the default's config; its fix copies that config (with the key
# and the Authorization header) into the assertion.
SHORTHAND = f"""\
prompts: ["Answer: {{{{question}}}}"]
providers: [openai:gpt-4.1-mini]
defaultTest:
  options:
    provider:
      id: openai:gpt-5-mini
      config:
        apiKey: {CONFIG_KEY}
        temperature: 0
        headers:
          Authorization: "Bearer {HEADER_KEY}"
tests:
  - assert:
      - type: llm-rubric
        value: Is polite to {ENV_KEY}
        provider: openai:gpt-4.1
"""


def lint_cli(*args: str, env_key: str = ENV_KEY) -> subprocess.CompletedProcess:
    import os

    env = {**os.environ, "OPENAI_API_KEY": env_key, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "rubric_lsp", "lint", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("output", ["text", "json", "sarif", "github"])
def test_no_reporter_prints_a_key_from_the_config_or_the_environment(tmp_path, output):
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(SHORTHAND)
    run = lint_cli(str(config), "--format", output)
    assert "PF009" in run.stdout, run.stderr
    assert_no_canary(run.stdout, run.stderr)
    if output in ("json", "sarif"):
        assert "***" in run.stdout  # the fix is still reported, with the key masked


def test_the_fix_still_carries_the_key_into_the_file_itself(tmp_path):
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(SHORTHAND)
    run = lint_cli(str(config), "--fix", "--unsafe-fixes", "--format", "json")
    assert_no_canary(run.stdout, run.stderr)
    fixed = config.read_text()
    assert fixed.count(CONFIG_KEY) == 2  # the user's own text: the default's config, now also on the assertion


@pytest.mark.parametrize(
    "text, masked",
    [
        ("apiKey: abcdefghijkl", "apiKey: ***"),
        ('{"apiKey": "abcdefghijkl", "temperature": 0}', '{"apiKey": "***", "temperature": 0}'),
        ("headers:\n  Authorization: Bearer abcdefghijkl\n  x: 1", "headers:\n  Authorization: ***\n  x: 1"),
        ("{Authorization: 'Bearer abcdefghijkl', b: 2}", "{Authorization: '***', b: 2}"),
        ("x-api-key=abcdefghijkl", "x-api-key=***"),
        ("I saw Bearer abcdefghijkl here", "I saw Bearer *** here"),
        ("key sk-proj-abcdefghijkl", "key sk-proj***"),
    ],
)
def test_report_redaction_masks_secret_entries(text, masked):
    assert redact_report(text) == masked


@pytest.mark.parametrize(
    "text",
    [
        "Unknown key: `requirment`; did you mean `requirement`?",
        "apiKeyEnvar: OPENAI_API_KEY",
        'apiKey: "{{env.OPENAI_API_KEY}}"',
        "max_tokens: 12",
        "criterion 3: weight must be a number",
    ],
)
def test_report_redaction_leaves_other_text_alone(text):
    assert redact_report(text) == text


def test_report_redaction_masks_keys_from_the_environment(monkeypatch):
    monkeypatch.setenv("ACME_SERVICE_TOKEN", "tok-plain-value-123")
    assert redact_report("value tok-plain-value-123 here") == "value *** here"


# -- the language server: diagnostics, code-action titles, grading results, logs, the cache ---------


class RecordingClient(RawClient):
    """A raw client that keeps every byte the server writes, with the server logging at DEBUG to a file."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.stderr_path = root / "server.stderr"
        self._stderr = self.stderr_path.open("wb")
        super().__init__(root, env={**env, "RUBRIC_LSP_LOG": "DEBUG"}, stderr=self._stderr)

    def wait_diagnostics(self, uri: str) -> list[dict]:
        self.pump_until(lambda: uri in self.published, 90)
        return self.published[uri]["diagnostics"]

    def shown(self) -> str:
        """Everything the server wrote to stdout, but the edits of code actions: a fix may carry the key
        into the user's own file, the one place it may go."""
        messages = []
        rest = bytes(self.raw)
        while rest:
            header, _, rest = rest.partition(b"\r\n\r\n")
            length = int(header.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            message, rest = json.loads(rest[:length]), rest[length:]
            if isinstance(message.get("result"), list):
                for item in message["result"]:
                    if isinstance(item, dict):
                        item.pop("edit", None)
            messages.append(message)
        return json.dumps(messages, ensure_ascii=False)

    def close(self) -> str:
        try:
            self.request("shutdown", None, 10)
            self.send("exit", None, request=False)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
        self.raw += self.proc.stdout.read()  # whatever it wrote after the last answer read
        super().close(shutdown=False)  # its pipes (a server still running is killed)
        self._stderr.close()
        return self.stderr_path.read_text(errors="replace")


@pytest.mark.slow
def test_the_language_server_shows_and_logs_no_key(tmp_path, judge):

    judge.default = Reply.echo(ECHO)
    cache = tmp_path / "cache"
    client = RecordingClient(tmp_path, {"OPENAI_API_KEY": ENV_KEY, "RUBRIC_CACHE_DIR": str(cache)})
    try:
        client.initialize(tmp_path, {"rubric": {"judge": {"model": "openai/judge", "apiBase": judge.base_url}}})

        # The key written in the config (not in the environment: the editor shows the file's own text).
        text = SHORTHAND.replace(f"Is polite to {ENV_KEY}", "Is polite")
        config = tmp_path / "promptfooconfig.yaml"
        config.write_text(text)
        uri = config.as_uri()
        client.send(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
            request=False,
        )
        diagnostics = client.wait_diagnostics(uri)
        pf009 = [d for d in diagnostics if d["code"] == "PF009"]
        assert pf009
        actions = client.request(
            "textDocument/codeAction",
            {"textDocument": {"uri": uri}, "range": pf009[0]["range"], "context": {"diagnostics": []}},
        )["result"]
        titles = [a["title"] for a in actions]
        assert any("PF009" in t for t in titles)
        assert_no_canary(json.dumps(diagnostics), json.dumps(titles))
        shown = [client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})]
        for line_number, line in enumerate(text.split("\n")):
            for character in range(0, len(line), 3):
                where = {"textDocument": {"uri": uri}, "position": {"line": line_number, "character": character}}
                shown.append(client.request("textDocument/hover", where))
                if character % 9 == 0:
                    shown.append(client.request("textDocument/completion", where))
        assert_no_canary(json.dumps(shown))

        rubric = tmp_path / "r.rubric.yaml"
        rubric.write_text("rubric:\n  - name: greets\n    weight: 3\n    requirement: Greets the user\n")
        result = client.request(
            "workspace/executeCommand",
            {"command": "rubric-lsp.gradeText", "arguments": [{"uri": rubric.as_uri(), "text": "Hello!"}]},
        )["result"]
        assert judge.completions and judge.completions[-1].headers["authorization"] == f"Bearer {ENV_KEY}"
        assert "You sent Bearer ***" in json.dumps(result)
        hints = client.request(
            "textDocument/inlayHint",
            {
                "textDocument": {"uri": rubric.as_uri()},
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 99, "character": 0}},
            },
        )
        assert_no_canary(json.dumps(result), json.dumps(hints))

        judge.queue(Reply.error(401, f"Incorrect API key provided: {ENV_KEY}"))
        failed = client.request(
            "workspace/executeCommand",
            {"command": "rubric-lsp.gradeText", "arguments": [{"uri": rubric.as_uri(), "text": "Different!"}]},
        )
        assert_no_canary(json.dumps(failed))
    finally:
        stderr = client.close()
    assert "rubric_lsp" in stderr  # its log (at DEBUG) was written, and is checked below
    assert CONFIG_KEY in client.raw.decode("utf-8")  # in a code action's edit, which shown() leaves out
    assert_no_canary(client.shown(), stderr, files_under(cache))


def test_a_key_quoted_encoded_is_masked_too():
    """A judge can quote the key back base64- or URL-encoded (alone, or inside a longer encoded text at any
    byte alignment): every such form of a configured key is masked."""
    import base64
    import urllib.parse

    from rubric_lsp.redaction import MASK, Redactor

    key = "sk-proj-leak0123456789abcdefXYZ+/="
    redactor = Redactor([key])
    leaks = [
        base64.b64encode(key.encode()).decode(),
        base64.urlsafe_b64encode(key.encode()).decode().rstrip("="),
        urllib.parse.quote(key, safe=""),
        urllib.parse.quote_plus(key),
    ]
    for prefix in ("", "x", "xy", "Authorization: Bearer "):
        wrapped = (prefix + key + " tail").encode()
        leaks += [base64.b64encode(wrapped).decode(), base64.urlsafe_b64encode(wrapped).decode()]
    for leak in leaks:
        shown = redactor(f"the judge says: {leak}")
        assert MASK in shown, leak
        assert leak not in shown
    assert redactor("an ordinary reason, nothing encoded") == "an ordinary reason, nothing encoded"
