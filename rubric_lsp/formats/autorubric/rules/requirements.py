"""Requirements: empty ones, several checks bundled in one, a sign that inverts the meaning (AR015, AR018, AR019)."""

from __future__ import annotations

import re

from rubric_lsp.diagnostics import Severity
from rubric_lsp.document import Node
from rubric_lsp.formats.autorubric.edits import scalar_text
from rubric_lsp.formats.autorubric.fields import CriterionValues
from rubric_lsp.formats.autorubric.rules.common import FORMATS
from rubric_lsp.formats.autorubric.view import CriterionEntry
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

EMPTY_REQUIREMENT = rule(
    "AR015",
    "empty-requirement",
    W,
    "A criterion's requirement is empty.",
    "The requirement is all the judge sees of the criterion; an empty one is accepted by autorubric "
    "but gives the judge nothing to check, so its verdicts are noise.",
    bad="- requirement: ''",
    good="- requirement: Names the capital of France",
    formats=FORMATS,
)

INVERTED_SIGN = rule(
    "AR018",
    "inverted-weight-sign",
    W,
    "A penalty (negative weight) is phrased as a virtue, or a reward (positive weight) as a fault.",
    "With a negative weight, MET means the response does the bad thing. 'Explains clearly' with "
    "weight -10 punishes clear answers; 'Contains factual errors' with +10 rewards errors. This is "
    "a wording heuristic: check the sign.",
    bad="- requirement: Contains factual errors\n  weight: 10",
    good="- requirement: Contains factual errors\n  weight: -10",
    fix="flip the weight's sign (unsafe: changes what the criterion rewards)",
    fix_safety="Unsafe: flipping the sign changes what the criterion rewards.",
    formats=FORMATS,
)

BUNDLED_REQUIREMENT = rule(
    "AR019",
    "bundled-requirement",
    I,
    "A requirement asks for several things at once.",
    "The judge gives one verdict per criterion; when a requirement joins several checks ('States the "
    "date and explains the cause; cites a source') a partly good answer gets an all-or-nothing "
    "verdict. Judges grade atomic criteria more reliably. Flagged when, outside parentheses and "
    "quotes, the text has a semicolon between two parts, or 'and' / 'as well as' followed by a "
    "second action verb ('… and provides …'). Further sentences are read as explanation, not as "
    "more requirements. Where the smell rules run (the editor, or RL301 selected) and RL301 double-barreled "
    "reports the same requirement, this finding is left out: RL301 names the two parts and offers the split "
    "(docs/smells.md).",
    bad="- requirement: States the date and explains the cause",
    good="- requirement: States the date\n- requirement: Explains the cause",
    formats=FORMATS,
    defers_to=("RL301",),
)

# Subjects a requirement often starts with before its verb ("The response explains ...").
_SUBJECT = (
    r"(?:(?:the|this|a)\s+)?(?:response|answer|submission|review|output|assistant|model|essay|summary|reply|text|it)\s+"
)

_NOT_NEGATION = r"(?!(?:no|not|without|free|zero|never|few|fewer|avoids?|avoiding)\b)"

# "error handling", "error messages": compounds that name a virtue, not a fault.
_FAULT_NOUN = (
    r"(?:factual\s+)?(?:errors?|mistakes?|inaccurac(?:y|ies)|hallucinat\w*|fabricat\w*|typos?|contradictions?|misinformation|falsehoods?|bugs?)\b"
    r"(?![\s-]+(?:handling|handler|messages?|checking|checks?|codes?|bars?|analysis|rates?|cases?|correction|detection|recovery|reporting|fix\w*|free)\b)"
)

_FAULT = re.compile(
    r"^(?:" + _SUBJECT + r")?(?:"
    r"(?:contains|includes|makes|has|introduces|presents)\s+(?:"
    + _NOT_NEGATION
    + r"[\w-]+\s+){0,2}"
    + _FAULT_NOUN
    + r"|(?:hallucinates|fabricates|misquotes|misrepresents|misattributes|fails\s+to|ignores|omits)\b"
    r"|is\s+(?:rude|incorrect|inaccurate|wrong|misleading|offensive|harmful|unsafe|off-topic|irrelevant|condescending)\b)",
    re.IGNORECASE,
)

_ADVERB = r"(?:correctly|accurately|clearly|concisely|thoroughly|properly|appropriately|effectively|politely|helpfully|logically)"

