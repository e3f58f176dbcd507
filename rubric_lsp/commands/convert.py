"""``rubric convert SOURCE --to KIND [--from KIND] [-o OUT]``: a file into another format.

Which conversions exist is the formats' business (``Format.converters``). The source is
linted with the same parser and view the linter uses; a file the linter finds errors in
is not converted (the output would carry them silently).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rubric_lsp.diagnostics import Severity
from rubric_lsp.formats.plugin import Conversion, Format, load
from rubric_lsp.formats.registry import formats

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def sources_for(target: str) -> list[Format]:
    """The formats that convert into ``target``."""
    return [fmt for fmt in formats() if target in fmt.converters]


def build_parser() -> argparse.ArgumentParser:
    targets = sorted({target for fmt in formats() for target in fmt.converters})
    parser = _Parser(prog="rubric convert", description="Convert a file into another format.")
    parser.add_argument("source", type=Path, help="the file to convert")
    parser.add_argument("--to", required=True, choices=targets, help="the format to write")
    parser.add_argument("--from", dest="kind", help="the source's format (default: the one that converts to --to)")
    parser.add_argument("-o", "--output", type=Path, help="where to write (default: standard output)")
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    from rubric_lsp.lint import lint_text

    sources = [fmt for fmt in sources_for(args.to) if args.kind in (None, fmt.name)]
    if not sources:
        print(f"rubric convert: {args.kind} does not convert to {args.to}", file=sys.stderr)
        return EXIT_USAGE
    try:
        data = args.source.read_bytes()
    except OSError as exc:
        print(f"rubric convert: cannot read {args.source}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    # One format converts to the target: read the file as that (as --kind would); several: detect.
    result = lint_text(data, str(args.source), kind=sources[0].name if len(sources) == 1 else None)
    if result.format not in sources:
        print(f"rubric convert: {args.source} is not a file that converts to {args.to}", file=sys.stderr)
        return EXIT_FAILED
    if _has_errors(args.source, result):
        return EXIT_FAILED
    if result.view is None:
        print(f"rubric convert: {args.source} has nothing to convert.", file=sys.stderr)
        return EXIT_FAILED
    conversion = load(result.format.converters[args.to])(result.view)
    for note in conversion.notes:
        print(f"rubric convert: {note}", file=sys.stderr)
    if conversion.text is None:
        return EXIT_FAILED
    return _write(conversion, args.output)


def _has_errors(source: Path, result) -> bool:
    """Print the errors the linter finds in ``source`` (the output would carry them silently)."""

    errors = [d for d in result.diagnostics if d.severity == Severity.ERROR]
    for diag in errors:
        where = f"{source}:{diag.range.start.line + 1}:{diag.range.start.character + 1}"
        print(f"{where}: {diag.code} {diag.message}", file=sys.stderr)
    if errors:
        hint = " (run 'rubric lint --fix' first)" if any(d.fix is not None for d in errors) else ""
        print(f"rubric convert: {source} has {len(errors)} error(s); not converted{hint}.", file=sys.stderr)
    return bool(errors)


def _write(conversion: Conversion, output: Path | None) -> int:
    if output is None:
        sys.stdout.write(conversion.text or "")
        return EXIT_OK
    try:
        output.write_text(conversion.text or "", encoding="utf-8")
    except OSError as exc:
        print(f"rubric convert: cannot write {output}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED
    print(f"wrote {conversion.summary} to {output}", file=sys.stderr)
    return EXIT_OK
