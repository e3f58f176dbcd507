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
from rubric_lsp.engine.result import Figures, Outcome, Unit
from rubric_lsp.server.app import SOURCE, RubricServer
from rubric_lsp.server.line_map import LineMap, line_map
from rubric_lsp.server.positions import Converter
from rubric_lsp.server.publish import schedule

log = logging.getLogger(__name__)

# The mark each outcome gets (``result.Outcome``); the verdict's own word follows it.
ICONS = {
    Outcome.PASS: "✓",
    Outcome.FAIL: "✗",
    Outcome.ABSTAIN: "?",
    Outcome.NOT_RUN: "?",
    Outcome.ERROR: "⚠",
    Outcome.LOSS: "−",
}


@dataclass
class Mark:
    """One verdict to show: at the end of ``line`` (code points), with the judge's reason."""

    line: int
    range: Range
    label: str
    tooltip: str
    kind: str = "met"  # met | unmet | penalty-applied | penalty-avoided | cannot-assess | error | expectation-failed
    example: str | None = None  # the example it belongs to (one mark per example, never merged)
    detail: str = ""


@dataclass
class Lens:
    range: Range
    title: str
    regrade: bool = False  # clicking it grades the document's examples again
    command: str | None = None  # else: this command with ``arguments``
    arguments: list[Any] | None = None


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
            Mark(moved.start.line, moved, mark.label, mark.tooltip, mark.kind, mark.example, mark.detail)
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


# The protocol's mark kinds (docs/editor-grading.md), by outcome; a passed penalty is told apart.
KINDS = {
    Outcome.PASS: "met",
    Outcome.FAIL: "unmet",
    Outcome.LOSS: "penalty-applied",
    Outcome.ABSTAIN: "cannot-assess",
    Outcome.NOT_RUN: "cannot-assess",
    Outcome.ERROR: "error",
}


def kind_of(unit: Unit) -> str:
    """The mark kind a reader must tell apart; a loss (a penalty that applied) is never a ✓."""
    if unit.outcome is Outcome.PASS and unit.penalty:
        return "penalty-avoided"
    return KINDS[unit.outcome]


def _label(unit: Unit) -> str:
    if unit.outcome is Outcome.ERROR:
        return "⚠ judge error"
    if unit.outcome is Outcome.LOSS:
        lost = f"{abs(unit.weight):g}" if unit.weight is not None else ""
        return f"−{lost} {unit.title or 'penalty'}"
    if unit.outcome is Outcome.PASS and unit.penalty:
        return f"✓ no {unit.title or 'penalty'}"
    return f"{ICONS[unit.outcome]} {unit.verdict}"


def _mark(rng: Range, unit: Unit, example: str | None = None) -> Mark:
    label = _label(unit)
    reason = unit.error or unit.reason
    return Mark(
        rng.start.line,
        rng,
        f"{example}: {label}" if example else label,
        _tooltip(unit, example),
        kind_of(unit),
        example,
        " — ".join(p for p in (unit.title, reason) if p),
    )


def _tooltip(unit: Unit, example: str | None = None) -> str:
    head = f"**{unit.title or 'criterion'}**: {unit.verdict}"
    if example:
        head = f"*{example}* — " + head
    parts = [head]
    if unit.error:
        parts.append(f"Judge error: {unit.error}" + (f" (counted as {unit.counted_as})" if unit.counted_as else ""))
    if unit.reason:
        parts.append(unit.reason)
    if unit.cached:
        parts.append("_(from the verdict cache)_")
    return "\n\n".join(parts)


def _score_text(report: dict[str, Any]) -> str:
    score = report.get("score")
    text = "no score" if score is None else f"score {score:.2f}"
    if report.get("error"):
        text += f" ⚠ {report['error']}"
    return text


def shown_for_report(result: Any, where: Range) -> Shown:
    """A graded response (``result.Result``): a mark per unit written in the file, lenses with the score."""
    report = result.to_json()
    shown = Shown(result=report)
    for unit in result.units():
        rng = _range(unit.range)
        if rng is not None:
            shown.marks.append(_mark(rng, unit))
    passed = report.get("passed")
    incomplete = report.get("incomplete")
    suffixes = {None: " — INCOMPLETE" if incomplete else "", True: " ✓ passed", False: " ✗ failed"}
    suffix = suffixes[passed]
    shown.lenses.append(Lens(where, f"Graded: {_score_text(report)}{suffix}"))
    if len(report.get("tests") or []) > 1:  # several numbered tests: each one's own result, in the outputs' words
        from rubric_lsp.engine.report import FAILED, PASSED, test_result  # a grading's: loaded by then

        marks = {PASSED: "✓", FAILED: "✗"}
        summary = ", ".join(f"test {t['test']} {marks.get(test_result(t)) or test_result(t)}" for t in report["tests"])
        shown.lenses.append(Lens(where, summary))
    if incomplete:  # a failed judge call, or assertions this grading did not run: never a silent pass
        shown.lenses.append(Lens(where, f"⚠ incomplete: {incomplete}"))
    for note in report.get("notes") or []:  # e.g. assertions this grading did not run
        shown.lenses.append(Lens(where, f"ⓘ {note}"))
    return shown


