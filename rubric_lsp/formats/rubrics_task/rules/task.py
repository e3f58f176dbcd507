"""Rubrics task rules about the task as a whole: its fields and status, unfinished threads, unique ids."""

from __future__ import annotations

from rubric_lsp.diagnostics import Severity
from rubric_lsp.document import Node
from rubric_lsp.formats.errors import error_span
from rubric_lsp.formats.rubrics_task import TASK
from rubric_lsp.formats.rubrics_task.model import STATUSES
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule
from rubric_lsp.rules.suggest import suggest
from rubric_lsp.rules.unknown_keys import VALUE_RENAME_SAFETY, rename_fix

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO


FORMATS = (TASK,)

THREADS_NOT_COMPLETED = rule(
    "RT004",
    "threads-on-unfinished-task",
    W,
    "A task whose status is not 'completed' carries threads.",
    "Only completed tasks carry threads with ratings; a pending, canceled or errored task's threads "
    "are unfinished and should not be used as ground truth.",
    bad=(
        '{"task_id": "t1", "project": "demo", "status": "pending", "created_at": "2025-03-04T09:15:00Z",\n'
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
    formats=FORMATS,
)


TASK_FIELD = rule(
    "RT100",
    "invalid-task-field",
    E,
    "A task, thread, turn or message lacks a required field or has a value of the wrong type.",
    "A task needs task_id, project, status (pending|completed|canceled|error) and created_at; threads "
    "and turns need an id and their list; messages need role, content.text and source_id.",
    bad='{"task_id": "t1", "status": "done"}',
    good='{"task_id": "t1", "project": "p1", "status": "completed", "created_at": "2025-01-01T00:00:00Z"}',
    fix="rename a misspelt status to the nearest known one",
    fix_safety=VALUE_RENAME_SAFETY,
    formats=FORMATS,
)


DUPLICATE_ID = rule(
    "RT106",
    "duplicate-id",
    E,
    "An id is used twice where it must be unique: thread ids, turn ids, annotation ids in one list, criterion keys in one turn.",
    "References (ratings → criteria, results → threads and turns) go by id; a duplicate makes them ambiguous.",
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
        '   {"key": "rubric_0_criteria_0", "title": "Shows the working.", "value": "objective"}]}]}]}'
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


def report_problem(ctx: CheckContext, problem) -> None:
    error = problem.error
    if error is None:
        ctx.report(TASK_FIELD, ctx.compact(problem.node), problem.message + ".")
        return
    span = error_span(error, ctx.line_span)
    where = ".".join(str(p) for p in error.path) or "task"
    if error.type == "missing":
        ctx.report(
            TASK_FIELD, span, f"'{where}' has no '{error.missing_key}', which the Rubrics task format requires. Add it."
        )
    elif error.path and error.path[-1] == "status" and isinstance(error.input, str):
        found = suggest(error.input, STATUSES)
        suggestion = found.name if found else None
        fix = rename_fix(ctx, error.node, found, f"Use status '{found.name}'") if found else None
        ctx.report(
            TASK_FIELD,
            span,
            f"Status {error.input!r} is not one of "
            + ", ".join(STATUSES)
            + "."
            + (f" Did you mean '{suggestion}'?" if suggestion else ""),
            fix=fix,
        )
    else:
        ctx.report(TASK_FIELD, span, f"'{where}': {plain_message(error.message)}.")


def plain_message(message: str) -> str:
    """A pydantic message without our model's class names (they mean nothing to the reader)."""
    import re

    return re.sub(r" or instance of \w+", "", message).rstrip(".")


def unfinished(ctx: CheckContext, root: Node) -> None:
    status = root.get("status")
    threads = root.get("threads")
    if status is None or not status.is_scalar or status.value == "completed" or status.value not in STATUSES:
        return
    if threads is not None and threads.is_seq and threads.value:
        ctx.report(
            THREADS_NOT_COMPLETED,
            status,
            f"This task is '{status.value}' but carries {len(threads.value)} thread(s); only completed tasks have final ratings. Use it as ground truth only once it is completed.",
            related=[(root.key_node("threads"), "the threads")],
        )


def unique_ids(ctx: CheckContext, root: Node) -> None:
    """Thread ids and turn ids across the task; annotation ids within each annotations list."""
    threads = root.get("threads")
    thread_ids: dict[str, Node] = {}
    turn_ids: dict[str, Node] = {}
    for thread in _maps(threads):
        _first_or_report(ctx, thread.get("id"), thread_ids, "Thread id")
        _annotation_ids(ctx, thread.get("annotations"))
        for turn in _maps(thread.get("turns")):
            _first_or_report(ctx, turn.get("id"), turn_ids, "Turn id")
            _annotation_ids(ctx, turn.get("annotations"))
            for message in _maps(turn.get("messages")):
                _annotation_ids(ctx, message.get("annotations"))


def _annotation_ids(ctx: CheckContext, annotations: Node | None) -> None:
    ids: dict[str, Node] = {}
    keys: dict[str, Node] = {}
    for annotation in _maps(annotations):
        _first_or_report(ctx, annotation.get("id"), ids, "Annotation id")
        _first_or_report(ctx, annotation.get("key"), keys, "Annotation key")


def _first_or_report(ctx: CheckContext, node: Node | None, seen: dict[str, Node], what: str) -> None:
    if node is None or not node.is_scalar or not isinstance(node.value, str):
        return
    first = seen.get(node.value)
    if first is None:
        seen[node.value] = node
        return
    ctx.report(
        DUPLICATE_ID,
        node,
        f"{what} '{node.value}' is used twice here; references by id become ambiguous. Give each its own id (or remove the copy).",
        related=[(first, f"the first '{node.value}'")],
    )


def _maps(node: Node | None) -> list[Node]:
    return [n for n in node.value if n.is_map] if node is not None and node.is_seq else []
