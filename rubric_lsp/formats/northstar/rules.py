"""Checks for NorthStar judge configurations (EvalRunRequest) and eval-case datasets."""

from __future__ import annotations

import re

from rubric_lsp.diagnostics import Fix, Severity
from rubric_lsp.document import Node
from rubric_lsp.document.issues import TextEdit
from rubric_lsp.document.positions import Span
from rubric_lsp.formats.errors import Problem, error_span, suggest
from rubric_lsp.formats.northstar import CASES, REQUEST
from rubric_lsp.formats.northstar.model import (
    GRADER_TYPES,
    SCORING_MODES,
    TRACE_CHECKS,
    GraderConfig,
    JudgeScoringConfig,
    is_number,
)
from rubric_lsp.formats.northstar.view import CasesView, RequestView, read_cases, read_request
from rubric_lsp.formats.registry import checker
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule
from rubric_lsp.rules.unknown_keys import RENAME_SAFETY, VALUE_RENAME_SAFETY, rename_fix, unknown_key

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

# -- warnings -------------------------------------------------------------------
BINARY_PASSING_SCORE = rule(
    "NS001",
    "binary-passing-score-unchecked",
    W,
    "A binary-mode scoring config has a `passing_score` outside [min_score, max_score].",
    "In binary mode the judge answers passed: true/false and NorthStar stores passing_score without "
    "ever checking it, so an out-of-range value is silently meaningless (and wrong if you later switch "
    "to numeric mode).",
    bad='"scoring": {"mode": "binary", "max_score": 1, "passing_score": 4}',
    good='"scoring": {"mode": "binary"}',
    formats=(REQUEST,),
)
LABEL_KEY_UNREACHABLE = rule(
    "NS002",
    "unreachable-score-label",
    W,
    "A scoring label's key lies outside [min_score, max_score], or is fractional on a whole-number scale.",
    "A label is used only when the judge's raw score equals its key exactly; a key the judge cannot "
    "return (outside the scale, or 4.5 on a 0-5 scale judges answer in whole numbers) never applies.",
    bad='"scoring": {"mode": "numeric", "max_score": 5, "passing_score": 4, "labels": {"4.5": "good", "10": "great"}}',
    good='"scoring": {"mode": "numeric", "max_score": 5, "passing_score": 4, "labels": {"4": "good", "5": "great"}}',
    formats=(REQUEST,),
)
THRESHOLD_IGNORED = rule(
    "NS003",
    "threshold-ignored",
    W,
    "A judge has both `threshold` and `scoring`; the threshold is ignored.",
    "NorthStar builds the scoring config from `threshold` only when no `scoring` is given; with one, "
    "passing is decided by scoring.passing_score (binary mode: passed) and the threshold does nothing.",
    bad='{"type": "rubric", "threshold": 0.8, "scoring": {"mode": "numeric", "passing_score": 0.5}}',
    good='{"type": "rubric", "scoring": {"mode": "numeric", "passing_score": 0.8}}',
    fix="remove the ignored threshold",
    fix_safety="Safe: NorthStar ignores the threshold there, so removing it changes nothing.",
    formats=(REQUEST,),
)
TEMPERATURE = rule(
    "NS004",
    "judge-temperature-above-zero",
    W,
    "A judge samples with a temperature above 0.",
    "Above 0 the same response can get different grades on different runs, so results are not "
    "repeatable and regressions hide in the noise. NorthStar's default is 0.",
    bad='"temperature": 0.7',
    good='"temperature": 0.0',
    fix="set the temperature to 0 (changes sampling: offered, not applied by --fix)",
    fix_safety="Unsafe: a different temperature changes how the judge samples.",
    formats=(REQUEST,),
)
UNKNOWN_GRADER_KEY = rule(
    "NS005",
    "unknown-grader-key",
    W,
    "A grader has a key NorthStar does not read; it is ignored.",
    "The eval worker reads each grader's known keys and ignores the rest, so a typo such as "
    "`rubirc` or `passing_score` at the wrong level vanishes without a word.",
    bad='{"type": "rubric", "name": "j", "model": "gpt-4o", "rubirc": "..."}',
    good='{"type": "rubric", "name": "j", "model": "gpt-4o", "rubric": "..."}',
    fix="rename the key to the nearest known one",
    fix_safety=RENAME_SAFETY,
    formats=(REQUEST,),
)
JUDGE_ALWAYS_SKIPPED = rule(
    "NS006",
    "judge-always-skipped",
    W,
    "A judge would skip every case of the datasets beside the request.",
    "A rubric judge without its own rubric needs expected.goal or expected.rubric in each case; a "
    "faithfulness judge needs expected.context or tool output. With none anywhere, every grade is "
    "SKIPPED and the judge measures nothing.",
    bad='{"type": "rubric", "name": "j", "model": "gpt-4o"}   # and no case has a goal or rubric',
    good='{"type": "rubric", "name": "j", "model": "gpt-4o", "rubric": "Grade correctness."}',
    formats=(REQUEST,),
)

