"""Command line: ``rubric {lint,grade,calibrate,review,label,serve,schema,patterns,rule,convert}``, ``rubric-lint``, ``rubric-lsp``.

Heavy parts (the grading engine with litellm, the language server with pygls) are
imported only by the subcommands that need them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rubric_lsp import __version__
from rubric_lsp.commands import exit_codes
from rubric_lsp.runtime import dataclass_bytecode, regex_code
from rubric_lsp.runtime import gc as collector

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", exit_codes.Terminal)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # usage errors exit 2, like every linter
        self.print_usage(sys.stderr)
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


def _lint_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        help="files or folders (folders are searched for .yaml/.yml/.json/.jsonl, honouring .gitignore; default: the current folder); '-' reads stdin",
    )
    parser.add_argument(
        "--format",
        choices=("text", "json", "sarif", "github", "junit", "gitlab"),
        default="text",
        help="output format (default: text; gitlab: GitLab code quality JSON)",
    )
    parser.add_argument("-o", "--output-file", type=Path, help="write the report to this file instead of stdout")
    parser.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    parser.add_argument("--unsafe-fixes", action="store_true", help="with --fix, also apply fixes marked unsafe")
    parser.add_argument(
        "--diff",
        action="store_true",
        help="print the changes --fix would make as a unified diff and write nothing; exit 1 if there are any",
    )
    parser.add_argument(
        "--show-fixes", action="store_true", help="with --fix or --diff: list the fixes per file and rule"
    )
    parser.add_argument(
        "--statistics", action="store_true", help="print how many findings each rule has instead of each finding"
    )
    parser.add_argument(
        "--exit-zero",
        action="store_true",
        help="exit 0 even when there are findings (2 still means an error; with --diff too)",
    )
    parser.add_argument("-w", "--watch", action="store_true", help="lint again whenever a file changes (Ctrl-C ends)")
    parser.add_argument("--kind", help="treat every file as this kind (see --list-kinds)")
    parser.add_argument(
        "--skip-unknown",
        action="store_true",
        help="skip named files of no recognised kind even when they cannot be read, and apply `exclude` to them (for pre-commit, which names every YAML/JSON file)",
    )
    parser.add_argument("--stdin-filename", help="the file name to use for text read from stdin")
    parser.add_argument("--select", action="append", help="only these rule codes or prefixes (comma-separated)")
    parser.add_argument("--ignore", action="append", help="skip these rule codes or prefixes (comma-separated)")
    parser.add_argument(
        "--fail-level",
        choices=("error", "warning", "info"),
        default="warning",
        help="lowest severity that makes the exit code 1 (default: warning)",
    )
    parser.add_argument(
        "--config",
        type=Path,
        help="the settings file: a pyproject.toml ([tool.rubric-lint]) or a rubric-lint.toml (default: the nearest "
        ".rubric-lint.toml, rubric-lint.toml or pyproject.toml with [tool.rubric-lint] above each file)",
    )
    parser.add_argument("--list-rules", action="store_true", help="print the rule table and exit")
    parser.add_argument("--list-kinds", action="store_true", help="print the file kinds and exit")
    parser.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")


def build_parser(prog: str = "rubric") -> argparse.ArgumentParser:
    parser = _Parser(prog=prog, description="Lint, grade and edit LLM-as-a-judge rubric files.")
    parser.add_argument("--version", action="version", version=f"rubric-lsp {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    lint = sub.add_parser(
        "lint",
        help="check rubric files (same as rubric-lint)",
        epilog=exit_codes.LINT,
        formatter_class=exit_codes.Formatter,
    )
    _lint_arguments(lint)

    rule = sub.add_parser("rule", help="print a rule's documentation")
    rule.add_argument("code", nargs="?", help="rule code, e.g. AR103 (omit with --all)")
    rule.add_argument("--all", action="store_true", help="every rule's documentation, as Markdown")
    rule.add_argument("--table", action="store_true", help="the rule table, as Markdown")
    rule.add_argument(
        "--readme", type=Path, help="rewrite the rule table between the <!-- rules:start/end --> markers of this file"
    )
    rule.add_argument(
        "--check", action="store_true", help="with --readme: exit 1 if the table is stale, change nothing"
    )

    schema = sub.add_parser("schema", help="export the JSON Schemas")
    schema.add_argument("--write", action="store_true", help="write the schemas into --dir")
    schema.add_argument("--check", action="store_true", help="exit 1 if the files in --dir are stale")
    schema.add_argument("--dir", type=Path, default=Path("schemas"), help="output folder (default: schemas)")
    schema.add_argument("kind", nargs="?", help="print one kind's schema to stdout")

    patterns = sub.add_parser("patterns", help="write the editor extension's file patterns (from the formats')")
    patterns.add_argument("--write", action="store_true", help="write them into the extension folder")
    patterns.add_argument("--check", action="store_true", help="exit 1 if they are stale (the default)")
    patterns.add_argument(
        "--extension",
        type=Path,
        default=Path("vscode-extension"),
        help="the extension folder (default: vscode-extension)",
    )

    grade = sub.add_parser("grade", help="grade a response against a rubric with an LLM judge")
    grade.add_argument("args", nargs=argparse.REMAINDER)

    calibrate = sub.add_parser(
        "calibrate", help="measure the judge against a labelled set and write <file>.calibration.json"
    )
    calibrate.add_argument("args", nargs=argparse.REMAINDER)

    review = sub.add_parser("review", help="ask the judge whether a rubric's criteria can be applied consistently")
    review.add_argument("args", nargs=argparse.REMAINDER)

    label = sub.add_parser("label", help="label a file's items on a page in the browser (docs/labelling.md)")
    label.add_argument("args", nargs=argparse.REMAINDER)

    serve = sub.add_parser("serve", help="run the language server (stdio)")
    serve.add_argument("args", nargs=argparse.REMAINDER)

    convert = sub.add_parser("convert", help="convert a file to another format")
    convert.add_argument("args", nargs=argparse.REMAINDER)
    return parser


# The subcommands that parse their own arguments (_delegate), and all of them.
DELEGATED = ("grade", "calibrate", "review", "label", "serve", "convert")
COMMANDS = ("lint", "rule", "schema", "patterns", *DELEGATED)


def _process_start(command: str) -> None:
    """What only a process's own entry (called with no ``argv``) does; a program calling ``main`` with arguments
    keeps ``dataclasses``, ``re`` and the collector as they are.

    What each start of ``command`` would compile again (the dataclasses' methods, the regular expressions in the
    code) comes from the user's cache. A lint's process skips the interpreter's last walk for cycles as it exits
    (``no_sweep_at_exit``, as ``rubric grade`` does): it walks every object the imports made, ~9 ms of a small
    file's ~70 ms lint (a pre-commit hook's or an editor's save), and it would free nothing the lint needs."""
    dataclass_bytecode.install(command)
    regex_code.install(command)
    if command == "lint":
        collector.no_sweep_at_exit()


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        _process_start(next((a for a in sys.argv[1:2] if a in COMMANDS), "rubric"))
    try:
        return _main(argv)
    except BrokenPipeError:  # output piped into head & co.
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt:
        return 130


