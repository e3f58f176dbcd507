"""Rubric-level smells: criteria scored together that measure the same thing (overlapping-criteria), and a
rubric that can penalise but has no penalty (no-penalties)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rubric_lsp.rules.smells import lexicon
from rubric_lsp.rules.smells import text as words

# Words that say nothing of what two criteria measure: the function words and the words every criterion uses.
_STOP = words.FUNCTION_WORDS | frozenset(
    [
        "their",
        "his",
        "her",
        "they",
        "them",
        "which",
        "who",
        "what",
        "when",
        "where",
        "how",
        "than",
        "then",
        "so",
        "such",
        "e.g",
        "i.e",
        "etc",
        "criterion",
        "criteria",
        "correctly",
        "clearly",
        "accurately",
        "explicitly",
        "also",
        "only",
        "no",
        "nor",
        "but",
        "into",
        "about",
        "over",
        "under",
        "between",
        "more",
        "most",
        "less",
        "least",
        "very",
        "some",
        "other",
        "others",
        "one",
        "two",
        "three",
    ]
)
_PARTIAL = re.compile(r"\b(?:partially|partly|somewhat|incompletely|attempts to)\b", re.IGNORECASE)
_FULL = re.compile(r"\b(?:fully|correctly|completely|accurately|thoroughly)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Overlap:
    first: int  # indexes into the rubric's criteria
    second: int
    why: str


def content_lemmas(text: str) -> frozenset[str]:
    """The content words of a criterion's own wording, each by its lemma."""
    found = set()
    for word in words.WORD.findall(words.without_parentheses(words.masked(text)).lower()):
        if word in _STOP or len(word) < 3:
            continue
        lemma = lexicon.lemma(word)
        if lemma not in _STOP:
            found.add(lemma)
    return frozenset(found)


def overlaps(texts: Sequence[str], penalties: Sequence[bool], threshold: float = 0.6) -> Iterator[Overlap]:
    """Pairs of criteria of one rubric whose own words are mostly the same (Jaccard ≥ ``threshold`` of their
    content lemmas, on criteria of a few words or more), or that are one requirement at full and at partial credit."""
    bags = [content_lemmas(t) for t in texts]
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            a, b = bags[i], bags[j]
            if len(a) < 3 or len(b) < 3 or penalties[i] != penalties[j]:
                continue
            shared = len(a & b) / len(a | b)
            partial = bool(_PARTIAL.search(texts[i])) != bool(_PARTIAL.search(texts[j]))
            if partial and shared >= 0.5 and (_FULL.search(texts[i]) or _FULL.search(texts[j])):
                yield Overlap(i, j, "the same requirement at full and at partial credit")
            elif shared >= threshold:
                yield Overlap(i, j, f"{round(shared * 100)}% of their words are the same")


def lacks_penalties(penalties: Sequence[bool]) -> bool:
    """A rubric of two or more criteria, none of them a penalty."""
    return len(penalties) >= 2 and not any(penalties)