# -- request errors -----------------------------------------------------------
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
)
SCORING_MODE = rule(
    "NS101",
    "invalid-scoring-mode",
    E,
    "A scoring config's `mode` is missing or is not 'binary' or 'numeric'.",
    "JudgeScoringConfig accepts exactly these two modes and refuses the judge otherwise.",
    bad='"scoring": {"mode": "percent"}',
    good='"scoring": {"mode": "numeric", "passing_score": 0.5}',
    fix="use the nearest valid mode",
    fix_safety=VALUE_RENAME_SAFETY,
    formats=(REQUEST,),
)
UNKNOWN_SCORING_KEY = rule(
    "NS102",
    "unknown-scoring-key",
    E,
    "A scoring config has a key NorthStar does not know.",
    "JudgeScoringConfig forbids unknown keys, so a typo such as `passing` or `maxScore` makes the "
    "whole run configuration fail.",
    bad='"scoring": {"mode": "numeric", "passingScore": 4}',
    good='"scoring": {"mode": "numeric", "passing_score": 4}',
    fix="rename the key to the nearest known one",
    fix_safety=RENAME_SAFETY,
    formats=(REQUEST,),
)
SCORE_RANGE = rule(
    "NS103",
    "invalid-score-range",
    E,
    "`max_score` is not greater than `min_score`.",
    "Scores are normalised as (raw - min) / (max - min); NorthStar refuses an empty or inverted scale.",
    bad='"scoring": {"mode": "numeric", "min_score": 5, "max_score": 0, "passing_score": 3}',
    good='"scoring": {"mode": "numeric", "min_score": 0, "max_score": 5, "passing_score": 3}',
    formats=(REQUEST,),
)
MISSING_PASSING_SCORE = rule(
    "NS104",
    "missing-passing-score",
    E,
    "Numeric scoring has no `passing_score`.",
    "NorthStar passes a numeric grade iff the raw score is at least passing_score; in numeric mode it is "
    "required and its absence raises a ValueError when the judge is built.",
    bad='"scoring": {"mode": "numeric", "max_score": 5}',
    good='"scoring": {"mode": "numeric", "max_score": 5, "passing_score": 4}',
    formats=(REQUEST,),
)
PASSING_SCORE_RANGE = rule(
    "NS105",
    "passing-score-out-of-range",
    E,
    "Numeric scoring's `passing_score` lies outside [min_score, max_score].",
    "A passing score the judge can never reach (or always exceeds) makes every grade fail (or pass); "
    "NorthStar refuses it in numeric mode.",
    bad='"scoring": {"mode": "numeric", "max_score": 1, "passing_score": 4}',
    good='"scoring": {"mode": "numeric", "max_score": 5, "passing_score": 4}',
    formats=(REQUEST,),
)
LABEL_KEY = rule(
    "NS106",
    "invalid-score-label",
    E,
    "A scoring label's key is not a number (or its label is not text).",
    'Labels map raw scores to names ({"4": "good"}); NorthStar reads the keys as numbers and '
    'refuses keys such as "good" or "4-5".',
    bad='"labels": {"high": "good"}',
    good='"labels": {"4": "good"}',
    formats=(REQUEST,),
)
GRADER_FIELD = rule(
    "NS107",
    "invalid-grader-field",
    E,
    "A grader is missing a field it needs, or a field has a value NorthStar rejects.",
    "Every grader needs a 'name'; judges need a 'model'; code graders 'code' and 'timeout_ms'; regex "
    "graders 'pattern', 'target' and 'flags'; trace graders a known 'check'. NorthStar refuses the "
    "run configuration otherwise.",
    bad='{"type": "rubric", "name": "j", "temperature": "hot"}',
    good='{"type": "rubric", "name": "j", "model": "gpt-4o", "temperature": 0}',
    fix="rename a misspelt grader `type` or trace `check` to the nearest known one",
    fix_safety=VALUE_RENAME_SAFETY,
    formats=(REQUEST,),
)
DUPLICATE_GRADER = rule(
    "NS108",
    "duplicate-grader-name",
    E,
    "Two graders have the same name.",
    "Grades are reported by grader name; NorthStar refuses a run configuration with a duplicated name.",
    bad='[{"name": "judge", ...}, {"name": "judge", ...}]',
    good='[{"name": "correctness", ...}, {"name": "clarity", ...}]',
    formats=(REQUEST,),
)

