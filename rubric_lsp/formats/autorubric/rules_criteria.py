"""Per-criterion pitfalls autorubric accepts silently: aggregation, options, weights, wording."""

from __future__ import annotations

import math
import re

from rubric_lsp.diagnostics import Severity
from rubric_lsp.document import Node
from rubric_lsp.formats.autorubric import DATASET, RUBRIC
from rubric_lsp.formats.autorubric.edits import remove_pair, scalar_text
from rubric_lsp.formats.autorubric.model import NOMINAL_AGGREGATIONS, ORDINAL_AGGREGATIONS, Criterion
from rubric_lsp.formats.autorubric.view import CriterionEntry, RubricView
from rubric_lsp.formats.errors import Suggestion, suggest
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule
from rubric_lsp.rules.unknown_keys import VALUE_RENAME_SAFETY, rename_fix

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
FORMATS = (RUBRIC, DATASET)
# The grader-wide aggregations of binary verdicts (CriterionGrader(aggregation=...)).
BINARY_AGGREGATIONS = ("majority", "weighted", "unanimous", "any")

# -- rules ---------------------------------------------------------------------------------
ORDINAL_AGGREGATION_UNKNOWN = rule(
    "AR002",
    "unknown-ordinal-aggregation",
    W,
    "An ordinal criterion names an `aggregation` autorubric does not know; it silently uses `mean`.",
    "When several judges grade a criterion, their picks are combined by its `aggregation`. For an "
    "ordinal criterion autorubric knows mean, median, weighted_mean, mode, min and max; any other "
    "value (a typo such as `medain`) falls back to `mean` without a word.",
    bad="- requirement: How clear is the answer?\n  aggregation: medain\n  options: [...]",
    good="- requirement: How clear is the answer?\n  aggregation: median\n  options: [...]",
    fix="rename to the nearest known aggregation",
    fix_safety=VALUE_RENAME_SAFETY,
    formats=FORMATS,
)
AGGREGATION_WRONG_FAMILY = rule(
    "AR003",
    "aggregation-wrong-scale",
    W,
    "An ordinal criterion uses an aggregation meant for nominal criteria (`weighted_mode`, `unanimous`); it silently becomes `mean`.",
    "Ordinal and nominal criteria have separate aggregation lists. `weighted_mode` and `unanimous` "
    "exist only for nominal criteria; on an ordinal one they are unknown and autorubric averages "
    "the judges' picks instead.",
    bad="- requirement: How clear is the answer?\n  aggregation: unanimous\n  options: [...]",
    good="- requirement: How clear is the answer?\n  aggregation: min\n  options: [...]",
    fix="use the ordinal counterpart (weighted_mode → weighted_mean, unanimous → min); changes behaviour",
    fix_safety="Unsafe: the ordinal counterpart changes how the judges' picks are combined.",
    formats=FORMATS,
)
IGNORED_ON_BINARY = rule(
    "AR004",
    "ignored-on-binary",
    W,
    "`aggregation`, `scale_type` or `options: null` on a binary (MET/UNMET) criterion has no effect.",
    "These keys only matter for multi-choice criteria (those with `options`). On a binary criterion "
    "autorubric ignores them, which usually means the options were forgotten or lost.",
    bad="- requirement: Cites a source\n  scale_type: nominal",
    good="- requirement: Cites a source",
    fix="remove the key",
    fix_safety="Safe: autorubric ignores the key on a binary criterion, so removing it changes nothing it does.",
    formats=FORMATS,
)
DUPLICATE_OPTION_LABEL = rule(
    "AR005",
    "duplicate-option-label",
    W,
    "Two options of a criterion have the same label (ignoring case and surrounding spaces).",
    "Ground truth and expected verdicts name options by label, matched after strip().lower(); the "
    "first match wins, so the second option can never be named.",
    bad="options:\n  - {label: Good, value: 1}\n  - {label: 'good ', value: 0.5}",
    good="options:\n  - {label: Good, value: 1}\n  - {label: Fair, value: 0.5}",
    formats=FORMATS,
)
EMPTY_OPTION_LABEL = rule(
    "AR006",
    "empty-option-label",
    W,
    "An option's label is empty.",
    "The judge is shown the labels to choose from; an empty one gives it nothing to pick, and "
    "ground truth cannot name it.",
    bad="- {label: '', value: 0}",
    good="- {label: Not at all, value: 0}",
    formats=FORMATS,
)
SEVERAL_NA_OPTIONS = rule(
    "AR007",
    "several-na-options",
    W,
    "A criterion has more than one NA (`na: true`) option.",
    "autorubric abstains through the first NA option only (for example when judges disagree under "
    "`unanimous`, or a judge call fails); the others are just extra ways to abstain.",
    bad="- {label: N/A, value: 0, na: true}\n- {label: Unknown, value: 0, na: true}",
    good="- {label: N/A, value: 0, na: true}",
    formats=FORMATS,
)
NA_VALUE_RANGE = rule(
    "AR008",
    "na-value-out-of-range",
    W,
    "An NA option's value is outside [0, 1].",
    "autorubric never range-checks NA options because their value is never scored, so a value such "
    "as -1 is usually a scored option that was meant to lose its `na: true`, or a sentinel that "
    "confuses readers.",
    bad="- {label: N/A, value: -1, na: true}",
    good="- {label: N/A, value: 0, na: true}",
    fix="set the value to 0",
    fix_safety="Safe: autorubric never scores an NA option's value, so writing 0 changes no score.",
    formats=FORMATS,
)
EQUAL_OPTION_VALUES = rule(
    "AR009",
    "equal-option-values",
    W,
    "Every scored option of a criterion has the same value.",
    "Whichever option the judge picks, the criterion contributes the same amount, so it cannot tell "
    "a good response from a bad one.",
    bad="options:\n  - {label: Yes, value: 1}\n  - {label: No, value: 1}",
    good="options:\n  - {label: Yes, value: 1}\n  - {label: No, value: 0}",
    formats=FORMATS,
)
MAX_UNREACHABLE = rule(
    "AR010",
    "best-option-below-one",
    W,
    "On an ordinal scale no scored option is worth 1.0 (or, for a penalty, none is worth 0), so the best score is unreachable.",
    "A criterion earns `value × weight`. If the best option is worth 0.8, even a perfect response "
    "loses 20% of this criterion's weight and the rubric can never give 1.0; for a negative weight, "
    "an option at 0 is what lets a response avoid the penalty.",
    bad="options:\n  - {label: Poor, value: 0}\n  - {label: Good, value: 0.8}",
    good="options:\n  - {label: Poor, value: 0}\n  - {label: Good, value: 1.0}",
    fix="set the best option's value to 1.0 (0 for a penalty); changes scores",
    fix_safety="Unsafe: it changes the scores the rubric gives.",
    formats=FORMATS,
)
NOT_MONOTONIC = rule(
    "AR011",
    "ordinal-not-monotonic",
    W,
    "The values of an ordinal criterion's options go up and down in the listed order.",
    "An ordinal scale is an ordered list: values should rise (or fall) from the first option to the "
    "last. Zig-zag values usually mean a typo, and ordinal agreement metrics assume the order.",
    bad="options:\n  - {label: Poor, value: 0}\n  - {label: Fair, value: 0.7}\n  - {label: Good, value: 0.5}",
    good="options:\n  - {label: Poor, value: 0}\n  - {label: Fair, value: 0.5}\n  - {label: Good, value: 1}",
    formats=FORMATS,
)
DUPLICATE_NAME = rule(
    "AR012",
    "duplicate-criterion-name",
    W,
    "Two criteria have the same name.",
    "autorubric accepts it, but reports, agreement metrics and expected verdicts identify criteria by "
    "name, so results of the two get mixed up.",
    bad="- name: accuracy\n  requirement: States the date\n- name: accuracy\n  requirement: States the place",
    good="- name: date\n  requirement: States the date\n- name: place\n  requirement: States the place",
    formats=FORMATS,
)
SUSPICIOUS_WEIGHT = rule(
    "AR013",
    "suspicious-weight",
    W,
    "A weight of 0, NaN or infinity, or a weight written as text or as a boolean.",
    'autorubric converts `"3"` to 3.0 and `true` to 1.0 without a word; weight 0 makes the criterion '
    "count for nothing; NaN or infinity make the score NaN.",
    bad='- requirement: Cites a source\n  weight: "3"',
    good="- requirement: Cites a source\n  weight: 3",
    fix="write the number the value is read as",
    fix_safety="Safe: it writes the number autorubric already reads, so nothing it does changes.",
    formats=FORMATS,
)
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
    "more requirements.",
    bad="- requirement: States the date and explains the cause",
    good="- requirement: States the date\n- requirement: Explains the cause",
    formats=FORMATS,
)
NOMINAL_AGGREGATION_UNKNOWN = rule(
    "AR108",
    "unknown-nominal-aggregation",
    E,
    "A nominal criterion names an `aggregation` autorubric does not know; combining several judges' picks crashes.",
    "For a nominal criterion autorubric knows mode, weighted_mode and unanimous. Any other value "
    "(including ordinal ones such as `mean`) makes the grader fail with an internal error as soon as "
    "more than one judge grades the criterion.",
    bad="- requirement: Which tone?\n  scale_type: nominal\n  aggregation: mean\n  options: [...]",
    good="- requirement: Which tone?\n  scale_type: nominal\n  aggregation: mode\n  options: [...]",
    fix="rename to the nearest nominal aggregation",
    fix_safety=VALUE_RENAME_SAFETY + " Suggesting `mode` for an ordinal aggregation is always unsafe.",
    formats=FORMATS,
)

