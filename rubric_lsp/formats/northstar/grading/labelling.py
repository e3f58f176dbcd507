"""A NorthStar EvalRunRequest's labelling (``Format.labelling``, docs/labelling.md): its LLM graders (``rubric``,
``faithfulness``) labelled pass or fail on the cases of an eval dataset, each label a row of a labels file
(docs/calibration.md's columns: ``config``, ``grader``, ``output``, ``query``, ``verdict``, with ``labeller`` and
``note``).

The outputs come from NorthStar eval cases (``rubric label request.json --from cases.json -o labels.csv``): a
case's final response is its last assistant message (NorthStar's ``EvalCase.messages``), its goal
(``expected.goal``) the query a grader without a rubric of its own grades against, and its conversation what the
page shows above the response. Each case is an item labelled on every LLM grader of the request.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rubric_lsp.document import Document
from rubric_lsp.document.issues import TextEdit
from rubric_lsp.formats.northstar.grading.graders import GraderInput, GraderRequestError, read_graders
from rubric_lsp.labelling.hook import (
    FAIL,
    PASS,
    Choice,
    Label,
    LabelItem,
    Labelling,
    LabellingHook,
    LabelUnit,
    Part,
    Sheet,
    item_keys,
)

PASS_WORD, FAIL_WORD = "pass", "fail"  # a labels file's verdicts (calibration/labels.py reads them)


def _graders(doc: Document) -> list[GraderInput]:
    if doc.root is None or not doc.root.is_map:
        return []
    try:
        return read_graders(doc.root, lambda node: None).judges
    except GraderRequestError:
        return []  # NorthStar refuses the request: the lint says why


def _units(doc: Document) -> list[LabelUnit]:
    graders = doc.root.get("graders") if doc.root is not None and doc.root.is_map else None
    nodes = graders.value if graders is not None and graders.is_seq else []
    units = []
    for grader in _graders(doc):
        scale = "binary" if grader.scoring is None or grader.scoring.mode != "numeric" else "numeric"
        hint = "" if scale == "binary" else " (a numeric grader: pass at its passing score)"
        node = nodes[grader.index] if 0 <= grader.index < len(nodes) else None
        units.append(
            LabelUnit(
                id=grader.name,
                title=grader.rubric
                or f"{grader.kind}: {'the case goal' if grader.kind == 'rubric' else 'grounded in its context'}",
                choices=(
                    Choice(PASS_WORD, PASS, "the response should pass this grader" + hint),
                    Choice(FAIL_WORD, FAIL, "it should fail it"),
                ),
                noun="grader",
                where=node.span if node is not None else None,
                fields={"grader": grader.name},
            )
        )
    return units


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts: their text
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else json.dumps(content, ensure_ascii=False)


def _case_parts(case: dict[str, Any]) -> tuple[str | None, list[Part], str | None, str]:
    """A case's final response, the conversation before it, its goal and its title."""
    messages = [m for m in case.get("messages") or [] if isinstance(m, dict)]
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=None)
    if last is None:
        return None, [], None, ""
    parts = [Part(str(m.get("role") or "message"), _text(m.get("content"))) for m in messages[:last]]
    expected = case.get("expected")
    goal = expected.get("goal") if isinstance(expected, dict) and isinstance(expected.get("goal"), str) else None
    if goal:
        parts.insert(0, Part("goal", goal))
    return _text(messages[last].get("content")), parts, goal, str(case.get("id") or "")


def sheet(doc: Document) -> Sheet:
    return Sheet([], in_file=False)  # a request holds graders, not outputs: those come from eval cases (--from)


def write(doc: Document, item: LabelItem, labels: Mapping[str, Label]) -> list[TextEdit]:
    return []  # labels go to a labels file (labelling/table.py), never into the request


def read_source(doc: Document, data: Any, path: Path) -> Sheet | None:
    """NorthStar eval cases (``{"cases": [...]}``, a list, or a .jsonl file's lines): each case with a final
    response an item."""
    cases = data.get("cases") if isinstance(data, dict) else data
    if not isinstance(cases, list) or not any(isinstance(c, dict) and "messages" in c for c in cases):
        return None
    units = _units(doc)
    found = Sheet([], in_file=False)
    read = [(c, *_case_parts(c)) for c in cases if isinstance(c, dict)]
    kept = [r for r in read if r[1] is not None]
    if len(kept) < len(read):
        found.notes.append(f"{path}: {len(read) - len(kept)} case(s) have no assistant message to label")
    keys = item_keys([{"output": r[1], "query": r[3]} for r in kept])
    for number, ((_case, response, parts, goal, name), key) in enumerate(zip(kept, keys), 1):
        fields = {"output": response or "", **({"query": goal} if goal else {})}
        title = f"case {name}" if name else f"case {number}"
        found.items.append(LabelItem(key, number, title, parts, response or "", list(units), fields=fields))
    return found


def item_for(doc: Document, fields: Mapping[str, str], number: int) -> LabelItem | None:
    output = fields.get("output", "")
    if not output:
        return None
    goal = fields.get("query") or None
    key = item_keys([{"output": output, "query": goal}])[0]
    parts = [Part("goal", goal)] if goal else []
    item_fields = {"output": output, **({"query": goal} if goal else {})}
    return LabelItem(key, number, f"row {number} of the labels file", parts, output, _units(doc), fields=item_fields)


LABELLING: LabellingHook = Labelling(sheet, write, read_source, item_for)
