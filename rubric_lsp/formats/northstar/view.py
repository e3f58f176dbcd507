"""Read NorthStar files out of the node tree the way NorthStar does.

``read_request(node)`` gives the graders of an EvalRunRequest with their nodes;
``read_cases(node, jsonl=...)`` gives the cases of an eval dataset. Where NorthStar
would refuse the file, a :class:`Problem` says what and where (the rules layer picks
the code). The grading engine reuses the validated models (``GraderEntry.grader``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from rubric_lsp.document import Node
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.errors import Problem, describe_type, place_errors
from rubric_lsp.formats.northstar.model import EvalCase, GraderConfig

PROBLEM_KINDS = (
    "request-shape",
    "grader-not-mapping",
    "grader-invalid",
    "duplicate-grader-name",
    "dataset-shape",
    "case-not-mapping",
    "case-invalid",
    "duplicate-case-id",
)


@dataclass
class GraderEntry:
    index: int
    node: Node
    grader: GraderConfig | None  # None when NorthStar would refuse it

    def field_node(self, key: str) -> Node | None:
        return self.node.get(key) if self.node.is_map else None


@dataclass
class RequestView:
    root: Node
    graders: list[GraderEntry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


@dataclass
class CaseEntry:
    index: int
    node: Node
    case: EvalCase | None  # None when NorthStar would refuse it


@dataclass
class CasesView:
    root: Node
    container: Node | None = None  # the list the cases come from (None for a single case)
    cases: list[CaseEntry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def valid_cases(self) -> list[EvalCase]:
        return [c.case for c in self.cases if c.case is not None]


def read_request(root: Node) -> RequestView:
    view = RequestView(root)
    if not root.is_map:
        view.problems.append(
            Problem(
                "request-shape",
                root,
                f"An EvalRunRequest must be a mapping with a 'graders' list, got {describe_type(to_plain(root))}",
            )
        )
        return view
    graders = root.get("graders")
    if graders is None or not graders.is_seq:
        where = graders if graders is not None else root
        view.problems.append(
            Problem(
                "request-shape",
                where,
                f"'graders' must be a list of graders, got {describe_type(to_plain(graders))}",
                key_node=root.key_node("graders"),
            )
        )
        return view
    seen: dict[str, Node] = {}
    for index, node in enumerate(graders.value):
        if not node.is_map:
            view.problems.append(
                Problem(
                    "grader-not-mapping",
                    node,
                    f"Each grader must be a mapping with 'type', 'name' and its settings, got {describe_type(to_plain(node))}",
                )
            )
            view.graders.append(GraderEntry(index, node, None))
            continue
        grader = _validate(GraderConfig, node, "grader-invalid", view.problems)
        view.graders.append(GraderEntry(index, node, grader))
        name_node = node.get("name")
        if name_node is not None and name_node.is_scalar and isinstance(name_node.value, str):
            name = name_node.value.strip()
            if name in seen:
                view.problems.append(
                    Problem(
                        "duplicate-grader-name",
                        name_node,
                        f"Grader name '{name}' is used twice; NorthStar refuses the run configuration. Give each grader its own name.",
                        related=[(seen[name], "the first grader with this name")],
                    )
                )
            else:
                seen[name] = name_node
    return view


def read_cases(root: Node, jsonl: bool = False) -> CasesView:
    """The cases of a dataset: JSON Lines (one case a line), or one case / a list / ``{"cases": [...]}``."""
    view = CasesView(root)
    if jsonl or root.is_seq:
        records = root.value if root.is_seq else []
        view.container = root
    elif root.is_map and root.has("cases"):
        cases = root.get("cases")
        if cases is None or not cases.is_seq:
            view.problems.append(
                Problem(
                    "dataset-shape",
                    cases if cases is not None else root,
                    f"'cases' must be a list of cases, got {describe_type(to_plain(cases))}; NorthStar refuses the dataset.",
                    key_node=root.key_node("cases"),
                )
            )
            return view
        records = cases.value
        view.container = cases
    elif root.is_map:
        records = [root]
    else:
        view.problems.append(
            Problem(
                "dataset-shape",
                root,
                f"An eval dataset must be a case, a list of cases, or a mapping with 'cases', got {describe_type(to_plain(root))}.",
            )
        )
        return view
    seen: dict[str, Node] = {}
    for index, node in enumerate(records):
        if not node.is_map:
            what = "line" if jsonl else "entry"
            view.problems.append(
                Problem(
                    "case-not-mapping",
                    node,
                    f"This {what} is {describe_type(to_plain(node))}, not a JSON object; NorthStar reads every {what} as one eval case (an object with 'id' and 'messages').",
                )
            )
            view.cases.append(CaseEntry(index, node, None))
            continue
        case = _validate(EvalCase, node, "case-invalid", view.problems)
        view.cases.append(CaseEntry(index, node, case))
        id_node = node.get("id")
        if id_node is not None and id_node.is_scalar and isinstance(id_node.value, str):
            if id_node.value in seen:
                view.problems.append(
                    Problem(
                        "duplicate-case-id",
                        id_node,
                        f"Case id '{id_node.value}' is used twice; results are reported by case id, so the two cases cannot be told apart. Give each case its own id.",
                        related=[(seen[id_node.value], "the first case with this id")],
                    )
                )
            else:
                seen[id_node.value] = id_node
    return view


def _validate(model: Any, node: Node, kind: str, problems: list[Problem]) -> Any:
    try:
        return model.model_validate(to_plain(node))
    except ValidationError as exc:
        for placed in place_errors(exc.errors(include_url=False), node):
            problems.append(Problem(kind, placed.node, placed.message, key_node=placed.key_node, error=placed))
        return None
