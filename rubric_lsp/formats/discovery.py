"""Where formats come from: the entry-point group ``rubric_lsp.formats``, the built-ins included.

A package publishes its formats with one line of its ``pyproject.toml``::

    [project.entry-points."rubric_lsp.formats"]
    decks = "rubric_decks:FORMATS"

naming a :class:`~rubric_lsp.formats.plugin.Format` or a sequence of them. Loading one imports
only that module, which should stay as light as a detector (``formats/plugin.py``: everything
heavy is named, not imported). The registry loads the sources in order: the built-ins first, in
``BUILTIN``'s order (detection breaks ties by it and docs/rules.md lists rules by it), then every
other source by its entry-point name.

``BUILTIN`` is also what is used when the installed metadata names none of rubric-lsp's own
formats: a checkout run from source, or an editable install whose metadata was written before
the group existed. ``tests/test_format_discovery.py`` checks it matches ``pyproject.toml``.

Start-up cost: ``importlib.metadata`` (its import pulls ``email``, ``zipfile``, ``csv``) and its
walk over every installed distribution cost ~40x the lint of a small file's own reading. A scan
of the ``entry_points.txt`` files on ``sys.path`` (:func:`_declared`: no metadata parsed) finds
who declares the group; only when a distribution other than rubric-lsp does, or the scan cannot
see everything ``importlib.metadata`` would, is ``importlib.metadata`` asked.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rubric_lsp.formats.plugin import Format, load

if TYPE_CHECKING:
    import importlib.metadata

GROUP = "rubric_lsp.formats"

# (entry-point name, what it names), as pyproject.toml declares them.
BUILTIN = (
    ("autorubric", "rubric_lsp.formats.autorubric:FORMATS"),
    ("promptfoo", "rubric_lsp.formats.promptfoo:FORMATS"),
    ("northstar", "rubric_lsp.formats.northstar:FORMATS"),
    ("rubrics_task", "rubric_lsp.formats.rubrics_task:FORMATS"),
)
_OWN = "rubric_lsp."  # where the built-ins live: an entry point naming a module here is ours


class PluginError(Exception):
    """A format source that cannot be loaded, or names something that is not a format."""


@dataclass(frozen=True)
class Source:
    """One entry point of the group (or of the built-in table)."""

    name: str
    value: str  # "package.module:attribute"
    distribution: str | None  # the installed package that declares it (None: the built-in table)
    loader: Callable[[], object]

    @property
    def builtin(self) -> bool:
        return self.value.startswith(_OWN)

    def describe(self) -> str:
        origin = f" from {self.distribution}" if self.distribution else ""
        return f"format plugin {self.name!r} ({self.value}{origin})"

    def formats(self) -> list[Format]:
        """The formats this source names; PluginError (saying which source and why) when it cannot.

        Whatever its import raises is the plugin's failure, ``SystemExit`` and any other BaseException
        included (a plugin that calls ``sys.exit`` must not end the linter with no word); only the user's
        Ctrl-C (KeyboardInterrupt) goes on."""
        try:
            found = self.loader()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # see the docstring
            raise PluginError(f"{self.describe()} failed to load: {failure(exc)}") from exc
        items = [found] if isinstance(found, Format) else found
        if isinstance(items, Iterable) and not isinstance(items, (str, bytes)):
            items = list(items)
            if all(isinstance(item, Format) for item in items):
                return items
        raise PluginError(f"{self.describe()} names {found!r}, not a Format or a sequence of Formats")


def failure(exc: BaseException) -> str:
    """A plugin's exception in one line: its type and message (``SystemExit: 3``)."""
    return f"{type(exc).__name__}: {exc}"[:500]


def sources() -> list[Source]:
    """Every format source, in load order (see the module docstring)."""
    found = _installed()
    if not any(source.builtin for source in found):  # metadata written before the group existed
        found += [Source(name, value, None, _loader(value)) for name, value in BUILTIN]
    unique = list({(source.name, source.value): source for source in found}.values())
    builtin_order = {value: index for index, (_, value) in enumerate(BUILTIN)}
    return sorted(unique, key=lambda s: (builtin_order.get(s.value, len(BUILTIN)), s.name, s.value))