# -- eval-case errors ---------------------------------------------------------
DATASET_SHAPE = rule(
    "NS200",
    "invalid-dataset-shape",
    E,
    "The file is not an eval dataset NorthStar can read, or a JSONL line is not one JSON object.",
    'NorthStar reads a JSON dataset as one case, a list of cases or {"cases": [...]}, and a JSONL '
    "dataset as one case object per line; anything else is refused.",
    bad='{"cases": {"id": "case-1"}}\n# or, in a .jsonl file, a line holding [1, 2]',
    good='{"cases": [{"id": "case-1", "messages": [...]}]}',
    formats=(CASES,),
)
MISSING_CASE_FIELD = rule(
    "NS201",
    "missing-case-field",
    E,
    "An eval case has no `id` or no `messages`.",
    "Both are required by NorthStar's EvalCase; the dataset is refused without them.",
    bad='{"id": "case-1", "expected": {"goal": "greet"}}',
    good='{"id": "case-1", "messages": [{"role": "assistant", "content": "hi"}], "expected": {"goal": "greet"}}',
    formats=(CASES,),
)
UNKNOWN_CASE_KEY = rule(
    "NS202",
    "unknown-case-key",
    E,
    "An eval case (or its `expected`, `metrics`) has a key NorthStar does not know.",
    "NorthStar's eval models forbid unknown keys, so a typo such as `expect` or `max_tools_calls` "
    "makes the whole dataset fail to load.",
    bad='"expected": {"goal": "greet", "max_tools_calls": 1}',
    good='"expected": {"goal": "greet", "max_tool_calls": 1}',
    fix="rename the key to the nearest known one",
    fix_safety=RENAME_SAFETY,
    formats=(CASES,),
)
NEGATIVE_LIMIT = rule(
    "NS203",
    "negative-limit",
    E,
    "A limit in `expected` is negative (or a ratio is outside [0, 1]).",
    "max_tool_calls, max_latency_ms and max_cost_usd must be non-negative (trace limits likewise); "
    "NorthStar refuses the case otherwise.",
    bad='"expected": {"max_tool_calls": -1}',
    good='"expected": {"max_tool_calls": 0}',
    formats=(CASES,),
)
DUPLICATE_CASE_ID = rule(
    "NS204",
    "duplicate-case-id",
    E,
    "Two eval cases have the same id.",
    "Results are reported per case id; two cases with one id cannot be told apart.",
    bad='{"id": "case-1", ...}\n{"id": "case-1", ...}',
    good='{"id": "case-1", ...}\n{"id": "case-2", ...}',
    formats=(CASES,),
)
CASE_FIELD = rule(
    "NS205",
    "invalid-case-field",
    E,
    "An eval-case field has a value of the wrong type.",
    "NorthStar validates cases with pydantic and refuses the dataset on the first bad field (for "
    "example 'messages' that is not a list of objects, or a 'goal' that is not text).",
    bad='{"id": 1, "messages": "hi"}',
    good='{"id": "1", "messages": [{"role": "user", "content": "hi"}]}',
    formats=(CASES,),
)

_SCORING_KEYS = set(JudgeScoringConfig.model_fields)
_GRADER_KEYS = set(GraderConfig.model_fields)


# -- helpers --------------------------------------------------------------------
_MODEL_NAME = re.compile(r" or instance of \w+")


def plain_message(message: str) -> str:
    """A pydantic message without our model's class names (they mean nothing to the reader)."""
    return _MODEL_NAME.sub("", message).rstrip(".")


def remove_pair_fix(ctx: CheckContext, mapping: Node, key_node: Node, title: str) -> Fix | None:
    """Edits that delete one ``"key": value`` pair of a JSON object, with its comma."""
    pairs = mapping.pairs()
    index = next((i for i, (k, _v) in enumerate(pairs) if k is key_node), None)
    if index is None:
        return None
    value = pairs[index][1]
    if index > 0:  # from the end of the previous value: removes the comma before this pair
        span = Span(pairs[index - 1][1].end, value.end)
    elif len(pairs) > 1:  # the first pair: up to the next key (removes the comma after)
        span = Span(key_node.start, pairs[1][0].start)
    else:
        span = Span(key_node.start, value.end)
    return Fix(title, [TextEdit(span, "")])


