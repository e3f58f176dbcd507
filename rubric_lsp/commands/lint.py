"""``rubric-lint PATH...``."""

from __future__ import annotations

import sys
from pathlib import Path

from rubric_lsp import __version__
from rubric_lsp.diagnostics import Severity
from rubric_lsp.lint import LintResult, lint_path, lint_text
from rubric_lsp.settings import Settings, SettingsError, check_codes, load_settings, settings_for

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _codes(values: list[str] | None) -> list[str]:
    return [c.strip() for v in values or [] for c in v.split(",") if c.strip()]


def run_lint(args) -> int:
    # A file may hold text no encoder accepts (a lone surrogate from a JSON "\ud800"
    # escape); print it escaped rather than fail on it.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        return _run_lint(args)
    except (BrokenPipeError, KeyboardInterrupt):
        raise
    except Exception:  # a bug must give exit 2 and a report, never a bare traceback and exit 1
        import traceback

        traceback.print_exc()
        print("rubric-lint: internal error (above); please report it with the file that caused it.", file=sys.stderr)
        return EXIT_ERROR


def _run_lint(args) -> int:
    from rubric_lsp import reporters
    from rubric_lsp.formats.registry import formats, get_format

    if args.list_rules:
        from rubric_lsp.commands.rules import rule_table

        print(rule_table())
        return EXIT_OK
    if args.list_kinds:
        for fmt in formats():
            print(f"{fmt.name:22} {fmt.title}")
        return EXIT_OK
    if args.kind and get_format(args.kind) is None:
        print(
            f"rubric-lint: unknown kind {args.kind!r}; known: {', '.join(f.name for f in formats())}", file=sys.stderr
        )
        return EXIT_ERROR
    if not args.paths and args.stdin_filename:
        args.paths = [Path("-")]  # --stdin-filename alone means: read stdin
    if not args.paths:
        print("rubric-lint: no paths given (try: rubric-lint samples/)", file=sys.stderr)
        return EXIT_ERROR

    select, ignore = _codes(args.select), _codes(args.ignore)
    try:
        check_codes(tuple(c.upper() for c in select), "--select")
        check_codes(tuple(c.upper() for c in ignore), "--ignore")
        fixed_settings = load_settings(args.config) if args.config else None
    except (SettingsError, OSError) as exc:
        print(f"rubric-lint: {exc}", file=sys.stderr)
        return EXIT_ERROR
    settings_cache: dict[Path, Settings] = {}

    def settings_of(path: Path) -> Settings:
        base = fixed_settings
        if base is None:
            folder = path.resolve().parent
            base = settings_cache.get(folder)
            if base is None:
                base = settings_cache[folder] = settings_for(path)
        return base.with_overrides(select, ignore)

    results: list[LintResult] = []
    skipped: list[str] = []
    fixed_total = 0
    errors = 0
    try:
        for raw in args.paths:
            if str(raw) == "-":
                name = args.stdin_filename or "-"
                settings = settings_of(Path(name)) if args.stdin_filename else Settings().with_overrides(select, ignore)
                data = sys.stdin.buffer.read()
                explicit = not getattr(args, "skip_unknown", False)
                result = lint_text(data, name, settings=settings, kind=args.kind, explicit=explicit)
                if args.fix:  # the (fixed) text always goes to stdout, findings to stderr
                    text, count = _fix_text(result, settings, args)
                    fixed_total += count
                    _write_stdout((_BOM if data.startswith(_BOM) else b"") + text.encode("utf-8") if count else data)
                    if count:
                        result = lint_text(text, name, settings=settings, kind=args.kind, explicit=explicit)
                if result.skipped:
                    skipped.append(name)
                else:
                    results.append(result)
                continue
            if not raw.exists():
                print(f"rubric-lint: {raw}: no such file or folder", file=sys.stderr)
                errors += 1
                continue
            named = raw.is_file()
            # --skip-unknown (the pre-commit hook): a named file is treated like one found
            # by walking: skipped unless recognised, and subject to `exclude`.
            explicit = named and not getattr(args, "skip_unknown", False)
            files = [raw] if named else _walk(raw)
            for path in files:
                settings = settings_of(path)
                if not explicit and settings.excluded(path):
                    continue
                try:
                    result = lint_path(path, settings=settings, kind=args.kind, explicit=explicit)
                except OSError as exc:
                    print(f"rubric-lint: {path}: cannot read: {exc.strerror}", file=sys.stderr)
                    errors += 1
                    continue
                if args.fix and any(d.fix for d in result.diagnostics):
                    text, count = _fix_text(result, settings, args)
                    if count:
                        _write_keeping_bom(path, text)
                        fixed_total += count
                        result = lint_path(path, settings=settings, kind=args.kind, explicit=explicit)
                if result.skipped:
                    skipped.append(str(path))
                    continue
                results.append(result)
    except SettingsError as exc:
        print(f"rubric-lint: {exc}", file=sys.stderr)
        return EXIT_ERROR

    out = sys.stdout if not (args.fix and any(str(p) == "-" for p in args.paths)) else sys.stderr
    if args.format == "json":
        reporters.write_json(results, out)
    elif args.format == "sarif":
        reporters.write_sarif(results, out, __version__)
    elif args.format == "github":
        reporters.write_github(results, out)
    elif args.quiet:
        reporters.write_text(results, out, skipped=[], summary=False)
    else:
        reporters.write_text(results, out, skipped=skipped, fixed=fixed_total)
        if not results and skipped:
            print("(no file of a known kind was found; see rubric-lint --list-kinds)", file=out)
    if errors:
        return EXIT_ERROR
    fail_level = Severity.parse(args.fail_level)
    failing = any(d.severity <= fail_level for r in results for d in r.diagnostics)
    return EXIT_FINDINGS if failing else EXIT_OK


_BOM = b"\xef\xbb\xbf"


def _write_keeping_bom(path: Path, text: str) -> None:
    """Write fixed text back byte-exactly: line endings as they were, a BOM kept if there was one."""
    with path.open("rb") as handle:
        bom = handle.read(3) == _BOM
    path.write_bytes((_BOM if bom else b"") + text.encode("utf-8"))


def _write_stdout(data: bytes) -> None:
    """The text read from stdin, fixed or not, byte for byte (no re-encoding of bad bytes)."""
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(data.decode("utf-8", errors="replace"))
    else:
        buffer.write(data)
        buffer.flush()


def _walk(folder: Path):
    from rubric_lsp.walk import iter_files

    return iter_files(folder)


def _fix_text(result: LintResult, settings: Settings, args) -> tuple[str, int]:
    from rubric_lsp.fixes import fix_all

    return fix_all(
        result, lambda text: lint_text(text, result.path, settings=settings, kind=args.kind), unsafe=args.unsafe_fixes
    )
