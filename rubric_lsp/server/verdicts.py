"""Showing the last grading of a document: inlay hints, code lenses, hovers, diagnostics.

Built from the grading engine's JSON report (``report.to_json()``), whose ranges are
0-based code points in the graded text; they are converted to the client's encoding here.
As the user edits, what is shown follows its lines (``follow_edits``); a criterion or
example whose lines were edited loses its verdict, which no longer describes it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types

from rubric_lsp.document.positions import LineIndex, Position, Range
from rubric_lsp.server.app import SOURCE, RubricServer
from rubric_lsp.server.line_map import LineMap, line_map

log = logging.getLogger(__name__)

ICONS = {"MET": "✓", "UNMET": "✗", "CANNOT_ASSESS": "?", "PASS": "✓", "FAIL": "✗", "ERROR": "⚠"}


@dataclass
class Mark:
    """One verdict to show: at the end of ``line`` (code points), with the judge's reason."""

    line: int
    range: Range
    label: str
    tooltip: str


@dataclass
class Lens:
    range: Range
    title: str
    regrade: bool = False  # clicking it grades the document's examples again


@dataclass
class Shown:
    """The last grading of a document, ready to display."""

    marks: list[Mark] = field(default_factory=list)
    lenses: list[Lens] = field(default_factory=list)
    problems: list[tuple[Range, str]] = field(default_factory=list)  # unmet expectations
    result: dict[str, Any] | None = None
    text: str | None = None  # the text the ranges above refer to
    _lines: LineIndex | None = field(default=None, repr=False)

    def lines(self) -> LineIndex | None:
        if self.text is None:
            return None
        if self._lines is None:
            self._lines = LineIndex(self.text)
        return self._lines

    def move_to(self, text: str) -> None:
        """Re-anchor everything on ``text``, a later version of ``self.text``."""
        if self.text is None or text == self.text:
            self.text = text
            return
        where = line_map(self.text, text)
        self.marks = [
            Mark(moved.start.line, moved, mark.label, mark.tooltip)
            for mark in self.marks
            if (moved := _moved(mark.range, where)) is not None
        ]
        self.problems = [
            (moved, message) for rng, message in self.problems if (moved := _moved(rng, where)) is not None
        ]
        last_line = text.count("\n")
        for lens in self.lenses:
            # A lens stays (the score is still the last grading's); on an edited line it keeps its line number.
            line = where(lens.range.start.line)
            line = min(lens.range.start.line, last_line) if line is None else line
            lens.range = Range(Position(line, 0), Position(line, 0))
        self.text, self._lines = text, None


def _moved(rng: Range, where: LineMap) -> Range | None:
    """``rng`` in the new text, or None when any of its lines was edited."""
    lines = [where(line) for line in range(rng.start.line, rng.end.line + 1)]
    kept = [line for line in lines if line is not None]
    if len(kept) != len(lines) or kept != list(range(kept[0], kept[0] + len(kept))):
        return None
    shift = kept[0] - rng.start.line
    return Range(
        Position(rng.start.line + shift, rng.start.character), Position(rng.end.line + shift, rng.end.character)
    )


def _range(data: Any) -> Range | None:
    if not isinstance(data, dict):
        return None
    try:
        start, end = data["start"], data["end"]
        return Range(
            Position(int(start["line"]), int(start["character"])), Position(int(end["line"]), int(end["character"]))
        )
    except (KeyError, TypeError, ValueError):
        return None


def _label(verdict: dict[str, Any]) -> str:
    name = str(verdict.get("verdict", ""))
    if verdict.get("error"):
        return "⚠ judge error"
    icon = ICONS.get(name)
    if icon is None:  # a multi-choice option label
        return f"◆ {name}"
    return f"{icon} {name}"