def _main(argv: list[str] | None = None, prog: str = "rubric") -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog)
    if argv and argv[0] in DELEGATED:
        return _delegate(argv[0], argv[1:])
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors: return the code instead
        return exc.code if isinstance(exc.code, int) else EXIT_ERROR
    args.prog = prog  # messages name the command the user typed (rubric or rubric-lint)
    if args.command == "lint":
        from rubric_lsp.commands.lint import run_lint

        return run_lint(args)
    if args.command == "rule":
        from rubric_lsp.commands.rules import run_rule

        return run_rule(args)
    if args.command == "schema":
        from rubric_lsp.commands.schema import run_schema

        return run_schema(args)
    if args.command == "patterns":
        from rubric_lsp.commands.patterns import run_patterns

        return run_patterns(args)
    parser.print_help()
    return EXIT_ERROR


def _delegate(command: str, argv: list[str]) -> int:
    if command == "grade":
        from rubric_lsp.commands.grade import main as grade_main

        return grade_main(argv)
    if command == "calibrate":
        from rubric_lsp.commands.calibrate import main as calibrate_main

        return calibrate_main(argv)
    if command == "review":
        from rubric_lsp.commands.review import main as review_main

        return review_main(argv)
    if command == "label":
        from rubric_lsp.commands.label import main as label_main

        return label_main(argv)
    if command == "serve":
        from rubric_lsp.server.main import main as serve_main

        return serve_main(argv)
    from rubric_lsp.commands.convert import main as convert_main

    return convert_main(argv)


def lint_main(argv: list[str] | None = None) -> int:
    """``rubric-lint``: ``rubric lint`` (its messages named ``rubric-lint``), plus ``rubric-lint rule CODE``."""
    if argv is None:
        _process_start("lint")
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] == "rule":
            return _main(argv, prog="rubric-lint")
        return _lint(argv)
    except BrokenPipeError:
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt:
        return 130


def _lint(argv: list[str]) -> int:
    parser = _Parser(
        prog="rubric-lint",
        description="Check LLM-as-a-judge rubric files (same as rubric lint).",
        epilog=exit_codes.LINT,
        formatter_class=exit_codes.Formatter,
    )
    parser.add_argument("--version", action="version", version=f"rubric-lint {__version__}")
    _lint_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors: return the code instead
        return exc.code if isinstance(exc.code, int) else EXIT_ERROR
    from rubric_lsp.commands.lint import run_lint

    return run_lint(args)


def serve_main(argv: list[str] | None = None) -> int:
    if argv is None:
        _process_start("serve")
    argv = list(sys.argv[1:] if argv is None else argv)
    return main(["serve", *argv])
