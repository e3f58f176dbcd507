"""Did you mean: the known name nearest an unknown one, and whether renaming to it is a *safe* fix.

Every format's rules use it for unknown keys and values (``unknown_keys.py`` builds the rename
fix); the criterion for a safe rename is documented in each rule's "Fix safety".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass


def closest(word: str, candidates: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The nearest known name to ``word`` (case-insensitive), if any is close enough; never ``word`` itself
    (a known word needs no suggestion: "Did you mean 'expect'?" of 'expect' says nothing).

    A hint for a message only: a difflib ratio of 0.6 pairs words that share letters, not
    meaning (``createdAt`` → ``redteam``). Whether a fix may apply it is :func:`suggest`'s call.
    """
    pool = [c for c in candidates if c != word]
    lowered = {c.lower(): c for c in pool}
    if word.lower() in lowered:
        return lowered[word.lower()]
    import difflib  # a hint for an unknown word: not on a clean file's path

    found = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=cutoff)
    return lowered[found[0]] if found else None


# Letters of other scripts drawn like Latin ones (Unicode's confusables, the ones keyboards and pasted text
# bring): a key written with one reads as the known key it is not.
_LOOK_LIKE_LATIN = str.maketrans(
    "аеорсухіјѕԁАВЕКМНОРСТХІЈЅοαερτυνκΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
    "aeopcyxijsdABEKMHOPCTXIJSoaeptuvkABEZHIKMNOPTYX",
)


def looks_alike(word: str, name: str) -> bool:
    """Whether ``word`` reads as ``name`` on screen and is not it: they differ only in spaces, invisible
    characters or letters of other scripts drawn alike."""
    return word != name and _drawn(word) == _drawn(name)


def _drawn(text: str) -> str:
    visible = "".join(ch for ch in text if not ch.isspace() and unicodedata.category(ch) not in ("Cf", "Cc"))
    return unicodedata.normalize("NFKC", visible).translate(_LOOK_LIKE_LATIN)


def did_you_mean(word: str, name: str) -> str:
    """`` Did you mean 'name'?``, and when ``word`` reads as ``name`` (a no-break space after it, a Cyrillic
    'е' in it), which characters make it another word: the message would otherwise seem to suggest the key
    it names."""
    if not looks_alike(word, name):
        return f" Did you mean '{name}'?"
    odd = [ch for ch in dict.fromkeys(word) if ch not in name or not ch.isascii()]
    spelled = ", ".join(f"{unicodedata.name(ch, 'a control character').lower()} (U+{ord(ch):04X})" for ch in odd)
    return f" It reads as '{name}' but is not: it holds {spelled}. Did you mean '{name}'?"


@dataclass(frozen=True)
class Suggestion:
    """A known name to suggest for an unknown one, and whether renaming to it is a *safe* fix."""

    name: str
    safe: bool


def suggest(word: str, candidates: Iterable[str], cutoff: float = 0.6) -> Suggestion | None:
    """:func:`closest`, with the fix safety of renaming ``word`` to it (:func:`rename_is_safe`)."""
    pool = list(candidates)
    name = closest(word, pool, cutoff)
    return None if name is None else Suggestion(name, rename_is_safe(word, name, pool))


# Shortest word for which one edit is taken as a typo: 'id' → 'ids' is a different word.
_MIN_TYPO_LENGTH = 4
_SEPARATORS = re.compile(r"[\s_\-]+")


def rename_is_safe(word: str, name: str, candidates: Iterable[str]) -> bool:
    """Whether replacing ``word`` by the known ``name`` repairs an unambiguous typo.

    The criterion (documented in each rule's "Fix safety"): either

    - ``word`` and ``name`` differ only in case and separators (``Max_Score`` → ``max_score``,
      ``output-path`` → ``outputPath``) and no other candidate does; or
    - ``word`` has at least four characters and is one edit from ``name`` (one letter inserted,
      deleted, replaced, or two neighbours swapped, ignoring case) and no other candidate is
      within one edit.

    Anything else (``outputs`` → ``outputPath``, ``description`` → ``sections``) is a guess:
    the rename stays offered, but as an unsafe fix.
    """
    pool = {c for c in candidates if c != word}
    if name not in pool:
        return False
    folded = _fold(word)
    same_fold = [c for c in pool if _fold(c) == folded]
    if same_fold:
        return same_fold == [name]
    if len(word) < _MIN_TYPO_LENGTH:
        return False
    lowered = word.lower()
    near = [c for c in pool if _within_one_edit(lowered, c.lower())]
    return near == [name]


def _fold(text: str) -> str:
    return _SEPARATORS.sub("", text).lower()


def _within_one_edit(a: str, b: str) -> bool:
    """Optimal-string-alignment distance ≤ 1 (an adjacent swap counts as one edit)."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diffs = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diffs) == 1:
            return True
        i = diffs[0]
        return len(diffs) == 2 and diffs[1] == i + 1 and a[i] == b[i + 1] and a[i + 1] == b[i]
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long_[i]:
        i += 1
    return short[i:] == long_[i + 1 :]
