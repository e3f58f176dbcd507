"""What autorubric's own loaders refuse that our reader accepts (issue 15, items 9 and 11).

The BOM on a JSON file is the any-file rule RL007; its grading counterpart is in ``loading``.
"""

from __future__ import annotations

from rubric_lsp.diagnostics import Severity
from rubric_lsp.formats.autorubric import DATASET, RUBRIC
from rubric_lsp.formats.autorubric.loading import dataset_not_json, yaml_refusal
from rubric_lsp.formats.registry import checker
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule

E = Severity.ERROR

YAML_LOADER_REFUSES = rule(
    "AR109",
    "yaml-loader-refuses",
    E,
    "autorubric's YAML loader (PyYAML's pure-Python SafeLoader) refuses the file.",
    "Editors and most tools read YAML with libyaml; autorubric uses `yaml.safe_load`, whose pure-Python "
    "scanner and constructor refuse some text libyaml accepts: a `?` or a tab inside a flow collection "
    "(`- {requirement: Is it clear?, weight: 5}`), an unknown tag (`!needs-review`), a tag that does not fit "
    "its value (`!!int abc`), a bare `=`, `<<` as a value or merging `null`, a flow collection used as a key, "
    'an impossible date. The file then does not load at all. Quote the value (`"Is it clear?"`) or write '
    "the collection in block style.",
    bad="- {requirement: Does it answer the question?, weight: 5}",
    good='- {requirement: "Does it answer the question?", weight: 5}',
    formats=(RUBRIC,),
    checked_against="autorubric 1.6.1's autorubric/rubric.py (Rubric.from_file: yaml.safe_load)",
)
DATASET_NOT_JSON = rule(
    "AR110",
    "dataset-not-json",
    E,
    "An autorubric dataset is written in YAML; autorubric reads datasets only as JSON.",
    "`RubricDataset.from_file` parses every dataset with `json.loads`, whatever the file's extension, so a "
    "YAML dataset does not load. Write it as JSON.",
    bad="rubric:\n  - requirement: Cites sources\nitems:\n  - submission: See [1].\n    description: cites",
    good='{"rubric": [{"requirement": "Cites sources"}], "items": [{"submission": "See [1].", "description": "cites"}]}',
    formats=(DATASET,),
)


@checker(RUBRIC)
def check_yaml_loader(ctx: CheckContext) -> None:
    if not ctx.enabled(YAML_LOADER_REFUSES):
        return
    refusal = yaml_refusal(ctx.document)
    if refusal is not None:
        ctx.report(YAML_LOADER_REFUSES, refusal.span, refusal.message)


@checker(DATASET)
def check_dataset_language(ctx: CheckContext) -> None:
    if ctx.document.root is None:
        return
    refusal = dataset_not_json(ctx.document)
    if refusal is not None:
        ctx.report(DATASET_NOT_JSON, refusal.span, refusal.message)
