"""Rubrics task rules about each turn: criteria values, responses and their ratings."""

from __future__ import annotations

from rubric_lsp.diagnostics import Severity
from rubric_lsp.document import Node
from rubric_lsp.formats.rubrics_task import TASK
from rubric_lsp.formats.rubrics_task.model import CRITERION_VALUES, RATING_VALUES
from rubric_lsp.formats.rubrics_task.view import TurnView
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule
from rubric_lsp.rules.suggest import suggest
from rubric_lsp.rules.unknown_keys import VALUE_RENAME_SAFETY, rename_fix

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

FORMATS = (TASK,)

INCOMPLETE_RATINGS = rule(
    "RT001",
    "incomplete-ratings",
    W,
    "An assistant response does not rate every criterion of its turn exactly once.",
    "Each response should be rated once per criterion; a missing rating leaves a hole in the human "
    "ground truth, and a second rating of the same criterion makes it ambiguous which one counts.",
    bad=(
        '{"task_id": "t1", "project": "demo", "status": "completed", "created_at": "2025-03-04T09:15:00Z",\n'
        ' "threads": [{"id": "thread_0", "turns": [{"id": "turn_0",\n'
        '  "messages": [\n'
        '   {"role": "user", "source_id": "user", "content": {"text": "Convert 5 miles to km."}},\n'
        '   {"role": "assistant", "source_id": "model_a", "content": {"text": "5 mi = 8.05 km"},\n'
        '    "annotations": [\n'
        '     {"id": "rubric_0_criteria_0_rating", "title": "Says 8.05 km.", "value": "no_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_0"}}]}],\n'
        '  "annotations": [\n'
        '   {"key": "rubric_0_criteria_0", "title": "Says 8.05 km.", "value": "objective"},\n'
        '   {"key": "rubric_0_criteria_1", "title": "Shows the working.", "value": "objective"}]}]}]}'
    ),
    good=(
        '{"task_id": "t1", "project": "demo", "status": "completed", "created_at": "2025-03-04T09:15:00Z",\n'
        ' "threads": [{"id": "thread_0", "turns": [{"id": "turn_0",\n'
        '  "messages": [\n'
        '   {"role": "user", "source_id": "user", "content": {"text": "Convert 5 miles to km."}},\n'
        '   {"role": "assistant", "source_id": "model_a", "content": {"text": "5 mi = 8.05 km"},\n'
        '    "annotations": [\n'
        '     {"id": "rubric_0_criteria_0_rating", "title": "Says 8.05 km.", "value": "no_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_0"}},\n'
        '     {"id": "rubric_0_criteria_1_rating", "title": "Shows the working.", "value": "no_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_1"}}]}],\n'
        '  "annotations": [\n'
        '   {"key": "rubric_0_criteria_0", "title": "Says 8.05 km.", "value": "objective"},\n'
        '   {"key": "rubric_0_criteria_1", "title": "Shows the working.", "value": "objective"}]}]}]}'
    ),
    formats=FORMATS,
)


TITLE_MISMATCH = rule(
    "RT002",
    "rating-title-mismatch",
    W,
    "A rating's title differs from the title of the criterion it rates.",
    "A rating repeats its criterion's title; a different title usually means the rating was copied "
    "from another criterion, or the criterion was edited after rating.",
    bad=(
        '{"task_id": "t1", "project": "demo", "status": "completed", "created_at": "2025-03-04T09:15:00Z",\n'
        ' "threads": [{"id": "thread_0", "turns": [{"id": "turn_0",\n'
        '  "messages": [\n'
        '   {"role": "user", "source_id": "user", "content": {"text": "Convert 5 miles to km."}},\n'
        '   {"role": "assistant", "source_id": "model_a", "content": {"text": "5 mi = 8.05 km"},\n'
        '    "annotations": [\n'
        '     {"id": "rubric_0_criteria_0_rating", "title": "Uses a table.", "value": "no_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_0"}}]}],\n'
        '  "annotations": [\n'
        '   {"key": "rubric_0_criteria_0", "title": "Says 8.05 km.", "value": "objective"}]}]}]}'
    ),
    good=(
        '{"task_id": "t1", "project": "demo", "status": "completed", "created_at": "2025-03-04T09:15:00Z",\n'
        ' "threads": [{"id": "thread_0", "turns": [{"id": "turn_0",\n'
        '  "messages": [\n'
        '   {"role": "user", "source_id": "user", "content": {"text": "Convert 5 miles to km."}},\n'
        '   {"role": "assistant", "source_id": "model_a", "content": {"text": "5 mi = 8.05 km"},\n'
        '    "annotations": [\n'
        '     {"id": "rubric_0_criteria_0_rating", "title": "Says 8.05 km.", "value": "no_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_0"}}]}],\n'
        '  "annotations": [\n'
        '   {"key": "rubric_0_criteria_0", "title": "Says 8.05 km.", "value": "objective"}]}]}]}'
    ),
    fix="copy the criterion's title",
    fix_safety="Safe: the title is a copy of the criterion's own title; it makes the file say what the rating already points at.",
    formats=FORMATS,
)


