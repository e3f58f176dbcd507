"""``[tool.rubric-lint]`` settings, found by walking up from a file to a pyproject.toml."""

from __future__ import annotations

import fnmatch
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from rubric_lsp.diagnostics import Severity

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


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
    root: Path | None = None  # folder holding the pyproject.toml the settings came from
    source: Path | None = None

    def is_enabled(self, code: str, path: str | None = None) -> bool:
        if self.select and not _matches(code, self.select) and not _matches(code, self.extend_select):
            return False
        ignored = _longest(code, self.ignore)
        selected = max(_longest(code, self.select), _longest(code, self.extend_select))
        if ignored and ignored >= selected:
            return False
        if path is not None and self.per_file_ignores:
            rel = self._relative(path)
            for pattern, codes in self.per_file_ignores:
                if (fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(Path(rel).name, pattern)) and _matches(code, codes):
                    return False
        return True

    def severity_for(self, code: str, default: Severity) -> Severity:
        best, best_len = default, 0
        for prefix, severity in self.severity:
            if code.startswith(prefix) and len(prefix) > best_len:
                best, best_len = severity, len(prefix)
        return best

    def excluded(self, path: Path) -> bool:
        rel = self._relative(str(path))
        return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(path.name, p) for p in self.exclude)

    def _relative(self, path: str) -> str:
        if self.root is not None:
            try:
                return Path(path).resolve().relative_to(self.root.resolve()).as_posix()
            except ValueError:
                pass
        return Path(path).as_posix()

    def with_overrides(self, select: list[str] | None = None, ignore: list[str] | None = None) -> "Settings":
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


def find_pyproject(start: Path) -> Path | None:
    folder = start if start.is_dir() else start.parent
    folder = folder.resolve()
    for candidate in (folder, *folder.parents):
        path = candidate / "pyproject.toml"
        if path.is_file():
            try:
                data = _read_toml(path, path.stat().st_mtime_ns)
            except SettingsError:
                return path
            if "rubric-lint" in data.get("tool", {}):
                return path
    return None


@lru_cache(maxsize=64)
def _read_toml(path: Path, _mtime: int) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read settings: {exc}") from exc


def load_settings(path: Path) -> Settings:
    """Settings from ``[tool.rubric-lint]`` in ``path`` (a pyproject.toml)."""
    data = _read_toml(path, path.stat().st_mtime_ns).get("tool", {}).get("rubric-lint", {})
    return settings_from_mapping(data, root=path.parent, source=path)


def settings_from_mapping(data: dict, root: Path | None = None, source: Path | None = None) -> Settings:
    known = {"select", "ignore", "extend-select", "per-file-ignores", "severity", "exclude", "max-file-size"}
    unknown = sorted(set(data) - known)
    where = f"{source}: " if source else ""
    if unknown:
        raise SettingsError(f"{where}unknown [tool.rubric-lint] setting(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})")

    def codes(key: str) -> tuple[str, ...]:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise SettingsError(f"{where}'{key}' must be a list of rule codes or prefixes")
        return tuple(v.strip().upper() for v in value)

    per_file = data.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise SettingsError(f"{where}'per-file-ignores' must be a table of glob = [codes]")
    severity = data.get("severity", {})
    if not isinstance(severity, dict):
        raise SettingsError(f"{where}'severity' must be a table of CODE = \"error\"|\"warning\"|\"info\"")
    try:
        severities = tuple((k.upper(), Severity.parse(str(v))) for k, v in severity.items())
    except ValueError as exc:
        raise SettingsError(f"{where}{exc}") from None
    max_size = data.get("max-file-size")
    if max_size is not None and (not isinstance(max_size, int) or max_size <= 0):
        raise SettingsError(f"{where}'max-file-size' must be a positive number of bytes")
    return Settings(
        select=codes("select"),
        ignore=codes("ignore"),
        extend_select=codes("extend-select"),
        per_file_ignores=tuple((glob, tuple(c.upper() for c in v)) for glob, v in per_file.items()),
        severity=severities,
        exclude=tuple(data.get("exclude", [])),
        max_file_size=max_size,
        root=root,
        source=source,
    )


def settings_for(path: Path) -> Settings:
    found = find_pyproject(path)
    if found is None:
        return Settings()
    return load_settings(found)
