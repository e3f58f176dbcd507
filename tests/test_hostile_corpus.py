"""The hostile-input corpus (tests/hostile/): each file with the findings it must get (issue 13, items 1-4, 15).

Every file goes through ``lint_path`` in process and through the CLI over the whole
folder: no exception, no RL900, exit 1 (never 2), and each expected finding at its
position. Only the findings the reproduction is about are listed, so other rules may
change their wording without touching this table. Cases a UTF-8 file cannot hold (a lone
UTF-16 surrogate, text that starts with U+FEFF as an editor sends it) are strings below,
linted in process and through the language server.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rubric_lsp.document import parse_document
from rubric_lsp.lint import lint_path, lint_text
from rubric_lsp.server.positions import UTF16, Converter
from tests.raw_client import RawClient, hover

HOSTILE = Path(__file__).resolve().parent / "hostile"

# file → findings that must be there, as (code, "line:column", 1-based like the CLI prints them)
EXPECTED: dict[str, list[tuple[str, str]]] = {
    # item 1: a bad value under an explicit tag is RL001 on that value, not an exception
    "tag-timestamp.rubric.yaml": [("RL001", "4:10")],
    "tag-bool.rubric.yaml": [("RL001", "3:13")],
    "tag-int.rubric.yaml": [("RL001", "3:13")],
    "tag-float.rubric.yaml": [("RL001", "3:13")],
    # not a rubric: a folder run skips it (and reports every other file)
    "ci-workflow.yaml": [],
    # item 2: a key that is not text is an unknown key, not RL900
    "key-sequence.rubric.yaml": [("AR021", "3:3")],
    "key-mapping.rubric.yaml": [("AR021", "3:3")],
    # ... and promptfoo's js-yaml refuses a collection as a mapping key ("object-based map does not
    # support complex keys"), checked with js-yaml 5.4.1: PF116, an error where promptfoo stops
    "promptfoo-key/promptfooconfig.yaml": [("PF116", "5:7")],
    # item 3: two byte-order marks (the file's own is dropped on reading, the second is text)
    "two-boms.rubric.yaml": [("AR001", "2:5")],
    "two-boms-on.rubric.yaml": [("RL005", "3:12")],
    # json.load refuses a BOM too: the first is RL007 (with a fix), the second one a syntax error after it
    "two-boms.rubric.json": [("RL007", "1:1"), ("RL001", "1:2")],
}


def found(result) -> set[tuple[str, str]]:
    return {(d.code, f"{d.range.start.line + 1}:{d.range.start.character + 1}") for d in result.diagnostics}


def test_every_corpus_file_has_an_expectation():
    files = {str(p.relative_to(HOSTILE)) for p in HOSTILE.rglob("*") if p.is_file()}
    assert files == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_hostile_corpus_file_in_process(name):
    result = lint_path(HOSTILE / name)
    codes = {code for code, _ in found(result)}
    assert "RL900" not in codes
    assert set(EXPECTED[name]) <= found(result), sorted(found(result))
    if not EXPECTED[name]:
        assert not any(d.severity == 1 for d in result.diagnostics), sorted(found(result))


def test_hostile_corpus_through_the_cli():
    proc = subprocess.run(
        [sys.executable, "-m", "rubric_lsp", "lint", "--format", "json", str(HOSTILE)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    reported: dict[str, set[tuple[str, str]]] = {}
    for diag in json.loads(proc.stdout):
        start = diag["range"]["start"]
        name = str(Path(diag["path"]).resolve().relative_to(HOSTILE))
        reported.setdefault(name, set()).add((diag["code"], f"{start['line'] + 1}:{start['character'] + 1}"))
    assert not any(code == "RL900" for found_here in reported.values() for code, _ in found_here)
    for name, expected in EXPECTED.items():
        assert set(expected) <= reported.get(name, set()), (name, sorted(reported.get(name, ())))
    assert "ci-workflow.yaml" not in reported


def test_fix_lands_on_the_value_after_two_byte_order_marks(tmp_path):
    path = tmp_path / "two-boms-on.rubric.yaml"
    shutil.copy(HOSTILE / "two-boms-on.rubric.yaml", path)
    subprocess.run(
        [sys.executable, "-m", "rubric_lsp", "lint", "--fix", "--unsafe-fixes", str(path)],
        check=False,
        capture_output=True,
        timeout=120,
    )
    assert path.read_bytes() == b'\xef\xbb\xbf\xef\xbb\xbfcriteria:\n  - requirement: x\n    label: "on"\n'


# -- text an editor sends ------------------------------------------------------------


@pytest.mark.parametrize("boms", [1, 2])
def test_yaml_text_starting_with_a_bom_keeps_positions(boms):
    text = "\ufeff" * boms + "criteria:\n  - requirement: x\n    requirment: y\n    label: on\n"
    result = lint_text(text, "x.rubric.yaml")
    if boms == 2:  # the second mark is part of the first key, as PyYAML reads it
        assert ("AR021", "1:2") in found(result)
        return
    assert {("AR001", "3:5"), ("RL005", "4:12")} <= found(result)
    fix = next(d.fix for d in result.diagnostics if d.code == "RL005")
    (edit,) = fix.edits
    assert text[edit.span.start : edit.span.end] == "on"


@pytest.mark.parametrize(
    "text, path",
    [
        ("criteria:\n  - requirement: a\ud83d b\n    requirment: y\n", "x.rubric.yaml"),
        ('{"criteria": [{"requirement": "a\ud83d b", "requirment": "y"}]}', "x.rubric.json"),
    ],
    ids=["yaml", "json"],
)
def test_lone_surrogate_from_the_editor_is_replaced_and_ranges_kept(text, path):
    result = lint_text(text, path)
    assert len(result.document.text) == len(text) and "\ud83d" not in result.document.text
    surrogate = text.index("\ud83d")
    rl004 = [d for d in result.diagnostics if d.code == "RL004"]
    assert [(d.span.start, d.span.end) for d in rl004] == [(surrogate, surrogate + 1)]
    typo = next(d for d in result.diagnostics if d.code == "AR001")
    assert text[typo.span.start : typo.span.end].strip('"') == "requirment"
    # The server sends UTF-16 units: the half pair is one unit, as U+FFFD is.
    converter = Converter(result.document.lines, UTF16)
    assert converter.offset(converter.span(typo.span).start) == typo.span.start


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "rubric:\n  - requirement: Greets \ud83d warmly\n    requirment: y\n",
            {"RL004": {"line": 1, "character": 24}, "AR001": {"line": 2, "character": 4}},
        ),
        (
            "rubric:\n  - requirement: Greets\n    weight: !!bool maybe\n",
            {"RL001": {"line": 2, "character": 12}},
        ),
        (
            "\ufeffrubric:\n  - requirement: Greets\n    requirment: y\n",
            {"AR001": {"line": 2, "character": 4}},
        ),
    ],
    ids=["lone-surrogate", "bad-tagged-value", "bom-in-text"],
)
def test_server_reads_hostile_text_and_keeps_answering(raw: RawClient, tmp_path: Path, text, expected):
    uri = (tmp_path / "a.rubric.yaml").as_uri()
    # json.dumps escapes a half pair as \ud83d, as an editor's JSON-RPC does
    raw.send(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
        request=False,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        message = raw.read()
        if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
            diagnostics = message["params"]["diagnostics"]
            break
    else:
        raise AssertionError("no diagnostics for the hostile text")
    by_code = {d["code"]: d["range"]["start"] for d in diagnostics}
    assert {code: by_code.get(code) for code in expected} == expected
    assert "contents" in hover(raw, uri)["result"]


# -- memory ------------------------------------------------------------------------------


def test_a_long_json_string_reads_in_bounded_memory(tmp_path):
    # The JSON reader's string regex kept a frame per character: a 4 MiB string took
    # about 500 MB. Peak RSS of a fresh interpreter, so other tests do not count: VmHWM,
    # as ru_maxrss keeps the peak of the forked copy of this (large) pytest process.
    path = tmp_path / "long.rubric.json"
    path.write_text(json.dumps({"criteria": [{"requirement": "x" * (4 << 20)}]}))
    script = (
        "import resource, sys\n"
        "from rubric_lsp.lint import lint_path\n"
        "from pathlib import Path\n"
        "result = lint_path(Path(sys.argv[1]))\n"
        "try:\n"
        "    status = open('/proc/self/status').read().split('VmHWM:')[1]\n"
        "    peak = int(status.split()[0])\n"
        "except (OSError, IndexError):\n"
        "    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(peak, [d.code for d in result.diagnostics])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(path)], check=False, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    peak_kb = int(proc.stdout.split()[0])
    assert peak_kb < 150 * 1024, f"peak RSS {peak_kb / 1024:.0f} MB"


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"a": "x\\q"}', ("invalid escape in string (Invalid \\escape)", 8)),
        ('{"a": "x\\u12"}', ("invalid escape in string (Invalid \\uXXXX escape)", 9)),
        ('{"a": "x\n"}', ("unterminated string", 6)),
        ('{"a": "x', ("unterminated string", 6)),
        ('{"a": "x\\\ny"}', ("unterminated string", 6)),
        ('{"a": "x\ty"}', ("invalid character in string (control characters must be escaped)", 6)),
        ('{"a": "\\ud83d\\ude00 \\u00e9\\n\\"", "b": "\\ud83d"}', {"a": '😀 é\n"', "b": "\ud83d"}),
    ],
)
def test_json_strings_read_as_before_the_scanner_change(text, expected):
    doc = parse_document(text, "x.json")
    if isinstance(expected, dict):
        assert doc.issues == [] and doc.value == expected == json.loads(text)
        return
    (issue,) = doc.issues
    assert (issue.message, issue.span.start) == ("JSON syntax error: " + expected[0], expected[1])
