"""Grading inline: the commands, work-done progress with cancel, grade-on-save.

Grading runs as asyncio tasks on the server's loop (the judge calls are async HTTP), so
every other request keeps answering while criteria are judged; litellm's slow import is
paid once in a background thread soon after start. What a command grades is decided in
:mod:`rubric_lsp.server.grading_plan` (through the formats' editor hooks); the judging is
the grading engine's (:mod:`rubric_lsp.engine`); :mod:`rubric_lsp.server.verdicts` shows the
results. The protocol is docs/editor-grading.md.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from lsprotocol import types

from rubric_lsp.document.positions import Position, Range
from rubric_lsp.formats.editor import GradePlan
from rubric_lsp.server import dataset_views, labelling, report, responses
from rubric_lsp.server.app import COMMAND_TICKET, RubricServer
from rubric_lsp.server.calibrate import calibrate_lenses
from rubric_lsp.server.grade_lenses import grade_lenses
from rubric_lsp.server.grading_plan import (
    NoDocument,
    Read,
    combine,
    document_uri,
    read,
    request_for,
    response_text,
    selection_span,
    target_plan,
    targets,
    units_under,
)
from rubric_lsp.server.grid_views import shown_for_grid
from rubric_lsp.server.positions import Converter
from rubric_lsp.server.review import review_lenses
from rubric_lsp.server.verdicts import (
    Lens,
    Shown,
    _json_range,
    _range,
    clear,
    code_lenses,
    inlay_hints,
    show,
    shown_for_dataset,
    shown_for_examples,
    shown_for_report,
    verdict_entries,
)

log = logging.getLogger(__name__)

GRADE = "rubric-lsp.grade"
GRADE_TEXT = "rubric-lsp.gradeText"
GRADE_DOCUMENT = "rubric-lsp.gradeDocument"
GRADE_SELECTION = "rubric-lsp.gradeSelection"
GRADE_EXAMPLES = "rubric-lsp.gradeExamples"
GRADE_TARGETS = "rubric-lsp.gradeTargets"
GRADE_RESULTS = "rubric-lsp.gradeResults"
CANCEL_GRADING = "rubric-lsp.cancelGrading"
CLEAR_VERDICTS = "rubric-lsp.clearVerdicts"
SHOW_DISAGREEMENTS = "rubric-lsp.showDisagreements"


def _test_index(args: dict[str, Any]) -> int | None:
    # "test" is the 1-based test number, as in `rubric grade --test N`.
    test = args.get("test")
    return test if isinstance(test, int) and not isinstance(test, bool) and test >= 1 else None


def _explicit_plan(args: dict[str, Any]) -> tuple[GradePlan, tuple[str, str | None] | None]:
    """``rubric-lsp.grade`` with ``kind``/``text``/``texts``: the request the arguments spell out."""
    from rubric_lsp.engine.request import RequestKind

    default = "response" if "text" in args else ("outputs" if "texts" in args else "examples")
    try:
        kind = RequestKind(args.get("kind") or default)
    except ValueError:
        raise ValueError(f'"kind" must be one of {", ".join(k.value for k in RequestKind)}') from None
    units = args.get("units")
    names = tuple(u for u in units if isinstance(u, str)) if isinstance(units, list) else ()
    response = None
    if kind is RequestKind.RESPONSE:
        text = args.get("text")
        if not isinstance(text, str):
            raise ValueError('"text" (the response to grade) must be a string')
        query = args.get("query")
        response = (text, query if isinstance(query, str) else None)
    if kind is RequestKind.OUTPUTS:
        texts = args.get("texts")
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise ValueError('"texts" (the outputs to compare) must be a list of strings')
    if kind is RequestKind.RESCORE and not isinstance(args.get("verdicts"), list):
        raise ValueError('"verdicts" (one per criterion) must be a list')
    if kind is RequestKind.RESULTS and not isinstance(args.get("results"), str):
        raise ValueError('"results" (the results file to grade whole: a path or a URI) must be a string')
    return GradePlan(kind.value, _test_index(args), names), response


TITLES = {
    "response": "Grading response",
    "outputs": "Comparing outputs",
    "examples": "Grading the examples",
    "dataset": "Measuring the judge on the labels",
    "rescore": "Scoring verdicts",
    "results": "Grading the results file",
}


async def execute(
    ls: RubricServer,
    doc: Read,
    plan: GradePlan,
    response: tuple[str, str | None] | None,
    args: dict[str, Any] | None = None,
    selected: list[str] | None = None,
) -> Any:
    """Grade ``plan`` on ``doc`` with progress and cancel; show the verdicts on it; the result with ``verdicts``."""
    from dataclasses import replace

    from rubric_lsp.engine.request import GradeRequest, RequestKind
    from rubric_lsp.server.grading_run import judge_settings, run  # the engine: at a grading, never at start

    args = args or {}
    limit = args.get("limit")
    request = request_for(doc, plan, response, limit if isinstance(limit, int) and limit > 0 else None)
    request = replace(request, options=ls.grade_options())  # the formats' options, as the editor sets them
    if request.kind is RequestKind.OUTPUTS:
        request = replace(request, responses=tuple(args["texts"]))
    if request.kind is RequestKind.RESCORE:
        request = replace(request, verdicts=tuple(args["verdicts"]))
    if request.kind is RequestKind.RESULTS:  # the request rubric grade FILE --outputs results.json makes
        request = GradeRequest.for_results(
            request.text, request.path, args["results_text"], args["results_name"], options=request.options
        )
    if request.kind is RequestKind.RESPONSE:
        query = args.get("query")
        if isinstance(query, str):
            request = replace(request, query=query)
        ls.state(doc.uri).extra["last_response"] = response
        ls.last_response = response
        await responses.keep_or_forget(ls, doc.uri, response)

    async def work(progress: Any) -> Any:
        from rubric_lsp.engine.runner import UnsupportedRequest, grade, panel_note

        settings = judge_settings(ls)
        await _say_panel_note(ls, panel_note, request, settings)
        try:
            return await grade(request, settings, on_progress=progress)
        except UnsupportedRequest:
            if request.kind is RequestKind.EXAMPLES:  # a file with no examples: nothing to grade
                return None
            raise

    result = await run(ls, TITLES.get(request.kind.value, "Grading"), doc.uri, work)
    if isinstance(result, dict):  # error or cancelled
        return result
    report.remember(ls, doc.uri, request, result)  # for rubric-lsp.report
    converted = plan.text is not None  # a conversion was graded: its ranges are not this file's
    shown, data = _shown_for(request, result, doc, converted)
    if shown is None:
        return data
    if converted:
        shown.marks, shown.problems = [], []
    show(ls, doc.uri, shown, request.text if not converted else doc.text)
    _tell_plain_clients(ls, doc, shown)
    if isinstance(data, dict):
        data = {**data, "shown": verdict_entries(ls, doc.uri, shown)}
        if selected:
            data["units"] = selected
    return data


async def _say_panel_note(ls: RubricServer, panel_note: Any, request: Any, settings: Any) -> None:
    """A panel (rubric.judge.models) given to a format that grades with one judge: graded with the first, and
    said once a session (``runner.panel_note``: the words ``rubric grade`` prints), logged every time."""
    if len(settings.judge_models()) < 2:
        return
    note = await asyncio.get_running_loop().run_in_executor(ls.lint_pool, panel_note, request, settings)
    if note is None:
        return
    log.info("%s", note)
    if note not in ls.said:
        ls.said.add(note)
        message = f"{note[0].upper()}{note[1:]}."
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))


def _tell_plain_clients(ls: RubricServer, doc: Read, shown: Shown) -> None:
    """A client that shows neither inlay hints nor code lenses (eglot before Emacs 30, Helix's lenses)
    gets the verdicts as one message, so a grading it started never ends in silence."""
    caps = ls.client_capabilities.text_document if ls.client_capabilities else None
    if caps is not None and (caps.inlay_hint is not None or caps.code_lens is not None):
        return
    lines = [lens.title for lens in shown.lenses]
    lines += [f"line {mark.line + 1}: {mark.label}" for mark in shown.marks]
    if lines:
        message = f"{doc.name}: " + "; ".join(lines)
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))


def _shown_for(request: Any, result: Any, doc: Read, converted: bool) -> tuple[Shown | None, Any]:
    """What to show of a grading's result, and the result's JSON."""
    from rubric_lsp.engine.request import RequestKind
    from rubric_lsp.engine.result import figures_of, grid_of

    uri = doc.uri
    top = Range(Position(0, 0), Position(0, 0))
    if result is not None and result.kind == "grid" and (grid := grid_of(result)) is not None:
        shown = shown_for_grid(result, grid, doc.units(), doc.document, top)
        return shown, shown.result
    if request.kind is RequestKind.EXAMPLES and (result is None or getattr(result, "examples", None) is not None):
        shown = shown_for_examples(list(getattr(result, "examples", None) or []), top)
        return shown, shown.result or {}
    data = result.to_json()
    if result.kind == "dataset":  # the result says what it is (engine/result.py); its JSON is not sniffed
        shown = shown_for_dataset(data if not converted else {**data, "agreement": []}, uri, top, figures_of(result))
        if converted:
            shown.lenses.append(Lens(top, _agreement_summary(data)))
        return shown, data
    if request.kind is RequestKind.RESPONSE and result.kind == "response":
        return shown_for_report(result, top), data
    return None, data


def _agreement_summary(data: dict[str, Any]) -> str:
    parts = []
    for c in data.get("agreement") or []:
        accuracy = c.get("accuracy")
        parts.append(f"{c.get('name')}: {'n/a' if accuracy is None else f'{accuracy:.2f}'}")
    return "Agreement with the ratings — " + (", ".join(parts) or "nothing compared")


async def run_plan(
    ls: RubricServer,
    doc: Read,
    plan: GradePlan,
    noun: str,
    selected: list[str] | None = None,
    given: tuple[str, str | None] | None = None,
    unit: str | None = None,
    show_text: bool = True,
) -> Any:
    """``given``: the response the command named; else the one written in the document's response file; else
    the last one graded against this document (or any). ``unit``: how a response file's lens names it."""
    response = None
    if plan.kind == "response":
        response = (
            given
            or await responses.written_async(ls, doc.uri)
            or ls.state(doc.uri).extra.get("last_response")
            or ls.last_response
        )
        if response is None:
            return await responses.needs_response(ls, doc, plan, noun, unit, show_text)
    return await execute(ls, doc, plan, response, selected=selected)


# -- the commands ------------------------------------------------------------------------
async def grade_selection_command(ls: RubricServer, args: dict[str, Any]) -> Any:
    """What the selection means: units of a gradable file, or a response to grade against a target."""
    uri = document_uri(ls, args)
    rng = args.get("range") or (ls.touched_range if uri == ls.touched else None)
    doc = await read(ls, uri)
    span = selection_span(ls, doc, rng)
    if doc.gradable:  # never rubric text as a response: the selection picks what to grade
        named = await response_text(ls, args, uri)
        if (empty := responses.empty_answer(ls, args, named)) is not None:
            return empty
        query = args.get("query")
        given = (named, query if isinstance(query, str) else None) if named is not None else None
        show_text = dataset_views.wants_text(args)
        picked = units_under(doc.units(), span, doc.text) if span is not None else []
        if (test := _test_index(args)) is not None:  # a lens or action for one of the units written at one place
            picked = [u for u in picked if u.plan.test == test] or picked
        if picked:
            noun = picked[0].noun if len({u.noun for u in picked}) == 1 else "selection"
            unit = picked[0].title.removeprefix("▶ Grade ") if len(picked) == 1 else None
            labels = [u.label or doc.name for u in picked]
            return await run_plan(ls, doc, combine(picked), noun, labels, given, unit, show_text)
        plan = doc.examples_plan()
        if plan is None:
            return _nothing_to_grade(ls, doc)
        return await run_plan(ls, doc, plan, "file", given=given, show_text=show_text)
    text = args.get("text")
    if not isinstance(text, str):
        text = doc.text[span.start : span.end] if span is not None and span.end > span.start else doc.text
    if not text.strip():
        return {"message": "Nothing to grade: the selection is empty."}
    written_for = ls.responses.get(uri)
    target = args.get("target") or (None if written_for is not None else ls.last_target)
    if written_for is not None and not isinstance(target, dict):  # a response file: graded against its unit
        tdoc, plan = await read(ls, written_for.target), written_for.plan
        query = args.get("query")
        return await execute(ls, tdoc, plan, (text, query if isinstance(query, str) else None))
    if not isinstance(target, dict):
        return {"needsTarget": True, "targets": await targets(ls)}
    tdoc, plan = await target_plan(ls, target)
    ls.last_target = target
    query = args.get("query")
    return await execute(ls, tdoc, plan, (text, query if isinstance(query, str) else None))


def _nothing_to_grade(ls: RubricServer, doc: Read) -> dict[str, Any]:
    what = doc.format.title if doc.format is not None else "file"
    message = f"{doc.name} has nothing to grade: this {what} holds no examples, labelled items or tests."
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
    return {"message": message}


async def grade_examples_command(ls: RubricServer, args: dict[str, Any]) -> Any:
    doc = await read(ls, document_uri(ls, args))
    plan = doc.examples_plan()
    if plan is None:
        return _nothing_to_grade(ls, doc)
    return await run_plan(ls, doc, plan, "file", show_text=dataset_views.wants_text(args))


async def grade_command(ls: RubricServer, args: dict[str, Any]) -> Any:
    """Any grading request: a selection (``range``/``target``), explicit (``kind``/``text``/``texts``, or a
    ``response`` file for a ``test``), else the examples."""
    explicit = any(k in args for k in ("kind", "text", "texts", "verdicts"))
    if not explicit and ("range" in args or "target" in args):
        return await grade_selection_command(ls, args)  # a response file here: graded against the units at the range
    if not explicit and "response" not in args:
        return await grade_examples_command(ls, args)
    uri = document_uri(ls, args)
    if "text" not in args and (named := await response_text(ls, args, uri)) is not None:
        if (empty := responses.empty_answer(ls, args, named)) is not None:
            return empty
        args = {**args, "text": named}
    if args.get("kind") == "results" and isinstance(args.get("results"), str):
        args = {**args, **await _results_file(ls, args, uri)}
    plan, response = _explicit_plan(args)
    doc = await read(ls, uri)
    return await execute(ls, doc, plan, response, args)


async def _results_file(ls: RubricServer, args: dict[str, Any], uri: str) -> dict[str, Any]:
    """The results file ``args["results"]`` names, read (``results_text``, ``results_name``); ValueError when it
    cannot be read (the client's mistake: InvalidParams)."""
    try:
        text = await response_text(ls, args, uri, "results")
    except (OSError, ValueError) as exc:
        raise ValueError(f'"results": cannot read {args["results"]}: {exc}') from None
    if text is None:
        raise ValueError(f'"results": cannot read {args["results"]}')
    return {"results_text": text, "results_name": Path(str(args["results"]).split("/")[-1]).name}


async def grade_results_command(ls: RubricServer, args: dict[str, Any]) -> Any:
    """Grade a results file the document's tool wrote, whole: the one named, else the newest found beside it."""
    uri = document_uri(ls, args)
    if "results" not in args:
        doc = await read(ls, uri)
        found = doc.results_files()
        if not found:
            message = f'No results file to grade with {doc.name} was found beside it: name one ("results": a path).'
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
            return {"message": message}
        args = {**args, "results": found[0]}
    return await grade_command(ls, {**args, "uri": uri, "kind": "results"})


async def grade_text_command(ls: RubricServer, args: dict[str, Any]) -> Any:
    return await grade_command(ls, {**args, "kind": "response"})


async def grade_document_command(ls: RubricServer, args: dict[str, Any]) -> Any:
    return await grade_examples_command(ls, args)


async def grade_on_save(ls: RubricServer, uri: str) -> None:
    """Re-grade the saved file's examples (through the verdict cache): only after a manual save, never with errors."""
    if uri not in ls.manual_saves:
        log.debug("not grading %s: the save was not manual (auto-save or focus change)", uri)
        return
    ls.manual_saves.discard(uri)
    try:
        result = await ls.lint(uri)
    except Exception:
        return
    if any(int(d.severity) == 1 for d in result.diagnostics) or not result.document.readable:
        log.info("not grading %s on save: it has errors", uri)
        return
    doc = await read(ls, uri)
    plan = doc.examples_plan()
    if plan is None or plan.kind == "response":
        return
    await execute(ls, doc, plan, None)


def cancel_all(ls: RubricServer) -> int:
    """Cancel every grading under way and every grading command already sent whose grading has not begun
    (a cancel right behind a grade used to find nothing, and the grading then ran in full)."""
    running = [g for g in list(ls.gradings) if g.task is not None and not g.task.done()]
    for grading in running:
        grading.cancel()
    waiting = [t for t in list(ls.pending) if not t.cancelled and t is not COMMAND_TICKET.get()]
    for ticket in waiting:
        ticket.cancelled = True
    return len(running) + len(waiting)


def _guarded(name: str, handler):
    """A command body whose argument mistakes (ValueError) are the client's: -32602 with one line."""

    async def run(ls: RubricServer, *args: Any) -> Any:
        argument = args[0] if args else {}
        try:
            return await handler(ls, argument)
        except (ValueError, NoDocument) as exc:
            from rubric_lsp.server.arguments import invalid

            raise invalid(f"{name}: {exc}") from None

    return run


def register(ls: RubricServer) -> None:
    for name, handler in (
        (GRADE, grade_command),
        (GRADE_TEXT, grade_text_command),
        (GRADE_DOCUMENT, grade_document_command),
        (GRADE_SELECTION, grade_selection_command),
        (GRADE_EXAMPLES, grade_examples_command),
        (GRADE_RESULTS, grade_results_command),
    ):
        ls.command(name)(_guarded(name, handler))

    @ls.command(GRADE_TARGETS)
    async def grade_targets(ls: RubricServer, *args):
        return {"targets": await targets(ls)}

    @ls.command(CANCEL_GRADING)
    def cancel_grading(ls: RubricServer, *args):
        return {"cancelled": cancel_all(ls)}

    @ls.command(CLEAR_VERDICTS)
    def clear_verdicts(ls: RubricServer, *args):
        uri = args[0].get("uri") if args and isinstance(args[0], dict) else None
        clear(ls, uri)
        return {"cleared": True}

    async def show_disagreements(ls: RubricServer, args: dict[str, Any]) -> Any:
        found = disagreements(ls, args)
        if dataset_views.wants_text(args):  # a client without its own view (Neovim, Emacs) shows this
            dataset_views.show_text(ls, dataset_views.disagreements_text(found["criterion"], found["items"]))
        return found

    ls.command(SHOW_DISAGREEMENTS)(_guarded(SHOW_DISAGREEMENTS, show_disagreements))

    @ls.feature(types.TEXT_DOCUMENT_WILL_SAVE)
    def will_save(ls: RubricServer, params: types.WillSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if params.reason == types.TextDocumentSaveReason.Manual:
            ls.manual_saves.add(uri)
        else:
            ls.manual_saves.discard(uri)

    @ls.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    async def inlay_hint(ls: RubricServer, params: types.InlayHintParams):
        uri = params.text_document.uri
        if uri not in ls.workspace.text_documents:
            return inlay_hints(ls, uri, params.range)
        result = await ls.lint(uri)
        return inlay_hints(ls, uri, params.range) + labelling.inlay_hints(ls, result, params.range)

    @ls.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    async def code_lens(ls: RubricServer, params: types.CodeLensParams):
        uri = params.text_document.uri
        if uri not in ls.workspace.text_documents:
            return code_lenses(ls, uri) + responses.lenses(ls, uri)
        result = await ls.lint(uri)
        doc = await read(ls, uri)
        return (
            grade_lenses(ls, doc)
            + calibrate_lenses(ls, doc)
            + review_lenses(ls, doc)
            + code_lenses(ls, uri)
            + responses.lenses(ls, uri)
            + labelling.lenses(ls, uri, result)
        )


def disagreements(ls: RubricServer, args: dict[str, Any]) -> dict[str, Any]:
    """The items where the judge and the labels differ on one criterion (of the last dataset grading)."""
    shown, data = dataset_views.last_dataset_grading(ls, document_uri(ls, args))
    criterion = args.get("criterion")
    entry = dataset_views.agreement_entry(data, criterion)
    if entry is None:
        raise ValueError(f'"criterion" must be the index of a graded criterion; it is {criterion!r}')
    by_index = {item["index"]: item for item in data.get("items") or []}
    position = entry["index"]
    found = []
    for index in entry.get("disagreeing") or []:
        item = by_index.get(index) or {}
        truth, judged = item.get("ground_truth") or [], item.get("verdicts") or []
        found.append(
            {
                "index": index,
                "range": _client_range(ls, shown, item.get("range")),
                "truth": truth[position] if position < len(truth) else None,
                "judged": judged[position] if position < len(judged) else None,
            }
        )
    return {"criterion": entry.get("name"), "items": found}


def _client_range(ls: RubricServer, shown: Shown, data: Any) -> dict[str, Any] | None:
    rng, lines = _range(data), shown.lines()
    if rng is None or lines is None:
        return None
    return _json_range(Converter(lines, ls.encoding).range(rng))
