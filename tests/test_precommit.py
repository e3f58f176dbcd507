"""The README's pre-commit snippet works as written against this repository.

The snippet is taken from README.md ("## pre-commit") and run by pre-commit itself with one
change: `repo:` points at a clone of this repository (its committed HEAD, as the branch the
snippet's `rev:` names) instead of the GitHub address, which a test cannot reach. pre-commit
builds the hook's environment from the package index, as for a user (~30-60 s); marked slow,
required in CI. `.ci/run` also runs `pre-commit try-repo` on the working tree.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO, require

pytestmark = [
    pytest.mark.slow,
    # The dependency suites skip it: the ranges they test never reach that environment.
    pytest.mark.own_environment(
        "pre-commit installs the hook, with its dependencies from the package index, into an environment of its own"
    ),
]

CLEAN_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
GOOD = "rubric:\n  criteria:\n    - {name: polite, requirement: Is polite, weight: 1}\n"
BAD = "rubric:\n  criteria:\n    - {name: polite, requirment: Is polite, weight: 1}\n"
WORKFLOW = "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make\n"


def readme_snippet() -> str:
    section = REPO.joinpath("README.md").read_text(encoding="utf-8").split("## pre-commit", 1)[1]
    match = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert match, "README.md's pre-commit section has no yaml block"
    return match.group(1)


def pre_commit() -> list[str]:
    found = shutil.which("pre-commit")
    if found:
        return [found]
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        require(False, "pre-commit is not installed (it is in the [test] extra)")
    return [sys.executable, "-m", "pre_commit"]


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def test_the_snippet_names_this_repository_and_its_hooks() -> None:
    config = yaml.safe_load(readme_snippet())
    (repo,) = config["repos"]
    pyproject = REPO.joinpath("pyproject.toml").read_text(encoding="utf-8")
    assert f'Repository = "{repo["repo"]}"' in pyproject
    hooks = {hook["id"] for hook in yaml.safe_load(REPO.joinpath(".pre-commit-hooks.yaml").read_text())}
    assert {hook["id"] for hook in repo["hooks"]} <= hooks and repo["rev"]


def test_the_snippet_runs_the_hook(tmp_path: Path) -> None:
    command = pre_commit()
    require(shutil.which("git") is not None, "git is not installed")
    snippet = readme_snippet()
    url = yaml.safe_load(snippet)["repos"][0]["repo"]
    rev = yaml.safe_load(snippet)["repos"][0]["rev"]
    # This repository as the remote: its committed HEAD under the branch name the snippet uses.
    remote = tmp_path / "remote.git"
    git("clone", "-q", "--bare", str(REPO), str(remote), cwd=tmp_path)
    git("update-ref", f"refs/heads/{rev}", git("rev-parse", "HEAD", cwd=REPO), cwd=remote)
    project = tmp_path / "project"
    (project / ".github" / "workflows").mkdir(parents=True)
    git("init", "-q", cwd=project)
    (project / ".pre-commit-config.yaml").write_text(snippet.replace(url, str(remote)), encoding="utf-8")
    (project / "good.rubric.yaml").write_text(GOOD, encoding="utf-8")
    (project / "bad.rubric.yaml").write_text(BAD, encoding="utf-8")
    (project / ".github" / "workflows" / "ci.yaml").write_text(WORKFLOW, encoding="utf-8")
    env = {**CLEAN_ENV, "PRE_COMMIT_HOME": str(tmp_path / "cache")}

    def run(*files: str) -> subprocess.CompletedProcess[str]:
        args = [*command, "run", "--files", *files]
        return subprocess.run(args, cwd=project, capture_output=True, text=True, env=env, timeout=900)

    clean = run("good.rubric.yaml", ".github/workflows/ci.yaml")
    # 3: pre-commit's own failure, e.g. no package index to build the hook's environment from
    require(clean.returncode != 3, f"pre-commit could not set up the hook: {clean.stdout[-800:]}")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    found = run("good.rubric.yaml", "bad.rubric.yaml")
    assert found.returncode == 1 and "bad.rubric.yaml" in found.stdout and "AR001" in found.stdout, found.stdout