# -- checks --------------------------------------------------------------------------------


def check_criteria(ctx: CheckContext, view: RubricView) -> None:
    names: dict[str, Node] = {}
    for entry in view.entries:
        criterion = entry.criterion
        if criterion is None or not entry.node.is_map:
            continue
        _aggregation(ctx, entry, criterion)
        _binary_ignored(ctx, entry, criterion)
        if criterion.options is not None:
            _options(ctx, entry, criterion)
        _weight(ctx, entry.node)
        _requirement(ctx, entry, criterion)
        name_node = entry.node.get("name")
        if criterion.name is not None and name_node is not None:
            key = criterion.name.strip()
            if key in names:
                ctx.report(
                    DUPLICATE_NAME,
                    name_node,
                    f"Another criterion is already named '{criterion.name}': reports and metrics that go by name will mix the two up. Give each criterion its own name.",
                    related=[(names[key], "the first criterion with this name")],
                )
            else:
                names[key] = name_node


def _aggregation(ctx: CheckContext, entry: CriterionEntry, criterion: Criterion) -> None:
    node = entry.node.get("aggregation")
    value = criterion.aggregation
    if node is None or not value or criterion.options is None:
        return  # empty: the grader's default applies, as with null; binary: AR004
    if criterion.scale_type == "nominal":
        if value in NOMINAL_AGGREGATIONS:
            return
        if value in ORDINAL_AGGREGATIONS:
            what = f"'{value}' is an aggregation for ordinal criteria, but this criterion is nominal"
            found: Suggestion | None = Suggestion("mode", safe=False)  # another family: a guess
        else:
            what = f"'{value}' is not an aggregation autorubric knows"
            found = suggest(value, NOMINAL_AGGREGATIONS)
        if value in BINARY_AGGREGATIONS:
            what += f" ('{value}' combines MET/UNMET verdicts and is set on the grader)"
        message = (
            f"{what}: when several judges grade it, autorubric crashes while combining their picks. "
            f"Use one of {', '.join(NOMINAL_AGGREGATIONS)}."
        )
        fix = rename_fix(ctx, node, found, f"Use '{found.name}'") if found else None
        ctx.report(NOMINAL_AGGREGATION_UNKNOWN, node, message, fix=fix)
        return
    if value in ORDINAL_AGGREGATIONS:
        return
    if value in NOMINAL_AGGREGATIONS:
        counterpart = {"weighted_mode": "weighted_mean", "unanimous": "min"}.get(value)
        message = (
            f"'{value}' is an aggregation for nominal criteria; on this ordinal criterion autorubric "
            f"silently averages the judges' picks ('mean') instead. Use one of {', '.join(ORDINAL_AGGREGATIONS)}"
            + (f" ('{counterpart}' is the ordinal counterpart)." if counterpart else ".")
            + (
                " Or set scale_type: nominal if the options have no order."
                if entry.node.get("scale_type") is None
                else ""
            )
        )
        fix = ctx.rename(node, counterpart, f"Use '{counterpart}'", safe=False) if counterpart else None
        ctx.report(AGGREGATION_WRONG_FAMILY, node, message, fix=fix)
        return
    found = suggest(value, ORDINAL_AGGREGATIONS)
    message = (
        f"'{value}' is not an aggregation autorubric knows for ordinal criteria, so it silently averages "
        f"the judges' picks ('mean'). Use one of {', '.join(ORDINAL_AGGREGATIONS)}."
    )
    if value in BINARY_AGGREGATIONS:
        message += (
            f" ('{value}' combines MET/UNMET verdicts; it is set on the grader, not on a multi-choice criterion.)"
        )
    fix = None
    if found:
        message += f" Did you mean '{found.name}'?"
        fix = rename_fix(ctx, node, found, f"Use '{found.name}'")
    ctx.report(ORDINAL_AGGREGATION_UNKNOWN, node, message, fix=fix)


