"""The vendor "Rubrics task" JSON (the expanded task returned by the vendor's /v2/task).

A task holds threads → turns → messages. Assistant messages carry one rating per
criterion; turn-level annotations hold the criteria (``rubric_<r>_criteria_<n>``) and
preference data (``selected_model_id``, ``likert_value``, ``justification``).

Lenient where the published sample is: message annotations may omit ``key``/``type``,
turn annotations may omit ``id``/``title``, and extra keys are allowed everywhere (the
format says more dimensions and annotations "can be included").
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

RATING_VALUES = ("no_issues", "minor_issues", "major_issues")
CRITERION_VALUES = ("objective", "implicit")
STATUSES = ("pending", "completed", "canceled", "error")
CRITERION_KEY = re.compile(r"^rubric_(\d+)_criteria_(\d+)$")
# The ordinal scale a task maps onto (issue: no_issues 1.0, minor_issues 0.5, major_issues 0.0).
RATING_SCORES = {"no_issues": 1.0, "minor_issues": 0.5, "major_issues": 0.0}

_OPEN = ConfigDict(defer_build=True, extra="allow")


class Annotation(BaseModel):
    """An annotation: a rating on a message, or a criterion / preference datum on a turn."""

    model_config = _OPEN

    id: str | None = Field(None, description="Annotation id; a rating's id is '<criterion key>_rating'.")
    key: str | None = Field(
        None,
        description="What the annotation is: a criterion key 'rubric_<r>_criteria_<n>', 'selected_model_id', 'likert_value', 'justification', ... (ratings may omit it).",
    )
    type: str | None = Field(None, description="Annotation type (may be absent).")
    title: str | None = Field(None, description="The criterion's text; a rating repeats its criterion's title.")
    value: Any = Field(
        None,
        description="Ratings: no_issues | minor_issues | major_issues. Criteria: objective | implicit. selected_model_id: the source_id of an assistant message of the turn.",
    )
    metadata: dict[str, Any] | None = Field(
        None, description='For a rating: {"criteria": "<criterion key>"}, the criterion it rates.'
    )


class MessageContent(BaseModel):
    model_config = _OPEN

    text: str = Field(description="The message text.")


class Message(BaseModel):
    model_config = _OPEN

    role: Literal["user", "assistant", "system"] = Field(
        description="'user' for the prompt, 'assistant' for a model response."
    )
    content: MessageContent = Field(description='The message content: {"text": ...}.')
    source_id: str = Field(
        description="Who wrote it: 'user', or an id unique to the model that generated this response."
    )
    annotations: list[Annotation] = Field(
        default_factory=list, description="Assistant messages: one rating per criterion of the turn."
    )


class Turn(BaseModel):
    model_config = _OPEN

    id: str = Field(description="Turn id, unique in the task.")
    messages: list[Message] = Field(description="The prompt, then the model responses.")
    annotations: list[Annotation] = Field(
        default_factory=list,
        description="The turn's criteria (rubric_<r>_criteria_<n>) and preference data (selected_model_id, likert_value, justification).",
    )


class Thread(BaseModel):
    model_config = _OPEN

    id: str = Field(description="Thread id, unique in the task.")
    turns: list[Turn] = Field(description="The turns of the conversation.")
    annotations: list[Annotation] = Field(default_factory=list, description="Thread-level annotations.")


class RubricsTask(BaseModel):
    """A vendor Rubrics task."""

    model_config = _OPEN

    task_id: str = Field(description="The task id.")
    project: str = Field(description="The project the task belongs to.")
    batch: str | None = Field(None, description="The batch the task belongs to.")
    status: Literal["pending", "completed", "canceled", "error"] = Field(
        description="pending | completed | canceled | error; only completed tasks carry threads."
    )
    created_at: str = Field(description="When the task was created (ISO 8601).")
    completed_at: str | None = Field(None, description="When the task was completed (ISO 8601).")
    threads: list[Thread] = Field(
        default_factory=list, description="The conversations with their human ratings (completed tasks only)."
    )


def task_json_schema() -> dict[str, Any]:
    schema = RubricsTask.model_json_schema()
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    schema["title"] = "Rubrics task"
    return schema
