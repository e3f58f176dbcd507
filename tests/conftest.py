"""Shared test fixtures and paths."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import sqlite3
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.rewrite_once import rewrite_my_share

# A suite started as a background job of a non-interactive shell (`cmd &`) inherits SIGINT
# ignored, and so would every process it starts: the tests that press Ctrl-C on a child (watch
# mode, a batch run) then wait for nothing. A handler of our own is reset to the default at exec.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Importing litellm must stay offline (it fetches a price map otherwise).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("RUBRIC_SHARED_DIR", REPO.parent / "shared"))
CORPUS = SHARED / "corpus"
SEEDS = SHARED / "seeds"
SAMPLES = REPO / "samples"


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(
            f"shared corpus not found at {CORPUS}: these tests run over real files from the team's ../shared "
            "folder (or $RUBRIC_SHARED_DIR); see README.md, Development"
        )
    return CORPUS


@pytest.fixture
def judge_server(monkeypatch):
    """A running OpenAI-compatible judge (tests/judge_server.py) on a free port; stopped after the test.

    Gradings against it go through litellm's real HTTP path, the path every hosted provider takes:
    its ``openai/judge`` would otherwise take the direct route (engine/transports/direct.py), which has tests
    of its own (tests/test_grading_direct.py: the same requests and failures as litellm's) and is
    what the VS Code e2e, the Neovim and Emacs tests (``editor_environ``) and bench/bench_scale.py run. A test of
    that route sets the variable itself.
    """
    from tests.judge_server import JudgeServer

    monkeypatch.setenv("RUBRIC_JUDGE_TRANSPORT", "litellm")

    with JudgeServer() as server:
        yield server
    # litellm keeps its last call's locals in litellm.error_logs (a failed call's exception, whose frames
    # hold the grading and its verdict cache) until its next call: dropped, so what the test itself left
    # open is what the leak guard sees.
    litellm = sys.modules.get("litellm")
    if litellm is not None and isinstance(getattr(litellm, "error_logs", None), dict):
        litellm.error_logs.clear()


@pytest.fixture(autouse=True, scope="module")
def _close_the_shared_javascript_isolate() -> Iterator[None]:
    """The V8 isolate promptfoo's regex assertions run in is made on first use and kept for the process's
    life (grading/javascript.py: an isolate per pattern would cost ~40 times more), with the event loop and
    thread mini-racer gives each isolate. The module whose tests made it closes it: not left to the next."""
    yield
    javascript = sys.modules.get("rubric_lsp.formats.promptfoo.grading.javascript")
    if javascript is not None:
        javascript.close_shared_isolate()


def use_judge(monkeypatch, server, key: str, cache_dir: Path | None = None, *, direct: bool = False) -> None:
    """Point ``rubric grade`` (and anything reading the environment) at ``server`` as ``openai/judge``,
    with ``key`` as the API key and, when given, ``cache_dir`` as the verdict cache.

    ``direct``: calls take the direct route (engine/transports/direct.py), not litellm's that the judge_server
    fixture sets, for a test whose subject is not the transport: the processes it starts then never import
    litellm (~9 s of CPU each on the shared cores)."""
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("RUBRIC_JUDGE_API_BASE", server.base_url)
    monkeypatch.setenv("RUBRIC_JUDGE_MODEL", "openai/judge")
    if cache_dir is not None:
        monkeypatch.setenv("RUBRIC_CACHE_DIR", str(cache_dir))
    if direct:
        monkeypatch.delenv("RUBRIC_JUDGE_TRANSPORT", raising=False)


def editor_environ() -> dict[str, str]:
    """This process's environment for an editor that starts the server, with the judge on the direct route:
    the subject of an editor test is the editor's side (its commands, lenses, messages), the transport has
    tests of its own, and a server that imported litellm to grade spent ~9 s of CPU on the shared cores
    per editor test. The VS Code e2e grades on the same route."""
    return {k: v for k, v in os.environ.items() if k != "RUBRIC_JUDGE_TRANSPORT"}


def require(condition: bool, reason: str) -> None:
    """Skip when an optional tool is missing — except in CI, where it must be there.

    `.ci/run` sets RUBRIC_REQUIRE_ALL=1 after installing every tool the tests use, so a
    missing install step shows up as a failure instead of a silent skip.
    """
    if condition:
        return
    if os.environ.get("RUBRIC_REQUIRE_ALL") == "1":
        pytest.fail(f"required in CI: {reason}")
    pytest.skip(reason)


# promptfoo 0.123.1's released package (and the js-yaml it loads configs with): `.ci/run` installs it
# into test-artifacts/promptfoo and points this variable at its node_modules. Tests that check a claim
# against the owner's released code, or generate a table from it, read it here.
PROMPTFOO_MODULES_ENV = "RUBRIC_PROMPTFOO_MODULES"


@pytest.fixture
def promptfoo_modules() -> Path:
    """The node_modules folder holding promptfoo 0.123.1 (skips outside CI when it is not installed)."""
    found = os.environ.get(PROMPTFOO_MODULES_ENV)
    candidates = [Path(found)] if found else [REPO / "test-artifacts" / "promptfoo" / "node_modules"]
    for path in candidates:
        if (path / "promptfoo" / "package.json").is_file():
            return path
    require(False, f"promptfoo 0.123.1 is not installed (set ${PROMPTFOO_MODULES_ENV}; .ci/run installs it)")
    raise AssertionError("unreachable")


def import_or_require(module: str):
    """``pytest.importorskip`` that fails in CI instead of skipping (see ``require``)."""
    try:
        return __import__(module)
    except ImportError:
        require(False, f"python package {module!r} is not installed")


@pytest.fixture
def raw(tmp_path: Path):
    from tests.raw_client import RawClient

    client = RawClient(tmp_path)
    client.initialize(tmp_path)
    yield client
    client.close()


@contextmanager
def database(path: Path | str) -> Iterator[sqlite3.Connection]:
    """An SQLite connection that commits on success and is closed on leaving.

    ``with sqlite3.connect(path) as db`` only ends the transaction: the connection (and its file
    descriptor) stays open until the garbage collector finds it, and a poll loop opens hundreds.
    """
    db = sqlite3.connect(path)
    try:
        with db:
            yield db
    finally:
        db.close()


# -- the leak guard -------------------------------------------------------------------------------
# Each test module must leave no file descriptor and no child process open behind it (a socket, a
# database, a pipe, a server it started): under `-n` the same worker runs module after module, and
# what one leaves open another one inherits (issue 35). The guard compares /proc/self/fd and this
# process's children before a module's first test and after its module fixtures are torn down, and
# fails that teardown naming what was left. What a session-scoped fixture opens lives for the
# session by design and is not counted. Linux only (it reads /proc); cheap: two directory listings.

PROC_SELF = Path("/proc/self")
LEAK_SETTLE_SECONDS = 5.0  # only a module that leaks waits it out


def _open_fds() -> set[tuple[int, str]]:
    found = set()
    for name in os.listdir(PROC_SELF / "fd"):
        try:
            found.add((int(name), os.readlink(PROC_SELF / "fd" / name)))
        except OSError:  # the listing's own descriptor, closed by now
            continue
    return found


def _peer_closed(fds: set[tuple[int, str]]) -> set[tuple[int, str]]:
    """The TCP sockets among ``fds`` whose peer has closed the connection (CLOSE_WAIT).

    An HTTP client's pool keeps its idle connections (litellm keeps some of its clients for the process's
    life): once the in-process judge a test started has stopped and closed its ends, what is left is
    the pool's half, which the pool drops on its next use. Not counted as a leak."""
    inodes = {target[len("socket:[") : -1]: (fd, target) for fd, target in fds if target.startswith("socket:[")}
    closed = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = (Path("/proc/net") / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[3] == "08" and fields[9] in inodes:  # 08: TCP_CLOSE_WAIT
                closed.add(inodes[fields[9]])
    return closed


def _current_loop_fds() -> set[int]:
    """The descriptors of this thread's current event loop, if one is set and open.

    pytest-asyncio before 1.4 leaves a loop of its own set as the thread's current loop between
    modules (its scoped-loop fixture puts back the one ``get_event_loop`` made): the plugin's, not a test's.
    """
    loop = getattr(getattr(asyncio.get_event_loop_policy(), "_local", None), "_loop", None)
    if loop is None or loop.is_closed():
        return set()
    owned = [getattr(loop, "_selector", None), getattr(loop, "_ssock", None), getattr(loop, "_csock", None)]
    return {part.fileno() for part in owned if part is not None}


def _children() -> set[int]:
    pids: set[int] = set()
    for task in (PROC_SELF / "task").iterdir():
        try:
            pids.update(int(pid) for pid in (task / "children").read_text().split())
        except OSError:  # a thread that ended meanwhile
            continue
    return pids


def _describe(pid: int) -> str:
    try:
        argv = (Path("/proc") / str(pid) / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return str(pid)
    return f"{pid} " + " ".join(a.decode(errors="replace") for a in argv)[:200]


class LeakGuard:
    def __init__(self) -> None:
        self.module: object = None
        self.fds: set[tuple[int, str]] = set()
        self.children: set[int] = set()
        self.allowed_fds: set[tuple[int, str]] = set()
        self.allowed_children: set[int] = set()

    def start(self, module: object) -> None:
        self.module = module
        self.fds, self.children = _open_fds(), _children()

    def leaks(self) -> list[str]:
        fds = _open_fds() - self.fds - self.allowed_fds
        children = _children() - self.children - self.allowed_children
        # What only a reference cycle still holds is closed by its finalizer, and a thread of the code
        # under test may be closing its connections as the test ends: not leaks. A leak stays open.
        deadline = time.monotonic() + LEAK_SETTLE_SECONDS
        while (fds or children) and time.monotonic() < deadline:
            gc.collect()
            fds = _open_fds() - self.fds - self.allowed_fds
            children = _children() - self.children - self.allowed_children
            fds -= _peer_closed(fds)
            fds = {(fd, target) for fd, target in fds if fd not in _current_loop_fds()}
            if fds or children:
                time.sleep(0.1)
        return [f"file descriptor {fd} -> {target}" for fd, target in sorted(fds)] + [
            f"child process {_describe(pid)}" for pid in sorted(children)
        ]


LEAK_GUARD = LeakGuard() if (PROC_SELF / "fd").is_dir() and (PROC_SELF / "task").is_dir() else None


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):
    if LEAK_GUARD is None or fixturedef.scope != "session":
        return (yield)
    fds, children = _open_fds(), _children()
    try:
        return (yield)
    finally:
        LEAK_GUARD.allowed_fds |= _open_fds() - fds
        LEAK_GUARD.allowed_children |= _children() - children


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    if LEAK_GUARD is not None and item.module is not LEAK_GUARD.module:
        LEAK_GUARD.start(item.module)
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    result = yield  # the module's fixtures are torn down by now when the next test is elsewhere
    if LEAK_GUARD is not None and (nextitem is None or nextitem.module is not item.module):
        LEAK_GUARD.module = None
        left = LEAK_GUARD.leaks()
        if left:
            pytest.fail(f"{item.module.__name__} left open after its tests:\n  " + "\n  ".join(left), pytrace=False)
    return result


# -- the dependency suites ------------------------------------------------------------------------
# `.ci/dependency-suite oldest|newest` runs the suite with `--dependency-suite` in a venv holding the
# oldest or the newest releases pyproject.toml allows. Every test runs there (a new test is in by
# default: nothing can leave it out silently) except what the ranges cannot change:
# - a module marked `own_environment`: it runs the product only in an environment it installs itself
#   from the package index (tests/test_dependency_suite.py checks that it imports no rubric_lsp);
# - all seeds but the first of a test parametrized over `seed`: the same code paths, other random draws.


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--dependency-suite",
        action="store_true",
        help="the dependency suites' selection (README.md, Development): .ci/dependency-suite passes it",
    )


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker more than the cores this process may run on. A third of the suite's worker time
    on 2 cores is spent waiting (editors, Node, pip, servers starting, a judge's held replies) rather than
    computing; the extra worker runs another file meanwhile."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores + 1


def pytest_configure(config: pytest.Config) -> None:
    # The workers' collection order is the order the modules are handed out in (_long_waits_first), not
    # xdist's re-sort by number of tests (pytest-xdist 3.7+; 3.6 always re-sorts, and the dependency suites
    # it runs in leave the own-environment modules out).
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False
    _compile_bytecode_once(config)
    rewrite_my_share(config, REPO / "tests")
    config.addinivalue_line(
        "markers",
        "own_environment(reason): runs the product only in an environment it installs itself "
        "(not run by the dependency suites)",
    )


def dependency_suite_keeps(item: pytest.Item) -> bool:
    """Whether the dependency suites run ``item`` (see above)."""
    if item.get_closest_marker("own_environment") is not None:
        return False
    callspec = getattr(item, "callspec", None)
    return callspec is None or callspec.indices.get("seed", 0) == 0


def _long_waits_first(items: list[pytest.Item]) -> None:
    """Order the modules as xdist would hand them out (most tests first), except that the modules which install
    an environment of their own (``own_environment``: minutes of pip, mostly waiting) come before all others.
    xdist's order put them last, having few tests, so that their wall time was the end of the run while the
    other workers had nothing left to do."""

    def module(item: pytest.Item) -> str:  # the unit `--dist loadfile` hands out
        return item.nodeid.split("::", 1)[0]

    counts = Counter(module(item) for item in items)
    first = {module(item) for item in items if item.get_closest_marker("own_environment") is not None}
    rank = {name: n for n, name in enumerate(sorted(counts, key=lambda name: (name not in first, -counts[name])))}
    items.sort(key=lambda item: rank[module(item)])


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if hasattr(config, "workerinput"):
        _long_waits_first(items)
    if not config.getoption("--dependency-suite"):
        return
    kept = [item for item in items if dependency_suite_keeps(item)]
    left = [item for item in items if not dependency_suite_keeps(item)]
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


def _compile_bytecode_once(config: pytest.Config) -> None:
    """Write the package's and the tests' bytecode once, before the workers start, where Python will not
    (PYTHONDONTWRITEBYTECODE, set on some CI machines): otherwise each of the suite's hundreds of
    subprocesses (servers, CLIs, judges) compiles every module it imports again, about 0.2 s of CPU for a
    small lint and more for a server. compileall skips what is already compiled and up to date."""
    if not sys.dont_write_bytecode or hasattr(config, "workerinput"):
        return
    import compileall

    for folder in ("rubric_lsp", "tests"):
        compileall.compile_dir(REPO / folder, quiet=1, workers=0)
