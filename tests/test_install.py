"""One install gives a working product: the built wheel, installed into a fresh venv.

The wheel is built from a copy of the source tree (`pip wheel`, the build requirement from
pyproject.toml) by the pip of the fresh venv itself (the one `python -m venv` bundles), so the
environment running the tests needs no pip of its own (uv's venvs have none); its dependencies
come from the package index pip is configured with, as a user's would. Base only: `rubric-lint` lints, `rubric-lsp` answers over stdio with
diagnostics, `rubric grade` says in one line how to add litellm (the editor's grading command
too). Then `[grade]` is added to the same venv and `rubric grade` grades against the local
judge: its requirements (litellm's 55 packages, ~310 MB) are those of the environment running the tests,
which its own install took from the index moments before, made visible to the venv after its own packages,
and pip, offline, finds the extra satisfied. About 30 s; marked slow, and required in CI (RUBRIC_REQUIRE_ALL=1),
skipped elsewhere when the package index cannot be reached.

The same messages without a fresh venv (litellm hidden from a process of this environment)
are checked fast in test_grade_extra.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO, SAMPLES, require
from tests.judge_server import Reply
from tests.raw_client import RawClient, open_doc

BIN = "Scripts" if os.name == "nt" else "bin"
# What a user's shell has: nothing that points Python at this checkout.
CLEAN_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
RUBRIC = "rubric:\n  criteria:\n    - {name: polite, requirement: Is polite, weight: 1}\n"
BAD_RUBRIC = "rubric:\n  criteria:\n    - {name: polite, requirment: Is polite, weight: 1}\n"
# The line `rubric grade` and the server print without litellm (rubric_lsp.engine.extra).
MISSING = re.compile(
    r"^grading needs litellm, which is not installed \(the optional \[grade\] extra.*-m pip install .*litellm"
)
SKIP_IN_COPY = shutil.ignore_patterns(
    ".git", "node_modules", "vscode-extension", "build", "dist", "*.egg-info", ".venv", "__pycache__", "test-artifacts"
)


def run(
    args: list[str], timeout: float = 300, env_extra: dict[str, str] | None = None, **kwargs
) -> subprocess.CompletedProcess[str]:
    env = {**CLEAN_ENV, **(env_extra or {})}
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env, **kwargs)


def pip_install(python: Path, *requirements: str, offline: bool = False) -> None:
    """``pip install`` into ``python``'s environment. From the index, a failure skips (no package index) except
    in CI; ``offline``, where nothing needs the index, it fails."""
    # --no-compile: pip would byte-compile every installed file (litellm's ~3,000), about 40 % of the [grade]
    # install's time (86 s against 49 s, measured); nothing here depends on it.
    flags = ["-q", "--disable-pip-version-check", "--no-compile", *(["--no-index"] if offline else [])]
    done = run([str(python), "-m", "pip", "install", *flags, *requirements], timeout=900)
    if offline:
        assert done.returncode == 0, done.stderr[-2000:]
    require(
        done.returncode == 0, f"pip install {' '.join(requirements)} failed (no package index?): {done.stderr[-800:]}"
    )


def found_in(venv: Path, *modules: str) -> tuple[Path, list[bool]]:
    """Where ``venv``'s Python imports rubric_lsp from, and whether it finds each of ``modules``."""
    probe = "import importlib.util as u, sys, rubric_lsp; print(rubric_lsp.__file__)\n"
    probe += "for name in sys.argv[1:]: print(bool(u.find_spec(name)))"
    done = run([str(venv / BIN / "python"), "-c", probe, *modules], cwd=venv)  # `-c`: the working folder first
    where, *found = done.stdout.splitlines()
    return Path(where).resolve(), [answer == "True" for answer in found]


@pytest.fixture(scope="module")
def empty_venv(tmp_path_factory) -> Path:
    """A fresh venv with nothing but the pip `python -m venv` puts in it (ensurepip's)."""
    home = tmp_path_factory.mktemp("venv") / "env"
    made = run([sys.executable, "-m", "venv", str(home)])
    assert made.returncode == 0, made.stderr
    return home


