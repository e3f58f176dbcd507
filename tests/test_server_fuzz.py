"""Language-server fuzz: random edits, requests at random positions and malformed params.

Seeded and bounded (a time budget well under two minutes for all seeds). For each seed a raw
JSON-RPC client opens three samples (autorubric, promptfoo, NorthStar), then interleaves random
incremental edits (astral characters, BOMs, tabs, YAML and JSON punctuation), hovers, completions,
code actions, document symbols at random (sometimes out-of-range) positions, and requests whose
params are malformed. It checks that

- the server stays alive and answers every request (malformed params: -32602, never -32603);
- once the edits stop, the diagnostics it publishes for each document equal what
  ``rubric-lint`` reports for the final text (code, severity, message, range).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from tests.raw_client import RawClient
from tests.server_helpers import ENV

pytestmark = pytest.mark.slow

SEEDS = [1, 2, 3]
BUDGET_SECONDS = 24.0  # per seed, for the random operations; settling and checking come on top
ROUNDS = 4  # each round starts from the samples, edits, then compares with rubric-lint
OPERATIONS = 120  # per round
HAVOC = [0.0, 0.02, 0.1, 0.5]  # per round: the share of edits that may break the file's structure
DOCUMENTS = {
    "fuzz.rubric.yaml": SAMPLES / "autorubric" / "refund-reply.rubric.yaml",
    "promptfooconfig.yaml": SAMPLES / "promptfoo" / "promptfooconfig.yaml",
    "eval_run_request.json": SAMPLES / "northstar" / "eval_run_request.json",
}
SNIPPETS = [
    "",
    "x",
    "\n",
    ": ",
    "- ",
    "  ",
    "\t",
    "{",
    "}",
    "[",
    "]",
    ",",
    '"',
    "'",
    "#",
    "é",
    "🎉",
    "\ufeff",
    "&a ",
    "*a",
    "!!int ",
    "weight: -3\n",
    "requirement: ",
    "  - name: extra\n    requirement: Says hello\n",
    '"type": "rubric",',
    "type: llm-rubric\n",
    "value: ",
    "threshold: 0.5\n",
    "null",
    "true",
    "1e9999",
]


def utf16_column(line: str, index: int) -> int:
    return len(line[:index].encode("utf-16-le")) // 2


def position_of(text: str, offset: int) -> dict:
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return {"line": line, "character": utf16_column(text[start:], offset - start)}


class Client(RawClient):
    """A raw client whose shutdown waits for the server's answer (a fuzzed server must still give one)."""

    def __init__(self, root: Path) -> None:
        super().__init__(root, stderr=subprocess.DEVNULL)

    def close(self) -> None:
        try:
            rid = self.send("shutdown", None)
            self.pump_until(lambda: rid in self.responses, 10)
            self.send("exit", None, request=False)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
        finally:
            # closes its pipes (and kills a server still running): a failed seed's traceback keeps this
            # client alive, and with it the pipes, past the module's end (the leak guard's catch)
            super().close(shutdown=False)


MILD = ["x", "é", "🎉", "7", ""]


def random_edit(rng: random.Random, text: str, havoc: float) -> tuple[int, int, str]:
    """Typing inside a word (the file stays parseable, so every rule runs on it), or with
    probability ``havoc`` anything anywhere."""
    start = rng.randrange(len(text) + 1)
    if rng.random() >= havoc:
        while start < len(text) and not (text[start].isalnum() and start and text[start - 1].isalnum()):
            start += 1
        if start >= len(text):
            return len(text), len(text), ""
        new = rng.choice(MILD)
        end = start + (1 if new == "" and text[start].isalnum() and text[start + 1 : start + 2].isalnum() else 0)
        return start, end, new
    end = min(len(text), start + rng.choice([0, 0, 1, 2, 5, 20]))
    return start, end, rng.choice(SNIPPETS)


