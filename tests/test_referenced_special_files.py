"""Files a config references that are not files: a FIFO, /dev/zero, /dev/stdin. Each is one RL012 finding,
never opened: a FIFO hung rubric-lint, /dev/zero grew to 2.67 GB, and /dev/stdin made the server's lint
read its own LSP stream."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from rubric_lsp.lint import lint_path

CONFIG = (
    "prompts:\n  - file://zero.txt\n  - file://fifo.txt\n  - file://stdin.txt\n"
    "providers: [echo]\n"
    "tests:\n  - file://fifo-tests.yaml\n  - vars: {a: file://zero.txt}\n    assert:\n      - {type: contains, value: x}\n"
)


def _project(root: Path) -> Path:
    (root / ".git").mkdir()
    (root / "zero.txt").symlink_to("/dev/zero")
    (root / "stdin.txt").symlink_to("/dev/stdin")
    os.mkfifo(root / "fifo.txt")
    os.mkfifo(root / "fifo-tests.yaml")
    config = root / "promptfooconfig.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    return config


def test_special_files_are_reported_never_read(tmp_path: Path):
    config = _project(tmp_path)
    results = []
    worker = threading.Thread(target=lambda: results.append(lint_path(config, root_dir=tmp_path)), daemon=True)
    worker.start()
    worker.join(30)
    assert not worker.is_alive(), "a referenced FIFO or device was read"
    (result,) = results
    codes = [(d.code, d.range.start.line + 1) for d in result.diagnostics]
    assert "RL900" not in [c for c, _ in codes], result.diagnostics
    assert {line for code, line in codes if code == "RL012"} == {2, 3, 4, 7, 8}
    messages = " ".join(d.message for d in result.diagnostics if d.code == "RL012")
    assert "a FIFO" in messages and "a device" in messages


def test_the_server_lints_such_a_config_and_keeps_answering(tmp_path: Path):
    from tests.raw_client import RawClient

    config = _project(tmp_path)
    client = RawClient(tmp_path)
    try:
        folders = [{"uri": tmp_path.as_uri(), "name": "ws"}]
        init = {"processId": os.getpid(), "rootUri": tmp_path.as_uri(), "capabilities": {}, "workspaceFolders": folders}
        client.response(client.send("initialize", init))
        client.send("initialized", {}, request=False)
        uri = config.as_uri()
        document = {"uri": uri, "languageId": "yaml", "version": 1, "text": CONFIG}
        client.send("textDocument/didOpen", {"textDocument": document}, request=False)
        hover = {"textDocument": {"uri": uri}, "position": {"line": 4, "character": 2}}
        assert "result" in client.request("textDocument/hover", hover, timeout=30)
        client.pump_until(lambda: uri in client.published, timeout=30)
        codes = {d["code"] for d in client.published[uri]["diagnostics"]}
        assert "RL012" in codes and "RL900" not in codes
    finally:
        client.close()
