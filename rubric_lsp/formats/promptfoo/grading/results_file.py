"""Reading the results file ``promptfoo eval -o results.json`` (or ``.jsonl``) writes, as 0.123.1 writes it.

``results.json`` (``createOutputData`` in ``dist/src/util-*.js``): ``{evalId, results: {version, timestamp,
prompts: [column…], results: [row…], stats}, config, metadata: {promptfooVersion, …}, …}``; ``results.jsonl``:
one row per line (what a large eval is written as). A row is one output: ``testIdx`` and ``promptIdx``
(0-based: the test and the column, a column being one prompt of one provider), ``vars`` (the test's, as it
ran), ``prompt.raw`` (the prompt sent), ``provider`` (``{id, label}``), ``response.output`` (absent when the
provider failed: then ``error``), and promptfoo's own verdict: ``success``, ``score``, ``gradingResult``
(``pass``, ``score``, ``reason``, ``componentResults`` — each assertion's, an assert-set's children after it)
and ``failureReason`` (0 none, 1 an assertion failed, 2 an error).

Only what grading needs is kept; anything else in a row is ignored. A file that is not such a results file is
refused in one line naming what is wrong, before any judge call.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from rubric_lsp.engine.runner import GradingError

ERROR_REASON = 2  # ResultFailureReason.ERROR
SELECTORS = ("select-best", "max-score")


@dataclass(frozen=True)
class Column:
    """promptfoo's column ``index`` (``promptIdx``): one prompt of one provider."""

    index: int
    provider: str
    prompt: str  # its label (the prompt's template, or the label the config gives it)

    @property
    def label(self) -> str:
        return f"[{self.provider}] {self.prompt}" if self.provider else self.prompt


@dataclass(frozen=True)
class Component:
    """One assertion's result as promptfoo recorded it (``componentResults``)."""

    type: str | None
    passed: bool | None
    score: float | None
    reason: str


@dataclass(frozen=True)
class Recorded:
    """promptfoo's verdict on a row: its test's pass, score and reason, and each assertion's."""

    passed: bool | None
    score: float | None
    reason: str
    error: bool  # failureReason 2: the provider or an assertion errored
    components: tuple[Component, ...] = ()


@dataclass(frozen=True)
class Row:
    """One output of promptfoo's eval: test ``test`` (from 1) in column ``column`` (from 0)."""

    test: int
    column: int
    output: str | None  # None: the provider returned none (``error`` says why)
    prompt: str | None  # the prompt sent, rendered with the vars
    vars: dict[str, Any]
    description: str | None
    recorded: Recorded
    error: str | None = None


@dataclass
class ResultsFile:
    rows: list[Row]
    columns: list[Column]
    version: str | None = None  # the promptfoo that wrote it
    notes: list[str] = field(default_factory=list)


def read_results(text: str, name: str) -> ResultsFile:
    """The rows and columns of a results file's ``text`` (``name`` for messages); GradingError when it is none."""
    stripped = text.lstrip()
    if not stripped:
        raise GradingError(f"{name} is empty: give the file `promptfoo eval -o results.json` wrote.")
    try:
        data = json.loads(text)
    except ValueError:
        data = _jsonl(text, name)
    if isinstance(data, list):
        return _from_rows(data, [], None, name)
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise GradingError(
            f"{name} is not a promptfoo results file: expected an object with 'results' (what `promptfoo eval -o "
            f"results.json` writes), found {_kind(data)}."
        )
    results = data["results"]
    rows = results.get("results")
    if not isinstance(rows, list):
        raise GradingError(f"{name}: 'results.results' must be the list of result rows, found {_kind(rows)}.")
    metadata = data.get("metadata")
    version = metadata.get("promptfooVersion") if isinstance(metadata, dict) else None
    prompts = results.get("prompts")
    return _from_rows(rows, prompts if isinstance(prompts, list) else [], version, name)


def _jsonl(text: str, name: str) -> list[Any]:
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise GradingError(f"{name} line {number} is not JSON ({exc.msg}): not a promptfoo results file.") from None
    return rows


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return "a string" if isinstance(value, str) else json.dumps(value)[:20]


