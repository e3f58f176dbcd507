"""Calibrating from the editor: a "Calibrate" code lens on a labelled set and ``rubric-lsp.calibrate``.

The command grades the set as *Grade Examples* does (the same progress, cancel and verdict cache:
:func:`rubric_lsp.server.grading_run.run`), hands the units to :mod:`rubric_lsp.calibration` as
``rubric calibrate`` does, writes ``<file>.calibration.json`` beside the file, and lints every open
document again, so the calibration rule's findings and the hover follow the new record at once.
"""

from __future__ import annotations

import datetime
import logging
import os
from pathlib import Path
from typing import Any

from lsprotocol import types

from rubric_lsp import __version__
from rubric_lsp.calibration import record
from rubric_lsp.calibration.measure import build_record, judge_of, table_lines
from rubric_lsp.document.positions import Span
from rubric_lsp.server.app import RubricServer
from rubric_lsp.server.arguments import invalid
from rubric_lsp.server.grading_plan import NoDocument, Read, document_uri, read
from rubric_lsp.server.grading_run import judge_settings, run
from rubric_lsp.server.positions import Converter
from rubric_lsp.server.publish import relint_all

log = logging.getLogger(__name__)

CALIBRATE = "rubric-lsp.calibrate"
TITLE = "▶ Calibrate the judge"


def calibratable(doc: Read) -> bool:
    """A labelled set (its examples are graded against labels) of a format that names calibration units."""
    if doc.format is None or doc.format.calibration is None or doc.document.path is None:
        return False
    plan = doc.examples_plan()
    return plan is not None and plan.kind == "dataset" and plan.text is None


def calibrate_lenses(ls: RubricServer, doc: Read) -> list[types.CodeLens]:
    if not calibratable(doc):
        return []
    at = Converter(doc.document.lines, ls.encoding).span(Span(0, 0))
    return [
        types.CodeLens(range=at, command=types.Command(title=TITLE, command=CALIBRATE, arguments=[{"uri": doc.uri}]))
    ]


def calibrate_actions(doc: Read) -> list[types.Command]:
    """The lens as a code action, for clients that show no code lenses (eglot, Helix)."""
    if not calibratable(doc):
        return []
    return [types.Command(title="Calibrate the judge on this file", command=CALIBRATE, arguments=[{"uri": doc.uri}])]


async def calibrate_command(ls: RubricServer, args: dict[str, Any]) -> Any:
    doc = await read(ls, document_uri(ls, args))
    if not calibratable(doc):
        message = f"{doc.name} is no labelled set to calibrate the judge against (docs/calibration.md)."
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
        return {"message": message}
    options = ls.grade_options()
    settings = judge_settings(ls)

    async def work(progress: Any) -> Any:
        from rubric_lsp.engine.request import GradeRequest, RequestKind
        from rubric_lsp.engine.runner import grade

        request = GradeRequest(doc.text, doc.document.path, RequestKind.DATASET, options=options)
        return await grade(request, settings, on_progress=progress)

    result = await run(ls, "Calibrating the judge", doc.uri, work)
    if isinstance(result, dict):  # an error or a cancel, already shown
        return result
    return _write(ls, doc, result, options, settings)


def _write(ls: RubricServer, doc: Read, result: Any, options: dict[str, Any], settings: Any) -> dict[str, Any]:

    assert doc.document.path is not None  # calibratable
    source = Path(doc.document.path)
    output = record.record_path(source)
    units = result.calibration_units(doc.document, options)
    data = build_record(
        [units],
        judge_of(settings.resolved()),
        tool_version=__version__,
        date=datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
        source=Path(os.path.relpath(source.resolve(), output.resolve().parent)).as_posix(),
    )
    try:
        record.save(output, data)
    except OSError as exc:
        message = f"Cannot write the calibration record {output}: {exc.strerror or exc}"
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=message))
        return {"message": message}
    relint_all(ls)  # every open file holding these units now has (or lost) a fresh record
    failed = sum(unit.failed for unit in units)
    message = f"Calibration of {doc.name} written to {output.name}" + (
        f" ({failed} judge call(s) failed; counted apart in the record)" if failed else ""
    )
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
    return {"record": str(output), "units": table_lines(data), "failed": failed}


def register(ls: RubricServer) -> None:
    @ls.command(CALIBRATE)
    async def calibrate(ls: RubricServer, *args: Any) -> Any:
        try:
            return await calibrate_command(ls, args[0] if args else {})
        except (ValueError, NoDocument) as exc:
            raise invalid(f"{CALIBRATE}: {exc}") from None