def shown_for_examples(results: list[Any], top: Range) -> Shown:
    """One mark per example and verdict (never merged), a lens per example, a problem per failed expectation."""
    examples: list[dict[str, Any]] = []
    shown = Shown(result={"examples": examples})
    for example in results:
        data = example.to_json()
        examples.append(data)
        report = data.get("report") or {}
        name = data.get("name") or "example"
        for unit in example.report.units(name) if example.report is not None else []:
            rng = _range(unit.range)
            if rng is not None:
                shown.marks.append(_mark(rng, unit, name))
        where = _range(data.get("range")) or top
        met = data.get("met")
        expect = "" if met is None else (" ✓ as expected" if met else " ✗ expectation not met")
        shown.lenses.append(Lens(where, f"{name}: {_score_text(report)}{expect}", regrade=True))
        ranges = data.get("failure_ranges") or []
        for i, failure in enumerate(data.get("failures") or []):
            at = _range(ranges[i]) if i < len(ranges) else None
            shown.problems.append((at or where, f"Example '{name}': {failure}"))
            shown.marks.append(
                Mark(
                    (at or where).start.line,
                    at or where,
                    f"{name}: ✗ expectation not met",
                    failure,
                    "expectation-failed",
                    name,
                    failure,
                )
            )
    return shown


def shown_for_dataset(data: dict[str, Any], uri: str, top: Range, figures: Figures | None = None) -> Shown:
    """Agreement with the labels as a lens on each criterion where it is written; disagreements one click away.

    Beside accuracy, each lens shows the figures the format measured (``figures.brief``), in its words."""
    shown = Shown(result=data)
    brief = figures.brief if figures is not None else ()
    for position, criterion in enumerate(data.get("agreement") or []):
        where = _range(criterion.get("range")) or top
        figure = criterion.get("accuracy")
        abstained = sum((criterion.get("abstained") or {}).values())
        parts = [f"{criterion.get('name')}: accuracy {'n/a' if figure is None else f'{figure:.2f}'}"]
        for measured in brief[position] if position < len(brief) else ():
            parts.append(f"{measured.label} {'n/a' if measured.value is None else f'{measured.value:.2f}'}")
        parts += [f"n={criterion.get('compared', 0)}", f"abstentions {abstained}"]
        if criterion.get("failed"):
            parts.append(f"failed {criterion['failed']}")
        disagreeing = criterion.get("disagreeing") or []
        shown.lenses.append(Lens(where, " · ".join(parts)))
        if disagreeing:
            shown.lenses.append(
                Lens(
                    where,
                    f"{len(disagreeing)} disagreeing item(s)",
                    command="rubric-lsp.showDisagreements",
                    arguments=[{"uri": uri, "criterion": criterion.get("index")}],
                )
            )
        if criterion.get("confusion"):  # the report's confusion matrix (the extension opens it in a webview)
            shown.lenses.append(
                Lens(
                    where,
                    "confusion matrix",
                    command="rubric-lsp.report",
                    arguments=[{"uri": uri, "criterion": criterion.get("index")}],
                )
            )
    return shown


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
    if ls.pull_diagnostics:
        if ls.client_supports("workspace.diagnostics.refresh_support"):
            ls.workspace_diagnostic_refresh(None)
    elif uri in ls.workspace.text_documents:
        schedule(ls, uri, 0)


def _problems(ls: RubricServer, uri: str, shown: Shown | None) -> list[types.Diagnostic]:
    if shown is None or not shown.problems:
        return []
    state = ls.state(uri)
    result = state.result

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

    convert = Converter(shown.lines() or state.result.document.lines, ls.encoding)
    return [
        types.CodeLens(range=convert.range(Range(lens.range.start, lens.range.start)), command=_lens_command(lens, uri))
        for lens in shown.lenses
    ]


def _lens_command(lens: Lens, uri: str) -> types.Command:
    if lens.command is not None:
        return types.Command(title=lens.title, command=lens.command, arguments=lens.arguments)
    if lens.regrade:
        return types.Command(title=lens.title, command="rubric-lsp.gradeDocument", arguments=[{"uri": uri}])
    return types.Command(title=lens.title, command="")


def verdict_entries(ls: RubricServer, uri: str, shown: Shown) -> list[dict[str, Any]]:
    """The protocol's ``verdicts`` list of a result: each mark with its kind, in the client's units."""
    lines = shown.lines()
    if lines is None:
        return []

    convert = Converter(lines, ls.encoding)
    entries = []
    for mark in shown.marks:
        if mark.range.start.line >= lines.line_count:
            continue
        entry: dict[str, Any] = {
            "uri": uri,
            "range": _json_range(convert.range(mark.range)),
            "kind": mark.kind,
            "label": mark.label,
            "detail": mark.detail,
        }
        if mark.example is not None:
            entry["example"] = mark.example
        entries.append(entry)
    return entries


def _json_range(rng: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": rng.start.line, "character": rng.start.character},
        "end": {"line": rng.end.line, "character": rng.end.character},
    }
