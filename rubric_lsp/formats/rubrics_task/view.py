"""Read a Rubrics task out of the node tree: turns with their criteria, responses and ratings.

``read_task(node)`` is the model the rules and ``rubric convert`` share. Structural
problems (what a JSON consumer of the documented shape would trip on) are
:class:`Problem`s; the cross-references (ratings → criteria, selected_model_id →
responses) are left to the rules, which see every node here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from rubric_lsp.document import Node
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.errors import Problem, describe_type, place_errors
from rubric_lsp.formats.rubrics_task.model import CRITERION_KEY, RubricsTask


@dataclass
class CriterionDef:
    key: str
    node: Node  # the annotation mapping
    key_node: Node  # the value node of its "key"
    title: str | None
    value: Any

    def field(self, name: str) -> Node | None:
        return self.node.get(name)


@dataclass
class Rating:
    node: Node  # the annotation mapping
    criterion: str | None  # metadata.criteria
    value: Any
    title: str | None
    id: str | None

    def field(self, name: str) -> Node | None:
        return self.node.get(name)

    @property
    def criterion_node(self) -> Node | None:
        metadata = self.node.get("metadata")
        return metadata.get("criteria") if metadata is not None and metadata.is_map else None


@dataclass
class Response:
    node: Node  # the assistant message mapping
    source_id: str | None
    text: str | None
    ratings: list[Rating] = field(default_factory=list)


@dataclass
class TurnView:
    thread_id: str | None
    id: str | None
    node: Node
    prompt: list[tuple[str, str]] = field(default_factory=list)  # (role, text) of non-assistant messages
    criteria: list[CriterionDef] = field(default_factory=list)
    responses: list[Response] = field(default_factory=list)
    preferences: dict[str, tuple[Node, Any]] = field(default_factory=dict)  # key → (annotation, value)

    def criterion(self, key: str) -> CriterionDef | None:
        return next((c for c in self.criteria if c.key == key), None)


@dataclass
class TaskView:
    root: Node
    task: RubricsTask | None = None
    turns: list[TurnView] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return self.task is not None and not self.problems


def read_task(root: Node) -> TaskView:
    view = TaskView(root)
    if not root.is_map:
        view.problems.append(
            Problem(
                "task-shape",
                root,
                f"A Rubrics task is a JSON object with 'task_id', 'status' and 'threads', got {describe_type(to_plain(root))}",
            )
        )
        return view
    try:
        view.task = RubricsTask.model_validate(to_plain(root))
    except ValidationError as exc:
        for placed in place_errors(exc.errors(include_url=False), root):
            view.problems.append(
                Problem("task-invalid", placed.node, placed.message, key_node=placed.key_node, error=placed)
            )
    threads = root.get("threads")
    for thread in _maps(threads):
        thread_id = _text(thread.get("id"))
        for turn in _maps(thread.get("turns")):
            view.turns.append(_turn(thread_id, turn))
    return view


def _turn(thread_id: str | None, node: Node) -> TurnView:
    turn = TurnView(thread_id, _text(node.get("id")), node)
    for annotation in _maps(node.get("annotations")):
        key_node = annotation.get("key")
        key = _text(key_node)
        if key is None:
            continue
        value_node = annotation.get("value")
        value = value_node.value if value_node is not None and value_node.is_scalar else to_plain(value_node)
        if CRITERION_KEY.match(key):
            turn.criteria.append(CriterionDef(key, annotation, key_node, _text(annotation.get("title")), value))  # type: ignore[arg-type]
        else:
            turn.preferences[key] = (annotation, value)
    for message in _maps(node.get("messages")):
        role = _text(message.get("role"))
        content = message.get("content")
        text = _text(content.get("text")) if content is not None and content.is_map else None
        if role != "assistant":
            turn.prompt.append((role or "user", text or ""))
            continue
        response = Response(message, _text(message.get("source_id")), text)
        for annotation in _maps(message.get("annotations")):
            metadata = annotation.get("metadata")
            criterion = _text(metadata.get("criteria")) if metadata is not None and metadata.is_map else None
            value_node = annotation.get("value")
            response.ratings.append(
                Rating(
                    annotation,
                    criterion,
                    value_node.value if value_node is not None and value_node.is_scalar else to_plain(value_node),
                    _text(annotation.get("title")),
                    _text(annotation.get("id")),
                )
            )
        turn.responses.append(response)
    return turn


def _maps(node: Node | None) -> list[Node]:
    return [n for n in node.value if n.is_map] if node is not None and node.is_seq else []


def _text(node: Node | None) -> str | None:
    return node.value if node is not None and node.is_scalar and isinstance(node.value, str) else None