RATING_ID = rule(
    "RT003",
    "rating-id-mismatch",
    W,
    "A rating's id is not '<criterion key>_rating'.",
    "Rating ids are derived from the criterion they rate; a mismatch usually means the rating points "
    "at the wrong criterion (or the id was copied from a neighbour).",
    bad=(
        '{"task_id": "t1", "project": "demo", "status": "completed", "created_at": "2025-03-04T09:15:00Z",\n'
        ' "threads": [{"id": "thread_0", "turns": [{"id": "turn_0",\n'
        '  "messages": [\n'
        '   {"role": "user", "source_id": "user", "content": {"text": "Convert 5 miles to km."}},\n'
        '   {"role": "assistant", "source_id": "model_a", "content": {"text": "5 mi = 8.05 km"},\n'
        '    "annotations": [\n'
        '     {"id": "rubric_0_criteria_1_rating", "title": "Says 8.05 km.", "value": "no_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_0"}}]}],\n'
        '  "annotations": [\n'
        '   {"key": "rubric_0_criteria_0", "title": "Says 8.05 km.", "value": "objective"}]}]}]}'
    ),
    good=(
        '{"task_id": "t1", "project": "demo", "status": "completed", "created_at": "2025-03-04T09:15:00Z",\n'
        ' "threads": [{"id": "thread_0", "turns": [{"id": "turn_0",\n'
        '  "messages": [\n'
        '   {"role": "user", "source_id": "user", "content": {"text": "Convert 5 miles to km."}},\n'
        '   {"role": "assistant", "source_id": "model_a", "content": {"text": "5 mi = 8.05 km"},\n'
        '    "annotations": [\n'
        '     {"id": "rubric_0_criteria_0_rating", "title": "Says 8.05 km.", "value": "no_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_0"}}]}],\n'
        '  "annotations": [\n'
        '   {"key": "rubric_0_criteria_0", "title": "Says 8.05 km.", "value": "objective"}]}]}]}'
    ),
    fix="rename the id after its criterion",
    fix_safety="Safe: the id follows from the criterion the rating points at.",
    formats=FORMATS,
)


