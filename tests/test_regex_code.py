"""Regular expressions compiled from a cache of the engine's code (rubric_lsp/runtime/regex_code.py).

Each probe runs in a fresh interpreter with its own cache folder (XDG_CACHE_HOME and HOME under tmp_path),
imports what a lint of a promptfoo config compiles and reports every pattern those modules hold, with what
each finds in the samples' text. A first start compiles them all and writes the cache as it ends; a second
compiles none and finds the same; a damaged entry, file or folder costs only the time; another replacement of
``re``'s compiler is left in place.
"""

from __future__ import annotations

import marshal
import re
import sys
from pathlib import Path

from rubric_lsp.runtime import regex_code, start_cache
from tests.start_cache_probe import cache_file, run_probe, starts_with_an_unwritable_cache

# Prints, as JSON: how many patterns the cache compiled, and for every compiled pattern the rubric_lsp and
# yaml modules hold, its flags, groups and what it finds in the samples' files (positions and groups).
_PROBE = """
import json, re, sys
from pathlib import Path

from rubric_lsp.runtime import regex_code

if sys.argv[1] == "cached":
    regex_code.install("probe")
elif sys.argv[1] == "taken":
    from re import _compiler
    real = _compiler.compile
    def theirs(p, flags=0):
        return real(p, flags)
    _compiler.compile = theirs
    regex_code.install("probe")

import rubric_lsp.lint
import rubric_lsp.formats.promptfoo.rules
import rubric_lsp.formats.autorubric.rules
import yaml

texts = [p.read_text(encoding="utf-8") for p in sorted(Path(sys.argv[-1]).rglob("*.yaml"))]
texts.append("".join(chr(c) for c in range(0, 0x2100, 7)))
found = {}
for name, module in sorted(sys.modules.items()):
    if not (name.startswith("rubric_lsp") or name.startswith("yaml")):
        continue
    for attr, value in sorted(vars(module).items()):
        if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
            hits = [[m.span(), m.groups()] for text in texts for m in value.finditer(text)][:200]
            found[f"{name}.{attr}"] = [value.pattern, value.flags, value.groups, value.groupindex, hits]
bytes_pattern = re.compile(rb"(?P<word>[a-z]+)\\d")
found["bytes"] = [bytes_pattern.groups, [m.span() for m in bytes_pattern.finditer(b"ab1 cd2")]]
from rubric_lsp.redaction import Redactor

def compiled_from_data(words):
    return re.compile("|".join(words))

assert Redactor(["sk-probe-secret-0123456789"])("key sk-probe-secret-0123456789") != "key sk-probe-secret-0123456789"
assert compiled_from_data(["glob-made-at-run-time"]).search("a glob-made-at-run-time")
installed = regex_code._installed
print(json.dumps({"computed": installed.computed if installed else None, "found": found}, default=repr))
"""
SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def _start(tmp_path: Path, how: str = "cached", cache_home: Path | None = None) -> dict:
    return run_probe(_PROBE, tmp_path, how, str(SAMPLES), cache_home=cache_home)


def _cache_file(tmp_path: Path) -> Path:
    return cache_file(tmp_path, "regex-probe")


def test_a_second_start_compiles_nothing_and_finds_the_same(tmp_path):
    cold = _start(tmp_path)
    assert cold["computed"] > 60
    assert _cache_file(tmp_path).name == f"regex-probe.{sys.implementation.cache_tag}.marshal"
    warm = _start(tmp_path)
    assert warm["computed"] == 0
    plain = _start(tmp_path, "plain")
    assert plain["computed"] is None
    assert len(plain["found"]) > 40
    assert sum(len(entry[-1]) for entry in plain["found"].values() if len(entry) == 5) > 1000  # patterns that hit
    assert warm["found"] == plain["found"] == cold["found"]


def test_patterns_made_from_data_are_never_kept(tmp_path):
    _start(tmp_path)
    _start(tmp_path)
    kept = _cache_file(tmp_path).read_bytes()
    assert b"sk-probe-secret" not in kept and b"glob-made-at-run-time" not in kept
    assert b"(KEY|TOKEN|SECRET" in kept  # redaction's own patterns, written in its code


def test_damaged_entries_and_files_are_compiled_anew(tmp_path):
    cold = _start(tmp_path)
    cache = _cache_file(tmp_path)
    header = cache.read_bytes().split(b"\n", 3)
    header_bytes = b"\n".join(header[:3]) + b"\n"
    known = marshal.loads(cache.read_bytes()[len(header_bytes) :])
    # Every entry's code replaced by code the engine refuses, or by something that is not an entry at all.
    refused = {key: (0, [1, 2, 3, 999999], 0, {}, (None,)) for key in known}
    not_entries = {key: "not an entry" for key in known}
    for damage in (
        b"",
        b"not a cache",
        header_bytes + b"\x00\x01 truncated",
        header_bytes + marshal.dumps(refused),
        header_bytes + marshal.dumps(not_entries),
    ):
        cache.write_bytes(damage)
        again = _start(tmp_path)
        assert again["computed"] > 60, damage[:60]
        assert again["found"] == cold["found"]
        assert _start(tmp_path)["computed"] == 0  # the rewritten cache serves the next start


def test_a_cache_folder_that_cannot_be_written_costs_only_the_time(tmp_path):
    first, second = starts_with_an_unwritable_cache(_start, tmp_path)
    assert first["computed"] == second["computed"] > 60 and first["found"] == second["found"]


def test_another_replacement_of_re_s_compiler_is_left_in_place(tmp_path):
    result = _start(tmp_path, "taken")
    assert result["computed"] is None and len(result["found"]) > 40
    assert not (tmp_path / "cache" / "rubric-lsp").exists()


def test_what_the_cache_hands_the_engine_is_what_re_would(tmp_path, monkeypatch):
    """In process, pattern by pattern: the cached path's pattern object against ``re``'s own."""
    modules = regex_code._compiler_modules()
    assert modules is not None
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache = regex_code._Cache(*modules, "probe")
    samples = [
        (r"(?P<low>\d+)\s*(?:-|to)\s*(?P<high>\d+)", 0),
        (r"\bpass(?:es|ed)?\b", re.IGNORECASE.value),
        ("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]", 0),
        (r"(?m)^\s*#.*$", 0),
        (rb"(a)(b)?", 0),
    ]
    text = "Scores 1 to 5; passes PASSED \x07 # note\n  # more\nab a"
    for pattern, flags in samples:
        theirs = modules[0].compile(pattern, flags)  # not installed: re's own
        ours = cache.kept(pattern, flags)
        again = cache.kept(pattern, flags)  # from what the first call kept
        subject = text.encode() if isinstance(pattern, bytes) else text
        for made in (ours, again):
            assert (made.pattern, made.flags, made.groups, made.groupindex) == (
                theirs.pattern,
                theirs.flags,
                theirs.groups,
                theirs.groupindex,
            )
            assert [m.span() for m in made.finditer(subject)] == [m.span() for m in theirs.finditer(subject)]
    assert cache.computed == len(samples)
    cache.save()
    assert len(start_cache.read(cache.path, cache.header)) == len(samples)
