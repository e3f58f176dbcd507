"""``rubric grade``: grade a response, rescore given verdicts, or measure a judge on a dataset.

Exit codes: 0 graded (and passed, where passing applies); 1 graded but failed, or no score
could be computed; 2 the request could not be carried out (bad arguments, unreadable or
invalid rubric, missing API key).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rubric_lsp.formats.autorubric.score import CANNOT_ASSESS_STRATEGIES

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


def _fraction(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="rubric grade",
        description=(
            "Grade a response against an autorubric rubric, a promptfoo config's model-graded assertions or a "
            "NorthStar EvalRunRequest's graders; rescore given verdicts (--verdicts); or grade an autorubric "
            "dataset and report the judge's agreement with its ground truth (no --response)."
        ),
    )
    p.add_argument("rubric", type=Path, help="the rubric, config or dataset file")
    p.add_argument(
        "--response",
        action="append",
        help="file with the response to grade, or '-' for stdin; promptfoo: repeat for several outputs (max-score, select-best)",
    )
    p.add_argument("--query", help="the prompt the response answers")
    p.add_argument(
        "--model",
        action="append",
        help="judge model (litellm id or promptfoo provider id); repeat for several judges (default: $RUBRIC_JUDGE_MODEL, else the first provider with an API key)",
    )
    p.add_argument(
        "--api-base",
        help="OpenAI-compatible server URL, e.g. http://localhost:8000/v1 (default: $RUBRIC_JUDGE_API_BASE)",
    )
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    p.add_argument(
        "--test",
        type=_positive,
        help="promptfoo: grade only test N (1-based, in the order promptfoo runs them; default: every test)",
    )
    p.add_argument("--verdicts", type=Path, help="score these verdicts (JSON list, one per criterion) with no judge")
    p.add_argument("--examples", action="store_true", help="grade the autorubric file's own 'examples'")
    p.add_argument(
        "--cannot-assess",
        choices=CANNOT_ASSESS_STRATEGIES,
        default="skip",
        help="how abstentions count (default: skip)",
    )
    p.add_argument(
        "--partial-credit",
        type=_fraction,
        default=0.5,
        help="credit for an abstention under --cannot-assess partial (default: 0.5)",
    )
    p.add_argument("--raw", action="store_true", help="report the raw weighted sum instead of a 0–1 score")
    p.add_argument(
        "--aggregation",
        choices=("majority", "weighted", "unanimous", "any"),
        default="majority",
        help="several judges: how binary votes combine (default: majority; judges weigh equally, so weighted = majority)",
    )
    p.add_argument("--concurrency", type=_at_least(1), default=16, help="judge calls in flight at once (default: 16)")
    p.add_argument("--timeout", type=_seconds, default=60.0, help="seconds per judge call (default: 60)")
    p.add_argument("--retries", type=_at_least(0), default=4, help="retries on 429/5xx/timeouts (default: 4)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the verdict cache ($RUBRIC_CACHE_DIR)")
    p.add_argument("--no-shuffle", action="store_true", help="show multi-choice options in authored order")
    p.add_argument("--limit", type=_at_least(1), help="dataset: grade only the first N items")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except KeyboardInterrupt:
        return 130


def _settings(args: argparse.Namespace) -> Any:
    from rubric_lsp.grading.settings import JudgeSettings

    models = list(args.model or [])
    return JudgeSettings(
        model=models[0] if models else None,
        models=models[1:],
        api_base=args.api_base,
        concurrency=args.concurrency,
        timeout_seconds=args.timeout,
        cache_enabled=not args.no_cache,
        max_retries=max(0, args.retries),
        cannot_assess=args.cannot_assess,
        partial_credit=args.partial_credit,
        normalize=not args.raw,
        aggregation=args.aggregation,
        shuffle_options=not args.no_shuffle,
    )


def _run(args: argparse.Namespace) -> int:
    from rubric_lsp.grading.engine import GradingError, kind_of, read
    from rubric_lsp.grading.settings import MissingCredentials

    try:
        text = args.rubric.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(f"cannot read {args.rubric}: {exc}")
    path = str(args.rubric)
    try:
        if args.verdicts is not None:
            return _score_verdicts(args, text, path)
        doc = read(text, path)
        kind = kind_of(doc, path)
        if args.response is None:
            if kind == "autorubric-dataset":
                return _dataset(args, doc)
            if args.examples and kind == "autorubric-rubric":
                return _examples(args, text, path)
            return _fail("give the response to grade with --response FILE (or '-' for stdin)")
        responses = [_read_response(source) for source in args.response]
        if any(r is None for r in responses):
            return EXIT_ERROR
        if len(responses) > 1:
            if kind != "promptfoo":
                return _fail("several --response files are only for a promptfoo config's max-score selection")
            return _max_score(args, doc, responses)
        response = responses[0]
        from rubric_lsp.grading.engine import grade_text

        report = _with_progress(
            args,
            lambda progress: grade_text(
                text,
                path,
                response,
                args.query,
                _settings(args),
                test_index=None if args.test is None else args.test - 1,
                on_progress=progress,
            ),
        )
    except (GradingError, MissingCredentials) as exc:
        return _fail(str(exc))
    except ValueError as exc:
        return _fail(str(exc))
    if args.format == "json":
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        _print_report(report)
    if report.score is None and report.error:
        return EXIT_FAILED
    return EXIT_FAILED if report.passed is False else EXIT_OK


def _max_score(args: argparse.Namespace, doc: Any, responses: list[str]) -> int:
    from rubric_lsp.grading.promptfoo_grader import grade_promptfoo_outputs

    result = _with_progress(
        args,
        lambda progress: grade_promptfoo_outputs(
            doc,
            responses,
            args.query,
            _settings(args),
            test_index=None if args.test is None else args.test - 1,
            on_progress=progress,
        ),
    )
    if args.format == "json":
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        for position, output in enumerate(result["outputs"]):
            verdicts = ", ".join(f"{v['name']} {v['verdict']}" for v in output["verdicts"])
            print(f"output {position + 1}: {verdicts}")
        for selection in result["max_score"]:
            if "error" in selection:
                print(f"test {selection['test']} max-score: {selection['error']}")
                continue
            scores = ", ".join("n/a" if s is None else f"{s:.3g}" for s in selection["scores"])
            winner = "none" if selection["winner"] is None else f"output {selection['winner'] + 1}"
            print(f"test {selection['test']} max-score ({selection['method']}): scores {scores} → {winner}")
            if selection.get("left_out"):
                print(f"  not run here: {', '.join(selection['left_out'])}")
        for comparison in result.get("select_best", []):
            if "error" in comparison:
                print(f"test {comparison['test']} select-best: no winner, every output fails — {comparison['error']}")
            else:
                flags = [
                    flag
                    for flag, on in (
                        ("ambiguous reply", comparison.get("ambiguous")),
                        ("cached", comparison.get("cached")),
                    )
                    if on
                ]
                extra = f" [{', '.join(flags)}]" if flags else ""
                print(f"test {comparison['test']} select-best: → output {comparison['winner'] + 1}{extra}")
                if comparison["reason"]:
                    print(f"  {comparison['reason']}")
                if "promptfoo_reads" in comparison:
                    theirs = comparison["promptfoo_reads"]
                    outcome = (
                        "every output fails"
                        if theirs is None or theirs >= len(comparison["passed"])
                        else f"output {theirs + 1} wins"
                    )
                    print(
                        f"  promptfoo reads this reply as {'no number' if theirs is None else f'index {theirs}'}: {outcome}"
                    )
            if comparison.get("note"):
                print(f"  note: {comparison['note']}")
    return EXIT_OK


def _fail(message: str) -> int:
    print(f"rubric grade: {message}", file=sys.stderr)
    return EXIT_ERROR


def _read_response(source: str) -> str | None:
    name = "standard input" if source == "-" else source
    try:
        # stdin as bytes too: its text layer would turn invalid bytes into surrogates, not an error
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as exc:
        _fail(f"cannot read the response {name}: {exc.strerror or exc}")
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        _fail(
            f"the response in {name} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); convert it first, e.g. with iconv"
        )
        return None


def _with_progress(args: argparse.Namespace, start: Callable[[Callable[[int, int], None] | None], Any]) -> Any:
    """Run the coroutine ``start(progress)`` with a rich progress bar when stderr is a terminal."""
    if not sys.stderr.isatty():
        return asyncio.run(start(None))
    try:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    except ImportError:  # pragma: no cover - rich is part of the [grade] extra
        return asyncio.run(start(None))
    with Progress(
        TextColumn("judging"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=True,
        console=Console(stderr=True),
    ) as bar:
        task = bar.add_task("judging", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return asyncio.run(start(progress))


def _line_of(verdict: Any) -> str:
    rng = verdict.range
    return f"line {rng['start']['line'] + 1}" if rng else ""


def _print_report(report: Any) -> None:
    width = max([len(v.verdict) for v in report.verdicts] + [7])
    for verdict in report.verdicts:
        flags = []
        if verdict.ambiguous:
            flags.append("ambiguous reply")
        if verdict.cached:
            flags.append("cached")
        extra = f" [{', '.join(flags)}]" if flags else ""
        where = _line_of(verdict)
        print(f"{verdict.verdict:<{width}}  {verdict.name}{f' ({where})' if where else ''}{extra}")
        if verdict.error:
            print(f"{'':<{width}}  {verdict.error} — counted as {verdict.counted_as}")
        elif verdict.reason:
            print(f"{'':<{width}}  {verdict.reason}")
        if verdict.feedback:
            print(f"{'':<{width}}  feedback: {verdict.feedback}")
    if report.error:
        print(f"no score: {report.error}")
    elif report.score is not None:
        passed = "" if report.passed is None else (" — PASS" if report.passed else " — FAIL")
        print(f"score: {report.score:.4g} (raw {report.raw_score:.4g}){passed}")
    else:
        print("no score: nothing was left to score")
    for note in report.notes:
        print(f"note: {note}")
    usage = report.usage
    cost = f", ${usage.cost_usd:.4f}" if usage.cost_usd is not None else ""
    print(
        f"judge: {report.model or 'none'}; {usage.calls} calls, {usage.cached} cached, {usage.prompt_tokens + usage.completion_tokens} tokens{cost}"
    )


def _load_verdicts(path: Path) -> list[Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, dict):
        data = data.get("verdicts")
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of verdicts (or an object with a 'verdicts' list)")
    return data


def _score_verdicts(args: argparse.Namespace, text: str, path: str) -> int:
    from rubric_lsp.formats.autorubric.score import compute_score, verdict_outcome
    from rubric_lsp.grading.autorubric_grader import Judgment, effective_option_index, failure_outcome, judgment_outcome
    from rubric_lsp.grading.engine import autorubric_inputs, kind_of, read
    from rubric_lsp.grading.failures import JudgeFailure

    doc = read(text, path)
    if kind_of(doc, path) != "autorubric-rubric":
        return _fail("--verdicts scores an autorubric rubric's criteria; this file is not one")
    items, _ = autorubric_inputs(doc)
    try:
        given = _load_verdicts(args.verdicts)
    except (OSError, ValueError) as exc:
        return _fail(f"cannot read verdicts: {exc}")
    if len(given) != len(items):
        return _fail(
            f"{args.verdicts} has {len(given)} verdicts; the rubric has {len(items)} criteria (one verdict each, in order)"
        )
    outcomes = []
    failed = 0
    for item, entry in zip(items, given):
        if isinstance(entry, dict):  # an entry of `rubric grade --format json` output
            if entry.get("error"):
                category = str(entry["error"]).split(":", 1)[0]
                outcomes.append(
                    failure_outcome(
                        item.criterion,
                        JudgeFailure(
                            category if category in ("infrastructure", "parse") else "unknown", str(entry["error"])
                        ),
                    )[0]
                )
                failed += 1
                continue
            entry = entry.get("verdict")
        if not isinstance(entry, str):
            return _fail(f"verdict for {item.name} must be a string, got {entry!r}")
        criterion = item.criterion
        try:
            outcomes.append(verdict_outcome(criterion, entry))
        except ValueError as exc:
            # The "cannot assess" option the judge is shown when the criterion has no NA option of its own.
            index = effective_option_index(criterion, entry) if criterion.options is not None else None
            if index is None:
                return _fail(f"verdict for {item.name}: {exc}")
            outcomes.append(judgment_outcome(criterion, Judgment(option=index)))
    if items and failed == len(items):  # semantics.md §1: every criterion failed → no score
        error = "every criterion's judgment failed"
        raw = score = None
    else:
        error = None
        raw = compute_score(outcomes, args.cannot_assess, args.partial_credit, normalize=False)
        score = raw if args.raw else compute_score(outcomes, args.cannot_assess, args.partial_credit)
    if args.format == "json":
        data = {
            "score": score,
            "raw_score": raw,
            "cannot_assess": args.cannot_assess,
            "partial_credit": args.partial_credit,
        }
        if error:
            data["error"] = error
        print(json.dumps(data, indent=2))
    elif error:
        print(f"no score: {error}")
    else:
        print("no score: every criterion abstained" if score is None else f"score: {score:.4g} (raw {raw:.4g})")
    return EXIT_OK if score is not None else EXIT_FAILED


def _dataset(args: argparse.Namespace, doc: Any) -> int:
    from rubric_lsp.grading.agreement import DatasetError, grade_dataset

    try:
        result = _with_progress(
            args, lambda progress: grade_dataset(doc, _settings(args), limit=args.limit, on_progress=progress)
        )
    except DatasetError as exc:
        return _fail(str(exc))
    if args.format == "json":
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
        return EXIT_OK
    for item in result.items:
        score = "no score" if item["score"] is None else f"{item['score']:.3f}"
        print(f"item {item['index']}: {score}  {item.get('description') or ''}")
    print("\nagreement with ground truth (per criterion):")
    for c in result.criteria:
        data = c.to_json()
        fmt = lambda v: "n/a" if v is None else f"{v:.3f}"  # noqa: E731
        qwk = f"  qwk {fmt(data['quadratic_weighted_kappa'])}" if "quadratic_weighted_kappa" in data else ""
        abstained = data["abstained"]
        apart = (
            f", abstained: both {abstained['both']}, judge only {abstained['judge_only']}, truth only {abstained['truth_only']}"
            if any(abstained.values())
            else ""
        )
        print(
            f"  {c.name}: accuracy {fmt(data['accuracy'])}  κ {fmt(data['cohen_kappa'])}{qwk}  (n={c.compared}, failed={c.failed}{apart})"
        )
    print(
        "(abstentions and failed judgments are left out of accuracy and κ, as autorubric's compute_metrics does by default)"
    )
    return EXIT_OK


def _examples(args: argparse.Namespace, text: str, path: str) -> int:
    from rubric_lsp.grading.engine import grade_examples

    results = _with_progress(args, lambda progress: grade_examples(text, path, _settings(args), on_progress=progress))
    if args.format == "json":
        print(json.dumps([r.to_json() for r in results], indent=2, ensure_ascii=False))
    else:
        for r in results:
            score = "no score" if r.report is None or r.report.score is None else f"{r.report.score:.3f}"
            state = {True: "ok", False: "NOT MET", None: ""}[r.met]
            print(f"{r.name}: {score} {state}")
            for failure in r.failures:
                print(f"  {failure}")
    return EXIT_FAILED if any(r.met is False for r in results) else EXIT_OK