RATING_VALUE = rule(
    "RT101",
    "invalid-rating-value",
    E,
    "A rating's value is not no_issues, minor_issues or major_issues.",
    "Ratings are on a three-level scale; any other value cannot be scored or compared.",
    bad=(
        '{"task_id": "t1", "project": "demo", "status": "completed", "created_at": "2025-03-04T09:15:00Z",\n'
        ' "threads": [{"id": "thread_0", "turns": [{"id": "turn_0",\n'
        '  "messages": [\n'
        '   {"role": "user", "source_id": "user", "content": {"text": "Convert 5 miles to km."}},\n'
        '   {"role": "assistant", "source_id": "model_a", "content": {"text": "5 mi = 8.05 km"},\n'
        '    "annotations": [\n'
        '     {"id": "rubric_0_criteria_0_rating", "title": "Says 8.05 km.", "value": "minor",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_0"}}]}],\n'
        '  "annotations": [\n'
        '   {"key": "rubric_0_criteria_0", "title": "Says 8.05 km.", "value": "objective"}]}]}]}'
    ),
    good=(
        '{"task_id": "t1", "project": "demo", "status": "completed", "created_at": "2025-03-04T09:15:00Z",\n'
        ' "threads": [{"id": "thread_0", "turns": [{"id": "turn_0",\n'
        '  "messages": [\n'
        '   {"role": "user", "source_id": "user", "content": {"text": "Convert 5 miles to km."}},\n'
        '   {"role": "assistant", "source_id": "model_a", "content": {"text": "5 mi = 8.05 km"},\n'
        '    "annotations": [\n'
        '     {"id": "rubric_0_criteria_0_rating", "title": "Says 8.05 km.", "value": "minor_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_0"}}]}],\n'
        '  "annotations": [\n'
        '   {"key": "rubric_0_criteria_0", "title": "Says 8.05 km.", "value": "objective"}]}]}]}'
    ),
    fix="use the nearest valid rating",
    fix_safety=VALUE_RENAME_SAFETY,
    formats=FORMATS,
)


CRITERION_VALUE = rule(
    "RT102",
    "invalid-criterion-value",
    E,
    "A criterion's value is not objective or implicit.",
    "A turn-level criterion says whether it was stated in the prompt (objective) or implied (implicit); "
    "any other value is not part of the format.",
    bad=(
        '{"task_id": "t1", "project": "demo", "status": "completed", "created_at": "2025-03-04T09:15:00Z",\n'
        ' "threads": [{"id": "thread_0", "turns": [{"id": "turn_0",\n'
        '  "messages": [\n'
        '   {"role": "user", "source_id": "user", "content": {"text": "Convert 5 miles to km."}},\n'
        '   {"role": "assistant", "source_id": "model_a", "content": {"text": "5 mi = 8.05 km"},\n'
        '    "annotations": [\n'
        '     {"id": "rubric_0_criteria_0_rating", "title": "Says 8.05 km.", "value": "no_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_0"}}]}],\n'
        '  "annotations": [\n'
        '   {"key": "rubric_0_criteria_0", "title": "Says 8.05 km.", "value": "subjective"}]}]}]}'
    ),
    good=(
        '{"task_id": "t1", "project": "demo", "status": "completed", "created_at": "2025-03-04T09:15:00Z",\n'
        ' "threads": [{"id": "thread_0", "turns": [{"id": "turn_0",\n'
        '  "messages": [\n'
        '   {"role": "user", "source_id": "user", "content": {"text": "Convert 5 miles to km."}},\n'
        '   {"role": "assistant", "source_id": "model_a", "content": {"text": "5 mi = 8.05 km"},\n'
        '    "annotations": [\n'
        '     {"id": "rubric_0_criteria_0_rating", "title": "Says 8.05 km.", "value": "no_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_0"}}]}],\n'
        '  "annotations": [\n'
        '   {"key": "rubric_0_criteria_0", "title": "Says 8.05 km.", "value": "implicit"}]}]}]}'
    ),
    fix="use the nearest valid value",
    fix_safety=VALUE_RENAME_SAFETY,
    formats=FORMATS,
)


