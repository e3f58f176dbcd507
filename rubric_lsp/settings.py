"""rubric-lint settings: ``[tool.rubric-lint]`` in a pyproject.toml, or a standalone
``.rubric-lint.toml`` / ``rubric-lint.toml`` (same keys, at the top level).

Found as ruff finds its own: walking up from a file, the first folder holding
``.rubric-lint.toml``, ``rubric-lint.toml`` or a pyproject.toml with ``[tool.rubric-lint]``
(in that order of precedence) gives the settings; nothing is merged across folders.
"""

from __future__ import annotations

import fnmatch
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rubric_lsp.calibration.settings import CalibrationSettings
from rubric_lsp.diagnostics import Severity
from rubric_lsp.document.files import read_regular_text
from rubric_lsp.workspace import nearest_above, resolved

if TYPE_CHECKING:
    import pathspec


class SettingsError(ValueError):
    pass


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ()  # empty: every rule
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    severity: tuple[tuple[str, Severity], ...] = ()
    exclude: tuple[str, ...] = ()
    max_file_size: int | None = None
    # (glob relative to ``root``, kind): files matching a glob are that kind, whatever their name or content.
    kinds: tuple[tuple[str, str], ...] = ()
    # (owner tool, release): the release of the tool that runs these files to lint and grade as
    # (``versions = {promptfoo = "0.121.9"}``); a tool not named: the latest release tracked.
    versions: tuple[tuple[str, str], ...] = ()
    # (place, keys): keys promptfoo ignores there that the user's own scripts read
    # (``extra-keys = {test = ["tags"]}``): PF001 does not report them.
    extra_keys: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # ``calibration = {required = true, min-kappa = 0.6, path = "calibration", judge = "openai/gpt-4.1-mini"}``:
    # what the calibration rule (RL020) requires and where it finds records (docs/calibration.md).
    calibration: CalibrationSettings = field(default_factory=CalibrationSettings)
    root: Path | None = None  # folder holding the pyproject.toml the settings came from
    source: Path | None = None
    # What select, extend-select and ignore say of each code asked (a folder run asks them for every file).
    _selected: dict[str, bool] = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    def is_enabled(self, code: str, path: str | None = None) -> bool:
        selected = self._selected.get(code)
        if selected is None:
            selected = self._selected[code] = self._selects(code)
        if not selected:
            return False
        if path is not None and self.per_file_ignores:
            rel = self._relative(path)
            for pattern, codes in self.per_file_ignores:
                if (fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(Path(rel).name, pattern)) and _matches(
                    code, codes
                ):
                    return False
        return True

    def _selects(self, code: str) -> bool:
        """Whether select, extend-select and ignore leave ``code`` on (per-file-ignores aside)."""
        if self.select and not _matches(code, self.select) and not _matches(code, self.extend_select):
            return False
        ignored = _longest(code, self.ignore)
        selected = max(_longest(code, self.select), _longest(code, self.extend_select))
        return not (ignored and ignored >= selected)

    def names(self, code: str, *, exactly: bool = False) -> bool:
        """Whether ``select`` or ``extend-select`` names the smell rule ``code``: by itself (``exactly``), or by a
        prefix at least as narrow as the smells' own (``RL3``, ``RL30``); ``RL`` and ``ALL`` do not (docs/smells.md)."""
        chosen = self.select + self.extend_select
        if exactly:
            return code in chosen
        return any(code.startswith(entry) and len(entry) >= len(SMELLS) for entry in chosen)

    def names_smells(self) -> bool:
        """Whether ``select`` or ``extend-select`` names any smell rule: the lint then reads them."""
        return any(entry.startswith(SMELLS) for entry in self.select + self.extend_select)

    def severity_for(self, code: str, default: Severity) -> Severity:
        best, best_len = default, 0
        for prefix, severity in self.severity:
            if code.startswith(prefix) and len(prefix) > best_len:
                best, best_len = severity, len(prefix)
        return best

    def kind_for(self, path: str | None) -> str | None:
        """The kind ``kinds`` gives this file (the first glob that matches, in the order written), or None."""
        if not self.kinds or not path or path == "-":
            return None
        rel = self._relative(path)
        for glob, kind in self.kinds:
            if _glob(glob).match_file(rel):
                return kind
        return None

    def excluded(self, path: Path) -> bool:
        rel = self._relative(str(path))
        return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(path.name, p) for p in self.exclude)

    def _relative(self, path: str) -> str:
        if self.root is not None:
            try:
                # The folder resolved, not the file: globs name the path the user sees (a link's own
                # name), and resolving a link loop would raise.
                where = Path(path)
                return (where.parent.resolve() / where.name).relative_to(self.root.resolve()).as_posix()
            except ValueError:
                pass
        return Path(path).as_posix()

    def with_overrides(self, select: list[str] | None = None, ignore: list[str] | None = None) -> Settings:
        from dataclasses import replace

        return replace(
            self,
            select=tuple(c.upper() for c in select) if select else self.select,
            ignore=self.ignore + tuple(c.upper() for c in (ignore or [])),
        )


