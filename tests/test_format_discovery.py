"""Formats come from the entry-point group ``rubric_lsp.formats`` (formats/discovery.py).

- pyproject.toml declares the built-ins there, as ``discovery.BUILTIN`` lists them (the table
  used when the installed metadata predates the group);
- the load order is fixed: the built-ins in ``BUILTIN``'s order, then the others by name;
- a third party's entry point that cannot be loaded (a missing module, something that is not a
  Format) is skipped with one message naming it, and every other format still works — checked
  in-process and with a real installed distribution (a ``*.dist-info`` on the path) under
  ``rubric lint``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rubric_lsp.formats import discovery, registry
from rubric_lsp.formats.discovery import Source
from rubric_lsp.formats.plugin import Format

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
RUBRIC = "criteria:\n  - name: a\n    weight: 5\n    requirement: ''\n"  # AR: an empty requirement


def test_pyproject_declares_the_builtin_formats_as_discovery_lists_them():
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["entry-points"][discovery.GROUP]
    assert list(declared.items()) == list(discovery.BUILTIN)


def test_each_builtin_entry_point_names_formats_and_their_packages_stay_light():
    for name, value in discovery.BUILTIN:
        found = Source(name, value, None, lambda value=value: _load(value)).formats()
        assert found and all(isinstance(fmt, Format) for fmt in found)
    probe = "import sys, rubric_lsp.formats.registry as r; r.formats(); print(' '.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=_env(), check=True)
    loaded = done.stdout.split()
    # Discovery imports each format's __init__ (and what those import: promptfoo's release table,
    # the grading options a format declares as plain data), no model, rule, view, editor or grader.
    light = {f"rubric_lsp.formats.{m}" for m in ("plugin", "registry", "discovery", "options", "promptfoo.versions")}
    for _, value in discovery.BUILTIN:
        package = value.split(":")[0]
        light |= {package, f"{package}.options", f"{package}.grading", f"{package}.grading.options"}
    heavy = [m for m in loaded if m.startswith("rubric_lsp.formats.") and m not in light]
    assert not heavy and "pydantic" not in loaded, heavy


def _load(value: str) -> object:
    from rubric_lsp.formats.plugin import load

    return load(value)


def _fake(name: str, value: str, loader=None, dist: str | None = "fake 1.0") -> Source:
    return Source(name, value, dist, loader or (lambda: _load(value)))


def test_sources_come_in_a_fixed_order_and_the_builtin_table_only_fills_in(monkeypatch):
    third = [_fake("zeta", "zeta_pkg:FORMATS"), _fake("alpha", "alpha_pkg:FORMATS")]
    monkeypatch.setattr(discovery, "_installed", lambda: list(third))
    names = [s.name for s in discovery.sources()]
    assert names == [*(name for name, _ in discovery.BUILTIN), "alpha", "zeta"]  # metadata without ours
    ours = [_fake(name, value, dist="rubric-lsp 0.1.0") for name, value in reversed(discovery.BUILTIN)]
    monkeypatch.setattr(discovery, "_installed", lambda: [*third, *ours])
    found = discovery.sources()
    assert [s.name for s in found] == names  # the installed metadata's order does not matter
    assert all(s.distribution for s in found)  # taken from the metadata, not the table


@pytest.fixture
def fresh_registry(monkeypatch):
    """The registry as before its first use; the real one is put back after the test."""
    monkeypatch.setattr(registry, "_FORMATS", {})
    monkeypatch.setattr(registry, "_RANK", {})
    monkeypatch.setattr(registry, "_BROKEN", [])
    monkeypatch.setattr(registry, "_checkers_loaded", set())
    monkeypatch.setattr(registry, "_loaded", False)


def test_a_broken_third_party_source_is_skipped_with_a_message_naming_it(fresh_registry, monkeypatch, caplog):
    def missing() -> object:
        raise ModuleNotFoundError("No module named 'decks_core'")

    broken = [
        _fake("decks", "decks_pkg:FORMATS", missing, dist="rubric-decks 2.0"),
        _fake("cards", "json:dumps"),  # a function, not a Format
    ]
    monkeypatch.setattr(discovery, "_installed", lambda: broken)
    from rubric_lsp.lint import lint_text

    result = lint_text(RUBRIC, "a.rubric.yaml")
    assert result.format is not None and result.format.name == "autorubric-rubric"
    assert result.diagnostics  # the built-in format's rules still run
    messages = registry.broken()
    assert messages[0].startswith("rubric-lsp: format plugin 'cards' (json:dumps from fake 1.0) names <function dumps")
    assert messages[0].endswith("not a Format or a sequence of Formats; its files are not checked")
    assert messages[1] == (
        "rubric-lsp: format plugin 'decks' (decks_pkg:FORMATS from rubric-decks 2.0) failed to load: "
        "ModuleNotFoundError: No module named 'decks_core'; its files are not checked"
    )
    assert [r.getMessage() for r in caplog.records if r.name == registry.__name__] == messages


def test_a_broken_builtin_source_is_a_bug_and_raised(fresh_registry, monkeypatch):
    monkeypatch.setattr(discovery, "BUILTIN", (("autorubric", "rubric_lsp.formats.no_such_format:FORMATS"),))
    monkeypatch.setattr(discovery, "_installed", list)
    with pytest.raises(discovery.PluginError, match="no_such_format"):
        registry.formats()


def _env(**extra: str) -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(REPO), *extra.pop("path", "").split(os.pathsep)]))
    return {**os.environ, "PYTHONPATH": path, **extra}


def test_rubric_lint_with_an_installed_distribution_whose_module_is_missing(tmp_path):
    """A real ``.dist-info`` on the path, as pip leaves it, whose package was since removed."""
    info = tmp_path / "site" / "rubric_gone-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rubric-gone\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{discovery.GROUP}]\ngone = rubric_gone:FORMATS\n")
    rubric = tmp_path / "a.rubric.yaml"
    rubric.write_text(RUBRIC)
    done = subprocess.run(
        [sys.executable, "-m", "rubric_lsp", "lint", str(rubric)],
        capture_output=True,
        text=True,
        env=_env(path=str(tmp_path / "site")),
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stderr  # the rubric's finding, not a crash
    assert "AR" in done.stdout
    assert done.stderr.strip() == (
        "rubric-lsp: format plugin 'gone' (rubric_gone:FORMATS from rubric-gone 1.0) failed to load: "
        "ModuleNotFoundError: No module named 'rubric_gone'; its files are not checked"
    )


def _by_metadata() -> list[tuple[str, str, str | None]]:
    import importlib.metadata

    points = importlib.metadata.entry_points(group=discovery.GROUP)
    return sorted((p.name, p.value, f"{p.dist.name} {p.dist.version}" if p.dist else None) for p in points)


def test_the_scan_finds_what_importlib_metadata_finds_without_importing_it():
    """Start-up: the built-ins are known from a scan of entry_points.txt files, not by importlib.metadata
    reading every installed distribution (tests/test_speed_guard.py keeps it off the lint path); whichever
    way it goes, it finds what importlib.metadata finds."""
    found = sorted((s.name, s.value, s.distribution) for s in discovery._installed())
    assert found == _by_metadata()


def _dist(folder: Path, name: str, version: str, entries: str) -> Path:
    info = folder / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[console_scripts]\nx = y:z\n\n[{discovery.GROUP}]\n{entries}")
    return info


def _only_the_path_finder(monkeypatch) -> None:
    """As if sys.meta_path had no finder of distributions besides the path's (importlib_metadata, which
    litellm imports, adds one; with one, the scan defers to importlib.metadata)."""
    monkeypatch.setattr(discovery, "_other_distribution_finders", lambda: False)


def test_only_rubric_lsp_declaring_the_group_is_answered_by_the_scan(tmp_path, monkeypatch):
    own = "".join(f"{name} = {value}\n" for name, value in sorted(discovery.BUILTIN))
    _dist(tmp_path / "site", "rubric-lsp", "9.1", own)
    _only_the_path_finder(monkeypatch)
    monkeypatch.setattr(sys, "path", [str(tmp_path / "site"), str(tmp_path / "absent")])
    assert discovery._only_builtin_declared() == "rubric-lsp 9.1"
    assert sorted((s.name, s.value, s.distribution) for s in discovery._installed()) == _by_metadata()


def test_another_declaring_distribution_or_a_zip_on_the_path_defers_to_importlib_metadata(tmp_path, monkeypatch):
    own = "".join(f"{name} = {value}\n" for name, value in discovery.BUILTIN)
    _dist(tmp_path / "site", "rubric-lsp", "9.1", own)
    info = _dist(tmp_path / "site", "rubric-decks", "1.0", "decks = rubric_decks:FORMATS\n")
    _only_the_path_finder(monkeypatch)
    monkeypatch.setattr(sys, "path", [str(tmp_path / "site")])
    assert discovery._only_builtin_declared() is None
    assert ("decks", "rubric_decks:FORMATS", "rubric-decks 1.0") in _by_metadata()
    assert [s.distribution for s in discovery._installed() if s.name == "decks"] == ["rubric-decks 1.0"]
    (info / "entry_points.txt").write_text("[console_scripts]\nx = y:z\n")  # no longer declares the group
    assert discovery._only_builtin_declared() == "rubric-lsp 9.1"
    stale = _dist(tmp_path / "old", "rubric-lsp", "0.0.1", "autorubric = rubric_lsp.formats.autorubric:FORMATS\n")
    monkeypatch.setattr(sys, "path", [str(stale.parent), str(tmp_path / "site")])
    assert discovery._only_builtin_declared() is None  # metadata naming other built-ins: importlib.metadata decides
    archive = tmp_path / "plugins.zip"
    archive.write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty zip: only importlib.metadata looks inside
    monkeypatch.setattr(sys, "path", [str(archive), str(tmp_path / "site")])
    assert discovery._only_builtin_declared() is None
    monkeypatch.setattr(sys, "path", [str(tmp_path / "site")])
    monkeypatch.undo()
    monkeypatch.setattr(sys, "path", [str(tmp_path / "site")])
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, _OtherFinder()])
    assert discovery._only_builtin_declared() is None  # a finder of other distributions: importlib.metadata asks it


class _OtherFinder:
    def find_spec(self, *_args: object) -> None:
        return None

    def find_distributions(self, *_args: object) -> list[object]:
        return []


def test_a_thread_asking_for_the_formats_while_another_loads_them_waits_for_all_of_them(fresh_registry, monkeypatch):
    """The server reads and lints on several threads: one asking while another loads got the formats loaded so
    far (a dataset read as no format at all, once in a few runs). Now it waits until every source is in."""
    import threading

    inside, release = threading.Event(), threading.Event()
    builtin = discovery.sources()

    def slow() -> object:
        inside.set()
        release.wait(60)
        return _load(builtin[-1].value)

    last = Source(builtin[-1].name, builtin[-1].value, None, slow)
    monkeypatch.setattr(discovery, "sources", lambda: [*builtin[:-1], last])
    seen: dict[str, list[str]] = {}

    def ask(who: str) -> None:
        seen[who] = [fmt.name for fmt in registry.formats()]

    first = threading.Thread(target=ask, args=("first",))
    first.start()
    assert inside.wait(60)  # the first thread is loading the last source
    second = threading.Thread(target=ask, args=("second",))
    second.start()
    second.join(0.5)
    assert second.is_alive()  # it waits (a half-loaded registry would have answered at once)
    release.set()
    first.join(60)
    second.join(60)
    assert seen["second"] == seen["first"]
    assert {fmt.name for fmt in _load(builtin[-1].value)} <= set(seen["second"])  # the last source's too
