"""The smell rules' English lexicon: what lemminflect's lemma table says of a word, read from a table derived
from it (``lexicon.tsv.gz``, ``tools/gen_english_lexicon.py``; docs/smells.md says why it is not imported).

Read once, on the first question (a decompression and a split into lines, ~0.1 s; never parsed into a dict:
a word is found by bisection), or ahead of it by :func:`warm`. Thread-safe: a warm-up thread and the first
question load it once.
"""

from __future__ import annotations

import bisect
import gzip
import threading
from functools import lru_cache
from importlib import resources

_LINES: list[str] | None = None  # the table's lines, sorted by word: looked up by bisection, not parsed
_LOCK = threading.Lock()


def _lines() -> list[str]:
    global _LINES
    if _LINES is None:
        with _LOCK:
            if _LINES is None:
                raw = resources.files(__package__).joinpath("lexicon.tsv.gz").read_bytes()
                text = gzip.decompress(raw).decode("utf-8")
                _LINES = [line for line in text.splitlines() if line and not line.startswith("#")]
    return _LINES


@lru_cache(maxsize=8192)
def _entry(word: str) -> tuple[str, str, str] | None:
    """(first lemma, verb lemma or "", flags) of ``word``; None when the table does not list it."""
    lines = _lines()
    key = word + "\t"
    at = bisect.bisect_left(lines, key)
    if at == len(lines) or not lines[at].startswith(key):
        return None
    _, first, verb, flags = lines[at].split("\t")
    return first or word, word if verb == "=" else verb, flags


def warm() -> None:
    """Load the table now (a background thread's work: the first smell question then costs nothing)."""
    _lines()


def lemma(word: str) -> str:
    """The first lemma the lexicon gives the lower-case ``word`` (the word itself when it knows none)."""
    found = _entry(word)
    return found[0] if found else word


def verb(word: str) -> str | None:
    """The verb the lower-case ``word`` is a form of ("offers" → "offer", "is" → "be"), else None."""
    found = _entry(word)
    return (found[1] or None) if found else None


def verb_only(word: str) -> bool:
    """Whether the lexicon knows the lower-case ``word`` as a verb and not also as a noun or an adjective."""
    found = _entry(word)
    return found is not None and found[2] == "V"
