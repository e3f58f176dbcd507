"""Checks for autorubric rubrics: what autorubric rejects (errors), and the entry points.

The silent pitfalls live beside it, each rule next to its check: ``criteria`` (the
per-criterion entry point) with ``aggregation``, ``options``, ``weights`` and
``requirements``; ``rubric`` (rubric-wide, unknown keys, ``examples``) and ``dataset``
(datasets). ``report_view``
runs all rubric checks on one rubric node, so a dataset's rubrics get the same findings as a
rubric file.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from rubric_lsp.diagnostics import Severity
from rubric_lsp.document.nodes import BINARY
from rubric_lsp.formats.autorubric import DATASET, RUBRIC
from rubric_lsp.formats.autorubric.fields import CRITERION_KEYS, OPTION_KEYS
from rubric_lsp.formats.autorubric.rules import loading as _loading  # noqa: F401 - registers its checkers
from rubric_lsp.formats.autorubric.rules.criteria import check_criteria
from rubric_lsp.formats.autorubric.rules.dataset import check_dataset
from rubric_lsp.formats.autorubric.rules.rubric import check_examples, check_rubric_file_keys, check_rubric_level
from rubric_lsp.formats.autorubric.view import Problem, RubricView, read_rubric
from rubric_lsp.formats.errors import describe_type, error_span
from rubric_lsp.formats.registry import checker
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule
from rubric_lsp.rules.suggest import did_you_mean, suggest
from rubric_lsp.rules.unknown_keys import RENAME_SAFETY, VALUE_RENAME_SAFETY, rename_fix, unknown_key

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
FORMATS = (RUBRIC, DATASET)

UNKNOWN_KEY = rule(
    "AR001",
    "unknown-criterion-key",
    W,
    "A criterion or option has a key autorubric does not know; it is dropped silently.",
    "autorubric ignores unknown keys, so a typo such as `requirment:` or `points:` vanishes "
    "without a word and the criterion falls back to defaults (or fails for a missing requirement).",
    bad="criteria:\n  - requirement: Cites at least one source\n    wieght: 5",
    good="criteria:\n  - requirement: Cites at least one source\n    weight: 5",
    fix="rename the key to the nearest known one",
    fix_safety=RENAME_SAFETY
    + " Renaming a word other rubric tools use (an alias such as `description`) is a guess too: unsafe.",
    formats=FORMATS,
    checked_against="autorubric 1.6.1's autorubric/types.py (Criterion, CriterionOption: pydantic models that ignore unknown keys) and rubric.py (Rubric.from_dict)",
)
RUBRIC_SHAPE = rule(
    "AR100",
    "invalid-rubric-shape",
    E,
    "The rubric is not in a shape autorubric can read.",
    "autorubric accepts a list of criteria or sections, or a mapping with 'rubric', 'sections' or "
    "'criteria'; anything else makes Rubric.from_file raise before grading starts.",
    bad="rubric:\n  requirement: Cites sources   # a mapping, not a list",
    good="rubric:\n  - requirement: Cites sources",
    formats=FORMATS,
)
NO_CRITERIA = rule(
    "AR101",
    "no-criteria",
    E,
    "The rubric has no criteria.",
    "autorubric raises 'No criteria found' for an empty rubric.",
    bad="criteria: []",
    good="criteria:\n  - requirement: Answers the question",
    formats=FORMATS,
)
NESTED_SECTION = rule(
    "AR102",
    "nested-section",
    E,
    "A section is nested inside a section.",
    "Sections nest one level only; an inner section is read as a criterion without a requirement "
    "and autorubric refuses the rubric.",
    bad="sections:\n  - name: Outer\n    criteria:\n      - name: Inner\n        criteria: [...]",
    good="sections:\n  - name: Outer\n    criteria: [...]\n  - name: Inner\n    criteria: [...]",
    formats=FORMATS,
    checked_against="autorubric 1.6.1's autorubric/rubric.py (Rubric.from_dict: 'requirement: Field required')",
)
MISSING_REQUIREMENT = rule(
    "AR103",
    "missing-requirement",
    E,
    "A criterion has no `requirement`.",
    "The requirement is what the judge checks; autorubric refuses a criterion without one.",
    bad="- name: accuracy\n  weight: 10",
    good="- name: accuracy\n  weight: 10\n  requirement: States the correct answer",
    formats=FORMATS,
    checked_against="autorubric 1.6.1's autorubric/rubric.py (Rubric.from_dict) and types.py (Criterion.requirement)",
)
INVALID_FIELD = rule(
    "AR104",
    "invalid-criterion-field",
    E,
    "A criterion field has a value autorubric rejects (wrong type or not an allowed value).",
    "autorubric validates criteria with pydantic and refuses the whole rubric on the first bad "
    "field: a non-string requirement or name, a scale_type other than ordinal/nominal, options "
    "that are not a list of mappings, an option without a value.",
    bad="- requirement: 42\n  scale_type: ordered",
    good='- requirement: "42 is the answer"\n  scale_type: ordinal',
    fix="rename a misspelt `scale_type` to the nearest known one",
    fix_safety=VALUE_RENAME_SAFETY,
    formats=FORMATS,
    checked_against="autorubric 1.6.1's autorubric/rubric.py (Rubric.from_dict) and types.py (Criterion)",
)
TOO_FEW_OPTIONS = rule(
    "AR105",
    "too-few-options",
    E,
    "A multi-choice criterion has fewer than 2 options, or fewer than 2 options that are not NA.",
    "A choice between fewer than two scored options is no choice; autorubric refuses it.",
    bad=(
        "- requirement: Does the answer cite a source?\n"
        "  options:\n"
        "    - {label: Cites one, value: 1}\n"
        "    - {label: N/A, value: 0, na: true}\n"
    ),
    good=(
        "- requirement: Does the answer cite a source?\n"
        "  options:\n"
        "    - {label: Cites one, value: 1}\n"
        "    - {label: Cites none, value: 0}\n"
        "    - {label: N/A, value: 0, na: true}\n"
    ),
    formats=FORMATS,
    checked_against="autorubric 1.6.1's autorubric/types.py (Criterion: 'Must have at least 2 non-NA options')",
)
OPTION_VALUE_RANGE = rule(
    "AR106",
    "option-value-out-of-range",
    E,
    "A non-NA option's value is outside [0, 1] (or NaN).",
    "Option values are score fractions; autorubric refuses values outside [0, 1] for options that are not NA.",
    bad=(
        "- requirement: How clear is the answer?\n"
        "  options:\n"
        "    - {label: Poor, value: 0}\n"
        "    - {label: Excellent, value: 5}\n"
    ),
    good=(
        "- requirement: How clear is the answer?\n"
        "  options:\n"
        "    - {label: Poor, value: 0}\n"
        "    - {label: Excellent, value: 1.0}\n"
    ),
    formats=FORMATS,
    checked_against="autorubric 1.6.1's autorubric/types.py (CriterionOption: 'Option value must be in [0, 1]')",
)
GUIDELINES = rule(
    "AR107",
    "invalid-guidelines",
    E,
    "`guidelines` is not a string, or is given both beside and inside `rubric`.",
    "autorubric refuses the file rather than guess which guidelines you meant.",
    bad="guidelines: 3\nrubric:\n  guidelines: Be strict\n  criteria:\n    - requirement: Cites a source",
    good="rubric:\n  guidelines: Be strict\n  criteria:\n    - requirement: Cites a source",
    formats=FORMATS,
    checked_against="autorubric 1.6.1's autorubric/rubric.py (Rubric.from_dict: \"Expected 'guidelines' to be a string\")",
)

_SHAPE_KINDS = {
    "no-criteria-key": RUBRIC_SHAPE,
    "not-a-list": RUBRIC_SHAPE,
    "item-not-mapping": RUBRIC_SHAPE,
    "section-criteria-not-list": RUBRIC_SHAPE,
    "criterion-not-mapping": RUBRIC_SHAPE,
    "no-criteria": NO_CRITERIA,
    "nested-section": NESTED_SECTION,
    "guidelines-type": GUIDELINES,
    "guidelines-twice": GUIDELINES,
    "criterion-key-not-string": INVALID_FIELD,
}


def rubric_view(ctx: CheckContext):
    """The rubric of a rubric file, computed once per document."""
    return ctx.view("autorubric.view", read_rubric)


def report_view(ctx: CheckContext, view: RubricView) -> None:
    """Report what autorubric would reject in ``view``, and the pitfalls it accepts silently."""
    for problem in view.problems:
        _report_problem(ctx, problem)
    check_rubric_level(ctx, view)
    check_criteria(ctx, view)
    for entry in view.entries:
        if entry.node.is_map:
            _unknown_keys(ctx, entry.node, CRITERION_KEYS, "criterion")
            options = entry.node.get("options")
            if options is not None and options.is_seq:
                for option in options.value:
                    if option.is_map:
                        _unknown_keys(ctx, option, OPTION_KEYS, "option")


def _report_problem(ctx: CheckContext, problem: Problem) -> None:
    related = [(node, text) for node, text in problem.related if node is not None]
    if problem.kind != "criterion-invalid":
        ctx.report(_SHAPE_KINDS[problem.kind], ctx.compact(problem.node), problem.message, related=related)
        return
    error = problem.error
    assert error is not None
    span = error_span(error, ctx.line_span)
    if span.end == span.start and error.key_node is not None:
        span = error.key_node.span  # an empty value (``key:``) has no width to underline
    if error.type == "missing" and error.missing_key == "requirement":
        ctx.report(
            MISSING_REQUIREMENT,
            span,
            "This criterion has no 'requirement' (what the judge should check); autorubric refuses the rubric. Add 'requirement: <what the response must do>'.",
        )
    elif error.type == "missing" and error.missing_key == "value":
        ctx.report(
            INVALID_FIELD,
            span,
            "This option has no 'value' (the score in [0, 1] it gives when picked); autorubric refuses the rubric. Add 'value: ...'.",
        )
    elif error.type == "missing" and error.missing_key == "label":
        ctx.report(
            INVALID_FIELD,
            span,
            "This option has no 'label' (the text the judge picks); autorubric refuses the rubric. Add 'label: ...'.",
        )
    elif error.type in ("ar_too_few_options", "ar_too_few_scored_options"):
        where = error.node.key_node("options") if error.node.is_map else None
        ctx.report(
            TOO_FEW_OPTIONS,
            where if where is not None else span,
            error.message
            + "; autorubric refuses the rubric. Add options, or remove 'options' for a MET/UNMET criterion.",
        )
    elif error.type == "ar_option_value_range":
        value_node = error.node.get("value") if error.node.is_map else None
        value = error.ctx.get("value") if error.ctx else None
        shown = ctx.source(value_node) if value_node is not None else str(value)
        ctx.report(
            OPTION_VALUE_RANGE,
            value_node if value_node is not None else span,
            f"Option values are fractions of the criterion's weight between 0 and 1, got {shown}; autorubric refuses the rubric. "
            "Use a value in [0, 1] (1.0 for the best option), or mark a 'not applicable' option with 'na: true'.",
        )
    else:
        fix = None
        if error.path and error.path[-1] == "scale_type" and isinstance(error.input, str):
            found = suggest(error.input, ("ordinal", "nominal"))
            if found:
                fix = rename_fix(ctx, error.node, found, f"Use '{found.name}'")
        ctx.report(INVALID_FIELD, span, _field_message(ctx, error), fix=fix)


_FIELD_MEANING = {
    "requirement": "text (what the judge checks)",
    "name": "text or null",
    "weight": "a number",
    "aggregation": "text (an aggregation name) or null",
    "label": "text",
    "value": "a number in [0, 1]",
    "na": "true or false",
}


def _field_message(ctx: CheckContext, error) -> str:
    """A plain-language message for a pydantic error on a criterion field."""
    path = [p for p in error.path if isinstance(p, str)]
    field = path[-1] if path else "criterion"
    got = (
        f"the text '{error.input}'"
        if isinstance(error.input, str) and len(error.input) < 40
        else describe_type(error.input)
    )
    if error.node is not None and error.node.is_scalar and error.node.value is None:
        got = "nothing (null)"
    where = (
        f"'{field}'"
        if len(error.path) < 2 or not isinstance(error.path[-1], str)
        else f"'{field}' of option {error.path[-2] + 1}"
        if len(error.path) >= 3 and isinstance(error.path[-2], int)
        else f"'{field}'"
    )
    if field == "scale_type":
        return (
            f"'scale_type' must be 'ordinal' (ordered options, the default) or 'nominal' (unordered categories), got {ctx.source(error.node) or 'nothing'}; "
            "autorubric refuses the rubric."
        )
    if field == "options" and error.type in ("list_type",):
        return f"'options' must be a list of {{label, value}} options, got {got}; autorubric refuses the rubric."
    if error.type in ("model_type", "dict_type", "model_attributes_type"):
        index = error.path[-1] if error.path and isinstance(error.path[-1], int) else None
        which = f"Option {index + 1}" if index is not None else "This option"
        return f"{which} must be a mapping with 'label' and 'value', got {got}; autorubric refuses the rubric."
    meaning = _FIELD_MEANING.get(field)
    if meaning:
        hint = " Quote the value." if meaning.startswith("text") and got in ("a number", "a boolean") else ""
        return f"{where} must be {meaning}, got {got}; autorubric refuses the rubric.{hint}"
    return f"{where}: {error.message}; autorubric refuses the rubric."


# Names other rubric tools use for autorubric's fields.
_ALIASES = {
    "criterion": {
        "points": "weight",
        "score": "weight",
        "importance": "weight",
        "description": "requirement",
        "criterion": "requirement",
        "text": "requirement",
        "question": "requirement",
        "title": "name",
        "id": "name",
        "key": "name",
        "choices": "options",
        "levels": "options",
        "scale": "scale_type",
    },
    "option": {
        "score": "value",
        "points": "value",
        "text": "label",
        "name": "label",
        "description": "label",
        "title": "label",
        "not_applicable": "na",
        "n/a": "na",
    },
}


def _unknown_keys(ctx: CheckContext, mapping, known: AbstractSet[str], what: str) -> None:
    if not ctx.enabled(UNKNOWN_KEY):
        return
    for key_node, _value in mapping.pairs():
        key = key_node.value
        if not isinstance(key, str) or key in known or (what == "criterion" and key_node.tag == BINARY):
            continue  # a criterion key that is not text is AR104's: autorubric refuses it
        if what == "criterion" and key == "criteria" and not mapping.has("requirement"):
            continue  # a nested section, reported by its own rule
        if what == "criterion" and key == "criteria":
            ctx.report(
                UNKNOWN_KEY,
                key_node,
                "A criterion cannot hold criteria (sections nest one level only): autorubric drops this 'criteria' list and never grades it. Move these criteria out to the section or the top level.",
            )
            continue
        found = unknown_key(ctx, mapping, key_node, known)
        suggestion = found.suggestion
        message = f"Unknown {what} key '{key}': autorubric drops it silently."
        fix = None
        alias = _ALIASES.get(what, {}).get(key.lower())
        if not suggestion and alias and alias not in mapping.keys():
            # A word from other rubric tools: likely meant, but a guess, so the rename is unsafe.
            message += f" autorubric calls this '{alias}'."
            fix = ctx.rename(key_node, alias, f"Rename '{key}' to '{alias}'", safe=False)
        elif found.fix is not None and suggestion is not None:
            message += did_you_mean(key, suggestion)
            fix = found.fix
        else:
            message += f" Remove it, or use one of the keys autorubric reads: {', '.join(sorted(known))}."
        ctx.report(UNKNOWN_KEY, key_node, message, fix=fix)


@checker(RUBRIC)
def check_rubric_file(ctx: CheckContext) -> None:
    view = rubric_view(ctx)
    if view is None:
        ctx.report(
            NO_CRITERIA,
            ctx.document.lines.single_line_span(0),
            "The file is empty: autorubric refuses a rubric without criteria. Add at least one criterion with a 'requirement'.",
        )
        return
    report_view(ctx, view)
    root = ctx.document.root
    if root is not None and root.is_map:
        check_rubric_file_keys(ctx, root)
        check_examples(ctx, root, view)


@checker(DATASET)
def check_dataset_file(ctx: CheckContext) -> None:
    check_dataset(ctx, report_view)
