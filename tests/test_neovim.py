"""A real editor as the client: headless Neovim opens a bad rubric and sees the finding."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, require

INIT = Path(__file__).parent / "nvim" / "init.lua"

BAD = "rubric:\n  - requirement: Greets the user ✓\n  - requirment: Says goodbye ✓\n    weight: 3\n"


@pytest.mark.editor
def test_neovim_shows_the_finding_on_its_line_and_applies_the_fix(tmp_path: Path):
    nvim = shutil.which("nvim")
    require(nvim is not None, "Neovim is not installed (apt-get install neovim)")
    target = tmp_path / "bad.rubric.yaml"
    target.write_text(BAD, encoding="utf-8")
    out = tmp_path / "result.json"
    env = {
        **os.environ,
        "RUBRIC_NVIM_FILE": str(target),
        "RUBRIC_NVIM_OUT": str(out),
        "RUBRIC_NVIM_PYTHON": sys.executable,
        "RUBRIC_NVIM_FIX_CODE": "AR001",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    subprocess.run(
        [nvim, "--headless", "--clean", "-u", str(INIT)],
        env=env,
        cwd=tmp_path,
        timeout=90,
        check=False,
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    assert out.is_file(), "Neovim wrote no result"
    result = json.loads(out.read_text())
    assert result["errors"] == [], result
    found = [(d["code"], d["lnum"], d["col"], d["source"]) for d in result["diagnostics"]]
    assert ("AR001", 2, 4, "rubric-lint") in found  # line 3 (0-based 2), on the misspelt key
    assert result.get("fixed_text") == BAD.replace("requirment", "requirement").rstrip("\n")
