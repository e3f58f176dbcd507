"""RL301-RL311: the smell rules (docs/smells.md). Info by default, and read only when the settings select them
or the file is open in an editor (``lint.lint_text(smells=True)``); RL310 is off unless selected by its code.

Each rule's findings come from the format-neutral detectors over the texts ``Format.criteria`` hands over;
the range is the words that trip it, the message what a rater cannot decide and how to rewrite it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rubric_lsp.diagnostics import Fix, Severity
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import Rule, rule
from rubric_lsp.rules.smells.criteria import CriterionText, RubricTexts
from rubric_lsp.rules.smells.detect import smells
from rubric_lsp.rules.smells.reading import Hit, Reading
from rubric_lsp.rules.smells.rubric import lacks_penalties, overlaps

I = Severity.INFO
_WHY = "Measured on 395 real criteria labelled by hand (docs/smells.md has the figures and the definition). "

DOUBLE_BARRELED = rule(
    "RL301",
    "double-barreled",
    I,
    "One criterion requires two things a response can meet one without the other.",
    _WHY + "The judge gives one verdict: a response that meets one part and not the other forces it (and "
    "every person labelling) to invent a rule for the mix, and they invent different ones. Read as GUIDE.md "
    "defines it: two requirements with different verbs ('acknowledges the order and offers a refund'), or a "
    "numbered list of requirements under one pass-or-not verdict; a list of one verb's objects ('lists A, B and C'), "
    "a requirement and its negation ('declines without leaking') and alternatives joined by 'or' are one thing. "
    "autorubric's AR019 reads only its own requirements with a list of verbs; this rule reads every format.",
    bad="""\
        - name: ack_and_refund
          requirement: The response acknowledges the order number and offers a refund.
          weight: 10
    """,
    good="""\
        - name: ack
          requirement: The response acknowledges the order number.
          weight: 5
        - name: refund
          requirement: The response offers a refund.
          weight: 5
    """,
    fix="split into two criteria, each with half the weight (autorubric)",
    fix_safety="Unsafe: two criteria score a partly good response differently from one, and the split "
    "cannot know which words belong to which part when the sentence shares more than its subject; read both.",
)
VAGUE = rule(
    "RL302",
    "vague-wording",
    I,
    "The verdict hangs on an evaluative word nothing in the criterion defines ('appropriate', 'polite', 'how well').",
    _WHY + "Raters (people and judges) read 'concise' or 'professional' each their own way, so their verdicts "
    "disagree on the same response. A term followed by what it means ('concise (under 3 sentences)', "
    "'professional: no slang, no emoji'), a term inside expected content ('explains that …'), a widely shared "
    "category ('in natural language') and a term in a long multi-part rubric's details are not reported; "
    "'evaluate X' or 'rate X' with no bar at all is.",
    bad="""\
        - name: tone
          requirement: The response should sound polite and professional.
          weight: 5
    """,
    good="""\
        - name: tone
          requirement: "The response has no slang, no emoji and addresses the customer by name."
          weight: 5
    """,
)
HEDGING = rule(
    "RL303",
    "hedging-language",
    I,
    "A hedge ('if needed', 'where appropriate', 'ideally', 'typically 3-15') leaves open whether the behaviour is required.",
    _WHY + "A rater cannot tell whether a response that leaves the hedged part out passes. A hedge inside "
    "expected content ('explains that side effects may include …') is content, not the criterion's wording.",
    bad="""\
        - name: auth
          requirement: The response includes the Authorization header if needed.
          weight: 5
    """,
    good="""\
        - name: auth
          requirement: The response includes the Authorization header on every request to /graphql.
          weight: 5
    """,
)
VERBOSITY = rule(
    "RL304",
    "verbosity-rewarding",
    I,
    "Depth or length is what is rewarded ('comprehensive', 'detailed', 'the most facts') with no content named.",
    _WHY + "LLM judges favour longer answers; a criterion that rewards 'detailed' without saying which details "
    "satisfy it turns that bias into the score. Not reported when the detail is enumerated ('detailed steps: A, "
    "B, C'), inside a prohibition ('does not contain detailed instructions …') or in a penalty.",
    bad="""\
        - name: plan
          requirement: Contains a comprehensive plan to visit the Natural History Museum.
          weight: 5
    """,
    good="""\
        - name: plan
          requirement: The plan gives opening hours, a route from the hotel and a ticket price.
          weight: 5
    """,
)
COUNTING = rule(
    "RL305",
    "counting-dependent",
    I,
    "The verdict depends on counting words, characters, syllables, or four or more sentences or lines.",
    _WHY + "LLM judges count textual units unreliably (a haiku's 5-7-5, 'under 800 words', an exact word-for-"
    "word match of a long text). Counts of content items ('at least 2 strengths') and small sentence counts "
    "('1-2 sentences') are not reported. Check such a count with a deterministic assertion instead.",
    bad="""\
        - name: length
          requirement: The review stays under 800 words.
          weight: 5
    """,
    good="""\
        - name: strengths
          requirement: The review names at least two strengths of the paper.
          weight: 5
    """,
)
UNFALSIFIABLE = rule(
    "RL306",
    "unfalsifiable",
    I,
    "Almost any on-topic, non-empty response meets the criterion ('references the provided context', 'not empty').",
    _WHY + "A criterion every answer passes adds nothing but points. Reported only when every part of the "
    "criterion is such a bar; a low but specific bar ('mentions coffee or caffeine') is not.",
    bad="""\
        - name: context
          requirement: References or builds upon the provided context
          weight: 5
    """,
    good="""\
        - name: context
          requirement: Quotes the refund deadline given in the context
          weight: 5
    """,
)
CIRCULAR = rule(
    "RL307",
    "circular-criterion",
    I,
    "The criterion restates overall quality as its own test ('Response is helpful', 'Which response is better overall?').",
    _WHY + "A criterion that only says 'good' gives the judge nothing to check: each rater scores their own "
    "idea of quality. A named dimension defined by observable content, or a reference answer, is not circular.",
    bad="""\
        - name: quality
          requirement: Response is helpful
          weight: 5
    """,
    good="""\
        - name: quality
          requirement: Response gives the command that fixes the error
          weight: 5
    """,
)
SCALE = rule(
    "RL308",
    "poorly-anchored-scale",
    I,
    "A scale of three or more levels is told apart only by degree words, bare numbers, or lumped levels.",
    _WHY + "Levels named 'Very / Somewhat / Slightly helpful', options '1 2 3 4', 'Score 1-5 where 5 is "
    "perfect' or 'Score 3 or lower when …' give no observable difference between neighbouring levels, so raters "
    "spread over them at random (and judges collapse to the ends). Describe what a response at each level does.",
    bad="""\
        - name: helpfulness
          requirement: How helpful is the response?
          weight: 5
          options:
            - {label: Not helpful, value: 0}
            - {label: Somewhat helpful, value: 0.5}
            - {label: Very helpful, value: 1}
    """,
    good="""\
        - name: helpfulness
          requirement: Does the response give a working fix?
          weight: 5
          options:
            - {label: No fix given, value: 0}
            - {label: A fix that needs changes to run, value: 0.5}
            - {label: A fix that runs as given, value: 1}
    """,
)
EXTERNAL = rule(
    "RL309",
    "needs-external-knowledge",
    I,
    "Deciding the criterion needs what the judge is not given (company policy, live data, whether a link works, a tool call).",
    _WHY + "The judge sees the response and its inputs only: 'follows normal procedures', 'the current price', "
    "'a working deep link' or 'uses web search' make it guess. Facts written in the criterion or its reference, "
    "and general knowledge a judge has, are not reported.",
    bad="""\
        - name: policy
          requirement: Response follows company policy on refunds
          weight: 5
    """,
    good="""\
        - name: policy
          requirement: "Response refuses refunds over $100 without a receipt (policy: receipts are required above $100)"
          weight: 5
    """,
)
OVERLAP = rule(
    "RL310",
    "overlapping-criteria",
    I,
    "Two criteria scored together measure the same thing, so one response property is counted twice.",
    _WHY + "Off by default: on the labelled pairs its word-overlap test is right on too few of the pairs it "
    "flags (docs/smells.md gives the figure); overlap is mostly a matter of meaning, which no word test settles. "
    "Select RL310 by its code to see its findings.",
    bad="""\
        - name: full
          requirement: correctly explains the relationship of potential energy to ionization energy
          weight: 2
        - name: partial
          requirement: partially explains the relationship of potential energy to ionization energy
          weight: 1
    """,
    good="""\
        - name: cites
          requirement: cites decreased electron repulsion
          weight: 1
        - name: charge
          requirement: names the core charge the fifth electron feels
          weight: 1
    """,
    opt_in=True,
)
NO_PENALTIES = rule(
    "RL311",
    "no-penalties",
    I,
    "A rubric that can penalise (autorubric's negative weights) has no penalty criterion.",
    _WHY + "With only rewards, a judge's lean towards MET inflates every score and a response with a serious "
    "error can still score full marks. Add a negative-weight criterion for the errors that matter.",
    bad="""\
        - name: answer
          requirement: Names Canberra as the capital
          weight: 5
        - name: source
          requirement: Cites a source
          weight: 2
    """,
    good="""\
        - name: answer
          requirement: Names Canberra as the capital
          weight: 5
        - name: wrong
          requirement: Names Sydney as the capital
          weight: -5
    """,
)

BY_NAME: dict[str, Rule] = {
    r.name: r
    for r in (
        DOUBLE_BARRELED,
        VAGUE,
        HEDGING,
        VERBOSITY,
        COUNTING,
        UNFALSIFIABLE,
        CIRCULAR,
        SCALE,
        EXTERNAL,
        OVERLAP,
        NO_PENALTIES,
    )
}

_ADVICE = {
    "double-barreled": "a response meeting one part but not the other has no defined verdict",
    "vague-wording": "raters read it differently; say what it looks like in the response",
    "hedging-language": "it is unclear whether the behaviour is required; say when it is, or drop the hedge",
    "verbosity-rewarding": "it rewards length, not content; name the content that satisfies it",
    "counting-dependent": "judges count textual units unreliably; check the count with a deterministic assertion",
    "unfalsifiable": "almost any on-topic answer meets it; name something a wrong answer would lack",
    "circular-criterion": "it restates overall quality; say what makes a response good here",
    "poorly-anchored-scale": "neighbouring levels cannot be told apart; describe what a response at each level does",
    "needs-external-knowledge": "the judge is not given it; write the facts into the criterion or check it another way",
}


def message(hit: Hit, criterion: CriterionText | None = None) -> str:
    """What a rater cannot decide, and how to rewrite the criterion."""
    name = f"criterion {criterion.name}: " if criterion is not None else ""
    if hit.smell == "double-barreled" and len(hit.parts) == 2:
        first, second = hit.parts
        return f"{name}two requirements under one verdict: split into two criteria: '{first}' / '{second}'"
    return f"{name}{hit.why}: {_ADVICE[hit.smell]}"


def reading_of(criterion: CriterionText) -> Reading:
    return Reading(
        criterion.text.text,
        tuple(level.text for level in criterion.levels),
        penalty=criterion.penalty,
        scope=criterion.scope,
        choice=criterion.choice,
    )


def report_smells(ctx: CheckContext) -> None:
    if ctx.criteria is None:
        return
    wanted = {name for name, found in BY_NAME.items() if ctx.enabled(found)}
    if not wanted:
        return
    found: list[tuple[CriterionText, list[Hit]]] = []
    for rubric in ctx.criteria():
        for criterion in rubric.criteria:
            hits = smells(reading_of(criterion), wanted)
            found.append((criterion, hits))
            for hit in hits:
                piece = criterion.text if hit.level is None else criterion.levels[hit.level]
                ctx.report(BY_NAME[hit.smell], piece.span(hit.start, hit.end), message(hit), fix=_split(criterion, hit))
        _rubric_smells(ctx, rubric, wanted)
    ctx.cache[VIEW_KEY] = found


VIEW_KEY = "smells.found"  # CheckContext.cache: each criterion with its smells, for the hover


def _rubric_smells(ctx: CheckContext, rubric: RubricTexts, wanted: set[str]) -> None:
    criteria = rubric.criteria
    if "no-penalties" in wanted and rubric.penalties and lacks_penalties([c.penalty for c in criteria]):
        ctx.report(
            NO_PENALTIES,
            rubric.anchor,
            f"{rubric.name}: {len(criteria)} criteria and no penalty: a judge's lean towards MET inflates every "
            "score; add a negative-weight criterion for the errors that matter",
        )
    if "overlapping-criteria" in wanted:
        texts = [c.text.text for c in criteria]
        for pair in overlaps(texts, [c.penalty for c in criteria]):
            first, second = criteria[pair.first], criteria[pair.second]
            ctx.report(
                OVERLAP,
                second.text.anchor,
                f"criteria {first.name} and {second.name} measure the same thing ({pair.why}): one response "
                "property is counted twice; merge them or make them distinct",
                related=[(first.text.anchor, f"criterion {first.name}")],
            )


def _split(criterion: CriterionText, hit: Hit) -> Fix | None:
    if hit.smell != "double-barreled" or criterion.split is None or len(hit.parts) != 2:
        return None
    text = criterion.text.text
    prefix = text[: hit.start]
    lead = prefix if len(prefix) <= 60 and not any(ch in prefix for ch in ".\n:;") else ""
    first, second = (_sentence(lead + part) for part in hit.parts)
    edits = criterion.split(first, second)
    return Fix(f"split into two criteria: '{first}' / '{second}'", edits, safe=False) if edits else None


def _sentence(text: str) -> str:
    text = " ".join(text.split()).rstrip(" ,;")
    return (text[:1].upper() + text[1:]).rstrip(".") + "."


SMELL_CHECKERS: tuple[Callable[[Any], None], ...] = (report_smells,)
