"""Files a repository can carry instead of a lintable file: each is one RL008 finding, the rest is linted.

A symlink loop used to stop a folder run (exit 2, nothing linted) and kill --watch; a FIFO hung the
run; a link to /dev/zero grew without end. Nothing but a regular file is ever opened.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from rubric_lsp.cli import lint_main
from rubric_lsp.commands.watch import snapshot

BAD = "rubric:\n  - requirment: Says goodbye\n    requirement: Says goodbye\n"


def _tree(root: Path) -> None:
    (root / "good.rubric.yaml").write_text(BAD, encoding="utf-8")
    (root / "self.rubric.yaml").symlink_to("self.rubric.yaml")  # a loop of one
    (root / "a.rubric.yaml").symlink_to("b.rubric.yaml")
    (root / "b.rubric.yaml").symlink_to("a.rubric.yaml")
    (root / "gone.rubric.yaml").symlink_to("nowhere.yaml")
    (root / "zero.rubric.yaml").symlink_to("/dev/zero")
    os.mkfifo(root / "pipe.rubric.yaml")
    (root / "sub").mkdir()
    (root / "sub" / "up").symlink_to("..")  # a folder loop: never followed


def _run(argv: list[str]) -> tuple[list[int], list]:
    codes: list[int] = []
    worker = threading.Thread(target=lambda: codes.append(lint_main(argv)), daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "the folder run hung"
    return codes, []


def test_a_folder_with_loops_links_and_a_fifo_is_linted_whole(tmp_path: Path, capsys):
    _tree(tmp_path)
    codes, _ = _run(["--format", "json", str(tmp_path)])
    out = capsys.readouterr()
    assert codes == [1], out.err
    assert "Traceback" not in out.err
    found = {(Path(f["path"]).name, f["code"]): f["message"] for f in json.loads(out.out)}
    assert ("good.rubric.yaml", "AR001") in found  # the rest is linted
    reasons = {name: message for (name, code), message in found.items() if code == "RL008"}
    assert set(reasons) == {
        "self.rubric.yaml",
        "a.rubric.yaml",
        "b.rubric.yaml",
        "gone.rubric.yaml",
        "zero.rubric.yaml",
        "pipe.rubric.yaml",
    }
    assert "symlink loop" in reasons["a.rubric.yaml"] and "dangling symlink" in reasons["gone.rubric.yaml"]
    assert "a device" in reasons["zero.rubric.yaml"] and "FIFO" in reasons["pipe.rubric.yaml"]


def test_a_named_fifo_is_one_finding_not_a_hang(tmp_path: Path, capsys):
    os.mkfifo(tmp_path / "p.rubric.yaml")
    codes, _ = _run([str(tmp_path / "p.rubric.yaml")])
    assert codes == [1]
    assert "RL008" in capsys.readouterr().out


def test_watch_snapshots_a_folder_with_a_loop(tmp_path: Path):
    _tree(tmp_path)
    seen = snapshot([tmp_path])
    assert str(tmp_path / "good.rubric.yaml") in seen
