"""Calibrating from the editor: a "Calibrate" code lens on a labelled set and ``rubric-lsp.calibrate``.

A labelled set is a file whose format names calibration units and whose examples plan grades labelled items
against their labels: its own items, or a conversion of it (a file holding human ratings). Either way the
command grades the file itself, as ``rubric calibrate FILE`` does, and builds the record as it does
(:meth:`rubric_lsp.engine.calibrating.Passes.record`).

The command grades the set as *Grade Examples* does (the same progress, cancel and verdict cache:
:func:`rubric_lsp.server.grading_run.run`), ``rubric.calibration.repeat`` times as ``rubric calibrate
--repeat`` does, hands the units to :mod:`rubric_lsp.calibration` as ``rubric calibrate`` does, writes
``<file>.calibration.json`` beside the file, and lints every open document again, so the calibration rule's
findings and the hover follow the new record at once.

A file that is no labelled set (a rubric) gets the lens too when a record its lint read names the labelled
set it was made from (the record's ``source``): the lens calibrates that set and writes the record where the
lint found it, so the rubric's findings follow. The record is the only link from a rubric to its labelled
set: a labelled set holds its own copy of the rubric, and nothing else names one.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from rubric_lsp.document.positions import Span
from rubric_lsp.server.app import RubricServer
from rubric_lsp.server.arguments import invalid
from rubric_lsp.server.grading_plan import NoDocument, Read, document_uri, read
from rubric_lsp.server.positions import Converter
from rubric_lsp.server.publish import relint_all

# Calibration's record, labels and measures, and the grading run with the engine: loaded by the first lens
# that needs them or the first calibration, never at the server's start (the first diagnostics wait for none).
if TYPE_CHECKING:  # the engine itself loads on a grading's first use
    from rubric_lsp.engine.calibrating import Passes

log = logging.getLogger(__name__)

CALIBRATE = "rubric-lsp.calibrate"
TITLE = "▶ Calibrate the judge"


def calibratable(doc: Read) -> bool:
    """A labelled set of a format that names calibration units: its examples plan grades labelled items
    against their labels, the file's own or a conversion of it (a file holding human ratings). The command
    grades the file itself, as ``rubric calibrate FILE`` does: its format grades the conversion."""
    if doc.format is None or doc.format.calibration is None or doc.document.path is None:
        return False
    plan = doc.examples_plan()
    return plan is not None and plan.kind == "dataset"


def workspace_of(ls: RubricServer, path: str | Path) -> Path:
    """The folder a calibration from the editor stays in: the workspace folder holding ``path``, else what the
    command line takes (``RubricServer.root_of``: the repository, …), links followed."""
    root = ls.root_of(str(path), ls.settings.lint_settings(str(path)))
    return Path(os.path.realpath(root if root is not None else Path(path).parent))


def _inside(path: Path, root: Path) -> bool:
    target = Path(os.path.realpath(path))
    return target == root or target.is_relative_to(root)


def labelled_sets(ls: RubricServer, doc: Read) -> dict[Path, Path]:
    """The labelled sets (other files) that calibrated units of ``doc``, each with the record its lint read
    (beside it or through ``calibration.path``): what its lens calibrates, and where it writes the record. A
    record is a file in the repository: a ``source`` (or a record) outside the workspace gets no lens, so a
    committed record can never make the editor grade, or write, a file elsewhere."""
    if doc.document.path is None or doc.uri not in ls.workspace.text_documents or calibratable(doc):
        return {}
    from rubric_lsp.calibration import check
    from rubric_lsp.calibration.labels import is_labels_file

    result = ls.state(doc.uri).result
    here = Path(doc.document.path).resolve()
    root = workspace_of(ls, here)
    found: dict[Path, Path] = {}
    for match in (result.shared.get(check.VIEW_KEY) or []) if result is not None else []:
        source = match.record.get("source") if match.record is not None else None
        if match.entry is None or match.where is None or not isinstance(source, str):
            continue
        labelled = Path(os.path.normpath(match.where.resolve().parent / source))
        if not (_inside(labelled, root) and _inside(match.where, root)):
            continue
        # A labels file is calibrated with the configs it names (`rubric calibrate`), not from one of them.
        if labelled != here and not is_labels_file(labelled) and labelled.is_file():
            found.setdefault(labelled, match.where.resolve())
    return found


def _arguments(ls: RubricServer, doc: Read) -> list[tuple[str, dict[str, Any]]]:
    """(the title's end, the command's argument) for each set ``doc`` can be calibrated on."""
    if calibratable(doc):
        return [("", {"uri": doc.uri})]
    return [
        (f" on {labelled.name}", {"uri": labelled.as_uri(), "record": str(where)})
        for labelled, where in labelled_sets(ls, doc).items()
    ]


def calibrate_lenses(ls: RubricServer, doc: Read) -> list[types.CodeLens]:
    at = Converter(doc.document.lines, ls.encoding).span(Span(0, 0))
    return [
        types.CodeLens(range=at, command=types.Command(title=TITLE + end, command=CALIBRATE, arguments=[argument]))
        for end, argument in _arguments(ls, doc)
    ]


def calibrate_actions(ls: RubricServer, doc: Read) -> list[types.Command]:
    """The lens as a code action, for clients that show no code lenses (eglot, Helix)."""
    return [
        types.Command(
            title=f"Calibrate the judge {end.strip() or 'on this file'}", command=CALIBRATE, arguments=[argument]
        )
        for end, argument in _arguments(ls, doc)
    ]


async def calibrate_command(ls: RubricServer, args: dict[str, Any]) -> Any:
    doc = await read(ls, document_uri(ls, args))
    if not calibratable(doc):
        message = f"{doc.name} is no labelled set to calibrate the judge against (docs/calibration.md)."
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
        return {"message": message}
    assert doc.document.path is not None  # calibratable
    from rubric_lsp.server.grading_run import judge_settings, run

    output = _output(args, Path(doc.document.path), workspace_of(ls, doc.document.path))
    options = ls.grade_options()
    settings = judge_settings(ls)
    repeats, threshold = ls.settings.calibration_repeat, ls.settings.calibration_agreement_threshold

    async def work(progress: Any) -> Any:
        from rubric_lsp.engine import request  # the engine loads on a grading's first use
        from rubric_lsp.engine.calibrating import calibration_passes

        labelled = request.GradeRequest(doc.text, doc.document.path, request.RequestKind.DATASET, options=options)
        return await calibration_passes(labelled, settings, repeats=repeats, on_progress=progress)

    graded = await run(ls, "Calibrating the judge", doc.uri, work)
    if isinstance(graded, dict):  # an error or a cancel, already shown
        return graded
    return _write(ls, doc, graded, output, threshold)


def _output(args: dict[str, Any], labelled: Path, root: Path) -> Path:
    """Where the record goes: ``record`` (where a rubric's lint found it; relative to the labelled set's folder)
    or beside the labelled set; inside the workspace ``root`` only, and a record file only."""
    from rubric_lsp.calibration import record

    given = args.get("record")
    if given is None:
        return record.record_path(labelled)
    if not isinstance(given, str) or not given.endswith(record.SUFFIX):  # a record, never any other file
        raise ValueError(f'"record" must name a *{record.SUFFIX} file; it is {str(given)[:200]!r}')
    output = labelled.parent / given  # an absolute one stays as it is; a relative one is not the server's cwd's
    if not _inside(output, root):
        raise ValueError(f'"record" must lie inside the workspace {root}; {given[:200]!r} does not')
    return output


def _write(ls: RubricServer, doc: Read, graded: Passes, output: Path, threshold: float) -> dict[str, Any]:
    """Write the record (as ``rubric calibrate`` builds it from the same passes) and re-lint."""
    from rubric_lsp.calibration import record
    from rubric_lsp.calibration.measure import table_lines

    assert doc.document.path is not None  # calibratable
    judge = graded.judge
    data = graded.record(labelled=Path(doc.document.path), output=output, threshold=threshold)
    try:
        record.save(output, data, [Path(doc.document.path)])
    except OSError as exc:
        message = f"Cannot write the calibration record {output}: {exc.strerror or exc}"
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=message))
        return {"message": message}
    relint_all(ls)  # every open file holding these units now has (or lost) a fresh record
    asks = f" ({len(graded.passes)} asks per item)" if len(graded.passes) > 1 else ""
    alone = f", each of {', '.join(graded.models)} alone too" if len(graded.models) > len(judge.models) else ""
    message = f"Calibration of {doc.name}{asks}{alone} written to {output.name}" + (
        f" ({graded.failed} judge call(s) failed; counted apart in the record)" if graded.failed else ""
    )
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
    return {"record": str(output), "units": table_lines(data), "failed": graded.failed}


def register(ls: RubricServer) -> None:
    @ls.command(CALIBRATE)
    async def calibrate(ls: RubricServer, *args: Any) -> Any:
        try:
            return await calibrate_command(ls, args[0] if args else {})
        except (ValueError, NoDocument) as exc:
            raise invalid(f"{CALIBRATE}: {exc}") from None
