"""Judge warnings in an EvalRunRequest: settings NorthStar accepts but ignores or never reaches (NS001–NS004, NS006)."""

from __future__ import annotations

from rubric_lsp.diagnostics import Severity
from rubric_lsp.document import Node, parse_document
from rubric_lsp.formats.northstar import CASES, REQUEST
from rubric_lsp.formats.northstar.model import (
    GraderConfig,
    is_number,
)
from rubric_lsp.formats.northstar.rules.common import remove_pair_fix
from rubric_lsp.formats.northstar.view import RequestView, read_cases
from rubric_lsp.formats.registry import detect
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

BINARY_PASSING_SCORE = rule(
    "NS001",
    "binary-passing-score-unchecked",
    W,
    "A binary-mode scoring config has a `passing_score` outside [min_score, max_score].",
    "In binary mode the judge answers passed: true/false and NorthStar stores passing_score without "
    "ever checking it, so an out-of-range value is silently meaningless (and wrong if you later switch "
    "to numeric mode).",
    bad=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "tone", "model": "gpt-4o", "rubric": "Pass when the reply is polite.",\n'
        '   "scoring": {"mode": "binary", "passing_score": 4}}\n'
        "]}"
    ),
    good=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "tone", "model": "gpt-4o", "rubric": "Pass when the reply is polite.",\n'
        '   "scoring": {"mode": "binary"}}\n'
        "]}"
    ),
    formats=(REQUEST,),
)

LABEL_KEY_UNREACHABLE = rule(
    "NS002",
    "unreachable-score-label",
    W,
    "A scoring label's key lies outside [min_score, max_score], or is fractional on a whole-number scale.",
    "A label is used only when the judge's raw score equals its key exactly; a key the judge cannot "
    "return (outside the scale, or 4.5 on a 0-5 scale judges answer in whole numbers) never applies.",
    bad=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Score 1-5 for correctness.",\n'
        '   "scoring": {"mode": "numeric", "max_score": 5, "passing_score": 4, "labels": {"4.5": "good", "10": "great"}}}\n'
        "]}"
    ),
    good=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Score 1-5 for correctness.",\n'
        '   "scoring": {"mode": "numeric", "max_score": 5, "passing_score": 4, "labels": {"4": "good", "5": "great"}}}\n'
        "]}"
    ),
    formats=(REQUEST,),
)

THRESHOLD_IGNORED = rule(
    "NS003",
    "threshold-ignored",
    W,
    "A judge has both `threshold` and `scoring`; the threshold is ignored.",
    "NorthStar builds the scoring config from `threshold` only when no `scoring` is given; with one, "
    "passing is decided by scoring.passing_score (binary mode: passed) and the threshold does nothing.",
    bad=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Score 0-1 for correctness.",\n'
        '   "threshold": 0.8, "scoring": {"mode": "numeric", "max_score": 1, "passing_score": 0.5}}\n'
        "]}"
    ),
    good=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Score 0-1 for correctness.",\n'
        '   "scoring": {"mode": "numeric", "max_score": 1, "passing_score": 0.8}}\n'
        "]}"
    ),
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
    bad=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Score 1-5 for correctness.", "temperature": 0.7}\n'
        "]}"
    ),
    good=(
        '{"graders": [\n'
        '  {"type": "rubric", "name": "accuracy", "model": "gpt-4o", "rubric": "Score 1-5 for correctness.", "temperature": 0.0}\n'
        "]}"
    ),
    fix="set the temperature to 0 (changes sampling: offered, not applied by --fix)",
    fix_safety="Unsafe: a different temperature changes how the judge samples.",
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


def judge_warnings(ctx: CheckContext, node: Node, grader: GraderConfig) -> None:
    scoring_node = node.get("scoring")
    scoring = grader.scoring
    if scoring is not None and scoring_node is not None and scoring_node.is_map:
        passing_node = scoring_node.get("passing_score")
        if (
            scoring.mode == "binary"
            and passing_node is not None
            and is_number(passing_node.value)
            and not scoring.min_score <= passing_node.value <= scoring.max_score
        ):
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


def skipped_judges(ctx: CheckContext, view: RequestView) -> None:
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

    if not ctx.path or not Path(ctx.path).is_file():
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
    from rubric_lsp.document.files import read_regular

    try:
        stat = path.stat()
        key = (str(path), stat.st_mtime_ns, stat.st_size)
        if key in _SIBLING_CACHE:
            return _SIBLING_CACHE[key]
        if stat.st_size > 5_000_000:
            return None
        doc = parse_document(read_regular(path, 5_000_000), str(path))  # a FIFO or device is never opened
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
