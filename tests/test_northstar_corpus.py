"""The real NorthStar and Rubrics-task files lint clean, and detection never steals other formats' files."""

from __future__ import annotations

import pytest

from rubric_lsp.document import parse_document
from rubric_lsp.formats.registry import detect
from rubric_lsp.lint import lint_path
from tests.conftest import CORPUS

OURS = {"northstar-eval-run-request", "northstar-eval-cases", "rubrics-task"}

EXPECTED = {
    "northstar/eval_run_request_predefined.json": "northstar-eval-run-request",
    "northstar/datasets/cases.jsonl": "northstar-eval-cases",
    "northstar/datasets/cases_array.json": "northstar-eval-cases",
    "northstar/datasets/cases_object.json": "northstar-eval-cases",
    "northstar/datasets/single_case.json": "northstar-eval-cases",
    "rubrics-task/sample_task.json": "rubrics-task",
}


@pytest.mark.parametrize("relative", sorted(EXPECTED))
def test_corpus_file_is_detected_and_lints_clean(corpus, relative):
    result = lint_path(corpus / relative)
    assert result.format is not None and result.format.name == EXPECTED[relative]
    assert result.diagnostics == [], [(d.code, d.range.start.line + 1, d.message) for d in result.diagnostics]


def test_every_corpus_file_of_ours_is_covered(corpus):
    # NorthStar's dashboard preset list is not a file NorthStar reads; it is not one of our kinds.
    for path in sorted((corpus / "northstar").rglob("*")) + sorted((corpus / "rubrics-task").rglob("*")):
        if not path.is_file():
            continue
        relative = path.relative_to(corpus).as_posix()
        fmt = detect(parse_document(path.read_bytes(), str(path)))
        if relative == "northstar/predefined_llm_graders.json":
            assert fmt is None
        else:
            assert fmt is not None and fmt.name == EXPECTED[relative]


def _other_formats_files():
    if not CORPUS.is_dir():
        return []
    found = []
    # Every autorubric file; promptfoo's JSON and JSON Lines (its YAML configs have no JSON look-alike).
    for folder, suffixes in (("autorubric", (".json", ".jsonl", ".yaml", ".yml")), ("promptfoo", (".json", ".jsonl"))):
        for path in sorted((CORPUS / folder).rglob("*")):
            if path.is_file() and path.suffix in suffixes and path.stat().st_size < 2_000_000:
                found.append(path)
    return found


def test_other_formats_files_are_not_taken(corpus):
    files = _other_formats_files()
    assert len(files) > 40  # the corpus is really there
    taken = []
    for path in files:
        fmt = detect(parse_document(path.read_bytes(), str(path)))
        if fmt is not None and fmt.name in OURS:
            taken.append((path.relative_to(corpus).as_posix(), fmt.name))
    assert taken == []


@pytest.mark.parametrize(
    ("text", "path", "expected"),
    [
        ('{"graders": []}', "x.json", "northstar-eval-run-request"),
        ('{"id": "a", "messages": []}', "x.json", "northstar-eval-cases"),
        ('[{"id": "a", "messages": []}]', "x.json", "northstar-eval-cases"),
        ('{"cases": [{"id": "a", "messages": []}]}', "x.json", "northstar-eval-cases"),
        ('{"id": "a", "messages": []}\n', "x.jsonl", "northstar-eval-cases"),
        ('{"task_id": "t", "threads": []}', "x.json", "rubrics-task"),
        ('{"task_id": "t", "status": "pending", "project": "p"}', "x.json", "rubrics-task"),
        # Near misses: a chat fine-tuning line, a chat prompt, a task-less object.
        ('{"messages": [{"role": "user", "content": "hi"}]}\n', "x.jsonl", None),
        ('[{"role": "user", "content": "hi"}]\n', "x.jsonl", None),
        ('{"threads": []}', "x.json", None),
    ],
)
def test_detection_by_content(text, path, expected):
    fmt = detect(parse_document(text, path))
    assert (fmt.name if fmt is not None else None) == expected
