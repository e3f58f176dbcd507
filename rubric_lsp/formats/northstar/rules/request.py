"""EvalRunRequest errors: what makes NorthStar refuse the run configuration (NS005, NS100–NS108), and the request checker."""

from __future__ import annotations

from rubric_lsp.diagnostics import Severity
from rubric_lsp.document import Node
from rubric_lsp.formats.errors import Problem, error_span
from rubric_lsp.formats.northstar import REQUEST
from rubric_lsp.formats.northstar.model import (
    GRADER_TYPES,
    SCORING_MODES,
    TRACE_CHECKS,
    GraderConfig,
)
from rubric_lsp.formats.northstar.rules.common import GRADER_KEYS, SCORING_KEYS, key_rename, parent_map, plain_message
from rubric_lsp.formats.northstar.rules.judges import JUDGE_ALWAYS_SKIPPED, judge_warnings, skipped_judges
from rubric_lsp.formats.northstar.view import RequestView, read_request
from rubric_lsp.formats.registry import checker
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule
from rubric_lsp.rules.suggest import did_you_mean, suggest
from rubric_lsp.rules.unknown_keys import RENAME_SAFETY, VALUE_RENAME_SAFETY, rename_fix

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

REQUEST_SHAPE = rule(
    "NS100",
    "invalid-request-shape",
    E,
    "The file is not an EvalRunRequest NorthStar can read.",
    "An EvalRunRequest is a mapping whose 'graders' is a list of grader mappings; NorthStar refuses "
    "anything else as an invalid grader configuration.",
    bad='{"graders": {"type": "rubric"}}',
    good='{"graders": [{"type": "rubric", "name": "j", "model": "gpt-4o"}]}',
    formats=(REQUEST,),
    checked_against="NorthStar at its public head, as recorded in the team's semantics notes (docs/semantics.md, section 3)",
)

SCORING_MODE = rule(
    "NS101",
    "invalid-scoring-mode",
    E,
    "A scoring config's `mode` is missing or is not 'binary' or 'numeric'.",
    "JudgeScoringConfig accepts exactly these two modes and refuses the judge otherwise.",
    bad=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Score 1-5 for correctness.",\n'
        '   "scoring": {"mode": "percent"}}\n'
        "]}"
    ),
    good=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Score 1-5 for correctness.",\n'
        '   "scoring": {"mode": "numeric", "max_score": 5, "passing_score": 4}}\n'
        "]}"
    ),
    fix="use the nearest valid mode",
    fix_safety=VALUE_RENAME_SAFETY,
    formats=(REQUEST,),
    checked_against="NorthStar's public head (sidmanale643/northstar fa05d08): src/northstar/evals/models.py (JudgeScoringConfig.mode)",
)

UNKNOWN_SCORING_KEY = rule(
    "NS102",
    "unknown-scoring-key",
    E,
    "A scoring config has a key NorthStar does not know.",
    "JudgeScoringConfig forbids unknown keys, so a typo such as `passing` or `maxScore` makes the "
    "whole run configuration fail.",
    bad=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Score 1-5 for correctness.",\n'
        '   "scoring": {"mode": "numeric", "max_score": 5, "passingScore": 4}}\n'
        "]}"
    ),
    good=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Score 1-5 for correctness.",\n'
        '   "scoring": {"mode": "numeric", "max_score": 5, "passing_score": 4}}\n'
        "]}"
    ),
    fix="rename the key to the nearest known one",
    fix_safety=RENAME_SAFETY,
    formats=(REQUEST,),
    checked_against="NorthStar's public head (sidmanale643/northstar fa05d08): src/northstar/evals/models.py (EvalModel: extra='forbid')",
)

SCORE_RANGE = rule(
    "NS103",
    "invalid-score-range",
    E,
    "`max_score` is not greater than `min_score`.",
    "Scores are normalised as (raw - min) / (max - min); NorthStar refuses an empty or inverted scale.",
    bad=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Score 1-5 for correctness.",\n'
        '   "scoring": {"mode": "numeric", "min_score": 5, "max_score": 1, "passing_score": 3}}\n'
        "]}"
    ),
    good=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Score 1-5 for correctness.",\n'
        '   "scoring": {"mode": "numeric", "min_score": 1, "max_score": 5, "passing_score": 3}}\n'
        "]}"
    ),
    formats=(REQUEST,),
    checked_against="NorthStar's public head (sidmanale643/northstar fa05d08): src/northstar/evals/models.py (JudgeScoringConfig.validate_scoring)",
)

