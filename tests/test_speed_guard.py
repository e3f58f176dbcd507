"""A performance guard that load cannot move: what the lint path imports, and how many Python function
calls it makes per KB of YAML, against budgets a 1.7x regression breaks (issue 36, item 5).

Times depend on the machine and its load; these counts do not. The figures in seconds, each as a
ratio to its floor measured in the same run (libyaml's compose, ``python -c 'import yaml'``, a bare
aiohttp client), are bench/'s (bench/bench_lint.py, bench_promptfoo.py, bench_server.py, bench_scale.py).
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from rubric_lsp.document import parse_document
from rubric_lsp.document.js_yaml import read_as_js_yaml
from rubric_lsp.document.js_yaml_refusals import js_yaml_refusal, suspicious
from rubric_lsp.lint import lint_text
from tests.helpers import loaded_among, python_calls

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
from bench_lint import generated_config, generated_rubric  # noqa: E402  (bench/: the generators its figures use)

RUBRIC = "criteria:\n  - name: accuracy\n    weight: 5\n    requirement: States the correct final answer\n"
CONFIG = "prompts: [a]\nproviders: [openai:gpt-4.1-mini]\ntests:\n  - vars: {q: x}\n    assert:\n      - type: llm-rubric\n        value: good\n"

# Never on the lint path: the grading engine and the server's libraries, HTML reports, what JUnit's
# escaping pulls in (--format junit only), calibration beyond its settings when no record exists, logging
# (a crashed check's report only: runtime/log.py) and difflib (--diff, a "did you mean" hint).
NEVER = (
    "litellm",
    "pygls",
    "rich",
    "lsprotocol",
    "openai",
    "autorubric",
    "jinja2",
    "pygal",
    "aiohttp",
    "httptools",
    "xml.sax",
    "http.client",
    "ssl",
    "rubric_lsp.engine",
    "rubric_lsp.calibration.check",
    "rubric_lsp.calibration.record",
    "rubric_lsp.calibration.stats",
    "rubric_lsp.calibration.units",
    "statistics",
    "logging",
    "difflib",
)
# Start-up, before a format's own checks run (the CLI, the registry, settings, reading a YAML file):
# nothing more. importlib.metadata (and the email package it imports) come with pydantic's plugin
# lookup once a format validates with a pydantic model; rubric-lsp's own discovery does without them.
NOT_AT_START = (*NEVER, "importlib.metadata", "email", "pydantic", "decimal", "tomllib", "zipfile", "csv")
# Modules loaded by a whole lint of a small rubric and a small promptfoo config. At 36 when the budget was
# set: 100 of rubric-lsp's own (103 at afeea5f) among 353 in all (364), pydantic's ~120 included; 112 among
# 257 once the lint validated what plainly fits the models without pydantic (formats/shapes.py; main: 108
# among 362); 110 among 239 once logging, difflib, shutil (argparse's formatters: commands/exit_codes.py)
# and the unused reporters' modules (json, sarif, --statistics) left it (6d36ca3: 112 among 257); 114 with
# runtime/start_cache, dataclass_bytecode and regex_code, which take ~70 ms of compiling off every start (the
# dataclasses' methods, the regular expressions: a small config's lint 269 -> 198 ms of CPU).
OWN_MODULES_BUDGET = 114
ALL_MODULES_BUDGET = 244


def _loaded_by(code: str, tmp_path: Path) -> set[str]:
    probe = code + "\nprint('MODULES=' + ' '.join(sorted(sys.modules)))\n"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False
    )
    line = next((x for x in done.stdout.splitlines() if x.startswith("MODULES=")), None)
    assert line is not None, done.stdout + done.stderr
    return set(line.removeprefix("MODULES=").split())


def test_start_up_imports_nothing_a_file_does_not_need(tmp_path):
    (tmp_path / "x.yaml").write_text(CONFIG, encoding="utf-8")
    modules = _loaded_by(
        "import sys\n"
        "from pathlib import Path\n"
        "from rubric_lsp.cli import lint_main\n"
        "from rubric_lsp.document import parse_document\n"
        "from rubric_lsp.formats import registry\n"
        "from rubric_lsp.settings import settings_for\n"
        "registry.formats()\n"
        "settings_for(Path('x.yaml'))\n"
        "registry.detect(parse_document(Path('x.yaml').read_bytes(), 'x.yaml'), None)\n",
        tmp_path,
    )
    assert loaded_among(modules, NOT_AT_START) == []


def test_the_lint_path_loads_a_bounded_set_of_modules(tmp_path):
    (tmp_path / "small.rubric.yaml").write_text(RUBRIC, encoding="utf-8")
    (tmp_path / "promptfooconfig.yaml").write_text(CONFIG, encoding="utf-8")
    modules = _loaded_by(
        "import sys\n"
        "sys.argv = ['rubric-lint', 'small.rubric.yaml', 'promptfooconfig.yaml']\n"
        "from rubric_lsp.cli import lint_main\n"
        "code = lint_main()\n"
        "assert 'rubric_lsp.formats.autorubric.rules' in sys.modules and 'rubric_lsp.formats.promptfoo.rules' in sys.modules\n",
        tmp_path,
    )
    assert loaded_among(modules, NEVER) == []
    # Valid files: the shape tables vouch for them, so neither pydantic nor what its plugin lookup loads.
    assert loaded_among(modules, ("pydantic", "pydantic_core", "importlib.metadata", "email")) == []
    own = sorted(m for m in modules if m == "rubric_lsp" or m.startswith("rubric_lsp."))
    assert len(own) <= OWN_MODULES_BUDGET, own
    assert len(modules) <= ALL_MODULES_BUDGET, sorted(modules)


def _corpus() -> tuple[list[str], list[str]]:
    rng = random.Random(5)
    return [generated_rubric(rng, 12) for _ in range(20)], [generated_config(rng, 12) for _ in range(20)]


def _compose(texts: list[str]) -> None:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for text in texts:
        yaml.compose(text, Loader=loader)


# Calls per call of libyaml's compose on the same texts (PyYAML's resolver runs in Python per scalar, so the
# floor is counted too). Measured when set: reading 1.92x (rubrics) and 1.86x (configs), 2.42x and 2.33x at
# afeea5f; a whole lint 4.54x and 7.11x (5.07x and 7.60x). The budgets leave room for new checks and fail
# well before a 1.7x regression. (A rubric's lint rose from 4.25x to 4.88x when criteria were vouched for in
# Python (formats/shapes.py) instead of pydantic's compiled validator: the price of not importing pydantic.)
# Lowered when the loader's resolver stopped entering Python frames per node and plain keys were built in
# place (speed4): reading 1.35x (rubrics) and 1.29x (configs), a whole lint 4.37x and 5.92x (from 1.92x,
# 1.86x, 4.97x and 6.78x on main then).
READ_BUDGET = 1.5
LINT_BUDGET = {"r.rubric.yaml": 4.7, "promptfooconfig.yaml": 6.4}


@pytest.mark.skipif(not hasattr(yaml, "CSafeLoader"), reason="PyYAML built without libyaml: another floor")
def test_python_calls_per_kb_of_yaml_stay_within_budget():
    rubrics, configs = _corpus()
    lint_text(rubrics[0], "w.rubric.yaml")  # modules and schemas loaded outside the count
    lint_text(configs[0], "promptfooconfig.yaml")
    for texts, path in ((rubrics, "r.rubric.yaml"), (configs, "promptfooconfig.yaml")):
        floor = python_calls(lambda texts=texts: _compose(texts))
        read = python_calls(lambda texts=texts, path=path: [parse_document(t, path) for t in texts])
        lint = python_calls(lambda texts=texts, path=path: [lint_text(t, path) for t in texts])
        assert read / floor <= READ_BUDGET, (path, read / floor)
        assert lint / floor <= LINT_BUDGET[path], (path, lint / floor)


def _owner_read(data: bytes, name: str) -> None:
    """A promptfoo config read as promptfoo reads it: the document, js-yaml's scalars, its parser's refusals."""
    doc = parse_document(data, name)
    read_as_js_yaml(doc)
    if doc.root is not None and suspicious(doc.text, doc.flow_lines, doc.block_scalars, doc.root):
        js_yaml_refusal(doc.text)


# On promptfoo's examples (../shared/corpus): 2.41x compose's calls when set, 4.24x at afeea5f (the
# js-yaml port then ran on the 1.3 MB red-team config for a construct inside a block scalar); 1.90x since
# speed4's loader and converter (2.40x on main then); 1.38x since a quoted scalar spanning lines is checked for
# js-yaml's indentation instead of sending its file to the port (1.91x before, issue 36).
CORPUS_READ_BUDGET = 1.6


def test_reading_promptfoo_s_examples_as_promptfoo_does_stays_within_budget(corpus):
    examples = corpus / "promptfoo" / "examples"
    if not examples.is_dir():
        pytest.skip(f"no promptfoo examples at {examples}")
    files = sorted(examples.rglob("*.yaml")) + sorted(examples.rglob("*.yml"))
    datas = [(path.read_bytes(), str(path)) for path in files]
    texts = [data.decode("utf-8-sig") for data, _ in datas]
    floor = python_calls(lambda: _compose(texts))
    read = python_calls(lambda: [_owner_read(data, name) for data, name in datas])
    assert read / floor <= CORPUS_READ_BUDGET, read / floor


def test_a_linted_document_is_freed_without_the_cyclic_collector():
    """Every lint's nodes, views and context free by reference counting when the result is dropped: a cycle
    (a closure on the context held by it, an assertion holding its test) left each document to the cyclic
    collector, whose passes over every node of every file were 8 % of a lint of promptfoo's examples."""
    import gc

    from rubric_lsp.lint import lint_text

    texts = [(CONFIG.replace("tests:", "defaultTest:\n  assert: [{type: contains, value: a}]\ntests:"), "p.yaml")]
    texts += [(RUBRIC, "small.rubric.yaml"), (CONFIG, "promptfooconfig.yaml")]
    for text, name in texts:
        assert lint_text(text, name, smells=True).view is not None  # modules and caches loaded outside the check
    gc.collect()
    flags = gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for text, name in texts:
            result = lint_text(text, name, smells=True)
            assert result.view is not None
            # An edit inside a value, read from the last reading (the server's way, document/incremental.py).
            edited = text.replace("good", "better").replace("correct", "right")
            again = lint_text(edited, name, smells=True, previous=result.document)
            assert again.view is not None and again.document.text == edited
            del result, again
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(flags)
        gc.garbage.clear()
    assert left == [], left


