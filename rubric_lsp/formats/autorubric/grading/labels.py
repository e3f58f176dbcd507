"""An autorubric dataset's labels (each item's ``ground_truth``) checked before any judge call, by the lint's own
rules: a label autorubric 1.6.1's ``RubricDataset.from_json`` refuses (``MTE``, ``met``, ``CANNOT_ASSESS`` on a
multi-choice criterion, a list shorter than the rubric, reasons that cannot be aligned) refuses the grading and
the calibration, each naming ``file:line``, the rule's words and its code, where it used to be left out of the
figures without a word ("4 labels" from 6 items). The checks are the rules' (``rules/ground_truth.py``, run
through :func:`rubric_lsp.lint.lint_text` with only these rules selected), not a copy that could drift.
"""

from __future__ import annotations

from rubric_lsp.diagnostics import Severity
from rubric_lsp.document import Document
from rubric_lsp.engine.runner import GradingError
from rubric_lsp.formats.autorubric import DATASET
from rubric_lsp.lint import lint_text
from rubric_lsp.settings import Settings

# ground-truth-length, invalid-binary-ground-truth, invalid-choice-ground-truth, invalid-ground-truth-reasons.
LABEL_RULES = ("AR205", "AR206", "AR207", "AR208")
MAX_SHOWN = 10  # findings named one by one; the rest counted


def refuse_unusable_labels(doc: Document) -> None:
    """GradingError, before any judge call, when the lint finds a label of ``doc`` autorubric refuses."""
    result = lint_text(doc.text, doc.path, settings=Settings(select=LABEL_RULES), kind=DATASET, document=doc)
    found = [d for d in result.diagnostics if d.code in LABEL_RULES and d.severity <= Severity.ERROR]
    if not found:
        return
    name = doc.path or "the dataset"
    lines = [f"{name}:{d.range.start.line + 1}: {d.message} ({d.code})" for d in found[:MAX_SHOWN]]
    more = f"\n… and {len(found) - MAX_SHOWN} more (rubric lint {name})" if len(found) > MAX_SHOWN else ""
    raise GradingError(
        f"{len(found)} label(s) of the dataset cannot be used (autorubric refuses the dataset; none is left out "
        "silently):\n" + "\n".join(lines) + more
    )
