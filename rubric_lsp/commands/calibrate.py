"""``rubric calibrate LABELLED_FILE``: grade a labelled set and write its calibration record beside it.

The file's format grades it (as ``rubric grade FILE`` does) and hands over each unit's verdicts against
the labels (``result.calibration_units(doc)``); ``rubric_lsp.calibration`` computes the figures and
writes ``<file>.calibration.json`` (docs/calibration.md). A labels file (``.csv``, ``.jsonl``:
``calibration.labels``) labels the units of other files: each file its rows name (or ``--config``) gets a
LABELS request, which that file's format grades, and its record beside it. The judge flags are
``rubric grade``'s own: several ``--model``s calibrate the panel ``rubric grade`` would grade with, and
each model is graded alone too, for its own figures and its agreement with the others. A format whose grader
takes one judge (``Format.judge_panel`` False: ``rubric grade`` grades with the first of several) is graded
with the first model, and the record is that judge's; the others are still graded alone and compared.

Exit codes as ``rubric grade``'s: 0 the record is written; 2 refused (unreadable file, a file with no
labels to calibrate against, no judge) or incomplete (a judge call failed: the record is written, the
failures counted apart in it, and standard error says so).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from rubric_lsp.calibration import record
from rubric_lsp.calibration.labels import LabelsError, LabelsFile, is_labels_file, survey
from rubric_lsp.commands import exit_codes
from rubric_lsp.commands.unit_smells import unit_smells
from rubric_lsp.document.files import read_regular_text
from rubric_lsp.rules.smells.evidence import smell_lines

EXIT_OK, EXIT_ERROR = 0, 2
# rubric grade's flags that say which judge and how to call it (its parser holds their help and checks),
# and every format's grading options (their dests start with OPTION_PREFIX).
JUDGE_FLAGS = (
    "model",
    "api_base",
    "concurrency",
    "timeout",
    "deadline",
    "retries",
    "no_cache",
    "rpm",
    "tpm",
    "limit",
)
OPTION_PREFIX = "grade_option:"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # usage errors exit 2, like rubric grade
        self.print_usage(sys.stderr)
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


def _repeats(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 20:
        raise argparse.ArgumentTypeError(f"must be between 1 and 20, got {value}")
    return value


def _share(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    from rubric_lsp.calibration.measure import DEFAULT_AGREEMENT
    from rubric_lsp.commands.grade import build_parser as grade_parser

    p = _Parser(
        prog="rubric calibrate",
        epilog=exit_codes.CALIBRATE,
        formatter_class=exit_codes.Formatter,
        description="Grade a labelled set with the judge and write how far to trust it on each unit "
        "(accuracy, agreement beyond chance, sensitivity and specificity against the labels) to <file>.calibration.json.",
    )
    p.add_argument("labelled", type=Path, metavar="LABELLED_FILE", help="a file with human labels to measure against")
    p.add_argument("-o", "--output", type=Path, help="where to write the record (default: beside the file)")
    p.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="a labels file (.csv, .jsonl): the file whose units its rows label, for rows with no 'config' column",
    )
    p.add_argument(
        "--repeat",
        type=_repeats,
        default=1,
        metavar="N",
        help="ask the judge N times per item and record how often it agrees with itself (default: 1); "
        "with several --model, each judge too",
    )
    p.add_argument(
        "--agreement-threshold",
        type=_share,
        default=DEFAULT_AGREEMENT,
        metavar="SHARE",
        help="--repeat, several --model: a unit whose share of items where every ask (every judge) answered the same "
        f"is below this is ambiguous (default: {DEFAULT_AGREEMENT})",
    )
    judge = p.add_argument_group("the judge and the grading options (as rubric grade takes them)")
    # The same argparse actions as rubric grade's (help, checks, defaults), not copies that could drift.
    for action in grade_parser()._actions:
        if action.dest in JUDGE_FLAGS or action.dest.startswith(OPTION_PREFIX):
            judge._add_action(action)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except KeyboardInterrupt:
        return 130


def _settings(args: argparse.Namespace) -> Any:
    """rubric grade's judge settings from its flags (no batch mode here)."""
    from rubric_lsp.commands.grade import _settings as grade_settings

    return grade_settings(argparse.Namespace(**{"batch": False, **vars(args)}))


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The formats' grading options, by name, as rubric grade passes them."""
    from rubric_lsp.commands.grade import _options as grade_options

    return grade_options(args)


