"""NorthStar judge configurations (EvalRunRequest) and eval-case datasets."""

from __future__ import annotations

from rubric_lsp.document import Document, Node
from rubric_lsp.formats.plugin import Format

REQUEST = "northstar-eval-run-request"
CASES = "northstar-eval-cases"


def _looks_like_case(node: Node) -> bool:
    # 'messages' alone is any chat transcript (OpenAI fine-tuning files have it too);
    # a NorthStar case also has an 'id' (or at least 'expected').
    return node.is_map and node.has("messages") and (node.has("id") or node.has("expected"))


def _any_case(nodes: list[Node]) -> bool:
    return any(_looks_like_case(node) for node in nodes[:5])


def detect_request(doc: Document) -> int:
    root = doc.root
    if root is None or not root.is_map or not root.has("graders"):
        return 0
    return 90 if root.get("graders").is_seq else 60  # type: ignore[union-attr]


def detect_cases(doc: Document) -> int:
    root = doc.root
    if root is None:
        return 0
    if doc.language == "jsonl":
        if _any_case(root.elements()):
            return 80
        # Every line unreadable: still ours to report on, if nothing else claims the file.
        return 10 if not root.elements() and doc.issues else 0
    if root.is_seq:
        return 80 if _any_case(root.elements()) else 0
    if not root.is_map:
        return 0
    cases = root.get("cases")
    if cases is not None and cases.is_seq:
        return 85 if _any_case(cases.elements()) or not cases.elements() else 0
    if cases is not None and _looks_like_case(cases):
        return 60  # a case where the list should be: ours, to report the shape
    return 80 if _looks_like_case(root) else 0


def _request_schema() -> dict:
    from rubric_lsp.formats.northstar.model import request_json_schema

    return request_json_schema()


def _cases_schema() -> dict:
    from rubric_lsp.formats.northstar.model import cases_json_schema

    return cases_json_schema()


def _read_request(doc: Document):
    if doc.root is None:  # FormatPlugin.build_view only calls a reader with a root
        return None
    from rubric_lsp.formats.northstar.view import read_request

    return read_request(doc.root)


def _read_cases(doc: Document):
    if doc.root is None:  # FormatPlugin.build_view only calls a reader with a root
        return None
    from rubric_lsp.formats.northstar.view import read_cases

    return read_cases(doc.root, jsonl=doc.language == "jsonl")


# Imported the first time a file of this kind is checked (keeps start-up cheap).
_CHECKERS = ("rubric_lsp.formats.northstar.rules",)


# What the entry point in pyproject.toml names (formats/discovery.py).
FORMATS = (
    Format(
        checker_modules=_CHECKERS,
        name=REQUEST,
        grader="rubric_lsp.formats.northstar.grading.request_grader:GRADER",
        title="NorthStar eval run request (judge configuration)",
        languages=("json",),
        schema_names=("northstar-eval-run-request.schema.json",),
        detect=detect_request,
        loader="pyyaml",
        schema_file="northstar-eval-run-request.schema.json",
        json_schema=_request_schema,
        view_key="northstar.request",
        criteria="rubric_lsp.formats.northstar.criteria:request_criteria",  # the smell rules' texts (docs/smells.md)
        read_view=_read_request,
        editor="rubric_lsp.formats.northstar.editor",
        # Each LLM grader (docs/calibration.md): RL020, the hover, rubric grade.
        calibration="rubric_lsp.formats.northstar.grading.calibration:CALIBRATION",
        rule_prefix="NS",
        rule_title="NorthStar judge configs and eval cases",
    ),
    Format(
        checker_modules=_CHECKERS,
        name=CASES,
        grader="rubric_lsp.formats.northstar.grading.cases_grader:GRADER",
        title="NorthStar eval cases",
        languages=("json", "jsonl"),
        schema_names=("northstar-eval-cases.schema.json",),
        detect=detect_cases,
        loader="pyyaml",
        schema_file="northstar-eval-cases.schema.json",
        json_schema=_cases_schema,
        view_key="northstar.cases",
        read_view=_read_cases,
        rule_prefix="NS",
    ),
)
