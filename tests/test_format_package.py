"""A format published as its own package works once installed: linted, served and graded.

The package is written here (``rubric-decks``: card decks, ``*.deck.yaml``), with the entry point
a third party would declare, a detector, one rule with its checker and a grader. It is packed into
a wheel by the stdlib (``build_wheel``, PEP 427: a build backend would need the ``wheel`` package
or a newer setuptools than an offline machine may have; what is tested is what rubric-lsp reads
of the installed metadata, not how setuptools writes it) and installed by pip into a fresh venv
that sees the packages of the environment under test (a ``.pth`` file adding its site-packages: a
venv's ``--system-site-packages`` would see the *base* Python's, which lack pygls and litellm when
the tests run in a venv); the checkout under test comes first on ``PYTHONPATH``. Nothing in ``rubric_lsp`` names it: the installed metadata is the only
way in. Then ``rubric lint`` reports its rule, the language server
publishes it over stdio, and ``rubric grade`` grades the deck against the local scripted judge.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import require
from tests.raw_client import RawClient

pytestmark = pytest.mark.slow  # a venv, a wheel and three processes: ~20 s on a loaded 2-core machine

REPO = Path(__file__).resolve().parent.parent
BIN = "Scripts" if os.name == "nt" else "bin"

# What the package's pyproject.toml would declare:
#     [project.entry-points."rubric_lsp.formats"]
#     decks = "rubric_decks:FORMATS"
ENTRY_POINTS = "[rubric_lsp.formats]\ndecks = rubric_decks:FORMATS\n"

INIT = '''\
"""Card decks: what rubric-lsp knows of them, light (imported by discovery)."""

from rubric_lsp.formats.plugin import Format

NAME = "card-deck"


def detect(doc) -> int:
    root = doc.root
    return 70 if root is not None and root.is_map and root.has("deck") and root.has("cards") else 0


FORMATS = (
    Format(
        name=NAME,
        title="Card deck",
        languages=("yaml",),
        file_patterns=("*.deck.yaml",),
        detect=detect,
        checker_modules=("rubric_decks.rules",),
        grader="rubric_decks.grader:GRADER",  # named: loaded on the first grading
        rule_prefix="DK",
        rule_title="Card decks",
    ),
)
'''

RULES = """\
from rubric_lsp.diagnostics import Severity
from rubric_lsp.formats.registry import checker
from rubric_lsp.rules.registry import rule

from rubric_decks import NAME

NEGATIVE = rule(
    "DK001",
    "negative-points",
    Severity.WARNING,
    "A card is worth negative points.",
    "Decks count points up from zero.",
    bad="deck: d\\ncards:\\n  - {name: a, points: -1}\\n",
    good="deck: d\\ncards:\\n  - {name: a, points: 1}\\n",
    formats=(NAME,),
)


@checker(NAME)
def check_points(ctx) -> None:
    for card in ctx.document.root.get("cards").elements():
        points = card.get("points")
        if points is not None and isinstance(points.value, int) and points.value < 0:
            ctx.report(NEGATIVE, points, f"Card '{card.get('name').value}' is worth {points.value} points.")
"""

GRADER = '''\
import json

from rubric_lsp.engine.failures import JudgeFailure
from rubric_lsp.engine.report import GradeReport, Verdict
from rubric_lsp.engine.runner import Grader, fan_out

from rubric_decks import NAME


def _parse(content):
    try:
        data = json.loads(content)
        return ("PASS" if data["pass"] else "FAIL"), str(data["reason"])
    except (ValueError, KeyError, TypeError) as exc:
        raise JudgeFailure("parse", f"not a deck verdict: {exc}") from None


async def grade(doc, request, grading):
    """One judge call per card: does the response play it well?"""
    cards = doc.root.get("cards").elements()
    run = grading.start()
    judge = run.judge()
    grading.expect(len(cards))

    async def one(index, card):
        name = card.get("name").value
        messages = [{"role": "user", "content": f"Does this play the {name} well?\\n\\n{request.response}"}]
        try:
            (verdict, reason), cached = await judge.ask(messages, None, _parse)
        finally:
            grading.tick()
        return Verdict(name, index, verdict, reason, doc.range(card).to_json(), passed=verdict == "PASS", cached=cached)

    verdicts = await fan_out(one(i, card) for i, card in enumerate(cards))
    report = GradeReport(format=NAME, verdicts=verdicts, model=judge.model, usage=run.usage())
    report.score = report.raw_score = sum(v.passed is True for v in verdicts) / len(verdicts)
    report.passed = all(v.passed for v in verdicts)
    return report


GRADER: Grader = grade
'''

DECK = "deck: Demo\ncards:\n  - name: ace\n    points: 11\n  - name: joker\n    points: -3\n"


def run(*argv: str, **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, **kwargs)


def build_wheel(folder: Path) -> Path:
    """``rubric_decks-1.0.0-py3-none-any.whl`` in ``folder``: the package and its dist-info (PEP 427)."""
    info = "rubric_decks-1.0.0.dist-info"
    files = {
        **{
            f"rubric_decks/{name}.py": text
            for name, text in {"__init__": INIT, "rules": RULES, "grader": GRADER}.items()
        },
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: rubric-decks\nVersion: 1.0.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: tests/test_format_package.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": ENTRY_POINTS,
        f"{info}/top_level.txt": "rubric_decks\n",
    }
    wheel = folder / "rubric_decks-1.0.0-py3-none-any.whl"
    record = []
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            data = text.encode()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{name},sha256={digest},{len(data)}")
            archive.writestr(name, data)
        archive.writestr(f"{info}/RECORD", "\n".join([*record, f"{info}/RECORD,,"]) + "\n")
    return wheel


def see_this_environment(python: Path) -> None:
    """Make the venv of ``python`` see the packages of the environment running the tests.

    A ``.pth`` line starting with ``import`` runs at start-up: ``site.addsitedir`` adds each of this
    environment's site-packages after the venv's own and processes its ``.pth`` files too (editable
    installs, namespace packages), as the environment's own interpreter does.
    """
    user = [site.getusersitepackages()] if site.ENABLE_USER_SITE else []
    ours = [p for p in [*site.getsitepackages(), *user] if Path(p).is_dir()]
    where = run(str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))")
    assert where.returncode == 0, where.stderr
    line = "import site; " + "; ".join(f"site.addsitedir({p!r})" for p in ours)
    (Path(where.stdout.strip()) / "_environment_under_test.pth").write_text(line + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A fresh venv holding the ``rubric-decks`` wheel (and seeing this environment's packages)."""
    probe = run(sys.executable, "-m", "pip", "--version")
    require(probe.returncode == 0, f"installing the wheel needs pip: {probe.stderr[-300:]}")
    root = tmp_path_factory.mktemp("decks")
    wheel = build_wheel(root)
    home = root / "env"
    run(sys.executable, "-m", "venv", "--without-pip", str(home)).check_returncode()
    see_this_environment(home / BIN / "python")
    # This environment's pip, run by the venv's interpreter, installs into the venv.
    installed = run(str(home / BIN / "python"), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel))
    assert installed.returncode == 0, installed.stderr[-2000:]
    return home


