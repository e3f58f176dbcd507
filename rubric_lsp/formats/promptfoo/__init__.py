"""promptfoo configs (promptfooconfig.yaml and friends).

Modules: ``model`` (pydantic schema, assertion types), ``resolve`` (the config view the
rules, the server's hover and the grading engine share), ``rules`` (PF checks).
"""

from __future__ import annotations

from rubric_lsp.document import Document
from rubric_lsp.formats.plugin import Format
from rubric_lsp.formats.promptfoo.options import GRADE_OPTIONS
from rubric_lsp.formats.promptfoo.versions import RELEASES

CONFIG = "promptfoo-config"

# Top-level keys that only a promptfoo config has at the top (semantics.md §2).
CONFIG_KEYS = ("prompts", "providers", "targets", "tests", "defaultTest", "scenarios", "redteam")


# Top-level keys of what `promptfoo eval -o out.json` and `promptfoo export` write: a results
# file carries the config it ran under, and must never be linted (or "fixed") as one.
RESULTS_KEYS = ("evalId", "createdAt", "shareableUrl", "version", "table", "stats", "timestamp")


def detect_config(doc: Document) -> int:
    root = doc.root
    if root is None or not root.is_map:
        return 0
    if root.has("results") and any(root.has(key) for key in RESULTS_KEYS):
        return 0
    hits = sum(1 for key in CONFIG_KEYS if root.has(key))
    if not hits:
        return 0
    # 'tests' or 'prompts' alone is a weak sign; together with providers/targets it is strong.
    return 50 + 10 * hits


def _schema() -> dict:
    from rubric_lsp.formats.promptfoo.model import promptfoo_json_schema

    return promptfoo_json_schema()


def _read_config(doc: Document):
    if doc.root is None:  # FormatPlugin.build_view only calls a reader with a root
        return None
    from rubric_lsp.formats.promptfoo.reading import read_config

    return read_config(doc.root, doc.path, doc)


# Imported the first time a file of this kind is checked (keeps start-up cheap).
_CHECKERS = (
    "rubric_lsp.formats.promptfoo.rules",
    "rubric_lsp.formats.promptfoo.rules.file_refs",
    "rubric_lsp.formats.promptfoo.rules.bare_refs",
    "rubric_lsp.formats.promptfoo.rules.loading",
    "rubric_lsp.formats.promptfoo.rules.regex",
)


# What the entry point in pyproject.toml names (formats/discovery.py).
FORMATS = (
    Format(
        checker_modules=_CHECKERS,
        name=CONFIG,
        grader="rubric_lsp.formats.promptfoo.grading.grader:GRADER",
        grade_options=GRADE_OPTIONS,
        model_ids="rubric_lsp.formats.promptfoo.grading.providers:promptfoo_to_litellm",
        title="promptfoo config",
        languages=("yaml", "json"),
        schema_names=("promptfoo.dev/config-schema.json", "promptfoo-config.schema.json"),
        file_patterns=(
            "promptfooconfig*.yaml",
            "promptfooconfig*.yml",
            "promptfooconfig*.json",
            "redteam.yaml",
            "redteam.yml",
        ),
        detect=detect_config,
        loader="js-yaml",
        owner="promptfoo",
        releases=tuple(r.version for r in RELEASES),
        schema_file="promptfoo-config.schema.json",
        json_schema=_schema,
        view_key="promptfoo.view",
        criteria="rubric_lsp.formats.promptfoo.criteria:config_criteria",  # the smell rules' texts (docs/smells.md)
        read_view=_read_config,
        editor="rubric_lsp.formats.promptfoo.editor",
        # Each model-graded assertion of each test (docs/calibration.md): RL020, the hover, rubric grade.
        calibration="rubric_lsp.formats.promptfoo.grading.calibration:CALIBRATION",
        rule_prefix="PF",
        rule_title="promptfoo configs",
    ),
)
