"""The request ``rubric grade``'s arguments ask for (``GradeRequest``): a response, several outputs, a results
file's outputs (``--outputs``), given verdicts, the file's examples or its labelled items."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rubric_lsp.engine.request import GradeRequest, RequestKind

EXIT_ERROR = 2


def request_for(args: argparse.Namespace, text: str, path: str, options: dict[str, Any]) -> Any:
    """The GradeRequest the arguments ask for, or an exit code when they cannot be read."""
    test_index = None if args.test is None else args.test - 1
    if args.outputs is not None:
        if args.response is not None or args.verdicts is not None or args.examples:
            return _fail(
                "--outputs grades the outputs the results file holds: give no --response, --verdicts or --examples"
            )
        results = _read_response(str(args.outputs), "results file")
        if results is None:
            return EXIT_ERROR
        name = args.outputs.name
        return GradeRequest.for_results(text, path, results, name, options=options)
    if args.verdicts is not None:
        try:
            given = _load_verdicts(args.verdicts)
        except (OSError, ValueError) as exc:
            return _fail(f"cannot read verdicts: {exc}")
        return GradeRequest(text, path, RequestKind.RESCORE, verdicts=tuple(given), options=options)
    if args.response is None:
        kind = RequestKind.EXAMPLES if args.examples else RequestKind.DATASET
        return GradeRequest(
            text, path, kind, query=args.query, test_index=test_index, limit=args.limit, options=options
        )
    responses = [_read_response(source) for source in args.response]
    if any(r is None for r in responses):
        return EXIT_ERROR
    return GradeRequest.for_responses(
        text, path, [r for r in responses if r is not None], query=args.query, test_index=test_index, options=options
    )


def _fail(message: str) -> int:
    print(f"rubric grade: {message}", file=sys.stderr)
    return EXIT_ERROR


def _read_response(source: str, what: str = "response") -> str | None:
    name = "standard input" if source == "-" else source
    try:
        # stdin as bytes too: its text layer would turn invalid bytes into surrogates, not an error
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as exc:
        _fail(f"cannot read the {what} {name}: {exc.strerror or exc}")
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        _fail(
            f"the {what} in {name} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); convert it first, e.g. with iconv"
        )
        return None


def _load_verdicts(path: Path) -> list[Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, dict):
        data = data.get("verdicts")
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of verdicts (or an object with a 'verdicts' list)")
    return data
