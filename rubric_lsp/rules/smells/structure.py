"""The smells in a criterion's shape: double-barrelled (two requirements a response can meet one without the
other, under one verdict) and poorly anchored scales (levels told apart only by degree words).

Double-barrelled is read two ways, as GUIDE.md defines it. A numbered list of requirements judged as one
PASS/FAIL is double-barrelled; in a list scored by how many of its elements are met, an element is when it
bundles several requirement lines. Elsewhere, the criterion's sentences are cut into clauses and each clause
that asserts something of the response ("acknowledges the order number", "is polite") is a requirement: two
of them with different verbs are two things. A clause that forbids ("does not …", "refuses …") is read as the
other side of a requirement (one construct), a clause inside expected content ("states that …") as content,
and a list of objects of one verb ("lists A, B and C") as one requirement.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from rubric_lsp.rules.smells import lexicon
from rubric_lsp.rules.smells import text as words
from rubric_lsp.rules.smells.reading import Hit, Reading

# -- double-barreled ---------------------------------------------------------------------------------------------

_NUMBERED = re.compile(r"^[ \t]*(?:#+\s*)?(?:\*\*)?(\d{1,2})[.)](?:\*\*)?\s+\S.*$", re.MULTILINE)
_COUNT_SCORED = re.compile(
    r"\bhow many of\b|\b\d+\s+(?:of|out of)\s+\d+\b|\bscore\s+based\s+on\b|\bfor each (?:element|item|criterion)\b"
    r"|\bpoints?\s+(?:each|per)\b|\bat least\s+\w+\s+of\s+(?:these|the following)\b",
    re.IGNORECASE,
)
_SUBJECT_NOUN = (
    r"response|answer|output|reply|assistant|model|agent|bot|summary|review|report|explanation|essay|letter|email|"
    r"code|query|brief|rewrite|translation|critique|solution|implementation|plan|function|story|poem|tweet|message|"
    r"result|section|fix|it|they|he|she"
)
_SUBJECT = re.compile(
    r"^\s*(?:(?:pass|passes|score\s+[\d.]+|fail|give\s+credit)\s+(?:only\s+)?(?:if|when)\s*:?\s*)?"
    r"(?:(?:does|do|is|are|did|can|will)\s+)?"
    r"(?:(?:(?:the|this|a|an|your|their|its)\s+)?(?:[\w.-]+\s+){0,3}?(?:" + _SUBJECT_NOUN + r")\b"
    r"|(?:the|this|a|an|your|their|its)\s+(?-i:[A-Z][\w.-]*\s+){1,3})?",
    re.IGNORECASE,
)
_MODAL = re.compile(
    r"^\s*(?:must|should|shall|needs? to|has to|have to|is (?:expected|required) to|will|can)\s+(?:also\s+)?",
    re.IGNORECASE,
)
_ADVERBS = re.compile(
    r"^\s*(?:(?:also|clearly|correctly|explicitly|accurately|then|plainly|first|briefly|directly|politely|"
    r"properly|still|always|only|immediately|specifically|further|additionally|instead)\s+)+",
    re.IGNORECASE,
)
_NEGATION = re.compile(
    r"^\s*(?:not|never|no longer|avoids?|does\s+not|do\s+not|doesn't|don't|is\s+not|isn't|"
    r"fails?\s+to|omits?|must\s+not|should\s+not|cannot|won't)\b",
    re.IGNORECASE,
)
_COPULA = frozenset(("is", "are", "be"))
_OBJECT_START = re.compile(
    r"^\s*(?:the|a|an|any|all|each|every|its|their|his|her|your|this|that|these|those|to|with|for|on|in|about|"
    r"from|at|by|of|it|them|him|me|us|why|how|what|whether|if|one|both|no|some|[A-Z\d$`])",
)
_CLAUSE_BREAK = re.compile(r",\s*(?:and|but|as well as)\s+|\s+(?:and|AND|but|as well as)\s+(?:also\s+)?|,\s+|;\s*")
_LEAD_IN = re.compile(
    r"^\s*(?:evaluate|grade|judge|assess|determine|check|verify|your (?:primary )?goal is to \w+|you are)\b[^.?!]*?\b"
    r"(?:whether|if)\b",
    re.IGNORECASE,
)
# Sentences that explain or permit rather than require: "Quoting the attack to refuse it is a pass."
_NOT_A_REQUIREMENT = re.compile(
    r"\bis (?:a )?(?:pass|fine|acceptable|ok|allowed)\b|^\s*(?:fail|fails|penali[sz]e|do not|don't|note|background|"
    r"reply|respond|return|output|use|consider|judge|ignore|treat|score|rate|grade)\b",
    re.IGNORECASE,
)
# A list that is the text to match, not requirements: "Answer matches the following - every word …:".
_EXPECTED = re.compile(
    r"\b(?:match(?:es)?|equals?|identical|verbatim|word[- ]for[- ]word|same as)\b[^\n]*:\s*$",
    re.IGNORECASE | re.MULTILINE,
)
_ALTERNATIVES = re.compile(r"\b(?:one|any|either)\s+of\s+(?:the\s+following|these|them)\b", re.IGNORECASE)
# A scale's level ("EXCELLENT: …", "- 0.8-0.9: …", "Score 4 when …"): poorly-anchored-scale reads those.
_LEVEL = re.compile(
    r"^\s*(?:[-*•]\s*)?(?:[A-Z]{3,}\s*:|(?:score\s+)?[\d.]+(?:\s*[-–]\s*[\d.]+)?\s*[:=])", re.IGNORECASE
)
_WEAKER = re.compile(r"^\s*(?:it|the\s+\w+)\s+should\s+(?!also\b)", re.IGNORECASE)


@dataclass(frozen=True)
class _Predicate:
    start: int  # where its verb is, in the criterion's text
    end: int
    lemma: str
    positive: bool
    form: str  # "3sg", "base", "copula"


def double_barreled(reading: Reading) -> Iterator[Hit]:
    if reading.scope == "content" or not reading.english:
        return
    text = reading.masked
    numbered = list(_NUMBERED.finditer(text))
    if _EXPECTED.search(reading.plain):
        return  # the criterion is a text to reproduce: its sentences are the expected answer
    if _numbered_list(numbered):
        hit = _listed(reading, numbered)
        if hit is not None:
            yield hit
        return
    if _ALTERNATIVES.search(reading.plain):
        return  # "do ONE of the following: (a) … OR (b) …": alternatives, not requirements
    predicates = _predicates(reading, 0, len(text))
    positive = [p for p in predicates if p.positive]
    distinct: dict[str, _Predicate] = {}
    for found in positive:
        distinct.setdefault(found.lemma, found)
    if len(distinct) >= 2:
        first, second = list(distinct.values())[:2]
        parts = (_part(reading.text, first, second.start), _part(reading.text, second, len(reading.text)))
        yield Hit("double-barreled", first.start, second.end, "two requirements", parts=parts)


def _numbered_list(found: list[re.Match[str]]) -> bool:
    """Two or more items numbered 1, 2, … at line starts."""
    numbers = [int(m.group(1)) for m in found]
    return len(numbers) >= 2 and numbers[0] == 1 and numbers[1] == 2


def _listed(reading: Reading, items: list[re.Match[str]]) -> Hit | None:
    text = reading.masked
    ones = [m for m in items if int(m.group(1)) == 1]
    first = ones[0]
    if not _COUNT_SCORED.search(reading.plain):
        second = next(m for m in items if m.start() > first.start() and int(m.group(1)) == 2)
        return Hit("double-barreled", first.start(), second.end(), "numbered requirements under one verdict")
    # Scored by how many elements are met: an element that bundles requirement lines is double-barrelled.
    bounds = [m.start() for m in items] + [len(text)]
    for index, item in enumerate(items):
        body = text[item.end() : bounds[index + 1]]
        lines = _requirement_lines(body)
        if len(lines) >= 2 and any(positive for positive, _ in lines):
            start = item.end() + lines[0][1]
            return Hit("double-barreled", item.start(), min(len(text), start + 1), "an element bundles requirements")
    return None


def _requirement_lines(body: str) -> list[tuple[bool, int]]:
    """(positive, offset) of each line of an element's body that states a requirement of its own (the body: the
    indented or bulleted lines after its heading)."""
    out, offset = [], 0
    for number, line in enumerate(body.split("\n")):
        if number > 0 and line.strip() and not line[:1].isspace() and not line.startswith(("-", "*", "•")):
            break
        stripped = line.strip().lstrip("-*•").strip()
        starts = bool(stripped) and (stripped[0].isupper() or line.lstrip().startswith(("-", "*", "•")))
        if starts and not re.match(r"(?:OR|or|Or|e\.g\.|Example|Note)\b", stripped) and stripped[0] not in "(`":
            rest = re.sub(r"^(?:the\s+)?\w+\s+", "", stripped, flags=re.I)
            out.append((not _NEGATION.match(rest) and not _NEGATION.match(stripped), offset))
        offset += len(line) + 1
    return out


def _predicates(reading: Reading, start: int, end: int) -> list[_Predicate]:
    found: list[_Predicate] = []
    strong = False  # a sentence read so far said "must": a later "It should …" elaborates it
    for sentence in reading.sentences:
        if sentence.start < start or sentence.end > end:
            continue
        body = sentence.text
        if _LEVEL.match(body) and re.match(r"\s*(?:[-*•]\s*)?(?:[A-Z]{3,}|score|[\d.])", body):
            continue
        lead = _LEAD_IN.match(body)
        offset = lead.end() if lead else 0
        if _NOT_A_REQUIREMENT.search(body[offset:]) and not lead:
            continue
        if strong and _WEAKER.match(body):
            continue
        strong = strong or bool(re.search(r"\bmust\b", body, re.IGNORECASE))
        found += _sentence_predicates(sentence.start + offset, body[offset:])
    return found


def _sentence_predicates(base: int, sentence: str) -> list[_Predicate]:
    out: list[_Predicate] = []
    position = 0
    modal_polarity: bool | None = None  # the sentence's modal ("must NOT …") governs its bare verbs
    previous_form: str | None = None
    for index, clause in enumerate(_clauses(sentence)):
        clause_start = position
        position += len(clause.text) + clause.gap
        if index > 0 and words.in_content(sentence, clause_start):
            break  # "states that X, and that Y": what follows is the content stated
        predicate = _predicate(
            base + clause_start, clause.text, first=index == 0, modal=modal_polarity, previous=previous_form
        )
        if predicate is None:
            continue
        if predicate.form == "modal":
            modal_polarity = predicate.positive
            predicate = _Predicate(predicate.start, predicate.end, predicate.lemma, predicate.positive, "base")
        previous_form = predicate.form
        out.append(predicate)
    return out


@dataclass(frozen=True)
class _Clause:
    text: str
    gap: int  # the separator's length after it


def _clauses(sentence: str) -> list[_Clause]:
    out, start = [], 0
    for m in _CLAUSE_BREAK.finditer(sentence):
        out.append(_Clause(sentence[start : m.start()], m.end() - m.start()))
        start = m.end()
    out.append(_Clause(sentence[start:], 0))
    return out


def _predicate(base: int, clause: str, *, first: bool, modal: bool | None, previous: str | None) -> _Predicate | None:
    """The requirement a clause states, if it starts with one: [subject] [modal] [adverbs] verb …"""
    rest = clause
    asked = _question(base, rest) if first else None
    if asked is not None:
        return asked
    subject = _SUBJECT.match(rest) if first or re.match(r"\s*(?:it|they|the)\b", rest, re.IGNORECASE) else None
    had_subject = bool(subject and subject.group(0).strip())
    if subject:
        rest = rest[subject.end() :]
    modal_match = _MODAL.match(rest)
    negative = False
    if modal_match:
        rest = rest[modal_match.end() :]
    if _NEGATION.match(rest):
        negative = True
        rest = re.sub(r"^\s*(?:not|never|does\s+not|do\s+not|doesn't|don't)\s+", "", rest, flags=re.IGNORECASE)
    rest = _ADVERBS.sub("", rest)
    word_match = words.WORD.match(rest.lstrip())
    if word_match is None:
        return None
    word = word_match.group(0)
    lower = word.lower()
    where = base + len(clause) - len(rest.lstrip())
    after = rest.lstrip()[len(word) :]
    if modal_match or (first and had_subject and lower in ("be",)):
        if lower in ("be",) or (words.verb_lemma(lower) == lower and (_OBJECT_START.match(after) or _verb_only(lower))):
            return _Predicate(where, where + len(word), lower, not negative, "modal")
        return None
    if lower in _COPULA:
        if not first and not had_subject and previous is None:
            return None
        return _Predicate(where, where + len(word), "be", not negative and not _NEGATION.match(after), "copula")
    if words.is_third_person_verb(lower):
        lemma = words.verb_lemma(lower) or lower
        if lemma in ("avoid", "omit", "fail"):
            negative = True
        if first or _verb_only(lower) or previous in ("3sg", "copula") or _OBJECT_START.match(after):
            following = words.WORD.match(after.lstrip())
            if (
                first
                and not had_subject
                and following
                and words.verb_lemma(following.group(0))
                and not _OBJECT_START.match(after)
            ):
                return None  # "Weights reflect …": the first word is the subject, not a verb
            return _Predicate(where, where + len(word), lemma, not negative, "3sg")
        return None
    if (
        modal is not None
        and not first
        and words.verb_lemma(lower) == lower
        and (_OBJECT_START.match(after) or _verb_only(lower))
    ):
        return _Predicate(where, where + len(word), lower, modal and not negative, "base")
    return None


def _question(base: int, clause: str) -> _Predicate | None:
    """ "Does the joke make sense …": the verb after the subject, in its base form."""
    question = re.match(r"\s*(?:does|do|did)\s+(?:[\w'-]+\s+){1,3}?(?=[a-z]+\b)", clause, re.IGNORECASE)
    if question is None:
        return None
    verb = words.WORD.match(clause[question.end() :])
    if verb is None or words.verb_lemma(verb.group(0)) != verb.group(0).lower():
        return None
    where = base + question.end()
    return _Predicate(where, where + len(verb.group(0)), verb.group(0).lower(), True, "modal")


def _verb_only(word: str) -> bool:
    """Whether the lexicon knows ``word`` only as a verb (not also a noun: "offers", "review")."""
    return lexicon.verb_only(word.lower())


def _part(text: str, predicate: _Predicate, end: int) -> str:
    """The words of one requirement, from its verb to where the next one starts, tidied for a message."""
    chunk = re.split(r"[.;:!?](?:\s|$)|\n", text[predicate.start : end])[0]
    chunk = re.split(r"(?:,\s*)?\s+(?:and|AND)\s*$|[.;]\s*$", chunk.rstrip(" ,;"))[0]
    chunk = re.sub(r"(?:,\s*|\s+)(?:and|AND)$", "", chunk.strip())
    return " ".join(chunk.split())[:120]


# -- poorly-anchored-scale ---------------------------------------------------------------------------------------

_DEGREE = (
    r"very|somewhat|slightly|moderately|mostly|partly|partially|fully|completely|totally|extremely|fairly|quite|"
    r"highly|barely|hardly|too|just|not at all|not|a little|largely|mainly|rather|reasonably|mildly|strongly|"
    r"excellent|good|fair|poor|bad|great|average|okay|ok|adequate|acceptable|inadequate|basic|decent|weak|strong|"
    r"minor|major|significant|some|several|most|few|many|much|little|none|all|high|low|medium|moderate|right|"
    r"outstanding|terrible|superior|inferior|perfect|satisfactory|unsatisfactory|exceptional|competent|limited"
)
_LEVEL_HEAD = re.compile(r"^\s*(?:\d+(?:\.\d+)?\s*[-–:.)]?\s*)?([^-–:(]*)")


def poorly_anchored(reading: Reading) -> Iterator[Hit]:
    if reading.scope == "content":
        return
    levels = [level for level in reading.levels if not re.match(r"\s*(?:n/?a|not applicable)\b", level, re.IGNORECASE)]
    if len(levels) >= 3:
        degree = [_degree_only(level, reading.text) for level in levels]
        if sum(degree) >= len(levels) - 1:
            index = reading.levels.index(levels[degree.index(True)])
            yield Hit(
                "poorly-anchored-scale", 0, len(reading.levels[index]), "levels differ only by degree", level=index
            )
        return
    yield from _written_scale(reading)


def _degree_only(level: str, requirement: str) -> bool:
    """A level named only by a number, or by degree words and the criterion's own words ("Very helpful")."""
    if re.fullmatch(r"\s*[\d.]+\s*", level):
        return True
    head = _LEVEL_HEAD.match(level)
    named = words.WORD.findall(head.group(1) if head else level)
    if not named:
        return False
    own = {w.lower().rstrip("s") for w in words.WORD.findall(requirement)}
    rest = [w for w in named if not re.fullmatch(_DEGREE, w, re.IGNORECASE) and w.lower().rstrip("s") not in own]
    return len(rest) <= max(0, len(named) // 2 - 1) or (len(named) <= 2 and len(rest) <= 1 and len(named) > len(rest))


_RANGE = re.compile(
    r"\b(?:score|rate|rating|grade|scale)\b[^.\n]{0,40}?\b(\d+(?:\.\d+)?)\s*(?:-|–|to)\s*(\d+(?:\.\d+)?)\b"
    r"|\bscore\s+(?:between|from)\s+(\d+(?:\.\d+)?)\s+(?:and|to)\s+(\d+(?:\.\d+)?)\b",
    re.IGNORECASE,
)
_LEVEL_LINE = re.compile(
    r"^\s*(?:[-*•]\s*)?(?:score\s+)?(?:\d+(?:\.\d+)?(?:\s*[-–]\s*\d+(?:\.\d+)?)?|[A-Z]{3,})\s*(?::|=|-|–|when|if|only when)\s+\S",
    re.IGNORECASE | re.MULTILINE,
)
_LUMPED = re.compile(r"\b\d+(?:\.\d+)?\s+(?:or|and)\s+(?:lower|below|less|under|fewer)\b", re.IGNORECASE)
_COUNTED = re.compile(r"\b\d+\s+(?:of|out of)\s+\d+\b", re.IGNORECASE)


def _written_scale(reading: Reading) -> Iterator[Hit]:
    """A scale written in the text: "Score 1-5 where 5 is perfect", "Score 3 or lower when …"."""
    text = reading.plain
    lumped = _LUMPED.search(text)
    if lumped:
        yield Hit("poorly-anchored-scale", lumped.start(), lumped.end(), "most levels are lumped together")
        return
    scale = _RANGE.search(text)
    if scale is None or _COUNTED.search(text):
        return
    low, high = (float(x) for x in (scale.group(1) or scale.group(3), scale.group(2) or scale.group(4)))
    if high - low < 1 and not (low == 0 and high == 1):
        return
    described = [m for m in _LEVEL_LINE.finditer(text) if m.start() > scale.start()]
    if len(described) >= 3:
        return  # the levels are written out (whether each is concrete is the reader's call)
    yield Hit("poorly-anchored-scale", scale.start(), scale.end(), "the levels are not described")
