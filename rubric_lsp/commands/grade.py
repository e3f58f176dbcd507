"""``rubric grade``: grade a response, rescore given verdicts, or measure a judge on a dataset.

Exit codes, one rule for every request kind (``request.exit_code``): 0 graded and everything passed
(where passing applies); 1 graded and something failed; 2 refused (bad arguments, unreadable or
invalid file, an assertion the owner errors on, missing API key, litellm not installed: one line
saying how to install it) or incomplete (a judge call failed, or the outcome rests on what is not
run here; the reason goes to standard error).

The flags of a format's grader (how abstentions count, …) are made from the options the formats
declare (``Format.grade_options``) and reach the grader in ``GradeRequest.options``: a format adds
an option with no edit here. Nothing imported here loads litellm; rich and the HTML report's
jinja2/pygal are imported only when used.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rubric_lsp.calibration.card import card_lines, card_rows, with_card
from rubric_lsp.commands import exit_codes
from rubric_lsp.commands.grade_calibration import NotCalibrated, prepare, require
from rubric_lsp.commands.grade_progress import with_progress
from rubric_lsp.commands.grade_request import request_for
from rubric_lsp.commands.unit_smells import smells_in_ranges
from rubric_lsp.engine.extra import report_extra_missing
from rubric_lsp.engine.failures import GradingStopped
from rubric_lsp.engine.judge import PROMPT_VERSION
from rubric_lsp.engine.request import RequestKind, exit_code
from rubric_lsp.engine.runner import GradingError, UnsupportedRequest, grade, model_spellings, panel_note
from rubric_lsp.engine.settings import JudgeSettings, MissingCredentials
from rubric_lsp.engine.sources import batch
from rubric_lsp.engine.store import run_file
from rubric_lsp.formats.options import GradeOption, distinct
from rubric_lsp.formats.registry import formats
from rubric_lsp.reporters.grade.csv import csv_text
from rubric_lsp.reporters.grade.html import render
from rubric_lsp.reporters.grade.junit import junit
from rubric_lsp.runtime import gc as collector

EXIT_OK, EXIT_FAILED, EXIT_ERROR = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("test numbers start at 1")
    return value


def _at_least(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def _seconds(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="rubric grade",
        epilog=exit_codes.GRADE,
        formatter_class=exit_codes.Formatter,
        description=(
            "Grade a response against a rubric, a test config's model-graded assertions or a judge "
            "configuration's graders (each format that registers a grader); compare several "
            "outputs; rescore given verdicts (--verdicts); grade a file's own examples (--examples); or grade a "
            "labelled dataset and report the judge's agreement with its labels (no --response)."
        ),
    )
    p.add_argument("rubric", type=Path, help="the rubric, config or dataset file")
    p.add_argument(
        "--response",
        action="append",
        help="file with the response to grade, or '-' for stdin; repeat for several outputs of one prompt to compare",
    )
    p.add_argument("--query", help="the prompt the response answers")
    p.add_argument(
        "--outputs",
        type=Path,
        metavar="RESULTS",
        help="grade every output of a results file the file's own tool wrote (its eval's -o results.json or .jsonl), "
        "each with its own vars and prompt, and compare with the verdicts it recorded: a grid of tests × columns",
    )
    p.add_argument(
        "--model",
        action="append",
        help="judge model (litellm id or the provider id the file's tool uses); repeat for several judges: a panel where the file's format takes one, else rubric grade grades with the first and says so, and rubric calibrate grades with the first and compares them all (default: $RUBRIC_JUDGE_MODEL, else the first provider with an API key)",
    )
    p.add_argument(
        "--api-base",
        help="OpenAI-compatible server URL, e.g. http://localhost:8000/v1 (default: $RUBRIC_JUDGE_API_BASE)",
    )
    p.add_argument(
        "--format",
        choices=("text", "json", "junit", "csv"),
        default="text",
        help="output format: text, json, junit (one testcase per test, response, example, results row or dataset item: its failures are the failed ones) or csv (one row per criterion / assertion / label) (default: text)",
    )
    p.add_argument(
        "--report",
        type=Path,
        metavar="FILE.html",
        help="also write a self-contained HTML report (scores, reasons, grids, agreement plots) to this file",
    )
    p.add_argument(
        "--test",
        type=_positive,
        help="files with numbered tests: grade only test N (1-based, in the order the tool runs them; default: every test)",
    )
    p.add_argument("--verdicts", type=Path, help="score these verdicts (JSON list, one per criterion) with no judge")
    p.add_argument(
        "--examples", action="store_true", help="grade the file's own worked examples and check their expectations"
    )
    p.add_argument("--concurrency", type=_at_least(1), default=16, help="judge calls in flight at once (default: 16)")
    p.add_argument("--timeout", type=_seconds, default=60.0, help="seconds per judge call (default: 60)")
    p.add_argument(
        "--deadline",
        type=_seconds,
        help="seconds the whole grading may take, retries included; past it the grading stops with an error "
        "(default: 600; none with --batch, whose batches have 24 h)",
    )
    p.add_argument("--retries", type=_at_least(0), default=4, help="retries on 429/5xx/timeouts (default: 4)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the verdict cache ($RUBRIC_CACHE_DIR)")
    p.add_argument("--limit", type=_at_least(1), help="dataset: grade only the first N items")
    # Rate limits (rate_limit.py): --concurrency is the ceiling that 429 bursts lower for a while.
    p.add_argument(
        "--rpm", type=_at_least(1), metavar="N", help="send at most N judge requests a minute (default: no ceiling)"
    )
    p.add_argument(
        "--tpm",
        type=_at_least(1),
        metavar="N",
        help="send at most about N tokens a minute (estimated before each call, corrected from its reply; default: no ceiling)",
    )
    run = p.add_mutually_exclusive_group()
    run.add_argument(
        "--run",
        type=Path,
        metavar="RUN.sqlite",
        help="record the request, every judge reply as it lands and the final figures in this new SQLite file",
    )
    run.add_argument(
        "--resume",
        type=Path,
        metavar="RUN.sqlite",
        help="continue the run recorded in this file (same file and flags): finished calls are not asked again",
    )
    batch = p.add_argument_group("batch mode")
    batch.add_argument(
        "--batch",
        action="store_true",
        help="send the judge calls through the provider's batch API (OpenAI, Azure: half price, results within 24 h); "
        "recorded in the --run file (one is created when none is given) so --resume collects a submitted batch",
    )
    batch.add_argument(
        "--batch-poll",
        type=_seconds,
        default=30.0,
        metavar="SECONDS",
        help="--batch: seconds between status checks of a submitted batch (default: 30)",
    )
    calibrated = p.add_argument_group("calibration (docs/calibration.md)")
    calibrated.add_argument(
        "--require-calibrated",
        action="store_true",
        help="refuse (exit 2, before any judge call) when a graded unit has no fresh calibration record",
    )
    calibrated.add_argument(
        "--calibration",
        type=Path,
        metavar="RECORD.json",
        help="the calibration record to check against (default: <file>.calibration.json beside the file, then the settings' calibration.path)",
    )
    _add_format_options(p)
    return p


def grade_options() -> list[GradeOption]:
    """The options every format's grader declares, each once."""
    return distinct(option for fmt in formats() for option in fmt.grade_options)