def random_position(rng: random.Random, text: str) -> dict:
    roll = rng.random()
    if roll < 0.1:
        return {"line": rng.choice([text.count("\n") + 5, 10**6]), "character": rng.randrange(0, 10**6)}
    if roll < 0.2:
        line = rng.randrange(text.count("\n") + 1)
        return {"line": line, "character": 10**4}
    return position_of(text, rng.randrange(len(text) + 1))


MALFORMED = [
    ("textDocument/hover", lambda uri: {"textDocument": {"uri": uri}, "position": {"line": "one", "character": 0}}),
    ("textDocument/hover", lambda uri: {"textDocument": {"uri": uri}}),
    ("textDocument/completion", lambda uri: {"position": {"line": 0, "character": 0}}),
    ("textDocument/codeAction", lambda uri: {"textDocument": {"uri": uri}, "range": [0, 1], "context": {}}),
    ("textDocument/documentSymbol", lambda uri: {"textDocument": "not an object"}),
    ("textDocument/hover", lambda uri: {"textDocument": {"uri": uri}, "position": {"line": -1, "character": -5}}),
    ("workspace/executeCommand", lambda uri: {"command": "rubric-lsp.gradeText", "arguments": ["str"]}),
    ("workspace/executeCommand", lambda uri: {"command": "rubric-lsp.gradeText", "arguments": [{"uri": uri}]}),
]


def expected_diagnostics(root: Path, texts: dict[str, str]) -> dict[str, list[tuple]]:
    """What rubric-lint reports for the final texts, with ranges in UTF-16 columns as the server sends."""
    for name, text in texts.items():
        (root / name).write_text(text, encoding="utf-8", newline="")
    run = subprocess.run(
        [sys.executable, "-m", "rubric_lsp", "lint", str(root), "--format", "json"],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=root,
        timeout=120,
        check=False,
    )
    assert run.returncode in (0, 1), run.stderr
    out: dict[str, list[tuple]] = {name: [] for name in texts}
    for row in json.loads(run.stdout):
        name = Path(row["path"]).name
        lines = texts[name].split("\n")

        def column(pos: dict, lines=lines) -> tuple[int, int]:
            line = lines[pos["line"]] if pos["line"] < len(lines) else ""
            return pos["line"], utf16_column(line, pos["character"])

        out[name].append((row["code"], row["message"], column(row["range"]["start"]), column(row["range"]["end"])))
    return {name: sorted(rows) for name, rows in out.items()}


def published(params: dict) -> list[tuple]:
    """The lint's findings in a publish. The smell rules' (RL3xx, on in the editor only: docs/smells.md) come in a
    second publish of the same version, after the lint's, and are left out: the CLI runs them only when selected."""
    rows = []
    for d in params["diagnostics"]:
        if str(d["code"]).startswith("RL3"):
            continue
        start, end = d["range"]["start"], d["range"]["end"]
        rows.append((d["code"], d["message"], (start["line"], start["character"]), (end["line"], end["character"])))
    return sorted(rows)


def session_round(
    client, rng, root: Path, texts, versions, started: float, budget: float, havoc: float
) -> tuple[int, int]:
    """Random operations until OPERATIONS are done or the time budget is spent; checks every answer."""
    wellformed: list[int] = []
    malformed: list[int] = []
    for operation in range(OPERATIONS):
        if time.monotonic() - started > budget:
            break
        name = rng.choice(list(DOCUMENTS))
        uri = (root / name).as_uri()
        text = texts[name]
        roll = rng.random()
        if roll < 0.55:
            start, end, new = random_edit(rng, text, havoc)
            versions[name] += 1
            change = {"range": {"start": position_of(text, start), "end": position_of(text, end)}, "text": new}
            texts[name] = text[:start] + new + text[end:]
            client.send(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": versions[name]}, "contentChanges": [change]},
                request=False,
            )
        elif roll < 0.65:
            method, params = rng.choice(MALFORMED)
            malformed.append(client.send(method, params(uri)))
        else:
            wellformed.append(client.send(*random_request(rng, uri, text)))
        if operation % 50 == 49:  # keep the pipes drained
            last = wellformed[-1] if wellformed else None
            client.pump_until(lambda last=last: last is None or last in client.responses)
    every = wellformed + malformed
    client.pump_until(lambda: all(r in client.responses for r in every), 120)
    for request_id in wellformed:
        assert "error" not in client.responses[request_id], client.responses[request_id]
    for request_id in malformed:
        error = client.responses[request_id].get("error")
        assert error is not None and error["code"] == -32602, client.responses[request_id]
    return len(wellformed), len(malformed)


