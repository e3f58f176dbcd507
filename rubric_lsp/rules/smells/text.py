"""Reading a criterion's words: what is the criterion's own wording and what is quoted, expected content, an
example or a penalty (docs/smells.md, "What a smell rule reads").

Offsets are kept throughout: every helper works on a *masked* copy of the text of the same length, where
placeholders (``{{var}}``), quoted strings and code are blanked, so a match's offsets are the words' own.
Words are told apart with an English lexicon derived from lemminflect's (:mod:`.lexicon`: is "offers" a verb
here, what is the lemma of "acknowledges"), read on the first question, never on the default lint path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rubric_lsp.rules.smells import lexicon

# Blanked before anything is read: what the judge reads as opaque content, not the criterion's own wording.
_OPAQUE = re.compile(
    r"\{\{.*?\}\}|\{%.*?%\}|\$\{[^}\n]*\}|```.*?```|`[^`\n]*`"
    r"|(?<![\w'])'[^'\n]{1,300}'(?![\w'])|\"[^\"\n]{1,300}\"|“[^”\n]{1,300}”|‘[^’\n]{1,300}’",
    re.DOTALL,
)
_PARENS = re.compile(r"\([^()\n]{0,400}\)")


def masked(text: str) -> str:
    """``text`` with placeholders, quotes and code blanked (spaces, same length)."""
    return _OPAQUE.sub(lambda m: " " * len(m.group(0)), text)


def without_parentheses(text: str) -> str:
    """``text`` (masked) with parenthesised asides blanked too: examples and anchors, not requirements."""
    return _PARENS.sub(lambda m: " " * len(m.group(0)), text)


@dataclass(frozen=True)
class Segment:
    """A sentence, a list item or a clause of a criterion: [start, end) in its text."""

    start: int
    end: int
    text: str  # the masked words of the segment

    def find(self, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
        return [(self.start + m.start(), self.start + m.end()) for m in pattern.finditer(self.text)]


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9*#(\[-])|\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)]|[A-Z]+:|#))|;\s+")


def sentences(text: str) -> list[Segment]:
    """The sentences and list items of the masked ``text``."""
    out, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        if text[start : m.start()].strip():
            out.append(Segment(start, m.start(), text[start : m.start()]))
        start = m.end()
    if text[start:].strip():
        out.append(Segment(start, len(text), text[start:]))
    return out


WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")

# The commonest English words of criteria: most words of an English criterion are among them (``Reading.english``),
# and they say nothing of what it measures (the overlap rule's bags of words leave them out).
FUNCTION_WORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "to",
        "is",
        "are",
        "be",
        "in",
        "on",
        "for",
        "with",
        "that",
        "this",
        "it",
        "its",
        "response",
        "answer",
        "output",
        "should",
        "must",
        "does",
        "not",
        "if",
        "whether",
        "by",
        "as",
        "at",
        "from",
        "any",
        "each",
        "all",
    ]
)

# Words after which the rest of the clause is what the response should say, not how it is judged:
# "explains that side effects may include nausea", "explaining why the visitor might enjoy it".
_REPORTING = re.compile(
    r"\b(?:says?|saying|states?|stating|explains?|explaining|indicates?|indicating|mentions?|mentioning|notes?|"
    r"noting|claims?|claiming|warns?|warning|tells?|telling|acknowledges?|acknowledging|suggests?|suggesting|"
    r"recognis\w+|recogniz\w+|clarif\w+|confirms?|reports?|answers?|concludes?|predicts?|argues?|"
    r"describes?|describing|understands?|understand|evaluates|assesses|discusses|addresses|considers|examines|"
    r"analy[sz]es)\b(?:\s+\w+){0,4}?\s+(?:that|why|how|whether|if)\b|\b(?:because|since)\b",
    re.IGNORECASE,
)
# The narrow reading: only a "that" clause of a reporting verb ("explains that …") is content.
_REPORTING_THAT = re.compile(
    r"\b(?:says?|saying|states?|stating|explains?|explaining|indicates?|indicating|mentions?|mentioning|notes?|"
    r"noting|claims?|claiming|warns?|warning|acknowledges?|acknowledging|confirms?|reports?|concludes?|"
    r"evaluates|assesses|discusses|addresses|considers|examines)\b(?:\s+\w+){0,4}?\s+(?:that|whether)\b",
    re.IGNORECASE,
)

# A clause that forbids or penalises: a smell about what is rewarded does not apply there.
_PENALTY = re.compile(
    r"\b(?:not|n't|never|no|without|avoids?|avoiding|instead of|rather than|fail(?:s)? if|fail when|"
    r"penali[sz]e|do not reward|forbidden|prohibit\w*|must not|should not|cannot|refus\w+|free of)\b",
    re.IGNORECASE,
)


def clause_before(text: str, start: int) -> str:
    """The words of the clause ``start`` sits in, before it (back to a sentence or clause break)."""
    head = text[:start]
    cut = max(head.rfind(ch) for ch in ".;:\n!?")
    return head[cut + 1 :]


def in_content(text: str, start: int, *, narrow: bool = False) -> bool:
    """Whether the words at ``start`` are content the response should state ("explains that …", and unless
    ``narrow``, "explaining why …", "understand how …")."""
    return bool((_REPORTING_THAT if narrow else _REPORTING).search(clause_before(text, start)))


def in_penalty(text: str, start: int) -> bool:
    """Whether the words at ``start`` sit in a prohibition or a fail rule ("does not contain detailed …")."""
    clause = re.split(r",?\s+(?:and|but)\s+", clause_before(text, start))[-1]
    return bool(_PENALTY.search(clause))


def anchored_after(text: str, end: int) -> bool:
    """Whether observable content follows the words at once: "concise (under 3 sentences)", "professional: no
    slang", "clear headers (e.g., Morning, …)", "appropriate, such as …"."""
    rest = text[end : end + 60]
    return bool(
        re.match(r"\s*(?:[\w-]+\s+){0,3}?(?:\(|:(?!\s*$)|e\.g\.|i\.e\.|such as\b|like\b|including\b|—|–)", rest)
    )


ENUMERATION = re.compile(r"(?:^|\n)\s*(?:\d+[.)]|[-*•]|[a-z][.)])\s+\S", re.MULTILINE)


def enumerates(text: str) -> bool:
    """Whether the text lists what it expects (two or more list items, or "the following:" / "including")."""
    return len(ENUMERATION.findall(text)) >= 2 or bool(
        re.search(r"\b(?:following|these)\b[^.\n]{0,40}:|\bincluding\b|\bcovering\b|:\s*\S+,\s*\S+", text)
    )


def verb_lemma(word: str) -> str | None:
    """The verb ``word`` is a present-tense (third person) or base form of, else None."""
    return lexicon.verb(word.lower())


def is_third_person_verb(word: str) -> bool:
    """ "acknowledges", "offers", "is": a present-tense verb a criterion's predicate starts with."""
    lower = word.lower()
    if lower in ("is", "has", "does", "uses", "makes"):
        return True
    lemma = verb_lemma(lower)
    return lemma is not None and lower != lemma and lower.endswith("s") and not lower.endswith("ss")