def _add_format_options(parser: argparse.ArgumentParser) -> None:
    """A flag for each format's grading option, grouped by the formats that read it."""
    groups: dict[tuple[str, ...], Any] = {}
    for option in grade_options():
        readers = tuple(fmt.title for fmt in formats() if option in fmt.grade_options)
        group = groups.get(readers)
        if group is None:
            group = groups[readers] = parser.add_argument_group(f"grading {' and '.join(readers)} files")
        if isinstance(option.default, bool):  # a switch: the flag sets the opposite of the default
            group.add_argument(
                option.flag, dest=_dest(option), action="store_const", const=not option.default, help=option.help
            )
        else:
            group.add_argument(
                option.flag,
                dest=_dest(option),
                choices=option.choices or None,
                type=_argument_type(option),
                metavar=None if option.choices else option.name.upper(),
                help=option.help,
            )
        parser.set_defaults(**{_dest(option): option.default})


def _dest(option: GradeOption) -> str:
    return f"grade_option:{option.name}"  # apart from the command's own flags


def _argument_type(option: GradeOption) -> Callable[[str], Any]:
    parse = option.parse
    if parse is None:
        return str

    def checked(text: str) -> Any:
        try:
            return parse(text)
        except ValueError as exc:  # its message says what the value must be
            raise argparse.ArgumentTypeError(str(exc)) from None

    return checked


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The format options of the request, by name (every declared one: given or its default)."""
    return {option.name: getattr(args, _dest(option)) for option in grade_options()}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    collector.no_sweep_at_exit()  # the run's objects are freed at exit without a last walk for cycles
    try:
        return _run(args)
    except KeyboardInterrupt:
        return 130


def _settings(args: argparse.Namespace) -> JudgeSettings:
    models = list(args.model or [])
    return JudgeSettings(
        model=models[0] if models else None,
        models=models[1:],
        api_base=args.api_base,
        concurrency=args.concurrency,
        rpm=args.rpm,
        tpm=args.tpm,
        timeout_seconds=args.timeout,
        deadline_seconds=args.deadline if args.deadline is not None else (None if args.batch else 600.0),
        cache_enabled=not args.no_cache,
        max_retries=max(0, args.retries),
        model_ids=model_spellings(),  # resolved here too: the batch check and the run file see litellm ids
    )


def _write_in_batches(pieces: Iterable[str], batch: int = 4096) -> None:
    """Write ``pieces`` to stdout joined ``batch`` at a time."""
    held: list[str] = []
    for piece in pieces:
        held.append(piece)
        if len(held) >= batch:
            sys.stdout.write("".join(held))
            held.clear()
    sys.stdout.write("".join(held))


NO_RESPONSE = "give the response to grade with --response FILE (or '-' for stdin)"


def _run(args: argparse.Namespace) -> int:
    try:
        text = args.rubric.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(f"cannot read {args.rubric}: {exc}")
    request = _request(args, text, str(args.rubric))
    if isinstance(request, int):
        return request
    if (note := panel_note(request, _settings(args))) is not None:  # before a run file or a record is read
        print(f"rubric grade: {note}", file=sys.stderr)  # said once; the run file and the card name the first
        args.model = args.model[:1]
    if args.report is not None and (missing := report_extra_missing()) is not None:
        return _fail(missing)  # before any judge call: the report is written after the grading is paid for
    calibration = _calibration(args, request)
    if isinstance(calibration, int):
        return calibration
    started = time.perf_counter()
    try:
        with _run_file(args, request) as run:
            doc = None if calibration is None else calibration.doc
            result = with_progress(lambda progress, meter: _graded(args, request, progress, meter, doc))
            card, rates = (
                (None, None) if calibration is None else (calibration.card(result), calibration.pass_rates(result))
            )
            if run is not None:  # the figures as --format json prints them, judge card included
                run.finish(with_card(result.to_json(), card, rates))
    except UnsupportedRequest as exc:
        return _fail(
            NO_RESPONSE if args.response is None and args.verdicts is None and args.outputs is None else str(exc)
        )
    except (GradingError, GradingStopped, MissingCredentials, ValueError) as exc:  # (GradingStopped: the run file)
        return _fail(str(exc))
    # A dataset's criteria's smells beside their figures (the text and the page; the JSON is the result's own).
    smells = _smells(request, result) if args.report is not None or args.format == "text" else {}
    elapsed = time.perf_counter() - started
    if args.report is not None and (
        written := _write_report(args.report, request, result, elapsed, calibration, smells)
    ):
        return written
    if args.format == "json":
        # Written as it is encoded, a few thousand pieces a write: json.dumps with an indent joins a list of
        # every piece (millions for a dataset's result, ~30 MB at 10,000 items) before the first byte is
        # written, and json.dump writes each piece alone (90,000 writes at 1,000 items: a tenth of its CPU).
        _write_in_batches(
            json.JSONEncoder(indent=2, ensure_ascii=False).iterencode(with_card(result.to_json(), card, rates))
        )
        sys.stdout.write("\n")
    elif args.format in ("junit", "csv"):
        sys.stdout.write(junit(result, card_rows(card) if card else ()) if args.format == "junit" else csv_text(result))
    else:
        for line in result.text_lines() + card_lines(card, rates) + _smell_lines(result, smells):
            print(line)
    code = exit_code(result)
    if code == EXIT_ERROR:
        print(f"rubric grade: incomplete: {result.incomplete}", file=sys.stderr)
    return code


def _graded(args: argparse.Namespace, request: Any, progress: Any, meter: Any, doc: Any) -> Awaitable[Any]:
    """The grading to run: once, or in batch mode in rounds of passes (engine/sources/batch.py)."""

    def once() -> Awaitable[Any]:
        return grade(request, _settings(args), on_progress=progress, meter=meter, doc=doc)

    mode = batch.active()
    return once() if mode is None else batch.grade_in_rounds(mode, once)


@contextmanager
def _run_file(args: argparse.Namespace, request: Any) -> Iterator[Any]:
    """The run file ``--run`` / ``--resume`` name, active for the grading (None without either flag).

    Raises GradingError (one line) when it cannot be created, or was started for another grading."""
    if args.batch:
        _check_batch_supported(_settings(args).resolved())
    if args.batch and args.run is None and args.resume is None:
        # A submitted batch is paid for: never without a run file that lets a resume collect it.
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        args.run = Path(f"{args.rubric.stem}.batch-{stamp}.run.sqlite")
        print(
            f"rubric grade: --batch records its batches in {args.run} (after a stop: --resume {args.run})",
            file=sys.stderr,
        )
    path = args.run or args.resume
    if path is None:
        yield None
        return
    settings = _settings(args).resolved()  # MissingCredentials when no judge can be chosen
    described = run_file.describe_request(request.text, request.kind.value, settings, _run_fields(request))
    try:
        defaults = {option.name: option.default for option in grade_options()}
        run = (
            run_file.RunFile.create(path, described) if args.run else run_file.RunFile.resume(path, described, defaults)
        )
    except run_file.RunFileError as exc:
        raise GradingError(str(exc)) from None
    try:
        with run_file.activate(run), _batch_mode(args, settings, run):
            yield run
    finally:
        run.close()


@contextmanager
def _batch_mode(args: argparse.Namespace, settings: Any, run: Any) -> Iterator[None]:
    """Batch mode for ``--batch``, and for a resumed run whose batches are not all collected yet
    (so a paid batch is never left behind by a resume without --batch)."""
    if not args.batch and not run.open_batches():
        yield
        return
    _check_batch_supported(settings)
    try:
        with batch.activate(
            batch.BatchMode(run, poll_seconds=args.batch_poll, deadline_seconds=settings.deadline_seconds)
        ):
            yield
    except BaseException:
        # Ctrl-C, the deadline, a crash: nothing is cancelled at the provider (a submitted batch is
        # paid for); say where its results will be collected.
        waiting = [b.batch_id for b in run.open_batches() if b.batch_id]
        if waiting:
            print(
                f"rubric grade: batch {', '.join(waiting)} still runs at the provider; "
                f"collect it with --resume {run.path}",
                file=sys.stderr,
            )
        raise


def _check_batch_supported(settings: Any) -> None:
    try:
        for model in settings.judge_models():
            batch.check_supported(model)
    except batch.BatchUnsupported as exc:
        raise GradingError(str(exc)) from None


def _run_fields(request: Any) -> dict[str, Any]:
    """The request's own fields besides the file that can change a verdict (a resume must match them).

    The format options go in under their own names, as the settings they once were, so a run
    file written before they moved is resumed as it was."""
    digest = hashlib.sha256(json.dumps([*request.responses, request.results or ""]).encode("utf-8")).hexdigest()
    return {
        "prompt_version": PROMPT_VERSION,
        "responses_sha256": digest,
        "query": request.query,
        "test": request.test_index,
        "limit": request.limit,
        "units": list(request.units),
        "verdicts": list(request.verdicts),
        **request.options,
    }


def _calibration(args: argparse.Namespace, request: Any) -> Any:
    """The judge card's calibration (None when the file cannot be read for it: the grading says why);
    an exit code when ``--require-calibrated`` refuses, before any judge call."""
    try:
        judged = request.kind is not RequestKind.RESCORE  # given verdicts: no judge to name on the card
        settings = _settings(args) if judged else None
        found = prepare(args.rubric, request, settings, args.calibration)
        if args.require_calibrated:
            require(found)
    except NotCalibrated as exc:
        return _fail(str(exc))
    except (GradingError, ValueError) as exc:
        return _fail(f"--require-calibrated: {exc}") if args.require_calibrated else None
    return found


def _write_report(
    path: Path, request: Any, result: Any, elapsed: float, calibration: Any, smells: dict[int, str]
) -> int | None:
    """Write the HTML report; an exit code when it cannot be written."""
    card, rates = (None, None) if calibration is None else (calibration.card(result), calibration.pass_rates(result))
    try:
        html = render(request, result, elapsed=elapsed, card=card, pass_rates=rates, smells=smells)
    except ImportError:  # checked before the grading; a module broken since then
        return _fail(report_extra_missing() or "the HTML report cannot import jinja2 or pygal")
    try:
        path.write_text(html, encoding="utf-8")
    except OSError as exc:
        return _fail(f"cannot write the report {path}: {exc.strerror or exc}")
    return None


def _smells(request: Any, result: Any) -> dict[int, str]:
    """A dataset grading's criteria that have smells (by their position in its agreement list), to show next to
    their agreement figures (docs/smells.md, "Smells and agreement"); none for other results."""
    if result.kind != "dataset":
        return {}
    agreement = result.to_json().get("agreement") or []
    return smells_in_ranges(request.text, request.path, [entry.get("range") for entry in agreement])


def _smell_lines(result: Any, smells: dict[int, str]) -> list[str]:
    if not smells:
        return []
    agreement = result.to_json().get("agreement") or []
    return ["smells of the criteria (docs/smells.md):"] + [f"  {agreement[i]['name']}: {s}" for i, s in smells.items()]


def _request(args: argparse.Namespace, text: str, path: str) -> Any:
    """The GradeRequest the arguments ask for, every format option in it, or an exit code (``grade_request``)."""
    return request_for(args, text, path, _options(args))


def _fail(message: str) -> int:
    print(f"rubric grade: {message}", file=sys.stderr)
    return EXIT_ERROR