UNKNOWN_CRITERION = rule(
    "RT103",
    "unknown-criterion",
    E,
    "A rating references a criterion that its turn does not define.",
    "Ratings point at a turn-level criterion through metadata.criteria; a rating of an undefined "
    "criterion rates nothing and is lost when the task is scored.",
    bad=(
        '{"task_id": "t1", "project": "demo", "status": "completed", "created_at": "2025-03-04T09:15:00Z",\n'
        ' "threads": [{"id": "thread_0", "turns": [{"id": "turn_0",\n'
        '  "messages": [\n'
        '   {"role": "user", "source_id": "user", "content": {"text": "Convert 5 miles to km."}},\n'
        '   {"role": "assistant", "source_id": "model_a", "content": {"text": "5 mi = 8.05 km"},\n'
        '    "annotations": [\n'
        '     {"id": "rubric_0_criteria_0_rating", "title": "Says 8.05 km.", "value": "no_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_0"}},\n'
        '     {"id": "rubric_0_criteria_1_rating", "title": "Shows the working.", "value": "no_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_1"}}]}],\n'
        '  "annotations": [\n'
        '   {"key": "rubric_0_criteria_0", "title": "Says 8.05 km.", "value": "objective"}]}]}]}'
    ),
    good=(
        '{"task_id": "t1", "project": "demo", "status": "completed", "created_at": "2025-03-04T09:15:00Z",\n'
        ' "threads": [{"id": "thread_0", "turns": [{"id": "turn_0",\n'
        '  "messages": [\n'
        '   {"role": "user", "source_id": "user", "content": {"text": "Convert 5 miles to km."}},\n'
        '   {"role": "assistant", "source_id": "model_a", "content": {"text": "5 mi = 8.05 km"},\n'
        '    "annotations": [\n'
        '     {"id": "rubric_0_criteria_0_rating", "title": "Says 8.05 km.", "value": "no_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_0"}},\n'
        '     {"id": "rubric_0_criteria_1_rating", "title": "Shows the working.", "value": "no_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_1"}}]}],\n'
        '  "annotations": [\n'
        '   {"key": "rubric_0_criteria_0", "title": "Says 8.05 km.", "value": "objective"},\n'
        '   {"key": "rubric_0_criteria_1", "title": "Shows the working.", "value": "objective"}]}]}]}'
    ),
    fix="point it at the nearest defined criterion",
    fix_safety=VALUE_RENAME_SAFETY,
    formats=FORMATS,
)


UNKNOWN_SELECTED_MODEL = rule(
    "RT104",
    "unknown-selected-model",
    E,
    "`selected_model_id` names no assistant response of its turn.",
    "The preferred response is named by its source_id; a name that matches no response of the turn "
    "makes the preference data unusable.",
    bad=(
        '{"task_id": "t1", "project": "demo", "status": "completed", "created_at": "2025-03-04T09:15:00Z",\n'
        ' "threads": [{"id": "thread_0", "turns": [{"id": "turn_0",\n'
        '  "messages": [\n'
        '   {"role": "user", "source_id": "user", "content": {"text": "Convert 5 miles to km."}},\n'
        '   {"role": "assistant", "source_id": "model_a", "content": {"text": "5 mi = 8.05 km"},\n'
        '    "annotations": [\n'
        '     {"id": "rubric_0_criteria_0_rating", "title": "Says 8.05 km.", "value": "no_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_0"}}]}],\n'
        '  "annotations": [\n'
        '   {"key": "selected_model_id", "value": "model_b"},\n'
        '   {"key": "rubric_0_criteria_0", "title": "Says 8.05 km.", "value": "objective"}]}]}]}'
    ),
    good=(
        '{"task_id": "t1", "project": "demo", "status": "completed", "created_at": "2025-03-04T09:15:00Z",\n'
        ' "threads": [{"id": "thread_0", "turns": [{"id": "turn_0",\n'
        '  "messages": [\n'
        '   {"role": "user", "source_id": "user", "content": {"text": "Convert 5 miles to km."}},\n'
        '   {"role": "assistant", "source_id": "model_a", "content": {"text": "5 mi = 8.05 km"},\n'
        '    "annotations": [\n'
        '     {"id": "rubric_0_criteria_0_rating", "title": "Says 8.05 km.", "value": "no_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_0"}}]}],\n'
        '  "annotations": [\n'
        '   {"key": "selected_model_id", "value": "model_a"},\n'
        '   {"key": "rubric_0_criteria_0", "title": "Says 8.05 km.", "value": "objective"}]}]}]}'
    ),
    fix="use the nearest source_id",
    fix_safety=VALUE_RENAME_SAFETY,
    formats=FORMATS,
)