def _run(args: argparse.Namespace) -> int:
    from rubric_lsp.engine.request import GradeRequest, RequestKind

    if not is_labels_file(args.labelled):
        try:
            text = read_regular_text(args.labelled, sys.maxsize)  # a regular file (never a FIFO), any size as grade
        except (OSError, UnicodeDecodeError) as exc:
            return _fail(f"cannot read {args.labelled}: {_reason(exc)}")
        output = args.output or _record_path(args.labelled)
        if (refused := record.write_refusal(output, [args.labelled])) is not None:
            return _fail(refused)
        request = GradeRequest(text, str(args.labelled), RequestKind.DATASET, limit=args.limit, options=_options(args))
        return _calibrate(args, request, output, [args.labelled])
    # A labels file: one record per file its rows label, beside that file. Every row is read and checked first
    # (streamed: the rows are read again by each grading, never held).
    limit = args.limit or None
    try:
        found = survey(args.labelled, args.config, limit=limit)
    except LabelsError as exc:
        return _fail(str(exc))
    for note in found.notes:
        print(f"rubric calibrate: {note}", file=sys.stderr)
    if None in found.configs:
        unnamed = next(r for r in LabelsFile(args.labelled, args.config, limit=limit) if r.config is None)
        return _fail(f"{unnamed.where}: no 'config' column and no --config: which file's units does it label?")
    configs = [config for config in found.configs if config is not None]
    if args.output is not None and len(configs) > 1:
        return _fail(f"the rows label {len(configs)} files, so there is one record each: leave out --output")
    outputs = {config: args.output or _record_path(config) for config in configs}
    for output in outputs.values():  # refused before any judge call
        if (refused := record.write_refusal(output, [args.labelled, *configs])) is not None:
            return _fail(refused)
    worst = EXIT_OK
    for config, output in outputs.items():
        try:
            text = read_regular_text(config, sys.maxsize)
        except (OSError, UnicodeDecodeError) as exc:
            return _fail(f"cannot read {config} (named by {args.labelled}): {_reason(exc)}")
        rows = LabelsFile(args.labelled, args.config, only=config, limit=limit)
        request = GradeRequest(text, str(config), RequestKind.LABELS, labels=rows, options=_options(args))
        worst = max(worst, _calibrate(args, request, output, [args.labelled, *configs]))
    return worst


def _record_path(path: Path) -> Path:
    return record.record_path(path)


def _reason(exc: Exception) -> str:
    return str(exc.strerror or exc) if isinstance(exc, OSError) else str(exc)


def _calibrate(args: argparse.Namespace, request: Any, output: Path, protected: list[Path]) -> int:
    """Grade ``request`` (``--repeat`` times; with several ``--model``s, each model alone too) and write
    its record to ``output``."""
    from rubric_lsp.calibration.measure import table_lines
    from rubric_lsp.engine.calibrating import calibration_passes
    from rubric_lsp.engine.failures import GradingStopped
    from rubric_lsp.engine.runner import GradingError
    from rubric_lsp.engine.settings import MissingCredentials

    try:
        graded = asyncio.run(calibration_passes(request, _settings(args), repeats=args.repeat))
    except (GradingError, GradingStopped, MissingCredentials, ValueError) as exc:
        return _fail(str(exc))
    judge = graded.judge
    data = graded.record(
        labelled=args.labelled, output=output, threshold=args.agreement_threshold, units_file=Path(request.path)
    )
    if (written := _write(output, data, protected)) is not None:
        return written
    alone = f"; each of {', '.join(graded.models)} alone" if len(graded.models) > len(judge.models) else ""
    print(f"calibration of {request.path} ({', '.join(judge.models)}{alone}) written to {output}:")
    for line in table_lines(data):
        print(line)
    for line in smell_lines(unit_smells(request.text, request.path), data["units"]):
        print(line)
    if graded.failed:
        print(
            f"rubric calibrate: incomplete: {graded.failed} judge call(s) failed; the record counts them apart",
            file=sys.stderr,
        )
        return EXIT_ERROR
    return EXIT_OK


def _write(path: Path, data: dict[str, Any], protected: list[Path]) -> int | None:
    """Write the record (kept as it is when only its date would change); an exit code when it cannot be."""
    try:
        record.save(path, data, protected)
    except OSError as exc:
        return _fail(f"cannot write the calibration record {path}: {exc.strerror or exc}")
    return None


def _fail(message: str) -> int:
    print(f"rubric calibrate: {message}", file=sys.stderr)
    return EXIT_ERROR
