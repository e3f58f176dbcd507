"""Shared by the fault tests of run files (tests/test_run_faults.py) and the seeded fault campaign
(tests/test_fault_campaign.py): a small labelled dataset on the scripted judge, ``rubric grade`` in
process and as a real process (optionally with a file-size limit: a disk that fills up), and
damage done to a run file's pages the way a bad disk or a stray write does it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from rubric_lsp.cli import main
from tests.calibration import dataset, reply_for
from tests.judge_server import Reply

ROOT = Path(__file__).resolve().parent.parent
ITEMS = 20
CRITERIA = 2
CALLS = ITEMS * CRITERIA
CONCURRENCY = 2
DATASET = dataset(ITEMS, "faults")
PAGE = 4096  # SQLite's default page size, the run file's


def slow_verdict(delay_ms: int):
    def reply(request) -> Reply:
        return reply_for(request.text, delay_ms=delay_ms)

    return reply


def grade_args(env: Path, *flags: str) -> list[str]:
    dataset_file = str(env / "calibration.dataset.json")
    return ["grade", dataset_file, "--format", "json", "--no-cache", "--concurrency", str(CONCURRENCY), *flags]


def grade_in_process(capfd, env: Path, *flags: str) -> tuple[int, str, str]:
    code = main(grade_args(env, *flags))
    out, err = capfd.readouterr()
    return code, out, err


# A child that cannot write files past ``limit`` bytes (RLIMIT_FSIZE; SIGXFSZ ignored, so a write
# past it fails with EFBIG as a full disk fails with ENOSPC): a disk filling up, without root.
_LIMITED = (
    "import resource, runpy, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
    "limit = int(sys.argv.pop(1)); resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)); "
    "runpy.run_module('rubric_lsp', run_name='__main__', alter_sys=True)"
)


def start_grade(env: Path, *flags: str, file_size_limit: int | None = None) -> subprocess.Popen:
    environ = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")
    if file_size_limit is None:
        command = [sys.executable, "-m", "rubric_lsp"]
    else:
        command = [sys.executable, "-c", _LIMITED, str(file_size_limit)]
    return subprocess.Popen(
        [*command, *grade_args(env, *flags)],
        cwd=env,
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def recorded(run: Path) -> int:
    db = sqlite3.connect(run)
    try:
        return int(db.execute("SELECT count(*) FROM replies").fetchone()[0])
    finally:
        db.close()


def write_dataset(env: Path) -> None:
    (env / "calibration.dataset.json").write_text(json.dumps(DATASET))


def table_pages(run: Path, table: str) -> tuple[int, list[int]]:
    """The root page of ``table`` and its leaf pages (one level below an interior root, as a run
    file of a few dozen replies has), 1-based as SQLite numbers them."""
    db = sqlite3.connect(run)
    try:
        root = int(db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0])
    finally:
        db.close()
    data = run.read_bytes()
    page = data[(root - 1) * PAGE : root * PAGE]
    if page[0] != 0x05:  # a leaf root: the table is one page
        return root, [root]
    cells = int.from_bytes(page[3:5], "big")
    pointers = [int.from_bytes(page[12 + 2 * n : 14 + 2 * n], "big") for n in range(cells)]
    children = [int.from_bytes(page[p : p + 4], "big") for p in pointers]
    children.append(int.from_bytes(page[8:12], "big"))  # the right-most child
    return root, children


def damage_page(run: Path, number: int, at: int = 0, data: bytes = b"\x00") -> None:
    """Overwrite bytes of page ``number`` (1-based) from offset ``at``: byte 0 is the b-tree page's type."""
    with open(run, "r+b") as handle:
        handle.seek((number - 1) * PAGE + at)
        handle.write(data)


def rows_on_page(run: Path, number: int) -> int:
    """How many cells a (still whole) b-tree page holds."""
    with open(run, "rb") as handle:
        handle.seek((number - 1) * PAGE)
        page = handle.read(PAGE)
    return int.from_bytes(page[3:5], "big")
