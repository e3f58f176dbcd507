"""Checks for autorubric rubrics: what autorubric rejects (errors) and silent pitfalls."""

from __future__ import annotations

from rubric_lsp.diagnostics import Severity
from rubric_lsp.formats.autorubric import DATASET, RUBRIC
from rubric_lsp.formats.autorubric.model import criterion_keys, option_keys
from rubric_lsp.formats.autorubric.view import Problem, RubricView, read_rubric
from rubric_lsp.formats.errors import closest, error_span
from rubric_lsp.formats.registry import checker
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
FORMATS = (RUBRIC, DATASET)

UNKNOWN_KEY = rule(
    "AR001", "unknown-criterion-key", W,
    "A criterion or option has a key autorubric does not know; it is dropped silently.",
    "autorubric ignores unknown keys, so a typo such as `requirment:` or `points:` vanishes "
    "without a word and the criterion falls back to defaults (or fails for a missing requirement).",
    bad="- requirment: Cites at least one source\n  weight: 5",
    good="- requirement: Cites at least one source\n  weight: 5",
    fix="rename the key to the nearest known one",
    formats=FORMATS,
)
RUBRIC_SHAPE = rule(
    "AR100", "invalid-rubric-shape", E,
    "The rubric is not in a shape autorubric can read.",
    "autorubric accepts a list of criteria or sections, or a mapping with 'rubric', 'sections' or "
    "'criteria'; anything else makes Rubric.from_file raise before grading starts.",
    bad="rubric:\n  requirement: Cites sources   # a mapping, not a list",
    good="rubric:\n  - requirement: Cites sources",
    formats=FORMATS,
)
NO_CRITERIA = rule(
    "AR101", "no-criteria", E,
    "The rubric has no criteria.",
    "autorubric raises 'No criteria found' for an empty rubric.",
    bad="criteria: []",
    good="criteria:\n  - requirement: Answers the question",
    formats=FORMATS,
)
NESTED_SECTION = rule(
    "AR102", "nested-section", E,
    "A section is nested inside a section.",
    "Sections nest one level only; an inner section is read as a criterion without a requirement "
    "and autorubric refuses the rubric.",
    bad="sections:\n  - name: Outer\n    criteria:\n      - name: Inner\n        criteria: [...]",
    good="sections:\n  - name: Outer\n    criteria: [...]\n  - name: Inner\n    criteria: [...]",
    formats=FORMATS,
)
MISSING_REQUIREMENT = rule(
    "AR103", "missing-requirement", E,
    "A criterion has no `requirement`.",
    "The requirement is what the judge checks; autorubric refuses a criterion without one.",
    bad="- name: accuracy\n  weight: 10",
    good="- name: accuracy\n  weight: 10\n  requirement: States the correct answer",
    formats=FORMATS,
)
INVALID_FIELD = rule(
    "AR104", "invalid-criterion-field", E,
    "A criterion field has a value autorubric rejects (wrong type or not an allowed value).",
    "autorubric validates criteria with pydantic and refuses the whole rubric on the first bad "
    "field: a non-string requirement or name, a scale_type other than ordinal/nominal, options "
    "that are not a list of mappings, an option without a value.",
    bad="- requirement: 42\n  scale_type: ordered",
    good="- requirement: \"42 is the answer\"\n  scale_type: ordinal",
    formats=FORMATS,
)
TOO_FEW_OPTIONS = rule(
    "AR105", "too-few-options", E,
    "A multi-choice criterion has fewer than 2 options, or fewer than 2 options that are not NA.",
    "A choice between fewer than two scored options is no choice; autorubric refuses it.",
    bad="options:\n  - {label: Yes, value: 1}\n  - {label: N/A, value: 0, na: true}",
    good="options:\n  - {label: Yes, value: 1}\n  - {label: No, value: 0}\n  - {label: N/A, value: 0, na: true}",
    formats=FORMATS,
)
OPTION_VALUE_RANGE = rule(
    "AR106", "option-value-out-of-range", E,
    "A non-NA option's value is outside [0, 1] (or NaN).",
    "Option values are score fractions; autorubric refuses values outside [0, 1] for options "
    "that are not NA.",
    bad="- {label: Excellent, value: 5}",
    good="- {label: Excellent, value: 1.0}",
    formats=FORMATS,
)
GUIDELINES = rule(
    "AR107", "invalid-guidelines", E,
    "`guidelines` is not a string, or is given both beside and inside `rubric`.",
    "autorubric refuses the file rather than guess which guidelines you meant.",
    bad="guidelines: 3\nrubric:\n  guidelines: Be strict\n  criteria: [...]",
    good="rubric:\n  guidelines: Be strict\n  criteria: [...]",
    formats=FORMATS,
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
}