DUPLICATE_SOURCE_ID = rule(
    "RT105",
    "duplicate-source-id",
    E,
    "Two assistant responses of one turn have the same source_id.",
    "source_id tells the responses apart (and selected_model_id names one by it); two responses with "
    "one id cannot be told apart.",
    bad=(
        '{"task_id": "t1", "project": "demo", "status": "completed", "created_at": "2025-03-04T09:15:00Z",\n'
        ' "threads": [{"id": "thread_0", "turns": [{"id": "turn_0",\n'
        '  "messages": [\n'
        '   {"role": "user", "source_id": "user", "content": {"text": "Convert 5 miles to km."}},\n'
        '   {"role": "assistant", "source_id": "model_a", "content": {"text": "5 mi = 8.05 km"},\n'
        '    "annotations": [\n'
        '     {"id": "rubric_0_criteria_0_rating", "title": "Says 8.05 km.", "value": "no_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_0"}}]},\n'
        '   {"role": "assistant", "source_id": "model_a", "content": {"text": "About 8 km."},\n'
        '    "annotations": [\n'
        '     {"id": "rubric_0_criteria_0_rating", "title": "Says 8.05 km.", "value": "minor_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_0"}}]}],\n'
        '  "annotations": [\n'
        '   {"key": "rubric_0_criteria_0", "title": "Says 8.05 km.", "value": "objective"}]}]}]}'
    ),
    good=(
        '{"task_id": "t1", "project": "demo", "status": "completed", "created_at": "2025-03-04T09:15:00Z",\n'
        ' "threads": [{"id": "thread_0", "turns": [{"id": "turn_0",\n'
        '  "messages": [\n'
        '   {"role": "user", "source_id": "user", "content": {"text": "Convert 5 miles to km."}},\n'
        '   {"role": "assistant", "source_id": "model_a", "content": {"text": "5 mi = 8.05 km"},\n'
        '    "annotations": [\n'
        '     {"id": "rubric_0_criteria_0_rating", "title": "Says 8.05 km.", "value": "no_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_0"}}]},\n'
        '   {"role": "assistant", "source_id": "model_b", "content": {"text": "About 8 km."},\n'
        '    "annotations": [\n'
        '     {"id": "rubric_0_criteria_0_rating", "title": "Says 8.05 km.", "value": "minor_issues",\n'
        '      "metadata": {"criteria": "rubric_0_criteria_0"}}]}],\n'
        '  "annotations": [\n'
        '   {"key": "rubric_0_criteria_0", "title": "Says 8.05 km.", "value": "objective"}]}]}]}'
    ),
    formats=FORMATS,
)


def check_turn(ctx: CheckContext, turn: TurnView) -> None:
    for criterion in turn.criteria:
        value_node = criterion.field("value")
        if criterion.value not in CRITERION_VALUES:
            _bad_value(
                ctx,
                CRITERION_VALUE,
                criterion.node,
                value_node,
                criterion.value,
                CRITERION_VALUES,
                f"Criterion '{criterion.key}'",
            )
    sources = [r.source_id for r in turn.responses if r.source_id is not None]
    seen_sources: dict[str, Node] = {}
    for response in turn.responses:
        source_node = response.node.get("source_id")
        if response.source_id is not None and source_node is not None:
            if response.source_id in seen_sources:
                ctx.report(
                    DUPLICATE_SOURCE_ID,
                    source_node,
                    f"Two responses of turn '{turn.id}' have source_id '{response.source_id}'; they cannot be told apart (and selected_model_id cannot name one). Give each response its own source_id.",
                    related=[(seen_sources[response.source_id], "the other response")],
                )
            else:
                seen_sources[response.source_id] = source_node
        _check_ratings(ctx, turn, response)
    selected = turn.preferences.get("selected_model_id")
    if selected is not None:
        annotation, value = selected
        value_node = annotation.get("value")
        if value not in sources:
            found = suggest(str(value), sources) if value is not None else None
            suggestion = found.name if found else None
            fix = (
                rename_fix(ctx, value_node, found, f"Use '{found.name}'") if found and value_node is not None else None
            )
            known = ", ".join(f"'{s}'" for s in sources) or "none"
            ctx.report(
                UNKNOWN_SELECTED_MODEL,
                value_node or annotation,
                f"selected_model_id {value!r} names no assistant response of turn '{turn.id}' (its source_ids: {known})."
                + (f" Did you mean '{suggestion}'?" if suggestion else ""),
                fix=fix,
            )


