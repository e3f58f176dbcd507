"""What the autorubric criterion checks share."""

from __future__ import annotations

from rubric_lsp.formats.autorubric import DATASET, RUBRIC

FORMATS = (RUBRIC, DATASET)