def _from_rows(raw: list[Any], prompts: list[Any], version: str | None, name: str) -> ResultsFile:
    columns: dict[int, Column] = {
        i: _column(i, p, None) for i, p in enumerate(prompts) if isinstance(p, dict) and isinstance(p.get("raw"), str)
    }
    rows = []
    seen: set[tuple[int, int]] = set()
    for position, item in enumerate(raw):
        row = _row(item, f"{name} row {position + 1}")
        if (row.test, row.column) in seen:
            raise GradingError(f"{name} row {position + 1}: test {row.test} column {row.column + 1} appears twice.")
        seen.add((row.test, row.column))
        rows.append(row)
        if row.column not in columns:
            columns[row.column] = _column(row.column, item.get("prompt"), item.get("provider"))
    if not rows:
        raise GradingError(f"{name} holds no result rows: nothing to grade.")
    rows.sort(key=lambda r: (r.test, r.column))
    return ResultsFile(rows, [columns[i] for i in sorted(columns)], version if isinstance(version, str) else None)


def _column(index: int, prompt: Any, provider: Any) -> Column:
    """A column from ``results.prompts[i]`` (``provider`` is its label or id), else from a row's own."""
    prompt = prompt if isinstance(prompt, dict) else {}
    label = prompt.get("label") if isinstance(prompt.get("label"), str) else prompt.get("raw")
    who = prompt.get("provider")
    if not isinstance(who, str) and isinstance(provider, dict):
        who = provider.get("label") or provider.get("id")
    return Column(index, who if isinstance(who, str) else "", label if isinstance(label, str) else "")


def _row(item: Any, where: str) -> Row:
    if not isinstance(item, dict):
        raise GradingError(f"{where} is {_kind(item)}, not a result row.")
    test, column = item.get("testIdx"), item.get("promptIdx")
    if not isinstance(test, int) or not isinstance(column, int) or not _index(test) or not _index(column):
        raise GradingError(f"{where} has no testIdx/promptIdx (0-based integers): not a promptfoo result row.")
    response = _object(item.get("response"))
    output = response.get("output")
    error = item.get("error") if isinstance(item.get("error"), str) else None  # the failed test's reason too
    vars_ = item.get("vars")
    prompt = item.get("prompt")
    test_case = _object(item.get("testCase"))
    description = test_case.get("description")
    return Row(
        test + 1,
        column,
        None if output is None else output if isinstance(output, str) else _js_json(output),
        prompt.get("raw") if isinstance(prompt, dict) and isinstance(prompt.get("raw"), str) else None,
        vars_ if isinstance(vars_, dict) else {},
        description if isinstance(description, str) else None,
        _recorded(item),
        error if output is None else None,
    )


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _index(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _js_json(value: Any) -> str:
    """An output that is not text, as the assertions see it printed (``JSON.stringify``: no spaces)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _recorded(item: dict[str, Any]) -> Recorded:
    grading = _object(item.get("gradingResult"))
    success = item.get("success")
    reason = grading.get("reason") if isinstance(grading.get("reason"), str) else item.get("error")
    components = tuple(
        Component(
            _component_type(c),
            c.get("pass") if isinstance(c.get("pass"), bool) else None,
            _number(c.get("score")),
            str(c["reason"]) if isinstance(c.get("reason"), str) else "",
        )
        for c in grading.get("componentResults") or []
        if isinstance(c, dict)
    )
    return Recorded(
        success if isinstance(success, bool) else None,
        _number(item.get("score")),
        reason if isinstance(reason, str) else "",
        item.get("failureReason") == ERROR_REASON,
        components,
    )


def _component_type(component: dict[str, Any]) -> str | None:
    """Its assertion's type; an assert-set's own result carries none, only its children's (``componentResults``)."""
    assertion = component.get("assertion")
    if isinstance(assertion, dict) and isinstance(assertion.get("type"), str):
        return assertion["type"]
    return "assert-set" if isinstance(component.get("componentResults"), list) else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)