def _rename_fix(ctx: CheckContext, mapping: Node, key_node: Node, known: set[str]) -> tuple[str | None, Fix | None]:
    found = unknown_key(ctx, mapping, key_node, known)
    return found.suggestion, found.fix


# -- EvalRunRequest -------------------------------------------------------------
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
            _judge_warnings(ctx, node, grader)
    if ctx.enabled(JUDGE_ALWAYS_SKIPPED):
        _skipped_judges(ctx, view)


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
        scoring = _parent_map(ctx, error.key_node)
        suggestion, fix = (
            _rename_fix(ctx, scoring, error.key_node, _SCORING_KEYS) if scoring is not None else (None, None)
        )
        message = f"Unknown scoring key '{error.key_node.value}': JudgeScoringConfig forbids unknown keys, so NorthStar refuses this judge."
        if suggestion and fix is not None:
            message += f" Did you mean '{suggestion}'?"
        else:
            message += " Known keys: " + ", ".join(sorted(_SCORING_KEYS)) + "."
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
        where = error.key_node or span
        ctx.report(
            MISSING_PASSING_SCORE,
            where,
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


def _parent_map(ctx: CheckContext, key_node: Node) -> Node | None:
    """The mapping that holds ``key_node`` (searched from the root)."""
    stack = [ctx.document.root]
    while stack:
        node = stack.pop()
        if node is None or node.is_scalar:
            continue
        if node.is_map:
            for k, v in node.pairs():
                if k is key_node:
                    return node
                stack.append(v)
        else:
            stack.extend(node.value)
    return None


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
        if not isinstance(key, str) or key in _GRADER_KEYS:
            continue
        suggestion, fix = _rename_fix(ctx, node, key_node, _GRADER_KEYS)
        message = f"Unknown grader key '{key}': NorthStar ignores it."
        if key in _SCORING_KEYS:
            message = f"'{key}' belongs inside 'scoring'; at the grader level NorthStar ignores it."
            fix = None
        elif fix is not None:
            message += f" Did you mean '{suggestion}'?"
        ctx.report(UNKNOWN_GRADER_KEY, key_node, message, fix=fix)


_NEEDS: dict[str, tuple[str, ...]] = {
    "rubric": ("model",),
    "faithfulness": ("model",),
    "python": ("code", "timeout_ms"),
    "typescript": ("code", "timeout_ms"),
    "regex": ("pattern", "target", "flags"),
    "trace": ("check",),
}


def _required_fields(ctx: CheckContext, node: Node) -> None:
    """The fields a grader of its type cannot run without (the pydantic model keeps them optional)."""
    type_node = node.get("type")
    kind = type_node.value if type_node is not None and type_node.is_scalar else "rubric"
    if kind not in _NEEDS:
        return  # an unknown type is reported on its own
    missing = [key for key in _NEEDS[kind] if node.get(key) is None or node.get(key).value is None]
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


def _judge_warnings(ctx: CheckContext, node: Node, grader: GraderConfig) -> None:
    scoring_node = node.get("scoring")
    scoring = grader.scoring
    if scoring is not None and scoring_node is not None and scoring_node.is_map:
        passing_node = scoring_node.get("passing_score")
        if scoring.mode == "binary" and passing_node is not None and is_number(passing_node.value):
            if not scoring.min_score <= passing_node.value <= scoring.max_score:
                ctx.report(
                    BINARY_PASSING_SCORE,
                    passing_node,
                    f"passing_score {passing_node.value:g} is outside [{scoring.min_score:g}, {scoring.max_score:g}]; binary mode never checks it (the judge answers passed: true/false). Remove it, or switch to numeric mode.",
                )
        labels = scoring_node.get("labels")
        if labels is not None and labels.is_map and scoring.labels is not None:
            # A scale like 0-5 with a whole passing score is scored in whole numbers by judges;
            # 0-1 is a continuous scale (0.5, 0.75, ...).
            bounds = (scoring.min_score, scoring.max_score, scoring.passing_score or 0.0)
            whole_scale = all(float(b).is_integer() for b in bounds) and scoring.max_score - scoring.min_score >= 2
            for key_node, _value in labels.pairs():
                try:
                    raw = float(key_node.value)
                except (TypeError, ValueError):
                    continue
                if not scoring.min_score <= raw <= scoring.max_score:
                    ctx.report(
                        LABEL_KEY_UNREACHABLE,
                        key_node,
                        f"Label key {raw:g} is outside the scale [{scoring.min_score:g}, {scoring.max_score:g}]; the judge's score can never equal it, so this label never applies.",
                    )
                elif whole_scale and not raw.is_integer():
                    ctx.report(
                        LABEL_KEY_UNREACHABLE,
                        key_node,
                        f"Label key {raw:g} is fractional on the whole-number scale [{scoring.min_score:g}, {scoring.max_score:g}]; labels apply only on an exact match, which judges scoring in whole numbers never give.",
                    )
    threshold_key = node.key_node("threshold")
    if threshold_key is not None and scoring_node is not None:
        where = "scoring.passing_score" if scoring is not None and scoring.mode == "numeric" else "the binary verdict"
        ctx.report(
            THRESHOLD_IGNORED,
            threshold_key,
            f"'threshold' is ignored because 'scoring' is given: passing is decided by {where}. Remove the threshold (or move its value into scoring.passing_score).",
            fix=remove_pair_fix(ctx, node, threshold_key, "Remove the ignored threshold"),
        )
    temperature_node = node.get("temperature")
    if temperature_node is not None and is_number(temperature_node.value) and 0 < temperature_node.value <= 2:
        ctx.report(
            TEMPERATURE,
            temperature_node,
            f"Judge temperature {temperature_node.value:g} makes grades vary from run to run; use 0 for repeatable grading.",
            fix=ctx.replace(temperature_node, "0.0", "Set the temperature to 0", safe=False),
        )


def _skipped_judges(ctx: CheckContext, view: RequestView) -> None:
    """NS006: judges that would skip every case of the datasets found beside the request."""
    judges = [e for e in view.graders if e.grader is not None and e.grader.is_judge]
    if not judges or ctx.path is None:
        return
    cases = _sibling_cases(ctx)
    if not cases:
        return
    any_goal = any(c.expected.goal is not None or c.expected.rubric is not None for c in cases)
    any_grounding = any(c.expected.context or _has_tool_output(c.messages) for c in cases)
    for entry in judges:
        grader = entry.grader
        assert grader is not None
        where = entry.node.key_node("type") or entry.node.key_node("name") or ctx.line_span(entry.node)
        if grader.type == "rubric" and grader.rubric is None and not any_goal:
            ctx.report(
                JUDGE_ALWAYS_SKIPPED,
                where,
                f"Judge '{grader.name}' has no rubric, and no case in {len(cases)} found beside this file has expected.goal or expected.rubric: every grade would be SKIPPED. Give the judge a 'rubric'.",
            )
        elif grader.type == "faithfulness" and not any_grounding:
            ctx.report(
                JUDGE_ALWAYS_SKIPPED,
                where,
                f"Faithfulness judge '{grader.name}': no case in {len(cases)} found beside this file has expected.context or tool output, so every grade would be SKIPPED.",
            )


def _has_tool_output(messages: list) -> bool:
    return any(isinstance(m, dict) and m.get("role") == "tool" for m in messages)


# (path, mtime, size) → the file's valid cases, or None when it is not an eval dataset.
# The server re-lints on every edit; the sibling files rarely change meanwhile.
_SIBLING_CACHE: dict[tuple[str, int, int], list | None] = {}


def _sibling_cases(ctx: CheckContext) -> list:
    """Eval cases in the request's folder and its 'datasets' subfolder."""
    from pathlib import Path

    if not Path(ctx.path).is_file():
        return []  # an unsaved buffer: there is no folder to look in
    me = Path(ctx.path).resolve()
    found = []
    for directory in (me.parent, me.parent / "datasets"):
        if not directory.is_dir():
            continue
        for path in sorted(directory.iterdir()):
            if path.suffix.lower() not in (".json", ".jsonl") or path.resolve() == me or not path.is_file():
                continue
            cases = _cases_in(path)
            if cases is not None:
                ctx.dependencies.add(str(path))
                found.extend(cases)
    return found


def _cases_in(path) -> list | None:
    from rubric_lsp.document import parse_document
    from rubric_lsp.formats.registry import detect

    try:
        stat = path.stat()
        key = (str(path), stat.st_mtime_ns, stat.st_size)
        if key in _SIBLING_CACHE:
            return _SIBLING_CACHE[key]
        if stat.st_size > 5_000_000:
            return None
        doc = parse_document(path.read_bytes(), str(path))
    except OSError:
        return None
    fmt = detect(doc)
    cases = None
    if doc.root is not None and fmt is not None and fmt.name == CASES:
        cases = read_cases(doc.root, jsonl=doc.language == "jsonl").valid_cases
    if len(_SIBLING_CACHE) > 256:
        _SIBLING_CACHE.clear()
    _SIBLING_CACHE[key] = cases
    return cases


# -- eval cases -----------------------------------------------------------------
def cases_view(ctx: CheckContext) -> CasesView | None:
    if "northstar.cases" not in ctx.cache:
        doc = ctx.document
        ctx.cache["northstar.cases"] = (
            read_cases(doc.root, jsonl=doc.language == "jsonl") if doc.root is not None else None
        )
    return ctx.cache["northstar.cases"]


def _known_case_keys(path: tuple) -> set[str] | None:
    from rubric_lsp.formats.northstar import model as M

    models = {"": M.EvalCase, "expected": M.EvalExpected, "metrics": M.EvalMetrics, "trace": M.TraceExpected}
    # The model that holds the unknown key: the last named level of the path.
    named = [p for p in path if isinstance(p, str)]
    parent = named[-2] if len(named) >= 2 else ""
    if parent == "tool_arguments":
        return set(M.ExpectedToolArguments.model_fields)
    if parent == "allowed_state_transitions":
        return set(M.ExpectedStateTransition.model_fields)
    model = models.get(parent)
    return set(model.model_fields) if model is not None else None


@checker(CASES)
def check_cases(ctx: CheckContext) -> None:
    view = cases_view(ctx)
    if view is None:
        ctx.report(
            DATASET_SHAPE,
            ctx.document.lines.single_line_span(0),
            "The file is empty: an eval dataset needs at least one case.",
        )
        return
    jsonl = ctx.document.language == "jsonl"
    for problem in view.problems:
        related = [(node, text) for node, text in problem.related if node is not None]
        if problem.kind in ("dataset-shape", "case-not-mapping"):
            message = problem.message
            if jsonl and problem.kind == "case-not-mapping":
                message = (
                    f"Line {ctx.document.lines.position(problem.node.start).line + 1}: "
                    + message[0].lower()
                    + message[1:]
                )
            ctx.report(DATASET_SHAPE, ctx.compact(problem.node), message)
        elif problem.kind == "duplicate-case-id":
            ctx.report(DUPLICATE_CASE_ID, problem.node, problem.message, related=related)
        else:
            _report_case_error(ctx, problem)


def _report_case_error(ctx: CheckContext, problem: Problem) -> None:
    error = problem.error
    assert error is not None
    span = error_span(error, ctx.line_span)
    path = error.path
    if error.type == "missing":
        if error.missing_key in ("id", "messages") and len(path) == 0:
            what = (
                "an 'id' (unique in the dataset)"
                if error.missing_key == "id"
                else "'messages' (the conversation, a list of chat messages)"
            )
            ctx.report(
                MISSING_CASE_FIELD,
                span,
                f"This case has no {what}; NorthStar's EvalCase requires it and refuses the dataset.",
            )
        else:
            ctx.report(
                CASE_FIELD,
                span,
                f"'{'.'.join(map(str, path))}' has no '{error.missing_key}'; NorthStar refuses the case.",
            )
    elif error.type == "extra_forbidden" and error.key_node is not None:
        known = _known_case_keys(path) or set()
        parent = _parent_map(ctx, error.key_node)
        suggestion, fix = (
            _rename_fix(ctx, parent, error.key_node, known) if parent is not None and known else (None, None)
        )
        where = ".".join(str(p) for p in path[:-1] if isinstance(p, str)) or "case"
        message = (
            f"Unknown key '{error.key_node.value}' in {where}: NorthStar forbids unknown keys and refuses the dataset."
        )
        if fix is not None:
            message += f" Did you mean '{suggestion}'?"
        ctx.report(UNKNOWN_CASE_KEY, error.key_node, message, fix=fix)
    elif error.type in ("ns_negative_limit", "ns_ratio_range"):
        ctx.report(NEGATIVE_LIMIT, span, error.message + "; NorthStar refuses the case.")
    else:
        field = ".".join(str(p) for p in path) or "case"
        ctx.report(CASE_FIELD, span, f"'{field}': {plain_message(error.message)}; NorthStar refuses the case.")