def _matches(code: str, prefixes: tuple[str, ...]) -> bool:
    return any(code.startswith(p) for p in prefixes) or "ALL" in prefixes


def _longest(code: str, prefixes: tuple[str, ...]) -> int:
    lengths = [len(p) for p in prefixes if code.startswith(p)] + ([0.5] if "ALL" in prefixes else [])
    return max(lengths, default=0)  # type: ignore[return-value]


@lru_cache(maxsize=256)
def _glob(pattern: str) -> pathspec.GitIgnoreSpec:
    # gitignore's glob rules: `**/` matches zero or more folders, a pattern without `/` matches at any depth.
    from rubric_lsp import globs  # only when a `kinds` table is set: most runs never need it

    return globs.spec([pattern])


# Standalone settings files, in ruff's order of precedence (a dotted file first, then pyproject.toml).
CONFIG_FILES = (".rubric-lint.toml", "rubric-lint.toml")


def find_config(start: Path) -> Path | None:
    """The settings file that applies to ``start``: see the module docstring."""
    folder = start if start.is_dir() else start.parent
    return nearest_above(resolved(folder), "settings", _settings_file_in)


def _settings_file_in(folder: Path) -> Path | None:
    for name in CONFIG_FILES:
        if (folder / name).is_file():
            return folder / name
    path = folder / "pyproject.toml"
    if path.is_file():
        try:
            data = _read_toml(path, path.stat().st_mtime_ns)
        except SettingsError:
            return path
        if "rubric-lint" in data.get("tool", {}):
            return path
    return None


find_pyproject = find_config  # the name it had when only pyproject.toml was read


