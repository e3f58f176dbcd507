"""The review rubric: one question per smell, asked of every criterion (docs/review.md).

Written here from the definitions the smells corpus was labelled with (its GUIDE.md), in our own words: what
counts, and the near misses that do not. Each question names the lint rule that looks for the same smell by its
words (docs/smells.md), so a reader can compare the two. Changing a question changes the prompt, so the verdict
cache asks the judge again and a calibration record of the review goes stale.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Question:
    smell: str  # the smell's name, as the lint rule names it
    rule: str  # the lint rule reading the same smell by its words
    title: str
    ask: str  # what the judge is asked, with what counts and what does not


QUESTIONS: tuple[Question, ...] = (
    Question(
        "double-barreled",
        "RL301",
        "Two requirements under one verdict",
        "Does the criterion demand two or more separate things that a response could satisfy one of and miss the "
        "other, while the judge gives a single verdict? Typical: two qualities (correct and brief; polite and "
        "actionable), two acts (finds the bug and proposes a fix; refuses and explains why), or a list of unlike "
        "requirements judged pass/fail as a whole. Answer false when the parts are one idea said twice (clear and "
        "easy to follow), when the second part only negates or follows from the first (declines without revealing "
        "the key), when a list's items together make up one answer (names the three largest cities), and when "
        "the alternatives are joined by 'or'.",
    ),
    Question(
        "vague-wording",
        "RL302",
        "An evaluative word nothing defines",
        "Does passing depend on an evaluative word that different raters would apply differently, with nothing in "
        "the criterion saying what it looks like (appropriate, concise, engaging, professional, how well, enough, "
        "effectively)? Also true when the criterion only asks to evaluate or rate something with no bar at all. "
        "Answer false when the word is followed by what it means (short: at most three sentences), when it is "
        "incidental to a requirement that can be checked, and for widely shared categories (in Spanish, harmful).",
    ),
    Question(
        "hedging-language",
        "RL303",
        "A hedge that leaves the requirement open",
        "Does a qualifier on the requirement itself (if needed, where appropriate, ideally, preferably, may, "
        "usually around N) leave it unclear whether a response must do the thing to pass? Answer false when the "
        "hedge is part of what the response is expected to say (warns that the dose may cause drowsiness) and when "
        "it grants a clear permission (either unit is acceptable).",
    ),
    Question(
        "verbosity-rewarding",
        "RL304",
        "Length or depth rewarded for itself",
        "Is more length or depth what earns the verdict (comprehensive, thorough, in-depth, detailed, the most "
        "points, levels that climb with more detail) without saying which content satisfies it? Answer false when "
        "the expected details are listed, when the word sits inside a prohibition (does not give detailed "
        "instructions for …), and when length is penalised.",
    ),
    Question(
        "counting-dependent",
        "RL305",
        "A verdict that needs counting text",
        "Does the verdict depend on counting units a language-model judge counts badly: words, characters, "
        "tokens, syllables (a haiku's lines), rhymes, lines, or four or more sentences, paragraphs or bullets; or "
        "on an exact word-for-word match of a long text? Answer false for counts of content items (at least two "
        "risks, exactly one question) and for three sentences or fewer.",
    ),
    Question(
        "unfalsifiable",
        "RL306",
        "A bar every answer clears",
        "Would practically any non-empty response that stays on topic meet it (responds to the question, uses "
        "the supplied context, is not empty and has no error message)? Answer false as soon as one specific, "
        "checkable demand remains, however easy (mentions the refund deadline).",
    ),
    Question(
        "circular-criterion",
        "RL307",
        "Overall quality as its own test",
        "Does the criterion only restate overall quality or success (the answer is good; is this response "
        "helpful; which output is better overall; levels named only by quality) instead of saying what makes a "
        "response good here? Answer false when quality is tied to a reference answer or to observable content.",
    ),
    Question(
        "poorly-anchored-scale",
        "RL308",
        "Levels a rater cannot tell apart",
        "Only for a criterion with three or more levels (its listed options, a score range such as 1-5 or 0-10, "
        "named grades): are neighbouring levels told apart only by degree words (slightly, moderately, very; "
        "poor, fair, good), given as bare numbers with no description, or lumped together (anything below 4)? "
        "Answer false for a yes/no or pass/fail criterion, for options that are categories rather than degrees, "
        "and for levels that each describe what a response does.",
    ),
    Question(
        "needs-external-knowledge",
        "RL309",
        "Something the judge is not shown",
        "To decide it, would the judge need something it is not given: current or live data (today's price), "
        "whether a link works or a cited source exists, a company policy or style guide that is not included, "
        "actions that do not show in the response (ran a search, called a tool), or a reference named only by a "
        "file path? Answer false when the needed facts are written in the criterion or its reference, and for "
        "general knowledge a capable judge has.",
    ),
)

BY_SMELL = {q.smell: q for q in QUESTIONS}