def random_request(rng: random.Random, uri: str, text: str) -> tuple[str, dict]:
    document = {"textDocument": {"uri": uri}}
    kind = rng.choice(["hover", "completion", "codeAction", "documentSymbol"])
    if kind == "codeAction":
        a, b = sorted(rng.randrange(len(text) + 1) for _ in range(2))
        params = {
            **document,
            "range": {"start": position_of(text, a), "end": position_of(text, b)},
            "context": {"diagnostics": []},
        }
    elif kind == "documentSymbol":
        params = document
    else:
        params = {**document, "position": random_position(rng, text)}
    return f"textDocument/{kind}", params


def check_diagnostics(client, root: Path, texts, versions, context) -> None:
    """Once the edits stop, the server's diagnostics for each document are rubric-lint's for its text."""
    uris = {name: (root / name).as_uri() for name in DOCUMENTS}
    client.pump_until(
        lambda: all(client.published.get(uris[n], {}).get("version") == versions[n] for n in DOCUMENTS), 120
    )
    expected = expected_diagnostics(root, texts)
    for name in DOCUMENTS:
        assert published(client.published[uris[name]]) == expected[name], (context, name, texts[name])
    CHECKED.append(sum(len(rows) for rows in expected.values()))


CHECKED: list[int] = []  # diagnostics compared per round (the test asserts the comparisons were not empty)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_editing_session(tmp_path: Path, seed: int):
    rng = random.Random(seed)
    client = Client(tmp_path)
    try:
        rid = client.send(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": tmp_path.as_uri(),
                "capabilities": {"textDocument": {"publishDiagnostics": {"versionSupport": True}}},
            },
        )
        client.pump_until(lambda: rid in client.responses)
        client.send("initialized", {}, request=False)
        texts: dict[str, str] = {}
        versions: dict[str, int] = {}
        for name, source in DOCUMENTS.items():
            texts[name] = source.read_text(encoding="utf-8")
            versions[name] = 1
            (tmp_path / name).write_text(texts[name], encoding="utf-8")
            uri = (tmp_path / name).as_uri()
            language = "json" if name.endswith(".json") else "yaml"
            client.send(
                "textDocument/didOpen",
                {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": texts[name]}},
                request=False,
            )
        started = time.monotonic()
        for round_number in range(ROUNDS):
            if round_number:  # start the round from the samples again: a whole-document change
                for name, source in DOCUMENTS.items():
                    texts[name] = source.read_text(encoding="utf-8")
                    versions[name] += 1
                    client.send(
                        "textDocument/didChange",
                        {
                            "textDocument": {"uri": (tmp_path / name).as_uri(), "version": versions[name]},
                            "contentChanges": [{"text": texts[name]}],
                        },
                        request=False,
                    )
            budget = BUDGET_SECONDS * (round_number + 1) / ROUNDS
            # round 0 only types inside words; later rounds break more and more of the structure
            havoc = HAVOC[round_number]
            counts = session_round(client, rng, tmp_path, texts, versions, started, budget, havoc)
            check_diagnostics(client, tmp_path, texts, versions, (seed, round_number, counts))
        assert client.proc.poll() is None
        assert sum(CHECKED[-ROUNDS:]) > 0  # the rounds compared real findings, not only empty lists
    finally:
        client.close()
