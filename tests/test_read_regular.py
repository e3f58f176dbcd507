"""document/files.py: what a repository can carry instead of a file is refused in one line, never read."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from rubric_lsp.document.files import UnreadableFile, read_regular, read_regular_text


def test_a_regular_file_is_read(tmp_path: Path):
    path = tmp_path / "p.txt"
    path.write_bytes("\ufeffhé".encode())
    assert read_regular_text(path) == "hé"


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (os.mkfifo, "a FIFO"),
        (lambda p: p.symlink_to("/dev/zero"), "a device"),
        (lambda p: p.symlink_to("/dev/stdin"), "not a regular file"),
        (lambda p: p.mkdir(), "a folder"),
    ],
)
def test_anything_but_a_regular_file_is_refused_without_blocking(tmp_path: Path, make, reason):
    path = tmp_path / "prompt.txt"
    make(path)
    outcome: list[BaseException | bytes] = []
    worker = threading.Thread(target=lambda: outcome.append(_attempt(path)), daemon=True)
    worker.start()
    worker.join(5)
    assert not worker.is_alive(), f"reading {path} blocked"
    (caught,) = outcome
    assert isinstance(caught, UnreadableFile), caught
    message = str(caught)
    assert "not read" in message and "\n" not in message
    assert reason in message or "not a regular file" in message


def test_over_the_limit_is_refused_unread(tmp_path: Path):
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 101)
    with pytest.raises(UnreadableFile, match="101 bytes, over the 100-byte limit"):
        read_regular(path, 100)
    assert read_regular(path, 101) == b"x" * 101


def _attempt(path: Path) -> BaseException | bytes:
    try:
        return read_regular(path)
    except BaseException as exc:
        return exc