def rubric_view(ctx: CheckContext):
    """The rubric of a rubric file, computed once per document."""
    if "autorubric.view" not in ctx.cache:
        root = ctx.document.root
        ctx.cache["autorubric.view"] = read_rubric(root) if root is not None else None
    return ctx.cache["autorubric.view"]


def report_view(ctx: CheckContext, view: RubricView) -> None:
    """Report what autorubric would reject in ``view``, plus unknown keys."""
    for problem in view.problems:
        _report_problem(ctx, problem)
    for entry in view.entries:
        if entry.node.is_map:
            _unknown_keys(ctx, entry.node, criterion_keys(), "criterion")
            options = entry.node.get("options")
            if options is not None and options.is_seq:
                for option in options.value:
                    if option.is_map:
                        _unknown_keys(ctx, option, option_keys(), "option")


def _report_problem(ctx: CheckContext, problem: Problem) -> None:
    related = [(node, text) for node, text in problem.related if node is not None]
    if problem.kind != "criterion-invalid":
        ctx.report(_SHAPE_KINDS[problem.kind], problem.node if problem.node.end - problem.node.start < 200 else ctx.line_span(problem.node), problem.message, related=related)
        return
    error = problem.error
    assert error is not None
    span = error_span(error, ctx.line_span)
    if error.type == "missing" and error.missing_key == "requirement":
        ctx.report(MISSING_REQUIREMENT, span, "This criterion has no 'requirement' (what the judge should check); autorubric refuses it.")
    elif error.type == "missing" and error.missing_key == "value":
        ctx.report(INVALID_FIELD, span, "This option has no 'value' (its score in [0, 1]); autorubric refuses it.")
    elif error.type in ("ar_too_few_options", "ar_too_few_scored_options"):
        where = error.node.get("options") if error.node.is_map else None
        ctx.report(TOO_FEW_OPTIONS, ctx.line_span(where) if where is not None else span, error.message + "; autorubric refuses it.")
    elif error.type == "ar_option_value_range":
        value_node = error.node.get("value") if error.node.is_map else None
        ctx.report(OPTION_VALUE_RANGE, value_node if value_node is not None else span, error.message + ".")
    else:
        field = ".".join(str(p) for p in error.path) or "criterion"
        ctx.report(INVALID_FIELD, span, f"'{field}': {error.message}.")


def _unknown_keys(ctx: CheckContext, mapping, known: set[str], what: str) -> None:
    if not ctx.enabled(UNKNOWN_KEY):
        return
    for key_node, _value in mapping.pairs():
        key = key_node.value
        if not isinstance(key, str) or key in known:
            continue
        if what == "criterion" and key == "criteria":
            continue  # a nested section, reported by its own rule
        suggestion = closest(key, known)
        message = f"Unknown {what} key '{key}': autorubric drops it silently."
        fix = None
        if suggestion and suggestion not in mapping.keys():
            message += f" Did you mean '{suggestion}'?"
            fix = ctx.replace(key_node, suggestion, f"Rename '{key}' to '{suggestion}'")
        ctx.report(UNKNOWN_KEY, key_node, message, fix=fix)


@checker(RUBRIC)
def check_rubric_file(ctx: CheckContext) -> None:
    view = rubric_view(ctx)
    if view is None:
        ctx.report(NO_CRITERIA, ctx.document.lines.single_line_span(0), "The file is empty: a rubric needs at least one criterion.")
        return
    report_view(ctx, view)
