"""The dataclasses' generated methods compiled from a cache (rubric_lsp/runtime/dataclass_bytecode.py).

Each probe runs in a fresh interpreter with its own cache folder (XDG_CACHE_HOME and HOME under tmp_path) and
imports what a lint of a promptfoo config defines. A first start compiles every class's methods and writes the
cache when it ends; a second compiles none; the classes then hold the very code plain ``@dataclass`` builds and
behave alike; a damaged or unwritable cache costs only the time; the command line's entry points install it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import SAMPLES
from tests.start_cache_probe import cache_env, cache_file, run_probe, starts_with_an_unwritable_cache

# Prints, as JSON: how many sources the cache compiled, each rubric_lsp dataclass's generated methods by what
# their code is made of (nested code objects alike), and what a few of them do, so two starts can be compared.
_PROBE = """
import json, sys, types

from rubric_lsp.runtime import dataclass_bytecode

if sys.argv[1] == "cached":
    dataclass_bytecode.install("probe")
    if sys.argv[2:] == ["twice"]:
        dataclass_bytecode.install("probe")
elif sys.argv[1] == "taken":
    import dataclasses
    dataclasses.exec = exec  # someone else's replacement, in place first
    dataclass_bytecode.install("probe")

import dataclasses
import rubric_lsp.lint
import rubric_lsp.formats.promptfoo.resolve
from rubric_lsp.document.positions import Position, Range

def shape(code):
    consts = [shape(c) if isinstance(c, types.CodeType) else repr(c) for c in code.co_consts]
    return [code.co_code.hex(), consts, code.co_names, code.co_varnames, code.co_argcount,
            code.co_kwonlyargcount, code.co_flags, code.co_filename, code.co_firstlineno]

methods = {}
for name, module in sorted(sys.modules.items()):
    if not name.startswith("rubric_lsp"):
        continue
    for cls in vars(module).values():
        if isinstance(cls, type) and cls.__module__ == name and dataclasses.is_dataclass(cls):
            for attr, value in sorted(vars(cls).items()):
                code = getattr(getattr(value, "__wrapped__", value), "__code__", None)
                if code is not None and code.co_filename == "<string>":
                    methods[f"{name}.{cls.__qualname__}.{attr}"] = shape(code)
start, end = Position(1, 2), Position(1, 5)
try:
    start.line = 3
    frozen = "assigned"
except dataclasses.FrozenInstanceError as error:
    frozen = type(error).__name__
