"""Shared test fixtures and paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Importing litellm must stay offline (it fetches a price map otherwise).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("RUBRIC_SHARED_DIR", REPO.parent / "shared"))
CORPUS = SHARED / "corpus"
SEEDS = SHARED / "seeds"
SAMPLES = REPO / "samples"


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    return CORPUS
