"""A NorthStar EvalRunRequest's calibration units (docs/calibration.md): each LLM grader (``rubric``,
``faithfulness``), named as a labels file names it (its ``name``). :func:`grader_unit` is the one place a unit's
text, prompt fingerprint and settings are made: the labels file's calibration writes them into the record
(``labels.py``), the lint (RL020), the hover and ``rubric grade --require-calibrated`` compare them
(:data:`CALIBRATION`). A grader NorthStar refuses is no unit (other rules report it).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from rubric_lsp.calibration.check import CalibrationUnit
from rubric_lsp.calibration.hook import CalibrationHook, Graded
from rubric_lsp.calibration.record import OwnJudge
from rubric_lsp.calibration.units import CurrentUnit
from rubric_lsp.document import Document
from rubric_lsp.engine.judge import PROMPT_VERSION
from rubric_lsp.formats.northstar.grading import graders as northstar
from rubric_lsp.formats.northstar.grading.graders import (
    DEFAULT_JUDGE_MODEL,
    GraderInput,
    GraderRequestError,
    passing_score_of,
    read_graders,
)


def prompt_fingerprint() -> str:
    """A hash of what every grader's prompt is built from (``graders.messages_for``)."""
    parts = [
        PROMPT_VERSION,
        northstar.SYSTEM,
        northstar.NUMERIC_INSTRUCTIONS,
        northstar.BINARY_INSTRUCTIONS,
        northstar.FIELD_INSTRUCTIONS,
        northstar.GOAL_RUBRIC,
    ]
    return hashlib.sha256(json.dumps(parts).encode("utf-8")).hexdigest()[:16]


def grader_unit(grader: GraderInput) -> CurrentUnit:
    """The grader's unit: its name, what the judge reads of it (kind, rubric, scoring), its temperature as its
    settings, and its own model as its judge (NorthStar's default where it names none), which a judge given to
    the grading replaces (``--model``, ``$RUBRIC_JUDGE_MODEL``; the lint: ``calibration.judge``), as the grading
    does (``request_grader.py``). The temperature stays whichever judge grades."""
    text = {
        "kind": grader.kind,
        "rubric": grader.rubric,
        "scoring": None if grader.scoring is None else grader.scoring.model_dump(mode="json"),
    }
    own = OwnJudge((grader.model or DEFAULT_JUDGE_MODEL,), {}, default=True)
    return CurrentUnit(
        grader.name, grader.name, text, prompt_fingerprint(), {"temperature": grader.temperature}, judge=own
    )


def _judges(doc: Document, names: tuple[str, ...] = ()) -> list[GraderInput]:
    """The request's LLM graders NorthStar accepts (those named, when ``names``); none when it refuses the request."""
    if doc.root is None:
        return []
    try:
        plan = read_graders(doc.root, lambda _node: None)
    except GraderRequestError:
        return []
    return [g for g in plan.judges if g.config_error is None and (not names or g.name in names)]


class _Calibration:
    """``Format.calibration`` of an EvalRunRequest."""

    def document_units(self, doc: Document, view: Any) -> list[CalibrationUnit]:
        entries = {entry.index: entry for entry in view.graders} if view is not None else {}
        out = []
        for grader in _judges(doc):
            entry = entries.get(grader.index)
            if entry is None:
                continue
            unit = grader_unit(grader)
            named = entry.field_node("name") or entry.node
            out.append(
                CalibrationUnit(
                    unit.id, unit.text, unit.prompt, named.span, noun="grader", extent=entry.node.span, judge=unit.judge
                )
            )
        return out

    def current_units(self, doc: Document, graded: Graded) -> list[CurrentUnit]:
        return [grader_unit(g) for g in _judges(doc, graded.units)]

    def judge_card(self, doc: Document, graded: Graded, units: list[CurrentUnit]) -> list[tuple[str, str]]:
        """NorthStar's rules (semantics.md §3; ``graders.py``), in its words."""
        scales = []
        for grader in _judges(doc, graded.units):
            scoring = grader.scoring
            if scoring is None or scoring.mode != "numeric":
                scales.append(f"{grader.name}: binary, the judge's passed")
            else:
                scales.append(
                    f"{grader.name}: numeric {scoring.min_score:g}–{scoring.max_score:g}, "
                    f"passing at {passing_score_of(scoring):g}"
                )
        return [
            ("scale", "; ".join(scales) or "no LLM graders"),
            (
                "abstention",
                "none: a failed call or an unreadable reply is a FAILED grade, never a pass; a faithfulness "
                "grader without context or tool outputs, or a grader with no rubric and no goal, is skipped",
            ),
            ("ties", "none: each grader has one judge, so no votes to tie"),
            ("aggregation", "each grader graded apart; the response passes when every grader scored passes"),
        ]


# What the format's ``calibration`` names (annotated: mypy checks it against the protocol).
CALIBRATION: CalibrationHook = _Calibration()