MISSING_PASSING_SCORE = rule(
    "NS104",
    "missing-passing-score",
    E,
    "Numeric scoring has no `passing_score`.",
    "NorthStar passes a numeric grade iff the raw score is at least passing_score; in numeric mode it is "
    "required and its absence raises a ValueError when the judge is built.",
    bad=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Score 1-5 for correctness.",\n'
        '   "scoring": {"mode": "numeric", "max_score": 5}}\n'
        "]}"
    ),
    good=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Score 1-5 for correctness.",\n'
        '   "scoring": {"mode": "numeric", "max_score": 5, "passing_score": 4}}\n'
        "]}"
    ),
    formats=(REQUEST,),
)

PASSING_SCORE_RANGE = rule(
    "NS105",
    "passing-score-out-of-range",
    E,
    "Numeric scoring's `passing_score` lies outside [min_score, max_score].",
    "A passing score the judge can never reach (or always exceeds) makes every grade fail (or pass); "
    "NorthStar refuses it in numeric mode.",
    bad=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Score 1-5 for correctness.",\n'
        '   "scoring": {"mode": "numeric", "max_score": 1, "passing_score": 4}}\n'
        "]}"
    ),
    good=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Score 1-5 for correctness.",\n'
        '   "scoring": {"mode": "numeric", "max_score": 5, "passing_score": 4}}\n'
        "]}"
    ),
    formats=(REQUEST,),
    checked_against="NorthStar's public head (sidmanale643/northstar fa05d08): src/northstar/evals/models.py (JudgeScoringConfig.validate_scoring)",
)

LABEL_KEY = rule(
    "NS106",
    "invalid-score-label",
    E,
    "A scoring label's key is not a number (or its label is not text).",
    'Labels map raw scores to names ({"4": "good"}); NorthStar reads the keys as numbers and '
    'refuses keys such as "good" or "4-5".',
    bad=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Score 1-5 for correctness.",\n'
        '   "scoring": {"mode": "numeric", "max_score": 5, "passing_score": 4, "labels": {"high": "good"}}}\n'
        "]}"
    ),
    good=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Score 1-5 for correctness.",\n'
        '   "scoring": {"mode": "numeric", "max_score": 5, "passing_score": 4, "labels": {"4": "good"}}}\n'
        "]}"
    ),
    formats=(REQUEST,),
    checked_against="NorthStar's public head (sidmanale643/northstar fa05d08): src/northstar/evals/models.py (JudgeScoringConfig.labels: dict[float, str])",
)

GRADER_FIELD = rule(
    "NS107",
    "invalid-grader-field",
    E,
    "A grader is missing a field it needs, or a field has a value NorthStar rejects.",
    "Every grader needs a 'name'; judges need a 'model'; code graders 'code' and 'timeout_ms'; regex "
    "graders 'pattern', 'target' and 'flags'; trace graders a known 'check'. NorthStar refuses the "
    "run configuration otherwise.",
    bad=('{"graders": [\n  {"type": "rubric", "name": "accuracy", "rubric": "Grade correctness."}\n]}'),
    good=(
        '{"graders": [\n  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Grade correctness."}\n]}'
    ),
    fix="rename a misspelt grader `type` or trace `check` to the nearest known one",
    fix_safety=VALUE_RENAME_SAFETY,
    formats=(REQUEST,),
    checked_against="NorthStar at its public head, as recorded in the team's semantics notes (docs/semantics.md, section 3)",
)

DUPLICATE_GRADER = rule(
    "NS108",
    "duplicate-grader-name",
    E,
    "Two graders have the same name.",
    "Grades are reported by grader name; NorthStar refuses a run configuration with a duplicated name.",
    bad=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "judge", "model": "gpt-4o", "rubric": "Grade correctness."},\n'
        '  {"type": "rubric", "name": "judge", "model": "gpt-4o", "rubric": "Grade clarity."}\n'
        "]}"
    ),
    good=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "correctness", "model": "gpt-4o", "rubric": "Grade correctness."},\n'
        '  {"type": "rubric", "name": "clarity", "model": "gpt-4o", "rubric": "Grade clarity."}\n'
        "]}"
    ),
    formats=(REQUEST,),
    checked_against="NorthStar at its public head, as recorded in the team's semantics notes (docs/semantics.md, section 3)",
)

UNKNOWN_GRADER_KEY = rule(
    "NS005",
    "unknown-grader-key",
    W,
    "A grader has a key NorthStar does not read; it is ignored.",
    "The eval worker reads each grader's known keys and ignores the rest, so a typo such as "
    "`rubirc` or `passing_score` at the wrong level vanishes without a word.",
    bad=(
        '{"graders": [\n  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubirc": "Grade correctness."}\n]}'
    ),
    good=(
        '{"graders": [\n  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Grade correctness."}\n]}'
    ),
    fix="rename the key to the nearest known one",
    fix_safety=RENAME_SAFETY,
    formats=(REQUEST,),
)

