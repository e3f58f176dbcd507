"""``rubric label FILE``: label a file's items on a page served on 127.0.0.1 (docs/labelling.md).

The page shows one item at a time with every unit to label in the format's own verdict words, and writes
each label where the format keeps it as it is given (``rubric_lsp.labelling``). ``--from`` adds what a
grading or the owner's own results say (the judge's verdicts, shown once you answered; a file of units'
outputs to label; labels already given in the owner's viewer, written into the labels file at once).

Exit codes: 0 done (the page was closed with Ctrl-C, or ``--no-page`` wrote what the sources held);
2 refused (a file no format labels, an unreadable source, a port in use).
"""

from __future__ import annotations

import argparse
import sys
import webbrowser
from pathlib import Path

from rubric_lsp.labelling.page.server import LabellingServer
from rubric_lsp.labelling.session import Options, Session
from rubric_lsp.labelling.sources import LabellingError, default_labeller

EXIT_OK, EXIT_ERROR = 0, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # usage errors exit 2, like every rubric command
        self.print_usage(sys.stderr)
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


def _port(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port from 0 to 65535, got {value}")
    return value


def _width(text: str) -> float:
    value = float(text)
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="rubric label",
        description="Label a file's items on a page in the browser: every unit in its format's own verdict words, "
        "written where the format keeps labels as you give them.",
    )
    p.add_argument(
        "file", type=Path, metavar="FILE", help="the labelled set, or the file whose units a labels file labels"
    )
    p.add_argument(
        "--from",
        dest="sources",
        type=Path,
        action="append",
        default=[],
        metavar="SOURCE",
        help="what a grading said (rubric grade --format json) or the owner's results (its eval's results file): "
        "the judge's verdicts, the outputs to label, the labels already given there; repeat for several",
    )
    p.add_argument("-o", "--output", type=Path, help="the labels file (.csv or .jsonl) for a file of units")
    p.add_argument("--labeller", help="who labels (default: git config user.name, else the login name)")
    p.add_argument("--port", type=_port, default=0, help="the port on 127.0.0.1 (default: one the system picks)")
    p.add_argument("--no-open", action="store_true", help="print the page's address, do not open a browser")
    p.add_argument("--no-blind", action="store_true", help="show the judge's verdicts before you answer")
    p.add_argument(
        "--again", action="store_true", help="also label what others labelled (a second opinion, for their agreement)"
    )
    p.add_argument("--no-page", action="store_true", help="write what the sources hold and stop (no page)")
    p.add_argument("--kind", help="the file's kind, when it is not recognised (see rubric lint --list-kinds)")
    p.add_argument(
        "--width", type=_width, default=0.15, help="the interval half-width the 'how many more' figures aim at (0.15)"
    )
    return p


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    labeller = args.labeller or default_labeller(args.file.resolve().parent)
    options = Options(
        labeller=labeller,
        blind=not args.no_blind,
        again=args.again,
        labels=args.output,
        sources=tuple(args.sources),
        kind=args.kind,
        width=args.width,
    )
    try:
        session = Session(args.file, options)
    except (LabellingError, ValueError, OSError) as exc:
        print(f"rubric label: {exc}", file=sys.stderr)
        return EXIT_ERROR
    state = session.state()
    if session.imported:
        print(f"{session.imported} label(s) taken from {', '.join(map(str, args.sources))} into {state['writes'][0]}")
    for note in state["notes"]:
        print(f"note: {note}", file=sys.stderr)
    progress = state["progress"]
    print(f"{args.file}: {progress['done']} of {progress['total']} labelled ({progress['items']} items)")
    if args.no_page:
        return EXIT_OK
    return _serve(session, args)


def _serve(session: Session, args: argparse.Namespace) -> int:
    try:
        server = LabellingServer(session, args.port)
    except OSError as exc:
        print(f"rubric label: cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERROR
    print(f"Labelling at {server.url}  (Ctrl-C ends)", flush=True)
    if not args.no_open:
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    state = session.state()
    print(f"{args.file}: {state['progress']['done']} of {state['progress']['total']} labelled")
    return EXIT_OK