def _tooltip(verdict: dict[str, Any], example: str | None = None) -> str:
    head = f"**{verdict.get('name') or 'criterion'}**: {verdict.get('verdict')}"
    if example:
        head = f"*{example}* — " + head
    parts = [head]
    if verdict.get("error"):
        parts.append(
            f"Judge error: {verdict['error']}"
            + (f" (counted as {verdict['counted_as']})" if verdict.get("counted_as") else "")
        )
    if verdict.get("reason"):
        parts.append(str(verdict["reason"]))
    if verdict.get("cached"):
        parts.append("_(from the verdict cache)_")
    return "\n\n".join(parts)


def _score_text(report: dict[str, Any]) -> str:
    score = report.get("score")
    text = "no score" if score is None else f"score {score:.2f}"
    if report.get("error"):
        text += f" ⚠ {report['error']}"
    return text


def shown_for_report(report: dict[str, Any], where: Range) -> Shown:
    shown = Shown(result=report)
    for verdict in report.get("verdicts", []):
        rng = _range(verdict.get("range"))
        if rng is not None:
            shown.marks.append(Mark(rng.start.line, rng, _label(verdict), _tooltip(verdict)))
    passed = report.get("passed")
    suffix = "" if passed is None else (" ✓ passed" if passed else " ✗ failed")
    shown.lenses.append(Lens(where, f"Graded: {_score_text(report)}{suffix}"))
    for note in report.get("notes") or []:  # e.g. assertions this grading did not run
        shown.lenses.append(Lens(where, f"ⓘ {note}"))
    return shown


def shown_for_examples(results: list[Any], top: Range) -> Shown:
    examples: list[dict[str, Any]] = []
    shown = Shown(result={"examples": examples})
    by_line: dict[int, list[tuple[str, dict[str, Any]]]] = {}
    ranges: dict[int, Range] = {}
    for example in results:
        data = _example_json(example)
        examples.append(data)
        report = data.get("report") or {}
        name = data.get("name") or "example"
        for verdict in report.get("verdicts", []):
            rng = _range(verdict.get("range"))
            if rng is not None:
                by_line.setdefault(rng.start.line, []).append((name, verdict))
                ranges.setdefault(rng.start.line, rng)
        where = _range(data.get("range")) or top
        met = data.get("met")
        expect = "" if met is None else (" ✓ as expected" if met else " ✗ expectation not met")
        shown.lenses.append(Lens(where, f"{name}: {_score_text(report)}{expect}", regrade=True))
        for failure in data.get("failures") or []:
            shown.problems.append((where, f"Example '{name}': {failure}"))
    for line, items in by_line.items():
        if len(items) == 1:
            name, verdict = items[0]
            label = _label(verdict)
        else:
            label = " · ".join(f"{name}: {_label(v)}" for name, v in items)
        tooltip = "\n\n---\n\n".join(_tooltip(v, name) for name, v in items)
        shown.marks.append(Mark(line, ranges[line], label, tooltip))
    return shown


def _example_json(example: Any) -> dict[str, Any]:
    if isinstance(example, dict):
        data = dict(example)
    elif hasattr(example, "to_json"):
        data = example.to_json()
    else:
        data = {key: getattr(example, key, None) for key in ("name", "range", "report", "met", "failures")}
    report = data.get("report")
    if report is not None and not isinstance(report, dict) and hasattr(report, "to_json"):
        data["report"] = report.to_json()
    return data


def show(ls: RubricServer, uri: str, shown: Shown, graded_text: str) -> None:
    """Show ``shown``, whose ranges refer to ``graded_text``, on the document as it is now."""
    shown.text = graded_text
    if uri in ls.workspace.text_documents:
        shown.move_to(ls.text_of(uri)[0])  # the user may have typed while the judge worked
    ls.state(uri).extra["shown"] = shown
    _refresh(ls, uri)


def follow_edits(ls: RubricServer, uri: str) -> None:
    """After a change to ``uri``: keep what is shown on its lines (the client asks for hints again)."""
    state = ls.docs.get(uri)
    if state is None:
        return
    shown: Shown | None = state.extra.get("shown")
    if shown is None or uri not in ls.workspace.text_documents:
        return
    had_problems = bool(shown.problems)
    shown.move_to(ls.text_of(uri)[0])
    if had_problems:
        state.extra["grading_diagnostics"] = _problems(ls, uri, shown)


