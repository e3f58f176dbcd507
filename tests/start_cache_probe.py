"""Running a probe in a fresh interpreter with a cache folder of its own, for the tests of what the start caches
keep (tests/test_server_lsp_types.py, test_dataclass_bytecode.py, test_regex_code.py; no tests here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path


def cache_env(tmp_path: Path, cache_home: Path | None = None) -> dict[str, str]:
    """This environment with the user's cache folder (and home) under ``tmp_path``, or at ``cache_home``."""
    home = cache_home or tmp_path / "cache"
    return {**os.environ, "XDG_CACHE_HOME": str(home), "HOME": str(tmp_path), "LOCALAPPDATA": str(home)}


def run_probe(probe: str, tmp_path: Path, *args: str, cache_home: Path | None = None, **env: str) -> dict:
    """``python -c probe *args`` in that environment; the JSON it printed. It must succeed and say nothing else."""
    done = subprocess.run(
        [sys.executable, "-c", probe, *args],
        capture_output=True,
        text=True,
        env={**cache_env(tmp_path, cache_home), **env},
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
    return json.loads(done.stdout)


def cache_file(tmp_path: Path, name: str) -> Path:
    """The one file ``name`` (``dataclasses-probe``, ``regex-probe``...) in the probes' cache folder."""
    (path,) = (tmp_path / "cache" / "rubric-lsp" / "bytecode").glob(f"{name}.*")
    return path


def starts_with_an_unwritable_cache(start: Callable[..., dict], tmp_path: Path) -> list[dict]:
    """Two starts (``start(tmp_path, cache_home=...)``) whose cache folder is a file, so that nothing can be
    written there; what each reported. The file is left as it was."""
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder", encoding="utf-8")
    results = [start(tmp_path, cache_home=blocked) for _ in range(2)]
    assert blocked.read_text(encoding="utf-8") == "not a folder"
    return results
