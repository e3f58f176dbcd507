"""Starting a grading from any client: a "▶ Grade" code lens above each gradable unit, a "Grade this …" code action.

Both carry ``rubric-lsp.grade`` with full arguments (the document and the unit's range), so a
client with no extension (Neovim, Emacs, Helix) grades by running the lens or the action.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types

from rubric_lsp.document.positions import Span
from rubric_lsp.formats.editor import GradableUnit
from rubric_lsp.server.app import RubricServer
from rubric_lsp.server.grading_plan import Read, units_under
from rubric_lsp.server.positions import Converter

GRADE = "rubric-lsp.grade"


def _command(ls: RubricServer, doc: Read, unit: GradableUnit, title: str) -> types.Command:
    rng = Converter(doc.document.lines, ls.encoding).span(unit.span)
    argument: dict[str, Any] = {
        "uri": doc.uri,
        "range": {
            "start": {"line": rng.start.line, "character": rng.start.character},
            "end": {"line": rng.end.line, "character": rng.end.character},
        },
    }
    if unit.plan.test is not None:  # several units may be written at one place (a test run once per value of a var)
        argument["test"] = unit.plan.test
    return types.Command(title=title, command=GRADE, arguments=[argument])


def grade_lenses(ls: RubricServer, doc: Read) -> list[types.CodeLens]:
    convert = Converter(doc.document.lines, ls.encoding)
    lenses = []
    for unit in doc.units():
        if not unit.lens:
            continue
        at = convert.span(Span(unit.span.start, unit.span.start))
        lenses.append(types.CodeLens(range=at, command=_command(ls, doc, unit, unit.title)))
    return lenses


def grade_actions(ls: RubricServer, doc: Read, span: Span) -> list[types.Command]:
    """ "Grade this test / grader / criterion …" for the units at the cursor or selection.

    Offered as bare Commands, which a code-action answer may hold: lsprotocol (pygls, pytest-lsp)
    reads every CodeAction that carries a command as a Command anyway, so typed clients see these right.
    """
    return [
        _command(ls, doc, unit, f"Grade this {unit.noun}" + (f" ({unit.label})" if unit.label else ""))
        for unit in units_under(doc.units(), span, doc.text)
    ]


def results_actions(ls: RubricServer, doc: Read) -> list[types.Command]:
    """ "Grade results.json (every output) with this file": one per results file its tool wrote beside it."""
    found = []
    for path in doc.results_files():
        argument = {"uri": doc.uri, "kind": "results", "results": path}
        title = f"Grade {Path(path).name} (every output) with {doc.name}"
        found.append(types.Command(title=title, command=GRADE, arguments=[argument]))
    return found
