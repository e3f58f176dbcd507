"""Shared test fixtures and paths."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

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
    what the VS Code e2e and bench/bench_scale.py run. A test of that route sets the variable itself.
    """
    from tests.judge_server import JudgeServer

    monkeypatch.setenv("RUBRIC_JUDGE_TRANSPORT", "litellm")

    with JudgeServer() as server:
        yield server


def use_judge(monkeypatch, server, key: str, cache_dir: Path | None = None) -> None:
    """Point ``rubric grade`` (and anything reading the environment) at ``server`` as ``openai/judge``,
    with ``key`` as the API key and, when given, ``cache_dir`` as the verdict cache."""
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("RUBRIC_JUDGE_API_BASE", server.base_url)
    monkeypatch.setenv("RUBRIC_JUDGE_MODEL", "openai/judge")
    if cache_dir is not None:
        monkeypatch.setenv("RUBRIC_CACHE_DIR", str(cache_dir))


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
    rid = client.send("initialize", {"processId": os.getpid(), "rootUri": tmp_path.as_uri(), "capabilities": {}})
    assert "capabilities" in client.response(rid)["result"]
    client.send("initialized", {}, request=False)
    yield client
    client.close()
