"""A format's grading options: knobs its grader reads that the engine passes through untouched.

A format declares them on its :class:`~rubric_lsp.formats.plugin.Format` (``grade_options``);
``rubric grade`` makes a flag of each, the language server an editor setting of each that names
one, and both put the values in ``GradeRequest.options`` under the option's ``name``. The
grader reads them back with :func:`read_options` (checked, defaults filled in). No face and no
part of the engine names an option: adding one is an edit to the format's package only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class GradeOption:
    """One option of a format's grader.

    ``name``: the key in ``GradeRequest.options`` (and in a run file's description, so a resume
    with another value is refused naming it). ``flag``: its ``rubric grade`` flag; a flag of a
    ``bool`` option takes no value and sets the opposite of the default (``--raw``: normalize off).
    ``choices``: the values a text option takes; ``parse``: text → value for any other option,
    raising ValueError whose message says what it must be. ``setting``: its key in the editor's
    ``rubric`` settings (None: not an editor setting); ``env``: the environment variable the
    language server falls back on when that setting is unset.
    """

    name: str
    default: Any
    help: str
    flag: str
    choices: tuple[str, ...] = ()
    parse: Callable[[str], Any] | None = None
    setting: str | None = None
    env: str | None = None

    @property
    def expected(self) -> str:
        """What a value must be, for messages ("one of skip, zero")."""
        if self.choices:
            return "one of " + ", ".join(self.choices)
        return "true or false" if isinstance(self.default, bool) else f"a value like {self.default!r}"

    def value(self, given: Any) -> Any:
        """``given`` checked and converted (text as a flag or a setting spells it); ValueError otherwise."""
        if isinstance(self.default, bool):
            return _bool(given)
        if self.choices:
            if not isinstance(given, str) or given.strip() not in self.choices:
                raise ValueError(f"{self.name} must be {self.expected}, got {given!r}")
            return given.strip()
        if self.parse is None or isinstance(given, bool):
            raise ValueError(f"{self.name} must be {self.expected}, got {given!r}")
        try:
            return self.parse(given if isinstance(given, str) else str(given))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{self.name} {exc}") from None


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "1", "0"):
        return value.strip().lower() in ("true", "1")
    raise ValueError(f"must be true or false, got {value!r}")


def read_options(given: Mapping[str, Any], declared: Sequence[GradeOption]) -> dict[str, Any]:
    """Each declared option's value: the one given (checked), else its default. Options the request
    carries for other formats are ignored. Raises ValueError naming the first bad value."""
    return {
        option.name: option.value(given[option.name]) if option.name in given else option.default for option in declared
    }


def distinct(options: Iterable[GradeOption]) -> list[GradeOption]:
    """Each option once, by name, in order (formats that share a grader declare the same ones)."""
    seen: dict[str, GradeOption] = {}
    for option in options:
        earlier = seen.setdefault(option.name, option)
        if earlier != option:
            raise ValueError(f"two formats declare the grading option {option.name!r} differently")
    return list(seen.values())