@pytest.mark.parametrize(
    ("argv", "entry"),
    [(["rubric-lint"], "lint_main()"), (["rubric", "lint"], "main()")],
    ids=["rubric-lint", "rubric lint"],
)
def test_a_lint_process_skips_the_interpreter_s_last_walk_for_cycles(tmp_path, argv, entry):
    """``rubric-lint`` and ``rubric lint`` as their own processes: what exists as the process exits is frozen
    (``no_sweep_at_exit``), so the interpreter's last collection walks nothing; a program calling ``main``
    with arguments keeps its collector as it was. An atexit hook registered first runs last."""
    (tmp_path / "promptfooconfig.yaml").write_text(CONFIG)
    probe = "import atexit, gc, sys\natexit.register(lambda: print('frozen at exit:', gc.get_freeze_count() > 0))\n"
    runs = {
        "own process": f"sys.argv = {[*argv, 'promptfooconfig.yaml']!r}\nfrom rubric_lsp.cli import lint_main, main\ncode = {entry}",
        "called with arguments": "from rubric_lsp.cli import main\ncode = main(['lint', 'promptfooconfig.yaml'])",
    }
    for name, run in runs.items():
        done = subprocess.run(
            [sys.executable, "-c", f"{probe}{run}\nprint('exit', code)"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        lines = done.stdout.splitlines()
        assert lines[-2:] == ["exit 0", f"frozen at exit: {name == 'own process'}"], (name, done.stdout, done.stderr)
