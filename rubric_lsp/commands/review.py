"""``rubric review FILE``: the file's criteria graded by the judge against the review rubric (docs/review.md).

Each criterion the file's format hands the smell rules (``Format.criteria``) is asked every question of the
review rubric (``review/questions.py``) in one judge call, through the engine as ``rubric grade`` asks its
questions: the same judge flags, the verdict cache, the concurrency, the deadline. The findings are printed as
diagnostics of source ``rubric-review`` (text), as JSON, or as an HTML page (``--report``).

``rubric review --calibrate LABELLED.jsonl`` reviews a labelled set of criteria instead (the smells corpus's
``criteria.jsonl`` as it is, or rows of our own: ``review/labels.py``) and prints, per smell, how far the
review agrees with the people's labels (``rubric calibrate``'s figures); ``--output`` writes them as a
calibration record.

Exit codes: 0 reviewed, no smell found (or the calibration printed); 1 reviewed, smells found; 2 refused
(unreadable file, no criteria, no judge, several judge models, litellm missing) or incomplete (a judge call
failed: that criterion was not reviewed, which is never a clean review).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from rubric_lsp.calibration import record
from rubric_lsp.calibration.labels import LabelsError
from rubric_lsp.calibration.measure import table_lines
from rubric_lsp.commands.calibrate import JUDGE_FLAGS, _Parser, _repeats  # the same usage errors and --repeat bounds
from rubric_lsp.commands.grade import _settings as grade_settings
from rubric_lsp.commands.grade import build_parser as grade_parser
from rubric_lsp.commands.grade_progress import with_progress
from rubric_lsp.engine.calibrating import calibration_passes
from rubric_lsp.engine.extra import grade_extra_missing, report_extra_missing
from rubric_lsp.engine.failures import GradingStopped
from rubric_lsp.engine.request import GradeRequest, RequestKind, exit_code
from rubric_lsp.engine.runner import GradingError, grade, review_refusal
from rubric_lsp.engine.settings import MissingCredentials
from rubric_lsp.reporters.grade.html import render
from rubric_lsp.review.labels import read_labelled

EXIT_OK, EXIT_ERROR = 0, 2


def build_parser() -> argparse.ArgumentParser:

    p = _Parser(
        prog="rubric review",
        description="Ask the judge, criterion by criterion, whether a rubric's criteria can be applied "
        "consistently: one question per smell (double-barreled, vague wording, hedging, …; docs/review.md).",
    )
    p.add_argument("rubric", type=Path, nargs="?", help="the rubric, config, judge configuration or task file")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    p.add_argument("--report", type=Path, metavar="FILE.html", help="also write the review as an HTML page")
    own = p.add_argument_group("the review's own calibration")
    own.add_argument(
        "--calibrate",
        type=Path,
        metavar="LABELLED.jsonl",
        help="review a labelled set of criteria (e.g. the smells corpus's criteria.jsonl) and print how far the "
        "review agrees with its labels, per smell",
    )
    own.add_argument(
        "-o", "--output", type=Path, help="with --calibrate: also write the figures as a calibration record"
    )
    own.add_argument(
        "--repeat", type=_repeats, default=1, metavar="N", help="with --calibrate: ask N times, for the self-agreement"
    )
    judge = p.add_argument_group("the judge (as rubric grade takes it; --limit: the first N labelled criteria)")
    for action in grade_parser()._actions:  # rubric grade's own actions: help, checks and defaults do not drift
        if action.dest in JUDGE_FLAGS:
            judge._add_action(action)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if (args.rubric is None) == (args.calibrate is None):
        return _fail("give the file to review, or --calibrate LABELLED.jsonl (not both)")
    try:
        return _calibrate(args) if args.calibrate is not None else _review(args)
    except KeyboardInterrupt:
        return 130


def _settings(args: argparse.Namespace) -> Any:

    return grade_settings(argparse.Namespace(**{"batch": False, **vars(args)}))


def _refused(request: Any, args: argparse.Namespace) -> str | None:

    if (refused := review_refusal(_settings(args))) is not None:
        return refused
    if (missing := grade_extra_missing()) is not None:
        return missing
    return report_extra_missing() if getattr(args, "report", None) is not None else None


def _review(args: argparse.Namespace) -> int:

    try:
        text = args.rubric.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(f"cannot read {args.rubric}: {exc}")
    request = GradeRequest(text, str(args.rubric), RequestKind.REVIEW)
    if (refused := _refused(request, args)) is not None:
        return _fail(refused)
    started = time.perf_counter()
    try:
        result = with_progress(
            lambda progress, meter: grade(request, _settings(args), on_progress=progress, meter=meter), "rubric review"
        )
    except (GradingError, GradingStopped, MissingCredentials, ValueError) as exc:
        return _fail(str(exc))
    if args.report is not None and (written := _write_report(args.report, request, result, started)) is not None:
        return written
    if args.format == "json":
        json.dump(result.to_json(), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        for line in result.text_lines():
            print(line)
    code = exit_code(result)
    if code == EXIT_ERROR:
        print(f"rubric review: incomplete: {result.incomplete}", file=sys.stderr)
    return code


def _write_report(path: Path, request: Any, result: Any, started: float) -> int | None:

    try:
        path.write_text(render(request, result, elapsed=time.perf_counter() - started), encoding="utf-8")
    except OSError as exc:
        return _fail(f"cannot write the report {path}: {exc.strerror or exc}")
    return None


def _calibrate(args: argparse.Namespace) -> int:

    path: Path = args.calibrate
    try:
        rows = read_labelled(path)
        text = path.read_text(encoding="utf-8")
    except LabelsError as exc:
        return _fail(str(exc))
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(f"cannot read {path}: {exc}")
    request = GradeRequest(text, str(path), RequestKind.REVIEW, labels=tuple(rows[: args.limit or None]))
    if (refused := _refused(request, args)) is not None:
        return _fail(refused)
    try:
        graded = asyncio.run(calibration_passes(request, _settings(args), repeats=args.repeat))
    except (GradingError, GradingStopped, MissingCredentials, ValueError) as exc:
        return _fail(str(exc))
    output = args.output or record.record_path(path)
    data = graded.record(labelled=path, output=output)
    if args.output is not None:
        try:
            record.save(args.output, data)
        except OSError as exc:
            return _fail(f"cannot write the calibration record {args.output}: {exc.strerror or exc}")
    if args.format == "json":
        json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        reviewed = sum(not row.reference for row in request.labels)
        print(f"the review against the labels of {path} ({reviewed} criteria, {', '.join(graded.judge.models)}):")
        for line in table_lines(data):
            print(line)
        if args.output is not None:
            print(f"written to {args.output}")
    if graded.failed:
        print(
            f"rubric review: incomplete: {graded.failed} labelled answer(s) failed (the judge failed on their "
            "criteria); counted apart, never as agreement",
            file=sys.stderr,
        )
        return EXIT_ERROR
    return EXIT_OK


def _fail(message: str) -> int:
    print(f"rubric review: {message}", file=sys.stderr)
    return EXIT_ERROR
