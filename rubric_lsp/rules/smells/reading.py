"""A criterion as the detectors read it, and what they find (:class:`Hit`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from rubric_lsp.rules.smells import text as words


@dataclass(frozen=True)
class Hit:
    """A smell found: the words that trip it ([start, end) of the text, or of ``level``) and why."""

    smell: str
    start: int
    end: int
    why: str  # what a rater cannot decide, in a few words (the message adds how to rewrite it)
    level: int | None = None  # the index of the level the words are in (None: the text)
    parts: tuple[str, ...] = ()  # double-barreled: the two requirements to split into


@dataclass
class Reading:
    """One criterion's text and levels, with its masked copies built once."""

    text: str
    levels: tuple[str, ...] = ()
    penalty: bool = False
    scope: str = "instruction"
    choice: bool = False
    hits: list[Hit] = field(default_factory=list)

    @cached_property
    def masked(self) -> str:
        return words.masked(self.text)

    @cached_property
    def plain(self) -> str:
        """Masked, with parenthesised asides blanked too."""
        return words.without_parentheses(self.masked)

    @cached_property
    def sentences(self) -> list[words.Segment]:
        return words.sentences(self.plain)

    @cached_property
    def english(self) -> bool:
        """Whether the criterion is written in English (the lexicons are English: other texts are left alone)."""
        found = words.WORD.findall(self.plain.lower())
        common = sum(w in words.FUNCTION_WORDS for w in found)
        return not found or common >= max(1, len(found) // 8)
