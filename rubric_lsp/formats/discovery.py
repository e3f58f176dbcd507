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
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from rubric_lsp.formats.plugin import Format, load

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
