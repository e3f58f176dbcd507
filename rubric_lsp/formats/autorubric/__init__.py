"""autorubric rubric and dataset files."""

from __future__ import annotations

from rubric_lsp.document import Document
from rubric_lsp.formats.autorubric.options import GRADE_OPTIONS
from rubric_lsp.formats.plugin import Format

RUBRIC = "autorubric-rubric"
DATASET = "autorubric-dataset"


def _looks_like_criteria(node) -> bool:
    if node is None or not node.is_seq or not node.value:
        return False
    hits = 0
    for item in node.value[:5]:
        if item.is_map and (
            item.has("requirement") or (item.has("criteria") and _looks_like_criteria(item.get("criteria")))
        ):
            hits += 1
    return hits > 0


def detect_rubric(doc: Document) -> int:
    root = doc.root
    if root is None:
        return 0
    if root.is_seq:
        return 80 if _looks_like_criteria(root) else _refused_rubric_shape(doc)
    if not root.is_map:
        return 0
    inner = root.get("rubric")
    if inner is not None and not root.has("items"):
        if _looks_like_criteria(inner):
            return 80
        if inner.is_map and (
            _looks_like_criteria(inner.get("sections")) or _looks_like_criteria(inner.get("criteria"))
        ):
            return 80
    for key in ("sections", "criteria"):
        if _looks_like_criteria(root.get(key)):
            return 60
    return _refused_rubric_shape(doc)


# Keys autorubric's Rubric.from_dict reads; a mapping made only of them is a rubric to it.
_RUBRIC_KEYS = {"rubric", "sections", "criteria", "guidelines"}


def _refused_rubric_shape(doc: Document) -> int:
    """A rubric autorubric loads and refuses ("No criteria found", "Invalid rubric format"):
    ours to report on, rather than a file a folder walk skips in silence.

    ``{"criteria": {...}}`` and ``{"criteria": []}`` (nothing but rubric keys), sections
    without criteria (``[{"criteria": []}]``); an empty list only when the file's name says
    rubric, since ``[]`` alone says nothing about what a file is.
    """
    root = doc.root
    assert root is not None  # detect_rubric returned early
    if root.is_map:
        keys = {key for key in root.keys() if isinstance(key, str)}
        has_body = keys & {"sections", "criteria"} or (root.has("rubric") and not root.has("items"))
        return 40 if keys and keys <= _RUBRIC_KEYS and has_body else 0
    if not root.is_seq:
        return 0
    items = root.value
    if not items:
        name = (doc.path or "").rsplit("/", 1)[-1].lower()
        return 30 if "rubric" in name or "criteria" in name else 0
    sections = all(item.is_map and item.get("criteria") is not None and item.get("criteria").is_seq for item in items)
    return 50 if sections else 0


def detect_dataset(doc: Document) -> int:
    root = doc.root
    if root is None or not root.is_map:
        return 0
    items = root.get("items")
    if items is None:
        # A dataset with no items may leave the list out (autorubric reads it as empty); a
        # null rubric rules out a rubric file, which must have criteria.
        rubric = root.get("rubric")
        no_rubric = rubric is not None and rubric.is_scalar and rubric.value is None
        return 70 if no_rubric and any(root.has(k) for k in ("name", "prompt", "reference_submission")) else 0
    if not items.is_seq:
        return 0
    first = items.value[0] if items.value else None
    if root.has("rubric") and (first is None or (first.is_map and first.has("submission"))):
        return 90
    if first is not None and first.is_map and first.has("submission") and first.has("description"):
        return 70
    return 0


def _rubric_schema() -> dict:
    from rubric_lsp.formats.autorubric.model import rubric_json_schema

    return rubric_json_schema()


def _dataset_schema() -> dict:
    from rubric_lsp.formats.autorubric.model import dataset_json_schema

    return dataset_json_schema()


def _read_rubric(doc: Document):
    if doc.root is None:  # FormatPlugin.build_view only calls a reader with a root
        return None
    from rubric_lsp.formats.autorubric.view import read_rubric

    return read_rubric(doc.root)


# Imported the first time a file of this kind is checked (keeps start-up cheap).
_CHECKERS = ("rubric_lsp.formats.autorubric.rules",)


# Each criterion with the text the judge reads of it (docs/calibration.md): RL020, the hover, rubric grade.
_CALIBRATION = "rubric_lsp.formats.autorubric.grading.calibration:"


# What the entry point in pyproject.toml names (formats/discovery.py).
FORMATS = (
    Format(
        checker_modules=_CHECKERS,
        name=RUBRIC,
        grader="rubric_lsp.formats.autorubric.grading.rubric:GRADER",
        judge_panel=True,  # several --model: autorubric's ensemble, combined by --aggregation
        grade_options=GRADE_OPTIONS,
        title="autorubric rubric",
        languages=("yaml", "json"),
        schema_names=("autorubric-rubric.schema.json",),
        file_patterns=("*.rubric.yaml", "*.rubric.yml", "*.rubric.json"),
        detect=detect_rubric,
        loader="pyyaml",
        owner="autorubric",
        releases=("1.6.1",),
        schema_file="autorubric-rubric.schema.json",
        json_schema=_rubric_schema,
        view_key="autorubric.view",
        read_view=_read_rubric,
        editor="rubric_lsp.formats.autorubric.editor",
        calibration=_CALIBRATION + "RUBRIC_CALIBRATION",
        criteria="rubric_lsp.formats.autorubric.criteria:rubric_criteria",
        rule_prefix="AR",
        rule_title="autorubric rubrics and datasets",
    ),
    Format(
        checker_modules=_CHECKERS,
        name=DATASET,
        grader="rubric_lsp.formats.autorubric.grading.agreement:GRADER",
        judge_panel=True,  # several --model: autorubric's ensemble, combined by --aggregation
        grade_options=GRADE_OPTIONS,
        title="autorubric dataset",
        languages=("json",),
        schema_names=("autorubric-dataset.schema.json",),
        file_patterns=("*.dataset.json",),
        detect=detect_dataset,
        loader="pyyaml",
        owner="autorubric",
        releases=("1.6.1",),
        schema_file="autorubric-dataset.schema.json",
        json_schema=_dataset_schema,
        editor="rubric_lsp.formats.autorubric.dataset_editor",
        calibration=_CALIBRATION + "DATASET_CALIBRATION",
        criteria="rubric_lsp.formats.autorubric.criteria:dataset_criteria",
        rule_prefix="AR",
    ),
)