def _binary_ignored(ctx: CheckContext, entry: CriterionEntry, criterion: Criterion) -> None:
    if criterion.options is not None:
        return
    mapping = entry.node
    for key in ("aggregation", "scale_type", "options"):
        key_node = mapping.key_node(key)
        value_node = mapping.get(key)
        if key_node is None or value_node is None:
            continue
        if key == "aggregation" and (value_node.value is None or value_node.value == ""):
            continue
        if key == "options":
            message = (
                "'options: null' makes this a binary (MET/UNMET) criterion, the same as leaving 'options' out. "
                "If it should be multi-choice, list at least two options; otherwise remove the key."
            )
        else:
            message = (
                f"'{key}' only applies to multi-choice criteria (those with 'options'); on this binary "
                f"(MET/UNMET) criterion autorubric ignores it. Add the options, or remove '{key}'."
            )
        fix = remove_pair(ctx, mapping, key_node, value_node, f"Remove '{key}'")
        ctx.report(IGNORED_ON_BINARY, key_node, message, fix=fix)


def _options(ctx: CheckContext, entry: CriterionEntry, criterion: Criterion) -> None:
    options_node = entry.node.get("options")
    if options_node is None or not options_node.is_seq:
        return
    option_nodes = options_node.elements()
    options = criterion.options or []
    if len(option_nodes) != len(options):
        return
    seen: dict[str, Node] = {}
    first_na: Node | None = None
    for option, node in zip(options, option_nodes):
        label_node = node.get("label") if node.is_map else None
        value_node = node.get("value") if node.is_map else None
        where = label_node if label_node is not None else node
        normalized = option.label.strip().lower()
        if not normalized:
            ctx.report(
                EMPTY_OPTION_LABEL,
                where,
                "This option's label is empty: the judge sees a blank choice and ground truth cannot name it. Describe what the option means.",
            )
        elif normalized in seen:
            ctx.report(
                DUPLICATE_OPTION_LABEL,
                where,
                f"Label '{option.label}' repeats an earlier option's label (labels are compared ignoring case and surrounding spaces): "
                "ground truth naming it always resolves to the first one. Give each option a distinct label.",
                related=[(seen[normalized], "the first option with this label")],
            )
        else:
            seen[normalized] = where
        if option.na:
            na_node = node.get("na") or where
            if first_na is not None:
                ctx.report(
                    SEVERAL_NA_OPTIONS,
                    na_node,
                    "This criterion already has an NA option: autorubric abstains through the first one only. Keep a single 'na: true' option.",
                    related=[(first_na, "the first NA option")],
                )
            else:
                first_na = na_node
            if not (0.0 <= option.value <= 1.0) and value_node is not None:
                ctx.report(
                    NA_VALUE_RANGE,
                    value_node,
                    f"This NA option's value {scalar_text(option.value)} is never scored (picking an NA option abstains), so it has no effect; "
                    "a value outside [0, 1] suggests a scored option that lost its meaning. Use 0.",
                    fix=ctx.replace(value_node, "0", "Set the NA option's value to 0"),
                )
    scored = [(option.value, node) for option, node in zip(options, option_nodes) if not option.na]
    if len(scored) < 2:
        return
    values = [value for value, _ in scored]
    key_node = entry.node.key_node("options") or options_node
    if len(set(values)) == 1:
        ctx.report(
            EQUAL_OPTION_VALUES,
            key_node,
            f"Every scored option is worth {scalar_text(values[0])}: whichever the judge picks, the criterion scores the same, so it cannot separate good from bad responses. Give the options different values.",
        )
        return
    if criterion.scale_type != "ordinal":
        return
    _monotonic(ctx, scored)
    if criterion.weight > 0 and max(values) < 1.0:
        best_value, best_node = max(scored, key=lambda pair: pair[0])
        target = best_node.get("value") if best_node.is_map else None
        ctx.report(
            MAX_UNREACHABLE,
            key_node,
            f"The best option is worth {scalar_text(best_value)}, so even a perfect response earns only {best_value:.0%} of this criterion's weight "
            "and the rubric can never score 1.0. Give the best option the value 1.0.",
            fix=ctx.replace(target, "1.0", "Set the best option's value to 1.0", safe=False)
            if target is not None
            else None,
        )
    elif criterion.weight < 0 and min(values) > 0.0:
        low_value, low_node = min(scored, key=lambda pair: pair[0])
        target = low_node.get("value") if low_node.is_map else None
        ctx.report(
            MAX_UNREACHABLE,
            key_node,
            f"This is a penalty (negative weight) and its mildest option is worth {scalar_text(low_value)}, so every response is penalised "
            "and the rubric can never score 1.0. Give the mildest option the value 0.",
            fix=ctx.replace(target, "0", "Set the mildest option's value to 0", safe=False)
            if target is not None
            else None,
        )