def clear(ls: RubricServer, uri: str | None) -> None:
    for doc_uri, state in list(ls.docs.items()):
        if uri is None or doc_uri == uri:
            state.extra.pop("shown", None)
            _refresh(ls, doc_uri)


def _refresh(ls: RubricServer, uri: str) -> None:
    state = ls.state(uri)
    shown: Shown | None = state.extra.get("shown")
    state.extra["grading_diagnostics"] = _problems(ls, uri, shown)
    for capability, refresh in (
        ("workspace.inlay_hint.refresh_support", ls.workspace_inlay_hint_refresh),
        ("workspace.code_lens.refresh_support", ls.workspace_code_lens_refresh),
    ):
        if ls.client_supports(capability):
            try:
                refresh(None)
            except Exception:
                log.debug("refresh failed", exc_info=True)
    from rubric_lsp.server import diagnostics

    if ls.pull_diagnostics:
        if ls.client_supports("workspace.diagnostics.refresh_support"):
            ls.workspace_diagnostic_refresh(None)
    elif uri in ls.workspace.text_documents:
        diagnostics.schedule(ls, uri, 0)


def _problems(ls: RubricServer, uri: str, shown: Shown | None) -> list[types.Diagnostic]:
    if shown is None or not shown.problems:
        return []
    state = ls.state(uri)
    result = state.result
    from rubric_lsp.server.positions import Converter

    lines = shown.lines() or (
        result.document.lines
        if result is not None
        else LineIndex(ls.text_of(uri)[0] if uri in ls.workspace.text_documents else "")
    )
    convert = Converter(lines, ls.encoding)
    return [
        types.Diagnostic(
            range=convert.range(rng),
            message=message,
            severity=types.DiagnosticSeverity.Information,
            source=SOURCE,
            code="grading",
        )
        for rng, message in shown.problems
    ]


# -- display ---------------------------------------------------------------------------
def verdict_hover(ls: RubricServer, uri: str, offset: int) -> str | None:
    state = ls.docs.get(uri)
    if state is None:
        return None
    shown: Shown | None = state.extra.get("shown")
    if shown is None or state.result is None:
        return None
    pos = state.result.document.lines.position(offset)
    texts = [
        m.tooltip for m in shown.marks if m.range.start.line <= pos.line <= max(m.range.end.line, m.range.start.line)
    ]
    return "\n\n---\n\n".join(texts) or None


def inlay_hints(ls: RubricServer, uri: str, visible: types.Range) -> list[types.InlayHint]:
    state = ls.docs.get(uri)
    if state is None:
        return []
    shown: Shown | None = state.extra.get("shown")
    if shown is None or state.result is None:
        return []
    lines = shown.lines() or state.result.document.lines  # the lint result may lag behind the text
    from rubric_lsp.server.positions import Converter

    convert = Converter(lines, ls.encoding)
    hints = []
    for mark in shown.marks:
        if mark.line >= lines.line_count or not (visible.start.line <= mark.line <= visible.end.line):
            continue
        end = Position(mark.line, len(lines.line_text(mark.line)))
        hints.append(
            types.InlayHint(
                position=convert.position(end),
                label=mark.label,
                padding_left=True,
                tooltip=types.MarkupContent(kind=types.MarkupKind.Markdown, value=mark.tooltip),
            )
        )
    return hints


def code_lenses(ls: RubricServer, uri: str) -> list[types.CodeLens]:
    state = ls.docs.get(uri)
    if state is None:
        return []
    shown: Shown | None = state.extra.get("shown")
    if shown is None or state.result is None:
        return []
    from rubric_lsp.server.positions import Converter

    convert = Converter(shown.lines() or state.result.document.lines, ls.encoding)
    return [
        types.CodeLens(
            range=convert.range(Range(lens.range.start, lens.range.start)),
            command=types.Command(title=lens.title, command="rubric-lsp.gradeDocument", arguments=[{"uri": uri}])
            if lens.regrade
            else types.Command(title=lens.title, command=""),
        )
        for lens in shown.lenses
    ]