def _toml() -> Any:
    """The TOML reader, imported when a settings file is read (a folder without one never needs it)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib


@lru_cache(maxsize=64)
def _read_toml(path: Path, _mtime: int) -> dict:
    try:
        return _toml().loads(read_regular_text(path))
    except RecursionError:  # tomllib recurses per nesting level: a settings file nested thousands deep
        raise SettingsError(f"{path}: cannot read settings: nested too deeply") from None
    except (OSError, UnicodeDecodeError, _toml().TOMLDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read settings: {exc}") from exc


def load_settings(path: Path) -> Settings:
    """Settings from ``path``: ``[tool.rubric-lint]`` of a pyproject.toml, else the whole file (rubric-lint.toml)."""
    data = _read_toml(path, path.stat().st_mtime_ns)
    if path.name == "pyproject.toml":
        return settings_from_mapping(data.get("tool", {}).get("rubric-lint", {}), root=path.parent, source=path)
    return settings_from_mapping(data, root=path.parent, source=path, standalone=True)


KNOWN_KEYS = (
    "select",
    "ignore",
    "extend-select",
    "per-file-ignores",
    "severity",
    "exclude",
    "max-file-size",
    "kinds",
    "versions",
    "extra-keys",
    "calibration",
)


def settings_from_mapping(
    data: dict, root: Path | None = None, source: Path | None = None, *, standalone: bool = False
) -> Settings:
    """Validate ``[tool.rubric-lint]`` (or a standalone file's top level); every mistake raises
    :class:`SettingsError` naming it."""
    if standalone:
        where = f"{source}: " if source else ""
    else:
        where = f"{source}: [tool.rubric-lint] " if source else "[tool.rubric-lint] "
    if not isinstance(data, dict):
        raise SettingsError(f"{where}must be a table")
    unknown = sorted(set(data) - set(KNOWN_KEYS))
    if unknown:
        from difflib import get_close_matches

        hints = []
        for key in unknown:
            near = get_close_matches(key, KNOWN_KEYS, n=1)
            hints.append(f"'{key}'" + (f" (did you mean '{near[0]}'?)" if near else ""))
        layout = (
            " (in this file the settings go at the top level, without a [tool.rubric-lint] header)"
            if standalone and "tool" in unknown
            else ""
        )
        raise SettingsError(f"{where}has unknown setting(s) {', '.join(hints)}; known: {', '.join(KNOWN_KEYS)}{layout}")

    def code_list(value, what: str) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise SettingsError(f'{where}{what} must be a list of rule codes or prefixes, e.g. ["AR1", "RL005"]')
        found = tuple(v.strip().upper() for v in value)
        check_codes(found, f"{where}{what}")
        return found

    per_file = data.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise SettingsError(f"{where}'per-file-ignores' must be a table of \"glob\" = [codes]")
    per_file_ignores = tuple(
        (glob, code_list(codes, f"'per-file-ignores' entry {glob!r}")) for glob, codes in per_file.items()
    )
    severity = data.get("severity", {})
    if not isinstance(severity, dict):
        raise SettingsError(f'{where}\'severity\' must be a table of CODE = "error" | "warning" | "info"')
    severities = []
    for code, level in severity.items():
        if not isinstance(level, str):
            raise SettingsError(f'{where}\'severity\' for {code}: use "error", "warning" or "info", not {level!r}')
        try:
            severities.append((code.strip().upper(), Severity.parse(level)))
        except ValueError as exc:
            raise SettingsError(f"{where}'severity' for {code}: {exc}") from None
    check_codes(tuple(code for code, _ in severities), f"{where}'severity'")
    exclude = data.get("exclude", [])
    if not isinstance(exclude, list) or not all(isinstance(v, str) for v in exclude):
        raise SettingsError(f"{where}'exclude' must be a list of glob patterns")
    max_size = data.get("max-file-size")
    if max_size is not None and (isinstance(max_size, bool) or not isinstance(max_size, int) or max_size <= 0):
        raise SettingsError(f"{where}'max-file-size' must be a positive number of bytes, not {max_size!r}")
    return Settings(
        kinds=_kinds(data.get("kinds", {}), where),
        versions=_versions(data.get("versions", {}), where),
        extra_keys=_extra_keys(data.get("extra-keys", {}), where),
        calibration=_calibration(data.get("calibration", {}), where, root),
        select=code_list(data.get("select", []), "'select'"),
        ignore=code_list(data.get("ignore", []), "'ignore'"),
        extend_select=code_list(data.get("extend-select", []), "'extend-select'"),
        per_file_ignores=per_file_ignores,
        severity=tuple(severities),
        exclude=tuple(exclude),
        max_file_size=max_size,
        root=root,
        source=source,
    )


def _versions(table: object, where: str) -> tuple[tuple[str, str], ...]:
    """``versions = {promptfoo = "0.121.9"}``: each release a dotted version number."""
    example = 'e.g. versions = {promptfoo = "0.123.1"}'
    if not isinstance(table, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
        raise SettingsError(f"{where}'versions' must be a table of tool = \"release\", {example}")
    if not table:
        return ()
    from rubric_lsp.formats.registry import formats

    tracked: dict[str, tuple[str, ...]] = {}
    for fmt in formats():
        if fmt.owner is not None:
            tracked[fmt.owner] = fmt.releases
    known = "; ".join(f"{owner}: {', '.join(releases)}" for owner, releases in sorted(tracked.items()))
    for tool, version in table.items():
        releases = tracked.get(tool)
        if releases is None:
            raise SettingsError(f"{where}'versions' entry {tool!r}: not a tool rubric-lsp tracks (tracked: {known})")
        if version.strip().lstrip("v") not in releases:
            raise SettingsError(
                f"{where}'versions' entry {tool!r}: {version!r} is not a release rubric-lsp tracks "
                f"({', '.join(releases)}); name the one whose behaviour your {tool} has"
            )
    return tuple((tool, version.strip().lstrip("v")) for tool, version in table.items())


CALIBRATION_KEYS = ("required", "min-kappa", "min-labels", "allow-ambiguous", "path", "judge")


def _calibration(table: object, where: str, root: Path | None) -> CalibrationSettings:
    """``calibration = {required = true, min-kappa = 0.6, min-labels = 30, allow-ambiguous = false, path = "…",
    judge = "…"}`` (docs/calibration.md)."""
    what = f"{where}'calibration'"
    if not isinstance(table, dict):
        raise SettingsError(f"{what} must be a table, e.g. calibration = {{ required = true, min-kappa = 0.6 }}")
    unknown = sorted(set(table) - set(CALIBRATION_KEYS))
    if unknown:
        raise SettingsError(
            f"{what} has unknown key(s) {', '.join(map(repr, unknown))}; known: {', '.join(CALIBRATION_KEYS)}"
        )
    required = table.get("required", False)
    if not isinstance(required, bool):
        raise SettingsError(f"{what} 'required' must be true or false, not {required!r}")
    floor = table.get("min-kappa")
    if floor is not None and (isinstance(floor, bool) or not isinstance(floor, (int, float)) or not -1 <= floor <= 1):
        raise SettingsError(f"{what} 'min-kappa' must be a number between -1 and 1 (κ's range), not {floor!r}")
    min_labels = table.get("min-labels", 1)
    if isinstance(min_labels, bool) or not isinstance(min_labels, int) or min_labels < 0:
        raise SettingsError(
            f"{what} 'min-labels' must be a whole number of compared labels (0 or more), not {min_labels!r}"
        )
    allow_ambiguous = table.get("allow-ambiguous", False)
    if not isinstance(allow_ambiguous, bool):
        raise SettingsError(f"{what} 'allow-ambiguous' must be true or false, not {allow_ambiguous!r}")
    path = table.get("path")
    if path is not None and (not isinstance(path, str) or not path.strip()):
        raise SettingsError(
            f"{what} 'path' must be a record file or a folder of records, relative to the settings file"
        )
    judge = table.get("judge", [])
    judge = [judge] if isinstance(judge, str) else judge
    if not isinstance(judge, list) or not all(isinstance(m, str) and m.strip() for m in judge):
        raise SettingsError(f"{what} 'judge' must be a judge model or a list of them, e.g. \"openai/gpt-4.1-mini\"")
    return CalibrationSettings(
        required=required,
        min_kappa=None if floor is None else float(floor),
        path=None if path is None else (root or Path.cwd()) / path,
        judge=tuple(m.strip() for m in judge),
        min_labels=min_labels,
        allow_ambiguous=allow_ambiguous,
    )


# The places PF001 reports unknown promptfoo keys.
EXTRA_KEY_PLACES = ("top-level", "test", "defaultTest")


def _extra_keys(table: object, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``extra-keys = {test = ["tags"]}``: per place, keys of the user's own that PF001 leaves alone."""
    example = 'e.g. extra-keys = {test = ["tags"]}'
    if not isinstance(table, dict) or not all(
        isinstance(keys, list) and all(isinstance(k, str) for k in keys) for keys in table.values()
    ):
        raise SettingsError(f"{where}'extra-keys' must be a table of place = [keys], {example}")
    for place in table:
        if place not in EXTRA_KEY_PLACES:
            raise SettingsError(
                f"{where}'extra-keys' entry {place!r}: not a place PF001 checks ({', '.join(EXTRA_KEY_PLACES)})"
            )
    return tuple((place, tuple(keys)) for place, keys in table.items())


def _kinds(table: object, where: str) -> tuple[tuple[str, str], ...]:
    """``kinds = {"evals/rubrics/**/*.json" = "autorubric-rubric"}``, each kind checked against the registry."""
    if not isinstance(table, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
        raise SettingsError(
            f'{where}\'kinds\' must be a table of "glob" = "kind", e.g. "evals/**/*.json" = "autorubric-rubric"'
        )
    if not table:
        return ()
    from rubric_lsp.formats.registry import formats, get_format

    for glob, kind in table.items():
        if get_format(kind) is None:
            raise SettingsError(
                f"{where}'kinds' entry {glob!r}: unknown kind {kind!r}; known: {', '.join(f.name for f in formats())}"
            )
    return tuple(table.items())


# The smell rules' codes (docs/smells.md): read only when selected, or in an editor.
SMELLS = "RL3"

# Code prefixes (docs/architecture.md): any file, autorubric, promptfoo, NorthStar, Rubrics task.
CODE_PREFIXES = ("RL", "AR", "PF", "NS", "RT")
_CODE_OR_PREFIX = re.compile(r"(?:{})[0-9]{{0,3}}".format("|".join(CODE_PREFIXES)))


def check_codes(codes: tuple[str, ...], where: str) -> None:
    """Refuse what cannot be a code or prefix (a typo would silently select nothing).

    Checked by form, not against the registry, so reading settings does not import every
    format's rules (start-up cost on every lint).
    """
    for code in codes:
        if code == "ALL" or _CODE_OR_PREFIX.fullmatch(code):
            continue
        raise SettingsError(
            f"{where}: {code!r} is not a rule code or prefix (one of {', '.join(CODE_PREFIXES)}, "
            "then up to three digits, e.g. AR1 or RL005; or ALL); see rubric-lint --list-rules"
        )


def settings_for(path: Path) -> Settings:
    found = find_config(path)
    if found is None:
        return Settings()
    return load_settings(found)


def configured_kind(path: str | None) -> str | None:
    """The kind the settings' ``kinds`` give ``path`` (None: none, or the settings cannot be read)."""
    if not path or path == "-":
        return None
    try:
        return settings_for(Path(path)).kind_for(path)
    except (SettingsError, OSError):
        return None