def _monotonic(ctx: CheckContext, scored: list[tuple[float, Node]]) -> None:
    direction = 0
    for (previous, _), (value, node) in zip(scored, scored[1:]):
        step = (value > previous) - (value < previous)
        if step == 0:
            continue
        if direction == 0:
            direction = step
        elif step != direction:
            where = node.get("value") if node.is_map else None
            trend = "rising" if direction > 0 else "falling"
            ctx.report(
                NOT_MONOTONIC,
                where if where is not None else node,
                f"The option values were {trend} until here ({scalar_text(previous)} → {scalar_text(value)}): on an ordinal scale they should "
                "follow the order of the options. Reorder the options or fix this value (or set scale_type: nominal if there is no order).",
            )
            return


def _weight(ctx: CheckContext, mapping: Node) -> None:
    node = mapping.get("weight")
    if node is None or not node.is_scalar:
        return
    raw = node.value
    if isinstance(raw, bool):
        number = 1.0 if raw else 0.0
        ctx.report(
            SUSPICIOUS_WEIGHT,
            node,
            f"The weight is a boolean ({ctx.source(node)}); autorubric reads it as {scalar_text(number)}. Write the number you mean.",
            fix=ctx.replace(node, scalar_text(number), f"Write {scalar_text(number)}"),
        )
        return
    if isinstance(raw, str):
        try:
            number = float(raw.strip())
        except ValueError:
            return  # not a number at all: an error (AR104)
        if math.isfinite(number):
            if node.style is None and ctx.document.language == "yaml":
                return  # an unquoted 1e3 or -.5: RL005 explains the YAML 1.1 reading and fixes it
            ctx.report(
                SUSPICIOUS_WEIGHT,
                node,
                f"The weight is written as text; autorubric converts it to {scalar_text(number)} without a word. Write it as a plain number ({scalar_text(number)}).",
                fix=ctx.replace(node, scalar_text(number), f"Write {scalar_text(number)}"),
            )
            return
        raw = number
    if not isinstance(raw, (int, float)):
        return
    if math.isnan(raw):
        ctx.report(
            SUSPICIOUS_WEIGHT,
            node,
            "The weight is NaN (not a number): every score of this rubric becomes NaN. Give a real number.",
        )
    elif math.isinf(raw):
        ctx.report(
            SUSPICIOUS_WEIGHT,
            node,
            "The weight is infinite: the score becomes NaN whenever this criterion counts, and 0 otherwise. Give a finite number.",
        )
    elif raw == 0:
        ctx.report(
            SUSPICIOUS_WEIGHT,
            node,
            "Weight 0: this criterion never changes the score, yet the judge is still asked about it. Give it a positive weight (a reward), a negative one (a penalty), or remove it.",
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


def _requirement(ctx: CheckContext, entry: CriterionEntry, criterion: Criterion) -> None:
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
