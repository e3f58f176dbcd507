"""Hostile input: each gets exactly one clear diagnostic, never a crash or a hang.

The crash-prone cases run the real CLI in a subprocess (a segfault in libyaml would take
pytest down with it otherwise). Time is bounded by a generous subprocess timeout, not a
timed assertion: the figures themselves are in bench/bench_lint.py.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from rubric_lsp.document import parse_document
from rubric_lsp.document.limits import DEFAULT_LIMITS, Limits
from tests.helpers import codes, lint

DEPTH_CAP = DEFAULT_LIMITS.max_depth
HOSTILE_TIMEOUT = 60  # seconds; each case takes well under one (see bench/bench_lint.py)

CRITERION = "criteria:\n  - name: accuracy\n    weight: 10\n    requirement: States the correct answer\n"


def run_cli(path, *args: str) -> tuple[subprocess.CompletedProcess, list[dict]]:
    proc = subprocess.run(
        [sys.executable, "-m", "rubric_lsp", "lint", "--format", "json", *args, str(path)],
        capture_output=True,
        text=True,
        timeout=HOSTILE_TIMEOUT,
    )
    assert proc.returncode in (0, 1), f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    return proc, json.loads(proc.stdout)


def billion_laughs() -> str:
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    previous = "a"
    for name in "bcdefghi":
        lines.append(f"{name}: &{name} [" + ", ".join(["*" + previous] * 9) + "]")
        previous = name
    return "\n".join(lines) + "\n"


HOSTILE_FILES = {
    "billion-laughs.yaml": (billion_laughs(), "RL003", "billion laughs"),
    "deep-block.yaml": ("- " * 50_000 + "x\n", "RL003", f"Nesting deeper than {DEPTH_CAP} levels"),
    "deep-block-map.yaml": ("a:\n" + "- " * 50_000 + "x\n", "RL003", f"Nesting deeper than {DEPTH_CAP} levels"),
    "deep-flow.yaml": ("[" * 50_000 + "]" * 50_000 + "\n", "RL003", f"Nesting deeper than {DEPTH_CAP} levels"),
    "deep-flow-map.yaml": (
        "{a: " * 50_000 + "1" + "}" * 50_000 + "\n",
        "RL003",
        f"Nesting deeper than {DEPTH_CAP} levels",
    ),
    "deep-array.json": ("[" * 50_000 + "]" * 50_000, "RL003", f"Nesting deeper than {DEPTH_CAP} levels"),
    "deep-object.json": ('{"a": ' * 50_000 + "1" + "}" * 50_000, "RL003", f"Nesting deeper than {DEPTH_CAP} levels"),
    "recursive-alias.yaml": ("a: &x\n  b: *x\n", "RL003", "recursive aliases are refused"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_FILES))
def test_hostile_file_gives_one_clear_diagnostic(tmp_path, name):
    text, code, phrase = HOSTILE_FILES[name]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    proc, found = run_cli(path)
    assert proc.returncode == 1
    assert len(found) == 1, found
    assert found[0]["code"] == code
    assert found[0]["severity"] == "error"
    assert phrase in found[0]["message"]
    rng = found[0]["range"]
    assert rng["start"]["line"] == rng["end"]["line"]  # one line, never the whole file


def test_billion_laughs_points_at_the_alias_that_passes_the_cap(tmp_path):
    path = tmp_path / "laughs.yaml"
    path.write_text(billion_laughs(), encoding="utf-8")
    _, found = run_cli(path)
    start = found[0]["range"]["start"]
    line = billion_laughs().split("\n")[start["line"]]
    assert line[start["character"]] == "*"


def test_fifty_megabyte_file_is_refused_by_size(tmp_path):
    path = tmp_path / "huge.rubric.yaml"
    chunk = ("  - requirement: " + "x" * 100 + "\n").encode()
    with path.open("wb") as handle:
        handle.write(b"criteria:\n")
        for _ in range(50 * 1024 * 1024 // len(chunk) + 1):
            handle.write(chunk)
    proc, found = run_cli(path)
    assert proc.returncode == 1
    assert [d["code"] for d in found] == ["RL003"]
    assert "50.0 MiB" in found[0]["message"] and "max-file-size" in found[0]["message"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_bytes_give_one_invalid_utf8_diagnostic(tmp_path, seed):
    data = random.Random(seed).randbytes(64 * 1024)
    path = tmp_path / "noise.yaml"
    path.write_bytes(data)
    proc, found = run_cli(path)
    assert proc.returncode == 1
    assert [d["code"] for d in found] == ["RL004"]
    assert "not valid UTF-8" in found[0]["message"]


def test_random_printable_text_never_crashes(tmp_path):
    rng = random.Random(7)
    alphabet = "ab:- \n\t[]{}&*!|>'\"#%@`,?"
    for index in range(20):
        path = tmp_path / f"junk{index}.rubric.yaml"
        path.write_text("".join(rng.choice(alphabet) for _ in range(400)), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "rubric_lsp", "lint", "--format", "json", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=HOSTILE_TIMEOUT,
    )
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    assert "RL900" not in proc.stdout  # no checker crashed on the junk
    json.loads(proc.stdout)


def test_invalid_utf8_in_the_middle_is_placed_exactly(tmp_path):
    path = tmp_path / "latin1.rubric.yaml"
    path.write_bytes("criteria:\n  - requirement: Bien expliqué\n".encode() + b"    name: caf\xe9\n")
    _, found = run_cli(path)
    assert [d["code"] for d in found] == ["RL004"]
    assert found[0]["range"]["start"] == {"line": 2, "character": 13}
    assert "0xe9" in found[0]["message"]


# -- in process: legal files up to the caps ---------------------------------


def nested_block(depth: int) -> str:
    return "".join(" " * level + "k:\n" for level in range(depth - 1)) + " " * (depth - 1) + "k: v\n"


@pytest.mark.parametrize(
    "make, path",
    [
        (nested_block, "x.yaml"),
        (lambda d: "- " * d + "x\n", "x.yaml"),
        (lambda d: "[" * d + "]" * d + "\n", "x.yaml"),
        (lambda d: "{a: " * d + "1" + "}" * d + "\n", "x.yaml"),
        (lambda d: "[" * d + "]" * d, "x.json"),
        (lambda d: '{"a": ' * d + "1" + "}" * d, "x.json"),
    ],
    ids=["block-map", "block-seq", "flow-seq", "flow-map", "json-array", "json-object"],
)
def test_nesting_up_to_the_cap_is_read_and_one_more_level_is_refused(make, path):
    legal = parse_document(make(DEPTH_CAP), path)
    assert legal.issues == [] and legal.root is not None
    depth, node = 0, legal.root
    while node is not None and not node.is_scalar:
        depth += 1
        node = node.value[0][1] if node.is_map else (node.value[0] if node.value else None)
    assert depth == DEPTH_CAP
    refused = parse_document(make(DEPTH_CAP + 1), path)
    assert [i.kind for i in refused.issues] == ["too-deep"]
    assert refused.root is None


# libyaml 0.2.6 (in PyYAML 6.0.4's wheels) refuses more than 1,000 levels itself, with a syntax
# error raised up to 1,024 characters ahead of the events it returned; libyaml 0.2.5 (PyYAML ≤
# 6.0.3) reads on, and crashes near 50,000. Depths across both limits get one finding whatever
# PyYAML runs the suite (.ci/run runs it under the oldest and the newest allowed): too deep, at
# the level past the cap. Each case: text for a depth, and where that level opens (line, column).
DEEP_SHAPES = {
    "flow-seq": (lambda d: "[" * d + "]" * d + "\n", (0, DEPTH_CAP)),
    "flow-map": (lambda d: "{a: " * d + "1" + "}" * d + "\n", (0, 4 * DEPTH_CAP)),
    "block-seq": (lambda d: "- " * d + "x\n", (0, 2 * DEPTH_CAP)),
    # under a block key, one bracket a line: libyaml looks ahead only within a line
    "flow-seq-lines": (lambda d: "k:\n" + "  [\n" * d + "  ]\n" * d, (DEPTH_CAP, 2)),
    "flow-seq-then-broken": (lambda d: "[" * d + "]" * d + "]\n", (0, DEPTH_CAP)),
    "after-a-value": (lambda d: "a: 1\nb: " + "[" * d + "]" * d + "\n", (1, 3 + DEPTH_CAP - 1)),
}


@pytest.mark.parametrize("depth", [1_001, 3_000, 50_000])
@pytest.mark.parametrize("shape", sorted(DEEP_SHAPES))
def test_nesting_past_libyamls_own_limit_gets_the_same_finding_under_every_pyyaml(shape, depth):
    make, (line, column) = DEEP_SHAPES[shape]
    doc = parse_document(make(depth), "x.yaml")
    assert [i.kind for i in doc.issues] == ["too-deep"], doc.issues
    start = doc.range(doc.issues[0].span).start
    assert (start.line, start.character) == (line, column)


@pytest.mark.parametrize("depth", [DEPTH_CAP + 1, 1_001])
def test_block_mappings_past_libyamls_own_limit_get_the_same_finding(depth):
    doc = parse_document(nested_block(depth), "x.yaml")
    assert [i.kind for i in doc.issues] == ["too-deep"]
    start = doc.range(doc.issues[0].span).start
    assert (start.line, start.character) == (DEPTH_CAP, DEPTH_CAP)


def test_a_syntax_error_before_deep_nesting_is_reported_as_such():
    doc = parse_document("a: ]\nb: " + "[" * 5_000 + "]" * 5_000 + "\n", "x.yaml")
    assert [i.kind for i in doc.issues] == ["syntax-error"]
    assert doc.range(doc.issues[0].span).start.line == 0


def test_aliases_that_are_fine_are_read_and_shared():
    text = "defaults: &d {weight: 5, scale_type: ordinal}\n" + "".join(
        f"c{i}:\n  <<: *d\n  name: c{i}\n  also: *d\n" for i in range(200)
    )
    doc = parse_document(text, "x.yaml")
    assert doc.issues == []
    value = doc.value
    assert value["c7"]["weight"] == 5 and value["c7"]["name"] == "c7"
    assert value["c1"]["also"] is value["c2"]["also"]  # shared, never re-expanded


def test_alias_chains_that_nest_past_the_cap_are_refused():
    text = "a0: &a0 [x]\n" + "".join(f"a{i + 1}: &a{i + 1} [*a{i}]\n" for i in range(DEPTH_CAP + 5))
    doc = parse_document(text, "x.yaml")
    assert [i.kind for i in doc.issues] == ["too-deep"]


def test_merge_key_bomb_is_refused():
    lines = ["l0: &l0 {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8}"]
    for level in range(1, 9):
        refs = ", ".join(f"*l{level - 1}" for _ in range(9))
        lines.append(f"l{level}: &l{level} {{x{level}: [{refs}]}}")
    doc = parse_document("\n".join(lines) + "\n", "x.yaml")
    assert [i.kind for i in doc.issues] == ["alias-bomb"]


def test_a_large_file_without_aliases_is_not_mistaken_for_a_bomb():
    # Only nodes that aliases add count against the cap, not the file's own nodes.
    small_cap = Limits(max_expanded_nodes=1_000)
    text = "criteria:\n" + "".join(f"  - [{i}, a, b]\n" for i in range(2_000))
    assert parse_document(text, "x.yaml", limits=small_cap).issues == []
    with_aliases = "x: &x [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n" + "".join(f"k{i}: *x\n" for i in range(200))
    assert [i.kind for i in parse_document(with_aliases, "x.yaml", limits=small_cap).issues] == ["alias-bomb"]


def test_hostile_documents_report_through_the_rule(tmp_path):
    result = lint(billion_laughs(), "laughs.yaml")
    assert codes(result) == ["RL003"]
    result = lint(b"criteria: \xff\n", "x.rubric.yaml")
    assert codes(result) == ["RL004"]


def test_size_cap_counts_text_given_as_str():
    doc = parse_document("a" * (DEFAULT_LIMITS.max_bytes + 1), "x.yaml")
    assert [i.kind for i in doc.issues] == ["too-large"]


# -- never raises ----------------------------------------------------------------


YAMLISH = st.text(alphabet=st.sampled_from(list("ab:-?[]{},&*!|>'\"#% \t\n\r\\0é😀\x85")), max_size=200)


@hsettings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=YAMLISH, as_json=st.booleans())
def test_parse_document_never_raises_and_keeps_spans_in_the_text(text, as_json):
    doc = parse_document(text, "x.json" if as_json else "x.yaml")
    for issue in doc.issues:
        assert 0 <= issue.span.start <= issue.span.end <= len(doc.text)
        rng = doc.range(issue.span)
        if issue.kind == "syntax-error":
            assert rng.start.line == rng.end.line
    _ = doc.value  # building plain values never raises either
    doc.comments()


@hsettings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=300))
def test_lint_never_raises_on_arbitrary_bytes(data):
    result = lint(data, "x.rubric.yaml")
    assert "RL900" not in codes(result)
