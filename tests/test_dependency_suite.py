"""The dependency suites' selection (tests/conftest.py, README.md's Development section).

`.ci/dependency-suite` runs the suite with ``--dependency-suite`` on the oldest and the newest releases
pyproject.toml allows. It keeps every test (a new one is in without anyone choosing it) except the
modules marked ``own_environment`` and, of a test parametrized over ``seed``, all seeds but the first.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

TESTS = REPO / "tests"


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth of its code (function-level imports too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def reached(path: Path) -> set[str]:
    """The modules ``path`` imports, following the tests' own helper modules (tests.*) transitively."""
    seen: set[Path] = set()
    found: set[str] = set()
    todo = [path]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for name in imported(current):
            found.add(name)
            helper = REPO / (name.replace(".", "/") + ".py")
            if name.startswith("tests.") and helper.is_file():
                todo.append(helper)
    return found


def marks_own_environment(path: Path) -> bool:
    """Whether ``path`` applies ``pytest.mark.own_environment(...)`` (to itself or to a test)."""
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "own_environment"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
    )


def own_environment_modules() -> list[Path]:
    return sorted(path for path in TESTS.glob("test_*.py") if marks_own_environment(path))


def test_modules_left_to_their_own_environment_run_no_product_code_in_process():
    marked = own_environment_modules()
    assert [p.name for p in marked] == ["test_install.py", "test_precommit.py"]  # a new one is reviewed here
    for path in marked:
        product = sorted(name for name in reached(path) if name.split(".")[0] == "rubric_lsp")
        assert product == [], f"{path.name} imports {product}: the dependency suites must run it"


def collected(*args: str) -> list[str]:
    """The test ids ``pytest --collect-only`` lists for ``args``, in collection order."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n0", "-p", "no:cacheprovider", *args],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_the_dependency_suites_leave_out_only_own_environments_and_later_seeds():
    files = [
        "tests/test_install.py",
        "tests/test_server_fuzz.py",
        "tests/test_run_file.py",
        "tests/test_rubrics_task_seed.py",
    ]
    in_order = collected(*files)
    everything, selected = set(in_order), set(collected("--dependency-suite", *files))
    assert selected < everything
    left_out = everything - selected
    assert {t for t in everything if t.startswith("tests/test_install.py::")} <= left_out
    seeds = [t for t in in_order if "test_random_editing_session" in t]  # seeds 1, 2, 3
    assert len(seeds) == 3 and seeds[0] in selected and set(seeds[1:]) <= left_out
    assert all(t.startswith("tests/test_install.py::") or t in seeds[1:] for t in left_out)
    # Parametrized over something other than `seed` (each route killed once): every case is kept.
    routes = [t for t in in_order if "test_a_run_killed_at_random_points" in t]
    assert len(routes) == 2 and set(routes) <= selected
    assert {t for t in everything if t.startswith("tests/test_rubrics_task_seed.py::")} <= selected