@pytest.fixture(scope="module")
def wheel(tmp_path_factory, empty_venv: Path) -> Path:
    source = tmp_path_factory.mktemp("source") / "rubric-lsp"
    shutil.copytree(REPO, source, ignore=SKIP_IN_COPY)
    out = tmp_path_factory.mktemp("wheel")
    pip = [str(empty_venv / BIN / "python"), "-m", "pip", "--disable-pip-version-check"]
    done = run([*pip, "wheel", "--no-deps", "-q", "-w", str(out), str(source)], timeout=600)
    require(done.returncode == 0, f"building the wheel failed (no package index for setuptools?): {done.stderr[-800:]}")
    (built,) = out.glob("rubric_lsp-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(empty_venv: Path, wheel: Path) -> Path:
    pip_install(empty_venv / BIN / "python", str(wheel))
    return empty_venv


pytestmark = [
    pytest.mark.slow,
    # The dependency suites skip it: the ranges they test never reach that environment.
    pytest.mark.own_environment(
        "builds the wheel and installs it, with its dependencies from the package index, into a fresh venv"
    ),
]


def test_the_wheel_carries_license_urls_and_an_off_repo_readme(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        meta = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "License-Expression: MIT" in meta and "Requires-Python: >=3.10" in meta
    assert "Project-URL: Repository, https://github.com/rubric-lsp/rubric-lsp" in meta
    # The base install serves: pygls and lsprotocol are plain dependencies, litellm only an extra.
    requires = [line for line in meta.splitlines() if line.startswith("Requires-Dist:")]
    assert any(line.startswith("Requires-Dist: pygls") and "extra" not in line for line in requires)
    assert any(line.startswith("Requires-Dist: litellm") and 'extra == "grade"' in line for line in requires)
    description = meta.split("\n\n", 1)[1]
    targets = re.findall(r"\]\(([^)\s]+)", description)
    assert len(targets) > 10  # the README's links (docs pages, schemas, screenshots)
    relative = [t for t in targets if not t.startswith(("https://", "http://", "#"))]
    assert relative == [], f"links that do not work off the repository: {relative[:5]}"


def test_base_install_has_the_server_and_not_litellm(venv: Path) -> None:
    where, found = found_in(venv, "pygls", "litellm")
    assert where.is_relative_to(venv.resolve())  # the wheel's code, not this checkout's
    assert found == [True, False]


def test_rubric_lint_reports_and_fixes_in_the_fresh_venv(venv: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.rubric.yaml"
    bad.write_text(BAD_RUBRIC, encoding="utf-8")
    done = run([str(venv / BIN / "rubric-lint"), str(bad)], cwd=tmp_path)
    assert done.returncode == 1 and "AR001" in done.stdout, done.stdout + done.stderr
    good = run([str(venv / BIN / "rubric-lint"), str(SAMPLES / "autorubric" / "refund-reply.rubric.yaml")])
    assert good.returncode == 0, good.stdout + good.stderr


def test_rubric_lsp_answers_over_stdio_with_diagnostics(venv: Path, tmp_path: Path) -> None:
    client = RawClient(tmp_path, command=[str(venv / BIN / "rubric-lsp")], env={"PYTHONPATH": ""})
    try:
        rid = client.send("initialize", {"processId": os.getpid(), "rootUri": tmp_path.as_uri(), "capabilities": {}})
        assert "capabilities" in client.response(rid, timeout=60)["result"]
        client.send("initialized", {}, request=False)
        uri = open_doc(client, tmp_path, BAD_RUBRIC)
        client.pump_until(lambda: uri in client.published, timeout=60)
        codes = [d.get("code") for d in client.published[uri]["diagnostics"]]
        assert "AR001" in codes
        # The editor's grading command without litellm: one line, no traceback, no per-criterion errors.
        answer = client.request(
            "workspace/executeCommand", {"command": "rubric-lsp.gradeText", "arguments": [{"uri": uri, "text": "Hi"}]}
        )
        assert MISSING.match(answer["result"]["error"]), answer
        assert "\n" not in answer["result"]["error"]
    finally:
        client.close()


def test_rubric_grade_without_litellm_says_how_in_one_line(venv: Path, tmp_path: Path) -> None:
    rubric = tmp_path / "r.rubric.yaml"
    rubric.write_text(RUBRIC, encoding="utf-8")
    (tmp_path / "reply.txt").write_text("Hello", encoding="utf-8")
    done = run([str(venv / BIN / "rubric"), "grade", str(rubric), "--response", str(tmp_path / "reply.txt")])
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert MISSING.match(line.removeprefix("rubric grade: ")), line
    assert str(venv / BIN / "python") in line  # the command installs into this very environment


def test_with_the_grade_extra_it_grades_against_the_local_judge(
    venv: Path, wheel: Path, tmp_path: Path, judge_server
) -> None:
    # [grade]'s requirements are the releases the environment running the tests holds (its own install took
    # them from the index, `[test]` includes `[all]`): visible to the fresh venv after its own site-packages
    # (a .pth file), so that pip, offline, finds the extra satisfied instead of unpacking ~300 MB again (~45 s).
    python = venv / BIN / "python"
    purelib = run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    ours = {sysconfig.get_paths()[name] for name in ("purelib", "platlib")}
    Path(purelib, "zz-test-environment.pth").write_text("\n".join(sorted(ours)) + "\n", encoding="utf-8")
    pip_install(python, f"{wheel}[grade]", offline=True)
    where, found = found_in(venv, "litellm")
    assert where.is_relative_to(venv.resolve()) and found == [True]  # the wheel's code, with litellm
    rubric = tmp_path / "r.rubric.yaml"
    rubric.write_text(RUBRIC, encoding="utf-8")
    (tmp_path / "reply.txt").write_text("Hello, happy to help.", encoding="utf-8")
    judge_server.default = Reply.json({"criterion_status": "MET", "explanation": "polite"})
    args = ["grade", str(rubric), "--response", str(tmp_path / "reply.txt"), "--format", "json", "--no-cache"]
    args += ["--api-base", judge_server.base_url, "--model", "openai/judge"]
    done = run([str(venv / BIN / "rubric"), *args], env_extra={"OPENAI_API_KEY": "dummy"})
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert judge_server.call_count == 1
    assert report["score"] == 1.0, report
