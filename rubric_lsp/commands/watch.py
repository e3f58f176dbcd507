"""``rubric-lint --watch``: lint, then lint again whenever a file that could change the result changes.

Stat polling (modification time and size, twice a second) rather than an OS file-event library:
nothing to install, the same behaviour on every platform and file system (network mounts and
containers included), and a rubric folder is small enough that a walk costs milliseconds.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from rubric_lsp.settings import find_config
from rubric_lsp.walk import iter_files

INTERVAL_SECONDS = 0.5

Snapshot = dict[str, tuple[int, int]]


def snapshot(paths: Iterable[Path]) -> Snapshot:
    """Modification time and size of every lintable file under ``paths`` and of the settings that apply."""
    found: Snapshot = {}

    def note(path: Path) -> None:
        try:
            info = path.stat()
        except OSError:
            return  # gone: its absence from the snapshot is the change
        found[str(path)] = (info.st_mtime_ns, info.st_size)

    for root in paths:
        if root.is_dir():
            for path in iter_files(root):
                note(path)
        else:
            note(root)
        try:
            config = find_config(root)
        except OSError:
            config = None
        if config is not None:
            note(config)
    return found


def watch(paths: list[Path], lint_once: Callable[[], int], *, interval: float = INTERVAL_SECONDS) -> int:
    """Run ``lint_once`` now and after every change, until interrupted (Ctrl-C: exit 0)."""
    clear = sys.stdout.isatty() and os.environ.get("TERM") != "dumb"
    try:
        _status("Starting rubric-lint in watch mode...")
        before = snapshot(paths)
        lint_once()
        while True:
            time.sleep(interval)
            now = snapshot(paths)
            if now == before:
                continue
            before = now
            if clear:
                sys.stdout.write("\x1b[2J\x1b[H")
            _status("File change detected...")
            lint_once()
    except KeyboardInterrupt:
        return 0


def _status(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)
