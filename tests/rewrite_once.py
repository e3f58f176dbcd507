"""Each test module's assertions rewritten once per suite, not once per worker (no tests here).

pytest rewrites the asserts of every test module it imports and caches the result beside the module
(`__pycache__/*.pyc` tagged with pytest's version), but only where Python may write bytecode, and
the workers of `-n auto` start together, so on a fresh clone each of them rewrote all ~200 modules:
about 10 s of CPU per worker on the shared 2-core machine, the largest part of collecting. Here each
worker first rewrites its own share (every n-th module) into that cache, so the others find it there
when they import it.

It drives pytest's own rewriter (private names, the same in pytest 8.2 to 9); where they are missing
or differ, or writing fails, it does nothing and pytest rewrites as it always does. The cache holds
only what pytest itself would have written.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def share(files: list[Path], worker: int, workers: int) -> list[Path]:
    """``worker``'s part of ``files``: every ``workers``-th, from its own index."""
    return sorted(files)[worker::workers]


def rewritable_modules(config: pytest.Config, folder: Path) -> list[Path]:
    """The modules under ``folder`` that pytest rewrites as test modules (``python_files`` and conftest)."""
    patterns = [*config.getini("python_files"), "conftest.py"]
    return sorted({path for pattern in patterns for path in folder.rglob(pattern) if "__pycache__" not in path.parts})


# What of pytest's rewriter this drives (private; the same names and call shapes in pytest 8.2 to 9).
NEEDED = ("PYC_TAIL", "get_cache_dir", "_read_pyc", "_rewrite_test", "_write_pyc", "assertstate_key")


def cached_rewrite(fn: Path) -> Path:
    """Where pytest keeps ``fn``'s rewritten code (and looks for it when it imports ``fn``)."""
    from _pytest.assertion import rewrite

    return rewrite.get_cache_dir(fn) / (fn.name[:-3] + rewrite.PYC_TAIL)


def rewrite_into_cache(config: pytest.Config, files: list[Path]) -> int:
    """Rewrite each of ``files`` whose cached rewrite is missing or stale; the number written."""
    from _pytest.assertion import rewrite

    if not all(hasattr(rewrite, name) for name in NEEDED) or rewrite.assertstate_key not in config.stash:
        return 0
    state = config.stash[rewrite.assertstate_key]
    written = 0
    for fn in files:
        pyc = cached_rewrite(fn)
        try:
            if rewrite._read_pyc(fn, pyc) is not None:
                continue
            pyc.parent.mkdir(exist_ok=True)
            # The first item is the source's hash (pytest 9) or stat (pytest 8), whatever _write_pyc takes.
            key, code = rewrite._rewrite_test(fn, config)
            written += bool(rewrite._write_pyc(state, code, key, pyc))
        except (OSError, SyntaxError, ValueError, TypeError):
            continue  # pytest reports a broken module itself when it imports it
    return written


def rewrite_my_share(config: pytest.Config, folder: Path) -> None:
    """In an xdist worker: rewrite this worker's share of ``folder``'s test modules into pytest's cache."""
    worker_input = getattr(config, "workerinput", None)
    if worker_input is None or config.getoption("assertmode", "rewrite") != "rewrite":
        return
    workers = int(worker_input.get("workercount", 1))
    worker = int(str(worker_input.get("workerid", "gw0")).removeprefix("gw") or 0)
    if workers > 1:
        rewrite_into_cache(config, share(rewritable_modules(config, folder), worker, workers))