# Only wording that is a virtue whatever follows: "Explains how to pick a lock" may well be a
# fair penalty, "Explains ... clearly" hardly.
_VIRTUE = re.compile(
    r"^(?:" + _SUBJECT + r")?(?:" + _ADVERB + r"\s+\w+"
    r"|(?:explains|describes|answers|states|summari[sz]es|cites|addresses|responds|communicates|presents|structures|organi[sz]es)\b"
    r"(?:\s+[\w'-]+){0,6}?\s+" + _ADVERB + r"\b"
    r"|is\s+(?:accurate|correct|clear|concise|helpful|polite|professional|factual|complete|relevant|comprehensive|coherent|well[- ]\w+)\b"
    r"|provides\s+(?:an?\s+)?(?:accurate|correct|clear|helpful|relevant|specific|concrete|actionable|thorough|complete|well[- ]\w+)\b"
    r"|uses\s+(?:clear|correct|appropriate|proper|precise)\b)",
    re.IGNORECASE,
)

_ACTION_VERBS = [
    "provides",
    "explains",
    "states",
    "includes",
    "mentions",
    "identifies",
    "describes",
    "cites",
    "uses",
    "gives",
    "lists",
    "discusses",
    "offers",
    "suggests",
    "recommends",
    "avoids",
    "notes",
    "addresses",
    "acknowledges",
    "concludes",
    "demonstrates",
    "defines",
    "compares",
    "justifies",
    "summarizes",
    "summarises",
    "references",
    "evaluates",
    "presents",
    "follows",
    "proposes",
    "warns",
    "asks",
    "answers",
    "shows",
    "supports",
]

_AND_VERB = re.compile(
    r"(?:,\s*|\s)(?:and|as well as)\s+(?:also\s+)?(" + "|".join(_ACTION_VERBS) + r")\b", re.IGNORECASE
)


def check_requirement(ctx: CheckContext, entry: CriterionEntry, criterion: CriterionValues) -> None:
    node = entry.node.get("requirement")
    if node is None:
        return
    text = criterion.requirement
    if not text.strip():
        ctx.report(
            EMPTY_REQUIREMENT,
            node,
            "The requirement is empty: it is all the judge sees of this criterion, so its verdicts would be guesses. Say what the response must do.",
        )
        return
    weight_node = entry.node.get("weight")
    if criterion.weight < 0 and _VIRTUE.search(text.strip()):
        _sign_warning(
            ctx,
            node,
            weight_node,
            criterion.weight,
            f"This penalty (weight {scalar_text(criterion.weight)}) reads like something good: MET means the response does it, so good responses lose points. "
            "If it describes a virtue, make the weight positive; if it is a fault, reword it as the fault.",
        )
    elif criterion.weight > 0 and _FAULT.search(text.strip()):
        _sign_warning(
            ctx,
            node,
            weight_node,
            criterion.weight,
            f"This reward (weight {scalar_text(criterion.weight)}) reads like a fault: MET means the response has it, so faulty responses gain points. "
            "If it describes a fault, make the weight negative (a penalty); otherwise reword it as the virtue.",
        )
    if ctx.enabled(BUNDLED_REQUIREMENT):
        reason = bundled_reason(text)
        if reason:
            ctx.report(
                BUNDLED_REQUIREMENT,
                ctx.line_span(node),
                f"This requirement bundles several checks ({reason}): the judge gives one verdict for all of them, so a partly good response "
                "gets all or nothing. Consider one criterion per check.",
            )


def _sign_warning(ctx: CheckContext, node: Node, weight_node: Node | None, weight: float, message: str) -> None:
    fix = None
    if (
        weight_node is not None
        and weight_node.is_scalar
        and isinstance(weight_node.value, (int, float))
        and not isinstance(weight_node.value, bool)
    ):
        fix = ctx.replace(weight_node, scalar_text(-weight), f"Flip the weight to {scalar_text(-weight)}", safe=False)
    ctx.report(INVERTED_SIGN, ctx.line_span(node), message, fix=fix)


def bundled_reason(text: str) -> str | None:
    """Why ``text`` looks like several requirements in one, or None (see AR019's rationale)."""
    plain = re.sub(r"\([^()]*\)|\[[^\[\]]*\]|\"[^\"]*\"|“[^”]*”", " ", text).strip()
    parts = [p for p in plain.split(";") if p.strip()]
    if len(parts) >= 2:
        return "parts separated by ';'"
    match = _AND_VERB.search(plain)
    if match:
        return f"'{match.group(0).strip(', ')} …'"
    return None