@pytest.fixture
def env(venv: Path) -> dict[str, str]:
    """The checkout under test first on the path; the wheel's package only in the venv."""
    return {**os.environ, "PYTHONPATH": str(REPO), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def test_the_installed_package_is_linted(venv: Path, env: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "hand.deck.yaml").write_text(DECK)
    python = str(venv / BIN / "python")
    done = run(python, "-m", "rubric_lsp", "lint", "--format", "json", "hand.deck.yaml", cwd=tmp_path, env=env)
    assert done.returncode == 1, done.stderr
    found = [(d["code"], d["range"]["start"]["line"], d["message"]) for d in json.loads(done.stdout)]
    assert found == [("DK001", 5, "Card 'joker' is worth -3 points.")]
    listed = run(python, "-m", "rubric_lsp", "lint", "--list-kinds", env=env)
    elsewhere = run(sys.executable, "-m", "rubric_lsp", "lint", "--list-kinds", env=env)
    assert "card-deck" not in elsewhere.stdout and "promptfoo-config" in elsewhere.stdout
    assert "card-deck" in listed.stdout and "promptfoo-config" in listed.stdout  # only where it is installed


def test_the_installed_package_is_served(venv: Path, env: dict[str, str], tmp_path: Path) -> None:
    client = RawClient(tmp_path, command=[str(venv / BIN / "python"), "-m", "rubric_lsp", "serve"], env=env)
    try:
        rid = client.send("initialize", {"processId": os.getpid(), "rootUri": tmp_path.as_uri(), "capabilities": {}})
        client.response(rid, timeout=60)
        client.send("initialized", {}, request=False)
        uri = (tmp_path / "hand.deck.yaml").as_uri()
        document = {"uri": uri, "languageId": "yaml", "version": 1, "text": DECK}
        client.send("textDocument/didOpen", {"textDocument": document}, request=False)
        client.pump_until(lambda: uri in client.published, timeout=60)
        assert [(d["code"], d["range"]["start"]["line"]) for d in client.published[uri]["diagnostics"]] == [
            ("DK001", 5)
        ]
    finally:
        client.close()


def test_the_installed_package_is_graded(venv: Path, env: dict[str, str], tmp_path: Path, judge_server) -> None:
    from tests.judge_server import Reply

    judge_server.when("play the ace", Reply.json({"pass": True, "reason": "Played high."}))
    judge_server.when("play the joker", Reply.json({"pass": False, "reason": "Wasted."}))
    (tmp_path / "hand.deck.yaml").write_text(DECK)
    (tmp_path / "reply.txt").write_text("Ace first, then the joker.")
    judge = {
        "OPENAI_API_KEY": "sk-decks-0123456789",
        "RUBRIC_JUDGE_API_BASE": judge_server.base_url,
        "RUBRIC_JUDGE_MODEL": "openai/judge",
        "RUBRIC_CACHE_DIR": str(tmp_path / "cache"),
    }
    argv = ["-m", "rubric_lsp", "grade", "hand.deck.yaml", "--response", "reply.txt", "--format", "json"]
    done = run(str(venv / BIN / "python"), *argv, cwd=tmp_path, env={**env, **judge})
    assert done.returncode == 1, done.stderr  # the joker's verdict fails the grading
    data = json.loads(done.stdout)
    assert data["format"] == "card-deck" and data["score"] == 0.5 and data["passed"] is False
    assert [(v["name"], v["verdict"]) for v in data["verdicts"]] == [("ace", "PASS"), ("joker", "FAIL")]
    assert judge_server.call_count == 2
