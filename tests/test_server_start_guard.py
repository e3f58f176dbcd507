"""The language server's start, guarded as the lint's is (tests/test_speed_guard.py): by what it has imported when
it publishes its first diagnostics, not by a time (issue 36: first diagnostics ≤ 1 s after start).

A real server over stdio: initialize, initialized, didOpen of a rubric with a finding, as an editor starts it. A
wrapper lists ``sys.modules`` at the server's first publishDiagnostics; everything else is the product's own
start. The grading engine, calibration beyond its settings, the labelling page and another format's rules load
later (at their first use, or once the first diagnostics are out), never before them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.helpers import loaded_among

# Loaded by the first diagnostics of a rubric: never any of these.
NEVER_BEFORE_FIRST_DIAGNOSTICS = (
    "litellm",
    "openai",
    "aiohttp",
    "httptools",
    "httpx",
    "jinja2",
    "pygal",
    "rich",
    "pydantic",
    "http.server",
    "http.client",
    "email",
    "sqlite3",
    "statistics",
    "tempfile",
    "rubric_lsp.engine.report",
    "rubric_lsp.engine.runner",
    "rubric_lsp.engine.settings",
    "rubric_lsp.server.grading_run",
    "rubric_lsp.server.review_run",
    "rubric_lsp.calibration.check",
    "rubric_lsp.calibration.record",
    "rubric_lsp.calibration.measure",
    "rubric_lsp.calibration.stats",
    "rubric_lsp.calibration.units",
    "rubric_lsp.labelling.page",
    "rubric_lsp.labelling.session",
    "rubric_lsp.labelling.sources",
    "rubric_lsp.formats.promptfoo.rules",  # another format's rules: after the first diagnostics
    "rubric_lsp.formats.northstar.rules",
    "rubric_lsp.formats.rubrics_task.rules",
    "rubric_lsp.rules.smells.rules",  # the smells: a publish of their own, after the lint's
)
# Modules loaded by then. When set: 354 in all, 98 of rubric-lsp's own (6d36ca3: 543 and 177, with every
# format's rules, pydantic, the engine, calibration and the labelling page's HTTP server); lsprotocol, pygls,
# cattrs, attrs and asyncio are ~150 of them. srvstart: 356 and 100 (server/lsp_types.py, runtime/user_cache.py:
# lsprotocol's attrs methods from cached bytecode, ~0.15-0.2 s of CPU less); 101 with runtime/start_cache,
# dataclass_bytecode and regex_code (the dataclasses' methods and the regular expressions compiled once).
OWN_MODULES_BUDGET = 101
ALL_MODULES_BUDGET = 360

_WRAPPER = textwrap.dedent(
    """
    import sys
    from rubric_lsp.server import app

    dumps, publish = [sys.argv[1]], app.RubricServer.text_document_publish_diagnostics

    def first_publish(self, params):
        if dumps:
            with open(dumps.pop(), "w", encoding="utf-8") as out:
                out.write(" ".join(sorted(sys.modules)))
        return publish(self, params)

    app.RubricServer.text_document_publish_diagnostics = first_publish
    sys.argv = ["rubric-lsp"]
    from rubric_lsp.server.main import main

    main()
    """
)
RUBRIC = "criteria:\n  - name: accuracy\n    wieght: 5\n    requirement: States the correct final answer\n"


def _message(body: dict) -> bytes:
    data = json.dumps(body).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def _read(stdout) -> dict:
    length = None
    while True:
        line = stdout.readline()
        assert line, "the server closed its output"
        if not line.strip():
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    assert length is not None
    return json.loads(stdout.read(length))


def _modules_at_first_diagnostics(tmp_path: Path) -> set[str]:
    path = tmp_path / "start.rubric.yaml"
    path.write_text(RUBRIC, encoding="utf-8")
    dump = tmp_path / "modules.txt"
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    with subprocess.Popen(
        [sys.executable, "-c", _WRAPPER, str(dump)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
        env=env,
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        try:
            params = {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}
            server.stdin.write(_message({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}))
            server.stdin.flush()
            while _read(server.stdout).get("id") != 1:
                pass
            opened = {"uri": path.as_uri(), "languageId": "yaml", "version": 1, "text": RUBRIC}
            for method, sent in (("initialized", {}), ("textDocument/didOpen", {"textDocument": opened})):
                server.stdin.write(_message({"jsonrpc": "2.0", "method": method, "params": sent}))
            server.stdin.flush()
            while True:  # the first publish (a server request, such as a log message, may come before it)
                message = _read(server.stdout)
                if message.get("method") == "textDocument/publishDiagnostics":
                    assert message["params"]["diagnostics"], message  # the misspelt key: a finding
                    break
            server.stdin.write(_message({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None}))
            server.stdin.write(_message({"jsonrpc": "2.0", "method": "exit", "params": None}))
            server.stdin.flush()
            server.wait(timeout=60)
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
    return set(dump.read_text(encoding="utf-8").split())


def test_the_first_diagnostics_wait_for_no_grading_calibration_or_other_format(tmp_path):
    modules = _modules_at_first_diagnostics(tmp_path)
    assert "rubric_lsp.formats.autorubric.rules" in modules  # the file's own format's rules did run
    assert loaded_among(modules, NEVER_BEFORE_FIRST_DIAGNOSTICS) == []
    own = sorted(m for m in modules if m == "rubric_lsp" or m.startswith("rubric_lsp."))
    assert len(own) <= OWN_MODULES_BUDGET, own
    assert len(modules) <= ALL_MODULES_BUDGET, len(modules)
