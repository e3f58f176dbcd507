"""The smells in a criterion's words: vague, hedging, verbosity-rewarding, counting-dependent, unfalsifiable,
circular, needs outside knowledge (docs/smells.md gives each rule's definition and borderline cases).

Each detector reads the criterion's own wording only: placeholders, quotes and code are blanked, and words
that sit in expected content ("explains that side effects may …"), in a prohibition ("does not contain
detailed …") or right before an anchor ("concise (under 3 sentences)") do not count where the definition
says so. The word lists name classes of words (degree words, evaluative adjectives, hedges), never phrases
of particular rubrics.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rubric_lsp.rules.smells import text as words
from rubric_lsp.rules.smells.reading import Hit, Reading


def _ci(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# -- hedging-language --------------------------------------------------------------------------------------------

# Qualifiers that leave it open whether a behaviour is required at all.
_HEDGE = _ci(
    r"\b(?:(?:if|where|when|whenever)\s+(?:needed|necessary|relevant|applicable|appropriate|possible|useful|"
    r"helpful|warranted|sensible|it makes sense)|as (?:appropriate|applicable|relevant)|ideally|preferably|"
    r"if (?:you|the (?:judge|grader)) (?:think|feel)s?\b[^.]*?(?:necessary|needed|appropriate)|"
    r"typically\s+\d|usually\s+\d|roughly\s+\d)"
)


def hedging(reading: Reading) -> Iterator[Hit]:
    text = reading.masked  # a hedge in parentheses still hedges ("appropriate (typically 3-15)")
    for m in _HEDGE.finditer(text):
        if words.in_content(text, m.start()):
            continue
        yield Hit("hedging-language", m.start(), m.end(), f"'{reading.text[m.start() : m.end()].strip()}'")
        return


# -- verbosity-rewarding -----------------------------------------------------------------------------------------

_DEPTH = (
    r"(?:comprehensive(?:ly)?|thorough(?:ly)?|detailed|extensive(?:ly)?|in[- ]depth|elaborate|exhaustive(?:ly)?|"
    r"in (?:great|full|more) detail|more detail(?:ed)?|deeper|lengthy)"
)
# Depth as what is rewarded: "a detailed description", "is comprehensive", "explains thoroughly", "the most facts".
_VERBOSE = _ci(
    r"\b(?:(?:is|be|are|provides?|gives?|offers?|contains?|includes?|writes?|presents?|an?|the|with|more)\s+"
    r"(?:[\w-]+\s+(?:and\s+)?){0,3}?" + _DEPTH + r"\b"
    r"|\b[a-z]+s\s+(?:\w+\s+){0,3}?" + _DEPTH + r"(?=[\s,.;]|$)"
    r"|\bthe\s+most\s+(?:facts|information|details|examples|points|content|ideas|reasons))"
)


def verbosity(reading: Reading) -> Iterator[Hit]:
    if reading.penalty or reading.scope == "content":
        return
    text = reading.plain
    if words.enumerates(reading.masked):
        return  # "complete and thorough" followed by the elements expected: the depth is spelt out
    for m in _VERBOSE.finditer(text):
        found = re.search(_DEPTH + r"|most\s+\w+", text[m.start() : m.end()], re.IGNORECASE)
        start = m.start() + (found.start() if found else 0)
        end = m.start() + (found.end() if found else m.end() - m.start())
        if words.in_penalty(text, start) or words.in_content(text, start):
            continue
        yield Hit("verbosity-rewarding", start, end, f"'{reading.text[start:end]}'")
        return
    for index, level in enumerate(reading.levels):
        found = re.search(r"\b" + _DEPTH + r"\b", words.masked(level), re.IGNORECASE)
        if found:
            yield Hit("verbosity-rewarding", found.start(), found.end(), f"'{found.group(0)}'", level=index)
            return


# -- counting-dependent ------------------------------------------------------------------------------------------

_NUMBER = r"(?:\d[\d,]*|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|fifty|hundred)"
_BIG = r"(?:[4-9]|\d{2,}|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|fifty|hundred)"
_COUNTING = _ci(
    r"(?<![-\w])"
    + _NUMBER
    + r"(?:\s*(?:-|to|–)\s*"
    + _NUMBER
    + r")?[\s-]+(?:words?|characters?|chars|tokens?|syllables?)\b"
    r"|(?<![-\w])"
    + _BIG
    + r"(?:\s*(?:-|to|–)\s*"
    + _NUMBER
    + r")?[\s-]+(?:sentences?|paragraphs?|bullets?|bullet points|lines?)\b"
    r"|\b(?:word|character|syllable|token|sentence|paragraph)\s+(?:count|limit|length)s?\b"
    r"|\b(?:an?|valid|the|this|proper)\s+(?:haiku|sonnet|limerick)\b|\b(?:iambic|pentameter|syllables?|rhym(?:e|es|ing)\s+scheme)\b"
    r"|\bword[- ]for[- ]word\b|\bevery word\b|\bverbatim\b"
)


def counting(reading: Reading) -> Iterator[Hit]:
    text = reading.plain
    for m in _COUNTING.finditer(text):
        exact = re.match(r"word[- ]for|every|verbatim", m.group(0), re.IGNORECASE)
        if exact and (len(reading.text) < 300 or words.in_penalty(text, m.start())):
            continue  # an exact match of a short text, or "does not repeat … verbatim", is easy to check
        yield Hit("counting-dependent", m.start(), m.end(), f"'{reading.text[m.start() : m.end()]}'")
        return


# -- circular-criterion ------------------------------------------------------------------------------------------

# Words that name overall quality itself, not a property of the response.
_QUALITY = (
    r"(?:good|great|better|best|excellent|high[- ]quality|quality|helpful|useful|relevant|satisf\w*|ideal|perfect)"
)
_OVERALL = _ci(
    r"\b(?:overall|all in all|in general)\b[^.?!\n]{0,60}?\b" + _QUALITY + r"\b"
    r"|\b" + _QUALITY + r"\s+(?:\w+\s+){0,2}?overall\b"
    r"|\bwhich\s+(?:\w+\s+)?(?:response|output|answer|reply|completion)\s+is\s+(?:the\s+)?(?:better|best)\b"
)
_SUBJECT = (
    r"(?:(?:the|this|a|an)\s+)?(?:response|answer|output|reply|assistant|model|completion|submission|text|it)?\s*"
)
_ONLY_QUALITY = _ci(
    r"^\s*(?:is\s+(?:this|it)\s+)?"
    + _SUBJECT
    + r"(?:is|should be|must be|be)?\s*(?:an?\s+)?(?:very\s+)?"
    + _QUALITY
    + r"(?:\s*(?:,|and|or)\s*(?:very\s+)?"
    + _QUALITY
    + r")*\s*(?:response|answer|output|reply)?\s*[.?!]?\s*$"
)


def circular(reading: Reading) -> Iterator[Hit]:
    if reading.scope == "content":
        return
    text = reading.plain
    m = _OVERALL.search(text) or _ONLY_QUALITY.search(text)
    if m and not words.in_content(text, m.start()):
        found = re.search(_QUALITY, text[m.start() : m.end()], re.IGNORECASE)
        start, end = (m.start() + found.start(), m.start() + found.end()) if found else (m.start(), m.end())
        span = (m.start(), m.end()) if m.re is _OVERALL else (start, end)
        yield Hit("circular-criterion", span[0], span[1], f"'{reading.text[span[0] : span[1]].strip()}'")


# -- unfalsifiable -----------------------------------------------------------------------------------------------

# Bars every on-topic, non-empty answer clears.
_TRIVIAL = (
    r"(?:(?:is\s+)?not\s+(?:be\s+)?empty|non[- ]empty|(?:contain|include)s?\s+(?:an?\s+)?error\s+message|"
    r"(?:provides?|gives?|contains?|includes?)\s+(?:an?|some|any)\s+(?:response|answer|information|content|reply)|"
    r"(?:responds?|replies)\s+to\s+the\s+(?:user|question|prompt|request|query)|"
    r"(?:addresses|attempts\s+to\s+(?:address|answer)|engages\s+with)\s+the\s+(?:topic|question|prompt|request|query)|"
    r"makes?\s+an\s+(?:effort|attempt)|"
    r"(?:references?|builds?\s+(?:up)?on|draws?\s+on|uses?|is\s+based\s+on|relates?\s+to)"
    r"(?:\s+(?:or|and)\s+(?:references?|builds?\s+(?:up)?on|draws?\s+on|uses?))*\s+(?:the\s+)?"
    r"(?:provided|given|supplied|retrieved)\s+(?:context|documents?|sources?|information)|"
    r"(?:is\s+)?(?:related|relevant)\s+to\s+the\s+(?:question|topic|prompt|query))"
)
_GENERIC = r"(?:helpful|relevant|useful|good|appropriate|coherent|clear)"
_TRIVIAL_CLAUSE = _ci(
    r"^\s*" + _SUBJECT + r"(?:must|should|shall)?\s*(?:not\s+)?(?:be\s+)?(?:either\s+)?"
    r"(?:" + _TRIVIAL + r"|" + _GENERIC + r"(?:\s+(?:and|or)\s+" + _GENERIC + r")*)"
    r"(?:\s+(?:or|and)\s+(?:" + _TRIVIAL + r"))*\s*[.!]?\s*$"
)


def unfalsifiable(reading: Reading) -> Iterator[Hit]:
    if reading.penalty or reading.scope == "content" or reading.choice or reading.levels:
        return
    clauses = [s for s in reading.sentences if s.text.strip()]
    if not clauses or len(reading.text) > 300:
        return
    trivial = [s for s in clauses if _TRIVIAL_CLAUSE.match(s.text)]
    if len(trivial) != len(clauses) or not any(re.search(_TRIVIAL, s.text, re.IGNORECASE) for s in clauses):
        return  # one falsifiable part remains, or it is only vague (vague-wording's)
    first = next(s for s in clauses if re.search(_TRIVIAL, s.text, re.IGNORECASE))
    m = re.search(_TRIVIAL, first.text, re.IGNORECASE)
    assert m is not None
    yield Hit("unfalsifiable", first.start + m.start(), first.start + m.end(), f"'{m.group(0)}'")


# -- needs-external-knowledge ------------------------------------------------------------------------------------

_EXTERNAL = _ci(
    r"\b(?:(?:company|organi[sz]ation(?:al)?|internal|our|corporate|brand|house)(?:'s)?\s+"
    r"(?:policy|policies|guidelines?|procedures?|rules|style\s+guide|standards?)"
    r"|(?:normal|standard|usual|established)\s+(?:procedures?|protocols?|policy|policies)"
    r"|style\s+guide|knowledge\s+base"
    r"|(?:consistent\s+with|according\s+to|as\s+(?:defined|described)\s+in|per|following)\s+the\s+[\w-]+\s+"
    r"(?:skill|playbook|runbook|handbook|documentation|docs|wiki|policy|guidelines?)"
    r"|(?:current|latest|live|real[- ]time|today's|up[- ]to[- ]date)\s+(?:\w+\s+)?"
    r"(?:price|prices|pool\s+state|state|weather|exchange\s+rates?|balances?|stock|version|news|data|rates?)"
    r"|(?:uses?|using|performs?|performed|does|did|runs?|conducts?)\s+(?:an?\s+)?(?:recursive\s+|web\s+|online\s+|internet\s+)?"
    r"(?:search(?:es)?|lookups?|web\s+search)\b"
    r"|(?:valid|working|functional|live)\s+(?:\w+\s+){0,2}?(?:deep\s+)?(?:links?|urls?|deep\s+links?)"
    r"|links?\s+(?:work|resolve|are\s+(?:valid|live))"
    r"|(?:sources|citations|references)\s+(?:are|is)\s+(?:real|genuine|valid)"
    r"|correct\s+(?:contract\s+|token\s+)?addresses)\b"
)


def external(reading: Reading) -> Iterator[Hit]:
    text = reading.plain
    for m in _EXTERNAL.finditer(text):
        if words.in_penalty(text, m.start()) or words.in_content(text, m.start()):
            continue
        yield Hit("needs-external-knowledge", m.start(), m.end(), f"'{reading.text[m.start() : m.end()]}'")
        return


# -- vague-wording -----------------------------------------------------------------------------------------------

# Evaluative terms raters read differently when nothing in the criterion anchors them (GUIDE.md's list and its
# kin). An adjective counts where it decides the verdict: said of the response ("is polite", "how natural",
# "specific enough"), first in the criterion, or naming a manner ("professional tone", "concise language").
_ADJECTIVES = (
    r"appropriate|age[- ]appropriate|inappropriate|helpful|unhelpful|polite|friendly|welcoming|empathetic|"
    r"professional|natural(?!\s+language)|unnatural|human[- ]like|funny|humou?rous|engaging|realistic|concise|relevant|reasonable|"
    r"adequate|sufficient|effective|meaningful|well[- ](?:structured|organi[sz]ed|written|explained|reasoned)|"
    r"coherent|focused|dramatic|genuine|unnecessary|excessive|satisfied|satisfactory|insightful|compelling|"
    r"nuanced|thoughtful|elegant|high[- ]quality|fluent|readable|awkward|robotic|simple|better|useful|clearer|"
    r"warm|empathic"
)
_ADVERBS = (
    r"appropriately|politely|naturally|effectively|concisely|dramatically|genuinely|unnecessarily|excessively|"
    r"partially|realistically|adequately|sufficiently|reasonably|meaningfully|coherently|professionally|"
    r"helpfully|empathetically|engagingly|well"
)
_NOUNS = (
    r"helpfulness|politeness|naturalness|relevance|coherence|empathy|professionalism|satisfaction|fluency|"
    r"readability|conciseness|clarity|tone"
)
_TERM = re.compile(
    r"(?<![-\w])(?:(" + _ADJECTIVES + r")|(" + _ADVERBS + r")|(" + _NOUNS + r"))(?![-\w])", re.IGNORECASE
)
_PREDICATIVE_BEFORE = re.compile(
    r"(?:\b(?:is|are|be|being|been|sounds?|seems?|feels?|appears?|remains?|stays?|becomes?|how|too|so|very|more|most|"
    r"less|overall)\s+(?:\w+\s+){0,1}|\b(?:and|or|,)\s*)$",
    re.IGNORECASE,
)
_MANNER_NOUN = re.compile(
    r"^[\s,]+(?:(?:and|or|more)?\s*[\w-]+\s*,?\s+){0,2}?(?:tone|language|manner|style|way|wording|voice|length|support|information|"
    r"expectations?|examples?|structure|explanation|feedback|advice|guidance|help|assistance|response|answer|"
    r"replies|reply|communication|writing|range|amount|level|degree)\b",
    re.IGNORECASE,
)
_QUANTITY = re.compile(
    r"\ball\s+(?:the\s+)?(?:important|key|relevant|necessary|essential|major|main|critical)\s+"
    r"(?:aspects|points|details|information|parts|elements|facts|issues|ideas)\b|\b\w+\s+enough\b|\bhow\s+well\b",
    re.IGNORECASE,
)
# "evaluate the level of empathy", "Rate the accuracy of …": a quality to assess with no bar at all.
_NO_BAR = _ci(r"^\s*(?:evaluate|assess|rate|judge|measure|analy[sz]e|consider)\s+(?:the|how|its|this)\b")
_BAR = _ci(r"\b(?:whether|if|pass|fail|must|should|score\s+\d|\d\s*(?:-|to)\s*\d|scale|only when|at least)\b")
_LEVEL_DEGREE = r"(?:very|somewhat|slightly|moderately|mostly|not)?\s*"  # "Very helpful": the level is the term
LONG = 600  # characters: a criterion longer than this is a multi-part rubric
_HEDGED = re.compile(r"\b(?:where|when|if|as)\s+$", re.IGNORECASE)


def vague(reading: Reading) -> Iterator[Hit]:
    if reading.scope == "content":
        return
    text = reading.plain
    first = reading.sentences[0] if reading.sentences else None
    if first is not None and _NO_BAR.match(first.text) and not _BAR.search(text):
        m = _NO_BAR.match(first.text)
        assert m is not None
        start = first.start + len(first.text) - len(first.text.lstrip())
        yield Hit("vague-wording", start, first.start + m.end(), "no bar is given")
        return
    # In a long multi-part rubric a term rarely decides the verdict alone: only its opening statement counts.
    scope = text if len(text) <= LONG or first is None else text[: first.end]
    found = _QUANTITY.search(scope)
    candidates = [found] if found else []
    candidates += [m for m in _TERM.finditer(scope) if _decides(scope, reading.masked, m)]
    for m in sorted(candidates, key=lambda m: m.start()):
        if words.anchored_after(reading.masked, m.end()) or words.in_content(text, m.start(), narrow=True):
            continue
        yield Hit("vague-wording", m.start(), m.end(), f"'{reading.text[m.start() : m.end()]}'")
        return
    for index, level in enumerate(reading.levels):
        plain = words.masked(level)
        for m in _TERM.finditer(plain):
            if words.anchored_after(plain, m.end()) or not m.group(1):
                continue
            if re.fullmatch(_LEVEL_DEGREE, plain[: m.start()], re.I) or _decides(plain, plain, m):
                yield Hit("vague-wording", m.start(), m.end(), f"'{m.group(0)}'", level=index)
                return


def _decides(text: str, masked: str, m: re.Match[str]) -> bool:
    """Whether the evaluative term ``m`` decides the verdict where it stands (see _ADJECTIVES)."""
    before = text[: m.start()]
    if _HEDGED.search(before) or (m.group(0)[:1].isupper() and before.strip() and before.rstrip()[-1] not in ".:?!\n"):
        return False  # "where appropriate" is hedging's; a capitalised word mid-sentence names something
    if m.group(2) or m.group(3):
        return m.group(0).lower() != "well" and m.group(0).lower() != "tone"
    if not before.strip() or re.search(
        r"(?:^|[.:?!\n])\s*(?:(?:the|a|an)\s+)?(?:response|answer|output)?\s*$", before, re.I
    ):
        return True
    if _PREDICATIVE_BEFORE.search(before) and not re.search(r"\b(?:and|or|,)\s*$", before):
        return True
    chained = re.search(r"(\w[\w-]*)\s*(?:,\s*(?:and|or)?|and|or)\s*$", before)
    if chained and _TERM.fullmatch(chained.group(1)) and _PREDICATIVE_BEFORE.search(before[: chained.start()]):
        return True
    return bool(_MANNER_NOUN.match(text[m.end() :]))