def _check_ratings(ctx: CheckContext, turn: TurnView, response) -> None:
    counts: dict[str, int] = {}
    for rating in response.ratings:
        value_node = rating.field("value")
        if rating.value not in RATING_VALUES:
            _bad_value(ctx, RATING_VALUE, rating.node, value_node, rating.value, RATING_VALUES, "Rating")
        criterion_node = rating.criterion_node
        if rating.criterion is None:
            ctx.report(
                UNKNOWN_CRITERION,
                rating.node.key_node("metadata") or ctx.line_span(rating.node),
                'This rating names no criterion: add "metadata": {"criteria": "rubric_<r>_criteria_<n>"} pointing at a criterion of the turn.',
            )
            continue
        criterion = turn.criterion(rating.criterion)
        if criterion is None:
            keys = [c.key for c in turn.criteria]
            found = suggest(rating.criterion, keys)
            suggestion = found.name if found else None
            fix = (
                rename_fix(ctx, criterion_node, found, f"Use '{found.name}'")
                if found and criterion_node is not None
                else None
            )
            ctx.report(
                UNKNOWN_CRITERION,
                criterion_node or rating.node,
                f"This rating references criterion '{rating.criterion}', which turn '{turn.id}' does not define ("
                + (", ".join(keys) if keys else "it defines none")
                + ")."
                + (f" Did you mean '{suggestion}'?" if suggestion else ""),
                fix=fix,
            )
            continue
        counts[criterion.key] = counts.get(criterion.key, 0) + 1
        if counts[criterion.key] == 2:
            ctx.report(
                INCOMPLETE_RATINGS,
                criterion_node or rating.node,
                f"Response '{response.source_id}' rates '{criterion.key}' more than once; keep one rating per criterion.",
            )
        title_node = rating.field("title")
        if (
            criterion.title is not None
            and rating.title is not None
            and rating.title != criterion.title
            and title_node is not None
        ):
            ctx.report(
                TITLE_MISMATCH,
                title_node,
                f"This rating's title differs from the title of '{criterion.key}' (\"{criterion.title}\"); the rating may have been copied from another criterion.",
                fix=ctx.rename(title_node, criterion.title, "Copy the criterion's title"),
                related=[(criterion.field("title"), "the criterion's title")],
            )
        id_node = rating.field("id")
        expected_id = f"{criterion.key}_rating"
        if rating.id is not None and rating.id != expected_id and id_node is not None:
            ctx.report(
                RATING_ID,
                id_node,
                f"Rating id '{rating.id}' does not match the criterion it rates ('{criterion.key}'); expected '{expected_id}'. Check that the rating points at the right criterion.",
                fix=ctx.rename(id_node, expected_id, f"Rename the id to '{expected_id}'"),
            )
    missing = [c.key for c in turn.criteria if c.key not in counts]
    if missing:
        where = (
            response.node.key_node("annotations") or response.node.key_node("source_id") or ctx.line_span(response.node)
        )
        ctx.report(
            INCOMPLETE_RATINGS,
            where,
            f"Response '{response.source_id}' has no rating for "
            + ", ".join(missing)
            + "; each response should rate every criterion of its turn once.",
        )


def _bad_value(
    ctx: CheckContext, which, annotation: Node, value_node: Node | None, value, allowed: tuple[str, ...], what: str
) -> None:
    found = suggest(value, allowed) if isinstance(value, str) else None
    suggestion = found.name if found else None
    fix = rename_fix(ctx, value_node, found, f"Use '{found.name}'") if found and value_node is not None else None
    where = value_node if value_node is not None else (annotation.key_node("key") or ctx.line_span(annotation))
    shown = "no value" if value_node is None else f"value {value!r}"
    ctx.report(
        which,
        where,
        f"{what} has {shown}; allowed: "
        + ", ".join(allowed)
        + "."
        + (f" Did you mean '{suggestion}'?" if suggestion else ""),
        fix=fix,
    )
