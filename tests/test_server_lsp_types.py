"""lsprotocol's types imported with attrs' compiled methods from a cache (rubric_lsp/server/lsp_types.py).

Each import runs in a fresh interpreter with its own cache folder (XDG_CACHE_HOME and HOME under tmp_path). A
first import compiles every class's methods and writes the cache; a second compiles none; the classes then hold
the very code a plain ``import lsprotocol.types`` builds; a damaged or unwritable cache costs only the time.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.start_cache_probe import cache_file, run_probe, starts_with_an_unwritable_cache

# Prints, as JSON: how many attrs methods were compiled by this import, and each attrs class's methods by
# what their code is made of (nested code objects alike), so two imports can be compared.
_PROBE = """
import builtins, json, sys, types

import attr  # (attrs' own classes are built as it is imported: not lsprotocol's, not counted)

compiled = []
real_compile = builtins.compile

def counting_compile(source, filename, *args, **kwargs):
    if str(filename).startswith("<attrs generated"):
        compiled.append(filename)
    return real_compile(source, filename, *args, **kwargs)

builtins.compile = counting_compile
if sys.argv[1] == "cached":
    from rubric_lsp.server.lsp_types import import_types

    lsp = import_types()
else:
    import lsprotocol.types as lsp
builtins.compile = real_compile

def shape(code):
    consts = [shape(c) if isinstance(c, types.CodeType) else repr(c) for c in code.co_consts]
    return [code.co_code.hex(), consts, code.co_names, code.co_varnames, code.co_argcount,
            code.co_kwonlyargcount, code.co_flags, code.co_filename, code.co_firstlineno]

methods = {}
for name, cls in sorted(vars(lsp).items()):
    if isinstance(cls, type) and cls.__module__ == lsp.__name__ and hasattr(cls, "__attrs_attrs__"):
        for attr, value in sorted(vars(cls).items()):
            if isinstance(value, types.FunctionType) and value.__code__.co_filename.startswith("<attrs generated"):
                methods[f"{name}.{attr}"] = [shape(value.__code__), repr(value.__annotations__),
                                             repr(value.__defaults__), repr(value.__kwdefaults__)]
position = lsp.Position(line=1, character=2)
behaviour = [repr(position), position == lsp.Position(1, 2), position != lsp.Position(1, 3)]
print(json.dumps({"compiled": len(compiled), "methods": methods, "behaviour": behaviour}))
"""


def _import(tmp_path: Path, how: str = "cached", cache_home: Path | None = None) -> dict:
    # PYTHONHASHSEED: the same hash() in every import (attrs writes some into its methods)
    return run_probe(_PROBE, tmp_path, how, cache_home=cache_home, PYTHONHASHSEED="0")


def _cache_file(tmp_path: Path) -> Path:
    return cache_file(tmp_path, "lsprotocol-types")


def test_a_second_import_compiles_nothing_and_builds_the_same_classes(tmp_path):
    cold = _import(tmp_path)
    assert cold["compiled"] > 500  # ~560 classes, each one's methods compiled once
    assert _cache_file(tmp_path).name == f"lsprotocol-types.{sys.implementation.cache_tag}.marshal"
    warm = _import(tmp_path)
    assert warm["compiled"] == 0
    plain = _import(tmp_path, "plain")
    assert plain["compiled"] == cold["compiled"]
    assert len(plain["methods"]) > 1000
    assert warm["methods"] == plain["methods"] == cold["methods"]
    assert warm["behaviour"] == plain["behaviour"] == ["1:2", True, True]  # lsprotocol's own __repr__


def test_a_damaged_cache_is_compiled_anew_and_rewritten(tmp_path):
    _import(tmp_path)
    cache = _cache_file(tmp_path)
    header = cache.read_bytes()[:40]
    for damage in (b"", b"not a cache", header + b"\x00\x01 truncated"):
        cache.write_bytes(damage)
        again = _import(tmp_path)
        assert again["compiled"] > 500
        assert again["behaviour"][1] is True
        assert _import(tmp_path)["compiled"] == 0  # the rewritten cache serves the next start


def test_a_cache_folder_that_cannot_be_written_costs_only_the_time(tmp_path):
    for result in starts_with_an_unwritable_cache(_import, tmp_path):
        assert result["compiled"] > 500
        assert result["behaviour"] == ["1:2", True, True]
