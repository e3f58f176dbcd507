"""Seeded, bounded lint fuzz (issue 13): mutants of samples/ and the shared corpus.

Each mutant is linted in process. Lint must never raise and never report RL900, and every
range it reports (diagnostic, related location, fix edit) must lie inside the text, in
code points and in the UTF-16 units the language server sends (never inside a surrogate
pair). The seed is fixed, so a failure reproduces; the number of mutants bounds the time
(5,000 mutants in 10 to 30 seconds on two shared cores).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rubric_lsp.document.positions import Span
from rubric_lsp.lint import LintResult, lint_text
from rubric_lsp.server.positions import UTF16, Converter

REPO = Path(__file__).resolve().parent.parent
SHARED_CORPUS = REPO.parent / "shared" / "corpus"
SUFFIXES = (".yaml", ".yml", ".json", ".jsonl")
MAX_SEED_BYTES = 24_000  # larger corpus files cost time without adding shapes

# What the fuzz campaign found to break readers and checks, and the usual YAML/JSON hazards.
TOKENS = [
    "!!bool maybe",
    "!!timestamp soon",
    '!!int ""',
    "!!float x",
    "!!binary @@",
    "!!str",
    "!!map",
    "!custom",
    "? [a]\n: x\n",
    "? requirement: x\n",
    "? {a: 1}\n",
    "\ufeff",
    "\ud83d",
    "\ude00",
    "😀",
    "é",
    "\u2028",
    "\x85",
    "&a ",
    "*a",
    "<<: *a\n",
    "<<: [*a, *a]\n",
    "\t",
    "\r",
    "\r\n",
    "'",
    '"',
    "{",
    "}",
    "[",
    "]",
    ",",
    ": ",
    "- ",
    "#",
    " # note",
    "---\n",
    "...\n",
    "%YAML 1.1\n",
    "~",
    "null",
    "yes",
    "on",
    "010",
    "0o17",
    "1:30",
    "1e3",
    ".nan",
    "-.inf",
    "NaN",
    "Infinity",
    "1e999",
    "-0",
    "9" * 40,
    "\\u",
    "\\ud83d",
    '\\"',
    "\\",
    "\x00",
    "\x1b",
    "|",
    ">-",
    "{{ output }}",
    "file://x.txt",
    "file://../../etc/passwd",
    "$ref",
    "2024-13-45",
    "weight",
    "requirement",
    "criteria",
    "options",
    "value",
    "threshold",
    "type",
    "assert",
    "rubric",
    "label",
    "sections",
    "llm-rubric",
]

# Values that keep a JSON file parseable, so that mutants of JSON files reach the checks too.
JSON_TOKENS = [
    '"x"',
    '""',
    '"  "',
    "0",
    "1",
    "-1",
    "1.5",
    "-0.5",
    "100",
    "1e999",
    "true",
    "false",
    "null",
    "[]",
    "{}",
    '"\\ud83d"',
    '"\\u0000"',
    '"😀é"',
    '[1, "a", null]',
    '{"a": [1]}',
    '"{{ output }}"',
    '"file://x.txt"',
    '"yes"',
    '"NaN"',
    "NaN",
    '"requirement"',
    '"weight"',
    '{"requirement": "x", "weight": 1}',
    '[{"label": "a"}]',
]


def seeds(root: Path) -> list[tuple[str, str]]:
    """(file name, text) of the small YAML/JSON files under ``root``."""
    return [
        (path.name, path.read_text(encoding="utf-8", errors="replace"))
        for path in sorted(root.rglob("*"))
        if path.suffix in SUFFIXES and path.is_file() and path.stat().st_size <= MAX_SEED_BYTES
    ]


def mutate(rng: random.Random, text: str, json_like: bool) -> str:
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        op = rng.random()
        if op < 0.6:
            text = _replace_in_a_line(rng, text, JSON_TOKENS if json_like and rng.random() < 0.85 else TOKENS)
            continue
        at = rng.randint(0, len(text))
        if op < 0.7:
            text = text[:at] + rng.choice(TOKENS) + text[at:]
        elif op < 0.78:
            text = text[:at] + text[at + rng.randint(1, 40) :]
        elif op < 0.86:
            lines = text.split("\n")
            i = rng.randrange(len(lines))
            lines.insert(rng.randrange(len(lines) + 1), lines[i])
            text = "\n".join(lines)
        elif op < 0.94:
            piece = text[at : at + rng.randint(1, 200)]
            to = rng.randint(0, len(text))
            text = text[:to] + piece + text[to:]
        else:
            text = text[:at]
    return text


def _replace_in_a_line(rng: random.Random, text: str, tokens: list[str]) -> str:
    """Keep the structure, change one key or value: most mutants still parse and reach the checks."""
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    line = lines[i]
    head, sep, tail = line.partition(": ") if ": " in line else line.partition(":")
    token = rng.choice(tokens)
    comma = "," if tail.rstrip().endswith(",") else ""
    choice = rng.random()
    if sep and choice < 0.6:
        lines[i] = head + sep + token + (tail if rng.random() < 0.2 else comma)
    elif sep and choice < 0.8:
        indent = head[: len(head) - len(head.lstrip(" -"))]
        key = rng.choice(tokens).strip().strip(":")
        lines[i] = indent + (f'"{key.strip(chr(34))}"' if head.lstrip(" -").startswith('"') else key) + sep + tail
    else:
        indent = line[: len(line) - len(line.lstrip(" "))]
        if tokens is JSON_TOKENS:
            lines.insert(i + 1, f'{indent}"{rng.choice(TOKENS).strip()}": {token},')
        else:
            lines.insert(i + 1, f"{indent}{rng.choice(TOKENS).strip()}: {token}")
    return "\n".join(lines)


def check_result(result: LintResult, text: str) -> None:
    doc = result.document
    assert len(doc.text) in (len(text), 0)  # the text as given (lone surrogates replaced one for one)
    converter = Converter(doc.lines, UTF16)
    spans: list[Span] = []
    for diag in result.diagnostics:
        assert diag.code != "RL900", diag.message
        if diag.path not in (None, result.path):
            continue
        spans.append(diag.span)
        assert doc.lines.range(diag.span) == diag.range, diag
        spans.extend(rel.span for rel in diag.related if rel.path in (None, result.path))
        if diag.fix is not None:
            spans.extend(edit.span for edit in diag.fix.edits)
    for span in spans:
        assert 0 <= span.start <= span.end <= len(doc.text), (span, len(doc.text))
        for offset in (span.start, span.end):
            position = doc.lines.position(offset)
            utf16 = converter.position(position)
            # Back from UTF-16 to the same code point: the position is not inside a pair.
            assert converter.offset(utf16) == offset, (offset, position, utf16)


def lint_mutants(named: list[tuple[str, str]], count: int, seed: int) -> int:
    rng = random.Random(seed)
    done = 0
    for index in range(count):
        name, text = named[index % len(named)]
        mutant = mutate(rng, text, name.endswith((".json", ".jsonl")))
        source: str | bytes = mutant
        if index % 5 == 4:  # as the CLI reads a file: bytes, here with a byte-order mark
            mutant = mutant.encode("utf-8", "replace").decode("utf-8")
            source = b"\xef\xbb\xbf" + mutant.encode("utf-8")
            if name.endswith((".json", ".jsonl")):
                mutant = "\ufeff" + mutant  # a JSON file keeps its BOM in the text: RL007, whose fix deletes it
        try:
            result = lint_text(source, name)
        except Exception as exc:  # pragma: no cover - the failure message is the point
            raise AssertionError(f"lint raised on mutant {index} of {name} (seed {seed}): {exc!r}") from exc
        try:
            check_result(result, mutant)
        except AssertionError as exc:
            raise AssertionError(f"mutant {index} of {name} (seed {seed}): {exc}\n---\n{mutant[:2000]!r}") from None
        done += 1
    return done


def test_lint_fuzz_over_samples():
    named = seeds(REPO / "samples")
    assert len(named) >= 10
    assert lint_mutants(named, 2500, seed=13) == 2500


def test_lint_fuzz_over_the_shared_corpus():
    if not SHARED_CORPUS.is_dir():
        pytest.skip(f"{SHARED_CORPUS} is absent (the corpus is checked out beside the repository in CI)")
    assert lint_mutants(seeds(SHARED_CORPUS), 2500, seed=1313) == 2500


@pytest.mark.parametrize(
    "name, text",
    [
        (
            "promptfooconfig.yaml",
            "prompts: [a]\nproviders: [echo]\ntests:\n  - assert:\n      - type: llm-rubric\n        value: x\n",
        ),
        ("r.rubric.yaml", "criteria:\n  - name: a\n    weight: 1\n    requirement: States the answer\n"),
    ],
)
def test_a_path_given_as_a_path_lints_as_its_string_does(tmp_path, name, text):
    """``lint_text``'s path is a str; a caller handing it a Path (as many scripts will) gets the same findings,
    never an internal error (RL900) from a check that joined strings to it."""
    path = tmp_path / name
    path.write_text(text)
    as_path = lint_text(text, path)  # type: ignore[arg-type]
    as_str = lint_text(text, str(path))
    assert [d.code for d in as_path.diagnostics] == [d.code for d in as_str.diagnostics]
    assert "RL900" not in [d.code for d in as_path.diagnostics]