_NEEDS: dict[str, tuple[str, ...]] = {
    "rubric": ("model",),
    "faithfulness": ("model",),
    "python": ("code", "timeout_ms"),
    "typescript": ("code", "timeout_ms"),
    "regex": ("pattern", "target", "flags"),
    "trace": ("check",),
}


def request_view(ctx: CheckContext) -> RequestView | None:
    return ctx.view("northstar.request", read_request)


@checker(REQUEST)
def check_request(ctx: CheckContext) -> None:
    view = request_view(ctx)
    if view is None:
        ctx.report(
            REQUEST_SHAPE,
            ctx.document.lines.single_line_span(0),
            'The file is empty: an EvalRunRequest is {"graders": [...]}.',
        )
        return
    for problem in view.problems:
        _report_request_problem(ctx, problem)
    for entry in view.graders:
        node = entry.node
        if not node.is_map:
            continue
        _unknown_grader_keys(ctx, node)
        _required_fields(ctx, node)
        grader = entry.grader
        if grader is None:
            continue
        _value_limits(ctx, node, grader)
        if grader.is_judge:
            judge_warnings(ctx, node, grader)
    if ctx.enabled(JUDGE_ALWAYS_SKIPPED):
        skipped_judges(ctx, view)


def _report_request_problem(ctx: CheckContext, problem: Problem) -> None:
    related = [(node, text) for node, text in problem.related if node is not None]
    if problem.kind in ("request-shape", "grader-not-mapping"):
        ctx.report(REQUEST_SHAPE, ctx.compact(problem.node), problem.message + ".")
        return
    if problem.kind == "duplicate-grader-name":
        ctx.report(DUPLICATE_GRADER, problem.node, problem.message, related=related)
        return
    error = problem.error
    assert error is not None
    path = error.path
    in_scoring = "scoring" in path
    span = error_span(error, ctx.line_span)
    if in_scoring and error.type == "extra_forbidden" and error.key_node is not None:
        scoring = parent_map(ctx, error.key_node)
        suggestion, fix = (
            key_rename(ctx, scoring, error.key_node, SCORING_KEYS) if scoring is not None else (None, None)
        )
        message = f"Unknown scoring key '{error.key_node.value}': JudgeScoringConfig forbids unknown keys, so NorthStar refuses this judge."
        if suggestion and fix is not None:
            message += did_you_mean(str(error.key_node.value), suggestion)
        else:
            message += " Known keys: " + ", ".join(sorted(SCORING_KEYS)) + "."
        ctx.report(UNKNOWN_SCORING_KEY, error.key_node, message, fix=fix)
    elif in_scoring and (path[-1:] == ("mode",) or error.missing_key == "mode"):
        _report_mode(ctx, error, span)
    elif error.type == "ns_score_range":
        where = error.node.get("max_score") if error.node.is_map else None
        ctx.report(
            SCORE_RANGE,
            where or span,
            error.message + "; NorthStar refuses this scale. Raise max_score or lower min_score.",
        )
    elif error.type == "ns_passing_score_missing":
        key_or_span = error.key_node or span
        ctx.report(
            MISSING_PASSING_SCORE,
            key_or_span,
            "Numeric scoring needs a 'passing_score' (the raw score at or above which a grade passes); NorthStar refuses the judge without it. Add one within [min_score, max_score].",
        )
    elif error.type == "ns_passing_score_range":
        where = error.node.get("passing_score") if error.node.is_map else None
        ctx.report(PASSING_SCORE_RANGE, where or span, error.message + "; NorthStar refuses it in numeric mode.")
    elif in_scoring and "labels" in path:
        label_key = error.key_node if error.key_node is not None else error.node
        if "[key]" in str(getattr(error, "path", ())) or error.type in ("float_parsing", "float_type"):
            ctx.report(
                LABEL_KEY,
                label_key,
                f'Label key \'{label_key.value}\' is not a number; NorthStar matches labels to the judge\'s raw score, so keys must be numbers such as "4" or "4.5".',
            )
        else:
            ctx.report(
                LABEL_KEY,
                span,
                f'The label for score {path[-1]} must be text, such as "good"; NorthStar refuses the judge.',
            )
    elif error.type == "missing":
        ctx.report(
            GRADER_FIELD,
            span,
            f"This grader has no '{error.missing_key}'; NorthStar refuses the run configuration. Add it.",
        )
    elif path == ("type",) or path[-1:] == ("type",):
        value = error.input
        found = suggest(str(value), GRADER_TYPES) if isinstance(value, str) else None
        suggestion = found.name if found else None
        fix = rename_fix(ctx, error.node, found, f"Use '{found.name}'") if found else None
        ctx.report(
            GRADER_FIELD,
            span,
            f"Unknown grader type {value!r}: NorthStar knows "
            + ", ".join(GRADER_TYPES)
            + "."
            + (f" Did you mean '{suggestion}'?" if suggestion else ""),
            fix=fix,
        )
    else:
        field = ".".join(str(p) for p in path) or "grader"
        ctx.report(
            GRADER_FIELD, span, f"'{field}': {plain_message(error.message)}; NorthStar refuses the run configuration."
        )


