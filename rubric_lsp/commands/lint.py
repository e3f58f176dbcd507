"""``rubric-lint PATH...``."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from rubric_lsp import __version__
from rubric_lsp.commands.fix_report import FixLog, unified_diff
from rubric_lsp.diagnostics import Severity
from rubric_lsp.document import encode_like, gc_paused
from rubric_lsp.document.files import TooLarge, UnreadableFile, read_regular
from rubric_lsp.document.limits import DEFAULT_LIMITS
from rubric_lsp.formats.registry import formats, get_format
from rubric_lsp.lint import LintResult, lint_path, lint_text, unreadable
from rubric_lsp.settings import Settings, SettingsError, check_codes, load_settings, settings_for
from rubric_lsp.workspace import one_run, resolved

if TYPE_CHECKING:
    from rubric_lsp.fixes import FixOutcome
    from rubric_lsp.reporters.lint.base import Reporter

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
    early = _listing_or_usage_error(args)
    if early is not None:
        return early
    if args.diff:  # --diff is --fix that writes nothing
        args.fix = True
    if args.watch:
        from rubric_lsp.commands.watch import watch

        return watch(list(args.paths), lambda: _lint_once(args))
    return _lint_once(args)


def _lint_once(args) -> int:
    """One run, its report going to --output-file (written anew each run) or stdout."""
    if args.output_file is None:
        code = _lint_paths(args, None)
        sys.stdout.flush()
        return code
    try:
        args.output_file.parent.mkdir(parents=True, exist_ok=True)
        stream = args.output_file.open("w", encoding="utf-8", errors="backslashreplace", newline="")
    except OSError as exc:
        print(f"rubric-lint: cannot write {args.output_file}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERROR
    with stream:
        return _lint_paths(args, stream)


def _listing_or_usage_error(args) -> int | None:
    """--list-rules, --list-kinds, or a usage error: the exit code; None: go on and lint."""

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
        args.paths = [Path(".")]  # as ruff does: no path lints the current folder
    conflict = _conflicting_options(args)
    if conflict:
        print(f"rubric-lint: {conflict}", file=sys.stderr)
        return EXIT_ERROR
    return None


def _conflicting_options(args) -> str | None:
    reads_stdin = any(str(p) == "-" for p in args.paths)
    if args.watch and reads_stdin:
        return "--watch needs files or folders to watch, not stdin"
    if args.watch and args.diff:
        return "--watch and --diff do not go together (--diff is a one-off check)"
    if args.diff and args.statistics:
        return "--diff prints the changes, --statistics the counts: choose one"
    return None


def _lint_paths(args, output: TextIO | None) -> int:
    with one_run():  # each folder's repository and settings file looked up once per run
        return _lint_paths_once(args, output)


def _lint_paths_once(args, output: TextIO | None) -> int:
    select, ignore = _codes(args.select), _codes(args.ignore)
    try:
        check_codes(tuple(c.upper() for c in select), "--select")
        check_codes(tuple(c.upper() for c in ignore), "--ignore")
        fixed_settings = load_settings(args.config) if args.config else None
    except (SettingsError, OSError) as exc:
        print(f"rubric-lint: {exc}", file=sys.stderr)
        return EXIT_ERROR
    settings_cache: dict[Path, Settings] = {}
    by_name: dict[str, Settings] = {}  # the same, by the folder as the paths name it (most files share theirs)

    fixed = fixed_settings.with_overrides(select, ignore) if fixed_settings is not None else None

    def settings_of(path: Path) -> Settings:
        if fixed is not None:
            return fixed
        name = os.path.dirname(path)
        found = by_name.get(name)
        if found is not None:
            return found
        folder = resolved(path.parent)  # not path.resolve(): a link loop has no target
        found = settings_cache.get(folder)
        if found is None:  # (one Settings per folder: what it says of each code is remembered across its files)
            found = settings_cache[folder] = settings_for(path).with_overrides(select, ignore)
        by_name[name] = found
        return found

    fixed_stdin = args.fix and not args.diff and any(str(p) == "-" for p in args.paths)
    out = output or (sys.stderr if fixed_stdin else sys.stdout)  # --fix on stdin: stdout is the fixed text
    # Each file is reported as soon as it is linted (and fixed), then dropped: a folder
    # run's memory stays that of its largest file, whatever the number of files.
    reporter = _reporter(args, out)
    fail_level = Severity.parse(args.fail_level)
    run = _Run(args, reporter, fail_level)
    try:
        for raw in args.paths:
            if str(raw) == "-":
                name = args.stdin_filename or "-"
                settings = settings_of(Path(name)) if args.stdin_filename else Settings().with_overrides(select, ignore)
                run.stdin(name, settings)
                continue
            if not raw.exists() and not raw.is_symlink():  # a link loop "does not exist": it is reported as RL008
                print(f"rubric-lint: {raw}: no such file or folder", file=sys.stderr)
                run.errors += 1
                continue
            named = not raw.is_dir()  # a FIFO or a device named here is a file, refused as RL008
            # --skip-unknown (the pre-commit hook): a named file is treated like one found
            # by walking: skipped unless recognised, and subject to `exclude`.
            explicit = named and not getattr(args, "skip_unknown", False)
            for path in [raw] if named else _walk(raw):
                settings = settings_of(path)
                if not explicit and settings.excluded(path):
                    continue
                run.file(path, settings, explicit)
    except SettingsError as exc:
        print(f"rubric-lint: {exc}", file=sys.stderr)
        if args.format != "text":
            reporter.close()  # keep what was written a whole JSON/SARIF document
        return EXIT_ERROR

    return _finish(args, run, out)


def _finish(args, run: _Run, out: TextIO) -> int:
    """Close the report, add what --diff and --show-fixes print after it, and give the exit code."""
    reporter = run.reporter
    text = args.format == "text" and not args.statistics and not args.diff
    if text and not args.quiet:
        # --show-fixes lists the fixes below: the summary does not count them too.
        reporter.close(skipped=run.skipped, fixed=0 if args.show_fixes else run.fixed)
        if not reporter.checked and run.skipped:
            print("(no file of a known kind was found; see rubric-lint --list-kinds)", file=out)
    else:
        reporter.close()
    if args.diff:
        run.fix_log.write(sys.stderr, would=True) if args.show_fixes else _would_fix_line(run.fix_log.total)
    elif args.show_fixes and args.fix:
        # Machine formats stay one document: the enumeration goes beside them, to stderr.
        run.fix_log.write(out if text else sys.stderr)
    return _exit_code(args, run)


def _reporter(args, out: TextIO) -> Reporter:
    from rubric_lsp.reporters import lint as reporters  # each output format's module loads when chosen

    if args.diff:
        return reporters.CountingReporter(out)
    if args.statistics:
        return reporters.StatisticsReporter(out, as_json=args.format == "json")
    return reporters.make_reporter(args.format, out, __version__, quiet=args.quiet)


def _would_fix_line(count: int) -> None:
    print(f"Would fix {count} problem(s)." if count else "No problems would be fixed.", file=sys.stderr)


def _exit_code(args, run: _Run) -> int:
    if run.errors:
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_OK
    if args.diff:  # as ruff's --diff: 1 when --fix would change a file
        return EXIT_FINDINGS if run.fix_log.total else EXIT_OK
    return EXIT_FINDINGS if run.failing else EXIT_OK


class _Run:
    """One rubric-lint run: lints (and fixes) file by file, hands each result to the reporter."""

    def __init__(self, args, reporter: Reporter, fail_level: Severity) -> None:
        self.args = args
        self.reporter = reporter
        self.fail_level = fail_level
        self.fixed = 0
        self.errors = 0
        self.skipped = 0
        self.failing = False
        self.fix_log = FixLog()

    def report(self, result: LintResult) -> None:
        if result.skipped:
            self.skipped += 1
            return
        self.failing = self.failing or any(d.severity <= self.fail_level for d in result.diagnostics)
        self.reporter.add(result)

    def stdin(self, name: str, settings: Settings) -> None:
        args = self.args
        data = sys.stdin.buffer.read()
        explicit = not getattr(args, "skip_unknown", False)
        result = lint_text(data, name, settings=settings, kind=args.kind, explicit=explicit)
        if args.diff:
            outcome = _fix(result, settings, args, name)
            self._show_diff(name, result, outcome)
        elif args.fix:  # the (fixed) text always goes to stdout, findings to stderr
            outcome = _fix(result, settings, args, name)
            self.fixed += outcome.applied
            self.fix_log.add(name, outcome.codes)
            _write_stdout(encode_like(data, outcome.text, name) if outcome.applied else data)
            if outcome.applied:
                result = lint_text(outcome.text, name, settings=settings, kind=args.kind, explicit=explicit)
        self.report(result)

    def file(self, path: Path, settings: Settings, explicit: bool) -> None:
        # The file's nodes are reported and dropped before the collector runs again: resumed while they
        # lived, its first passes would walk every one of them (a fifth of a run over many files).
        with gc_paused():
            self._file(path, settings, explicit)

    def _file(self, path: Path, settings: Settings, explicit: bool) -> None:
        args = self.args
        try:
            data, result = _read_and_lint(path, settings, args.kind, explicit)
        except OSError as exc:
            # One finding for this file (as ruff's E902); the rest of the run goes on.
            self.report(unreadable(path, _why_unreadable(path, exc), settings))
            return
        if args.fix and data is not None and any(d.fix for d in result.diagnostics):
            outcome = _fix(result, settings, args, str(path))
            if args.diff:
                self._show_diff(str(path), result, outcome)
            elif outcome.applied:
                problem = write_fixed(path, data, outcome.text)
                if problem:
                    print(f"rubric-lint: {path}: {problem}", file=sys.stderr)
                    self.errors += 1
                else:
                    self.fixed += outcome.applied
                    self.fix_log.add(str(path), outcome.codes)
                    result = outcome.result
        self.report(result)

    def _show_diff(self, name: str, result: LintResult, outcome: FixOutcome) -> None:
        """--diff: the change --fix would make, on stdout; nothing is written."""
        if not outcome.applied or outcome.text == result.document.text:
            return
        self.fix_log.add(name, outcome.codes)
        sys.stdout.write(unified_diff(name, result.document.text, outcome.text))


def _read_and_lint(path: Path, settings: Settings, kind: str | None, explicit: bool) -> tuple[bytes | None, LintResult]:
    """The file's bytes as read (None when too large to read: it is refused unread) and their lint.

    Only a regular file is opened (a FIFO would block, a link to /dev/zero never end): anything else
    raises UnreadableFile, an OSError.
    """

    limit = settings.max_file_size or DEFAULT_LIMITS.max_bytes
    try:
        data = read_regular(path, limit)  # (it checks the file's type and size before opening it)
    except TooLarge:
        return None, lint_path(path, settings=settings, kind=kind, explicit=explicit)  # refused by its size alone
    return data, lint_text(data, str(path), settings=settings, kind=kind, explicit=explicit)


def _why_unreadable(path: Path, exc: OSError) -> str:
    if isinstance(exc, UnreadableFile):
        return str(exc)
    if exc.errno == errno.ELOOP:
        return f"{path} is a symlink loop: not read"
    if exc.errno == errno.ENOENT and path.is_symlink():
        return f"{path} is a dangling symlink (its target {os.readlink(path)} does not exist): not read"
    return f"{path} cannot be read: {exc.strerror or exc}"


def _fix(result: LintResult, settings: Settings, args, name: str) -> FixOutcome:
    """The guarded fix rounds; what the guard refused and what did not settle goes to stderr."""
    from rubric_lsp.fixes import fix_until_settled

    outcome = fix_until_settled(
        result, lambda text: lint_text(text, result.path, settings=settings, kind=args.kind), unsafe=args.unsafe_fixes
    )
    for dropped in outcome.dropped:
        print(
            f"rubric-lint: {name}:{dropped.line + 1}:{dropped.character + 1}: {dropped.code} fix not applied: "
            f"{dropped.reason}",
            file=sys.stderr,
        )
    if not outcome.settled:
        print(
            f"rubric-lint: {name}: fixes did not settle: {outcome.unsettled} still on offer after "
            f"{outcome.rounds} rounds (run --fix again, or fix them by hand)",
            file=sys.stderr,
        )
    return outcome


def write_fixed(path: Path, original: bytes, text: str) -> str | None:
    """Write fixed text back, or say why not (None: written).

    Byte-exact (line endings as they were, a BOM kept if there was one) and never over a change:
    if the file's bytes differ from those the fixes were computed on (an editor saved meanwhile),
    it is left alone. The file written is the one the user meant: a symlink's target (the link
    stays a link). It is replaced atomically (a temporary file beside the target, renamed over it,
    mode and owner kept), except where a rename would change what the file is: a file with several
    hard links (they would stop sharing it) or one whose owner cannot be kept is rewritten in place.
    """
    import os

    data = encode_like(original, text, str(path))
    changed = "changed on disk since it was read; left as it is (run --fix again)"
    try:
        target = Path(os.path.realpath(path))
        info = target.stat()
        # Root may write anything: the mode bits still say the owner wants it left alone.
        if not info.st_mode & 0o222 or not os.access(target, os.W_OK):
            return "cannot write the fixes: the file is read-only"
        if target.read_bytes() != original:
            return changed
        if info.st_nlink > 1:
            return _write_in_place(target, original, data, changed)
        return _replace_atomically(target, info, original, data, changed)
    except OSError as exc:
        return f"cannot write the fixes: {exc.strerror or exc}"


def _replace_atomically(target: Path, info: os.stat_result, original: bytes, data: bytes, changed: str) -> str | None:
    import stat
    import tempfile

    handle, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".rubric-lint")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temp, stat.S_IMODE(info.st_mode))
        if (info.st_uid, info.st_gid) != (os.stat(temp).st_uid, os.stat(temp).st_gid):
            try:
                os.chown(temp, info.st_uid, info.st_gid)
            except PermissionError:  # a file of another owner we may write: keep it theirs
                os.unlink(temp)
                return _write_in_place(target, original, data, changed)
        if target.read_bytes() != original:  # once more, as close to the rename as it gets
            os.unlink(temp)
            return changed
        os.replace(temp, target)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
    return None


def _write_in_place(target: Path, original: bytes, data: bytes, changed: str) -> str | None:
    """Rewrite the file's own inode (its hard links, owner and mode stay as they are)."""
    with open(target, "r+b") as stream:
        if stream.read() != original:
            return changed
        stream.seek(0)
        stream.write(data)
        stream.truncate()
        stream.flush()
        os.fsync(stream.fileno())
    return None


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
