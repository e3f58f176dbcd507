"""tests/rewrite_once.py: each worker rewrites its share of the test modules into pytest's own cache, and
what it writes is what pytest loads and would have written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _pytest.assertion.rewrite import _read_pyc, _rewrite_test

from tests.conftest import REPO
from tests.rewrite_once import cached_rewrite, rewritable_modules, rewrite_into_cache, share

SOURCE = "def test_two():\n    left = 1\n    assert left == 2\n"


def test_the_shares_cover_every_module_once() -> None:
    files = [Path(f"test_{n:03}.py") for n in range(31)]
    parts = [share(files, worker, 3) for worker in range(3)]
    assert sorted(f for part in parts for f in part) == sorted(files)
    assert all(10 <= len(part) <= 11 for part in parts)


def test_the_modules_are_pytest_s_test_files_and_conftests(pytestconfig: pytest.Config, tmp_path: Path) -> None:
    for name in ("test_a.py", "b_test.py", "helper.py", "conftest.py", "sub/conftest.py", "sub/test_c.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "test_x.py").write_text("")
    found = {p.relative_to(tmp_path).as_posix() for p in rewritable_modules(pytestconfig, tmp_path)}
    assert found == {"test_a.py", "b_test.py", "conftest.py", "sub/conftest.py", "sub/test_c.py"}


def test_the_cached_rewrite_is_pytest_s_and_is_loaded(pytestconfig: pytest.Config, tmp_path: Path) -> None:
    module = tmp_path / "test_sample.py"
    module.write_text(SOURCE)
    assert rewrite_into_cache(pytestconfig, [module]) == 1
    code = _read_pyc(module, cached_rewrite(module))
    assert code is not None  # what the import hook reads back
    assert code.co_consts == _rewrite_test(module, pytestconfig)[1].co_consts
    namespace: dict[str, object] = {}
    exec(code, namespace)
    with pytest.raises(AssertionError) as failed:
        namespace["test_two"]()  # type: ignore[operator]
    assert "assert 1 == 2" in str(failed.value)  # the rewritten assert explains itself


def test_an_up_to_date_module_is_left_and_a_changed_one_rewritten(pytestconfig: pytest.Config, tmp_path: Path) -> None:
    module = tmp_path / "test_sample.py"
    module.write_text(SOURCE)
    assert rewrite_into_cache(pytestconfig, [module]) == 1
    assert rewrite_into_cache(pytestconfig, [module]) == 0
    module.write_text(SOURCE.replace("== 2", "== 30"))  # another size: pytest 8 keys its cache on mtime and size
    assert rewrite_into_cache(pytestconfig, [module]) == 1
    assert _read_pyc(module, cached_rewrite(module)) is not None


def test_a_broken_module_or_an_unwritable_cache_is_left_to_pytest(pytestconfig: pytest.Config, tmp_path: Path) -> None:
    broken = tmp_path / "test_broken.py"
    broken.write_text("def test(:\n")
    blocked = tmp_path / "sub" / "test_blocked.py"
    blocked.parent.mkdir()
    blocked.write_text(SOURCE)
    (blocked.parent / "__pycache__").write_text("a file where the cache folder would be")
    assert rewrite_into_cache(pytestconfig, [broken, blocked]) == 0


@pytest.mark.skipif(not os.environ.get("PYTEST_XDIST_WORKER"), reason="the shares are written by xdist workers")
def test_in_this_run_every_test_module_s_rewrite_is_cached(pytestconfig: pytest.Config) -> None:
    if not os.access(REPO / "tests", os.W_OK):
        pytest.skip("the checkout is read-only: pytest rewrites in memory")
    stale = [
        p.name for p in rewritable_modules(pytestconfig, REPO / "tests") if _read_pyc(p, cached_rewrite(p)) is None
    ]
    assert stale == []