def _installed() -> list[Source]:
    own = _only_builtin_declared()
    if own is not None:
        return [Source(name, value, own, _loader(value)) for name, value in BUILTIN]
    import importlib.metadata

    try:
        points = importlib.metadata.entry_points(group=GROUP)
    except Exception:  # unreadable metadata must not cost the built-ins
        return []
    return [Source(point.name, point.value, _distribution(point), point.load) for point in points]


def _distribution(point: importlib.metadata.EntryPoint) -> str | None:
    dist = getattr(point, "dist", None)  # set by importlib.metadata since 3.10; None for hand-made points
    return None if dist is None else f"{dist.name} {dist.version}"


def _loader(value: str) -> Callable[[], object]:
    return lambda: load(value)


_SECTION = f"[{GROUP}]"
_OUR_NAMES = ("rubric_lsp", "rubric-lsp")


def _only_builtin_declared() -> str | None:
    """``"rubric-lsp <version>"`` when the only distributions on ``sys.path`` that declare the group are
    rubric-lsp's own, each declaring exactly ``BUILTIN``: then ``importlib.metadata`` would find just
    those. None (ask ``importlib.metadata``) when another declares it, when ours declares something
    else, or when metadata may come from where the scan does not look (a zip on the path, a finder
    of distributions other than the path's)."""
    if _other_distribution_finders():
        return None
    found: str | None = None
    for entry in sys.path:
        for folder, name in _declared(entry or "."):
            if name is None:
                return None  # a zip or an unreadable file: only importlib.metadata reads it
            path = os.path.join(folder, name)
            if name.partition("-")[0].partition(".")[0] not in _OUR_NAMES or sorted(_entries(path) or ()) != sorted(
                BUILTIN
            ):
                return None
            found = found or f"rubric-lsp {_version(path)}"
    return found


def _version(folder: str) -> str:
    """The ``Version:`` header of a distribution folder's METADATA (PKG-INFO for an egg-info)."""
    for metadata in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(folder, metadata), encoding="utf-8") as handle:
                for line in handle:
                    if line.startswith("Version:"):
                        return line.partition(":")[2].strip()
                    if not line.strip():
                        break  # the headers end at the first empty line
        except (OSError, UnicodeDecodeError):
            continue
    return "?"


def _other_distribution_finders() -> bool:
    """Whether a finder on sys.meta_path besides the path's finds distributions (importlib_metadata, which
    litellm imports, adds one): importlib.metadata would ask it too."""
    import importlib.machinery

    return any(
        hasattr(finder, "find_distributions") and finder is not importlib.machinery.PathFinder
        for finder in sys.meta_path
    )


def _declared(entry: str) -> list[tuple[str, str | None]]:
    """(folder, distribution folder) for each ``*.dist-info``/``*.egg-info`` in ``entry`` whose
    ``entry_points.txt`` names the group; ``(entry, None)`` for an entry that is a file (a zip)."""
    try:
        scan = os.scandir(entry)
    except NotADirectoryError:
        return [(entry, None)]
    except OSError:
        return []  # absent (python3X.zip usually is): importlib.metadata finds nothing there either
    found: list[tuple[str, str | None]] = []
    with scan:
        for item in scan:
            if not item.name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(item.path, "entry_points.txt"), "rb") as handle:
                    text = handle.read()
            except OSError:
                continue
            if _SECTION.encode() in text:
                found.append((entry, item.name))
    return found


def _entries(folder: str) -> list[tuple[str, str]] | None:
    """The group's ``name = value`` lines in ``folder``'s ``entry_points.txt``, in order."""
    try:
        with open(os.path.join(folder, "entry_points.txt"), encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    out: list[tuple[str, str]] = []
    inside = False
    for line in lines:
        line = line.strip()
        if line.startswith("["):
            inside = line == _SECTION
        elif inside and "=" in line and not line.startswith(("#", ";")):
            name, _, value = line.partition("=")
            out.append((name.strip(), value.strip()))
    return out