def _report_mode(ctx: CheckContext, error, span) -> None:
    if error.type == "missing":
        ctx.report(
            SCORING_MODE,
            span,
            'This scoring config has no \'mode\'; NorthStar refuses it. Add "mode": "numeric" or "mode": "binary".',
        )
        return
    value = error.input
    found = suggest(value, SCORING_MODES) if isinstance(value, str) else None
    suggestion = found.name if found else None
    fix = rename_fix(ctx, error.node, found, f"Use mode '{found.name}'") if found else None
    message = f"Scoring mode {value!r} is not 'binary' or 'numeric'; NorthStar refuses the judge."
    if suggestion:
        message += f" Did you mean '{suggestion}'?"
    ctx.report(SCORING_MODE, span, message, fix=fix)


def _unknown_grader_keys(ctx: CheckContext, node: Node) -> None:
    if not ctx.enabled(UNKNOWN_GRADER_KEY):
        return
    for key_node, _value in node.pairs():
        key = key_node.value
        if not isinstance(key, str) or key in GRADER_KEYS:
            continue
        suggestion, fix = key_rename(ctx, node, key_node, GRADER_KEYS)
        message = f"Unknown grader key '{key}': NorthStar ignores it."
        if key in SCORING_KEYS:
            message = f"'{key}' belongs inside 'scoring'; at the grader level NorthStar ignores it."
            fix = None
        elif fix is not None and suggestion is not None:
            message += did_you_mean(str(key), suggestion)
        ctx.report(UNKNOWN_GRADER_KEY, key_node, message, fix=fix)


def _required_fields(ctx: CheckContext, node: Node) -> None:
    """The fields a grader of its type cannot run without (the pydantic model keeps them optional)."""
    type_node = node.get("type")
    kind = type_node.value if type_node is not None and type_node.is_scalar else "rubric"
    if kind not in _NEEDS:
        return  # an unknown type is reported on its own
    missing = [key for key in _NEEDS[kind] if (value := node.get(key)) is None or value.value is None]
    if missing:
        where = node.key_node("type") or ctx.line_span(node)
        names = " and ".join(f"'{key}'" for key in missing)
        ctx.report(
            GRADER_FIELD,
            where,
            f"A {kind} grader needs {names}; NorthStar refuses the run configuration without {'them' if len(missing) > 1 else 'it'}.",
        )


def _value_limits(ctx: CheckContext, node: Node, grader: GraderConfig) -> None:
    if grader.type == "trace" and grader.check is not None and grader.check not in TRACE_CHECKS:
        check_node = node.get("check")
        found = suggest(grader.check, TRACE_CHECKS)
        suggestion = found.name if found else None
        fix = rename_fix(ctx, check_node, found, f"Use '{found.name}'") if found and check_node is not None else None
        ctx.report(
            GRADER_FIELD,
            check_node or node,
            f"Unknown trace check '{grader.check}'."
            + (f" Did you mean '{suggestion}'?" if suggestion else " Known: " + ", ".join(TRACE_CHECKS) + "."),
            fix=fix,
        )
    if grader.timeout_ms is not None and not 0 < grader.timeout_ms <= 5000:
        ctx.report(
            GRADER_FIELD,
            node.get("timeout_ms") or node,
            f"timeout_ms must be between 1 and 5000 (got {grader.timeout_ms}).",
        )
    if not 0 <= grader.temperature <= 2:
        ctx.report(
            GRADER_FIELD,
            node.get("temperature") or node,
            f"temperature must be between 0 and 2 (got {grader.temperature:g}); NorthStar refuses the judge.",
        )
    for key in ("name", "model", "rubric", "code", "pattern"):
        value = getattr(grader, key)
        if isinstance(value, str) and not value.strip():
            ctx.report(
                GRADER_FIELD,
                node.get(key) or node,
                f"'{key}' is blank; NorthStar refuses the grader. Fill it in or remove it.",
            )