behaviour = [repr(Range(start, end)), start == Position(1, 2), start != end, hash(start) == hash(Position(1, 2)), frozen]
installed = dataclass_bytecode._installed
print(json.dumps({"compiled": installed.computed if installed else None, "methods": methods, "behaviour": behaviour}))
"""
BEHAVIOUR = [
    "Range(start=Position(line=1, character=2), end=Position(line=1, character=5))",
    True,
    True,
    True,
    "FrozenInstanceError",
]


def _start(tmp_path: Path, *how: str, cache_home: Path | None = None) -> dict:
    return run_probe(_PROBE, tmp_path, *(how or ("cached",)), cache_home=cache_home)


def _cache_file(tmp_path: Path) -> Path:
    return cache_file(tmp_path, "dataclasses-*")


def test_a_second_start_compiles_nothing_and_builds_the_same_classes(tmp_path):
    cold = _start(tmp_path)
    assert cold["compiled"] > 60  # ~45 classes on this path, two to six methods each
    assert _cache_file(tmp_path).name == f"dataclasses-probe.{sys.implementation.cache_tag}.marshal"
    warm = _start(tmp_path, "cached", "twice")
    assert warm["compiled"] == 0
    plain = _start(tmp_path, "plain")
    assert plain["compiled"] is None
    assert len(plain["methods"]) > 100
    assert warm["methods"] == plain["methods"] == cold["methods"]
    assert warm["behaviour"] == plain["behaviour"] == cold["behaviour"] == BEHAVIOUR


def test_what_a_start_has_not_seen_is_compiled_and_added(tmp_path):
    _start(tmp_path)
    cache = _cache_file(tmp_path)
    before = cache.stat().st_size
    # Another start that defines a class the file does not hold (as after an edit): compiled, then kept too.
    # (defined in a module named as rubric-lsp's own: only those classes are kept)
    script = (
        "import sys, types\n"
        "from rubric_lsp.runtime import dataclass_bytecode as d\n"
        "d.install('probe')\n"
        "module = sys.modules['rubric_lsp.fresh'] = types.ModuleType('rubric_lsp.fresh')\n"
        "exec('import dataclasses\\n@dataclasses.dataclass(order=True)\\nclass Fresh:\\n    a: int = 0\\n', vars(module))\n"
        "assert module.Fresh(1) < module.Fresh(2)\n"
        "print(d._installed.computed)\n"
    )
    run = [sys.executable, "-c", script]
    first = subprocess.run(run, capture_output=True, text=True, env=cache_env(tmp_path), timeout=60, check=True)
    assert int(first.stdout) >= 4  # __init__, __repr__, __eq__ and the four comparisons
    assert cache.stat().st_size > before
    again = subprocess.run(run, capture_output=True, text=True, env=cache_env(tmp_path), timeout=60, check=True)
    assert int(again.stdout) == 0
    assert _start(tmp_path)["compiled"] == 0  # the lint's classes are still there


def test_a_damaged_cache_is_compiled_anew_and_rewritten(tmp_path):
    _start(tmp_path)
    cache = _cache_file(tmp_path)
    header = cache.read_bytes()[:40]
    for damage in (b"", b"not a cache", header + b"\x00\x01 truncated", header[:30] + b"\xff" * 10):
        cache.write_bytes(damage)
        again = _start(tmp_path)
        assert again["compiled"] > 60
        assert again["behaviour"] == BEHAVIOUR
        assert _start(tmp_path)["compiled"] == 0  # the rewritten cache serves the next start


def test_a_cache_folder_that_cannot_be_written_costs_only_the_time(tmp_path):
    for result in starts_with_an_unwritable_cache(_start, tmp_path):
        assert result["compiled"] > 60
        assert result["behaviour"] == BEHAVIOUR


def test_another_replacement_of_the_compile_step_is_left_in_place(tmp_path):
    result = _start(tmp_path, "taken")
    assert result["compiled"] is None and result["behaviour"] == BEHAVIOUR
    assert not (tmp_path / "cache" / "rubric-lsp").exists()


def test_the_command_line_installs_it_and_lints_alike_from_the_cache(tmp_path):
    bad = SAMPLES / "autorubric" / "bad-rubric.rubric.yaml"
    outputs = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-m", "rubric_lsp", "lint", "--format", "json", str(bad)],
            capture_output=True,
            text=True,
            env=cache_env(tmp_path),
            timeout=60,
        )
        assert done.returncode == 1, done.stderr
        outputs.append(json.loads(done.stdout))
        assert _cache_file(tmp_path).stat().st_size > 10_000
    assert outputs[0] == outputs[1] and outputs[0]
    folder = tmp_path / "cache" / "rubric-lsp" / "bytecode"
    tag = sys.implementation.cache_tag
    assert sorted(p.name for p in folder.iterdir()) == [f"dataclasses-lint.{tag}.marshal", f"regex-lint.{tag}.marshal"]


def test_only_rubric_lsp_s_own_classes_are_kept(tmp_path):
    script = (
        "import dataclasses\n"
        "from rubric_lsp.runtime import dataclass_bytecode as d\n"
        "d.install('probe')\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class Elsewhere:\n"
        "    a: int = 0\n"
        "assert Elsewhere(1) == Elsewhere(1)\n"
        "print(d._installed.computed)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=cache_env(tmp_path), timeout=60
    )
    assert done.returncode == 0 and done.stdout.strip() == "0", done.stderr
    assert not (tmp_path / "cache" / "rubric-lsp").exists()


def test_a_program_calling_main_with_arguments_keeps_dataclasses_and_re_as_they_are(tmp_path):
    script = (
        "import dataclasses, re, sys\n"
        "from rubric_lsp.cli import main\n"
        "from rubric_lsp.runtime import dataclass_bytecode, regex_code\n"
        f"code = main(['lint', {str(SAMPLES / 'autorubric' / 'refund-reply.rubric.yaml')!r}])\n"
        "print(code, dataclass_bytecode._installed, regex_code._installed, 'exec' in vars(dataclasses))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=cache_env(tmp_path), timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "0 None None False"
    assert not (tmp_path / "cache" / "rubric-lsp").exists()
