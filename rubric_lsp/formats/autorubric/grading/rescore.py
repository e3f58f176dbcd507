"""Scoring given verdicts (one per criterion, ``rubric grade --verdicts``) with no judge."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rubric_lsp.document import Document
from rubric_lsp.engine.failures import JudgeFailure
from rubric_lsp.engine.request import GradeRequest
from rubric_lsp.engine.result import Outcome, Unit
from rubric_lsp.engine.runner import GradingError
from rubric_lsp.formats.autorubric.grading.criteria import failure_outcome, judgment_outcome
from rubric_lsp.formats.autorubric.grading.inputs import criterion_inputs
from rubric_lsp.formats.autorubric.grading.prompt import effective_option_index
from rubric_lsp.formats.autorubric.grading.votes import Judgment
from rubric_lsp.formats.autorubric.options import AutorubricOptions
from rubric_lsp.formats.autorubric.score import compute_score, verdict_outcome


@dataclass
class RescoreResult:
    score: float | None
    raw_score: float | None
    cannot_assess: str
    partial_credit: float
    error: str | None = None
    failures: int = 0  # given verdicts that are failed judgments
    criteria: int = 0
    kind = "rescore"

    def units(self) -> list[Unit]:
        """One unit: the score the given verdicts make (an error when they make none)."""
        outcome = Outcome.ERROR if self.error else Outcome.PASS
        return [Unit("score", outcome, group="rescore", error=self.error or "", score=self.score)]

    @property
    def failed(self) -> bool:
        return self.score is None  # every criterion abstained: no score

    @property
    def incomplete(self) -> str | None:
        if self.error:
            return self.error
        return f"{self.failures} of {self.criteria} given verdict(s) are failed judgments" if self.failures else None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "score": self.score,
            "raw_score": self.raw_score,
            "cannot_assess": self.cannot_assess,
            "partial_credit": self.partial_credit,
        }
        if self.error:
            data["error"] = self.error
        return data

    def text_lines(self) -> list[str]:
        if self.error:
            return [f"no score: {self.error}"]
        if self.score is None or self.raw_score is None:
            return ["no score: every criterion abstained"]
        return [f"score: {self.score:.4g} (raw {self.raw_score:.4g})"]


def rescore(doc: Document, request: GradeRequest, options: AutorubricOptions) -> RescoreResult:
    items, _ = criterion_inputs(doc)
    given = request.verdicts
    if len(given) != len(items):
        raise GradingError(
            f"{len(given)} verdicts were given; the rubric has {len(items)} criteria (one verdict each, in order)"
        )
    outcomes = []
    failed = 0
    for item, entry in zip(items, given, strict=True):
        outcome, was_failure = outcome_of(item, entry)
        outcomes.append(outcome)
        failed += was_failure
    strategy, credit = options.cannot_assess, options.partial_credit
    if items and failed == len(items):  # semantics.md §1: every criterion failed → no score
        return RescoreResult(None, None, strategy, credit, "every criterion's judgment failed", failed, len(items))
    raw = compute_score(outcomes, strategy, credit, normalize=False)
    score = compute_score(outcomes, strategy, credit) if options.normalize else raw
    return RescoreResult(score, raw, strategy, credit, None, failed, len(items))


def outcome_of(item: Any, entry: Any) -> tuple[Any, bool]:
    report_row = isinstance(entry, dict)
    if report_row:  # an entry of `rubric grade --format json` output
        if entry.get("error"):
            category = str(entry["error"]).split(":", 1)[0]
            kind = category if category in ("infrastructure", "parse") else "unknown"
            return failure_outcome(item.criterion, JudgeFailure(kind, str(entry["error"])))[0], True
        entry = entry.get("verdict")
    if not isinstance(entry, str):
        raise GradingError(f"verdict for {item.name} must be a string, got {entry!r}")
    criterion = item.criterion
    try:
        return verdict_outcome(criterion, entry), False
    except ValueError as exc:
        # A plain verdict list is scored as autorubric's Rubric.compute_score scores it, which
        # looks labels up among the criterion's own options ("Label '…' not found"). A row of
        # our own report may hold the "cannot assess" option the judge was shown (autorubric's
        # CANONICAL_NA_OPTION, added when the criterion has no NA option): an abstention there,
        # as autorubric's grader reports it.
        index = effective_option_index(criterion, entry) if report_row and criterion.options is not None else None
        if index is None:
            raise GradingError(f"verdict for {item.name}: {exc}") from None
        return judgment_outcome(criterion, Judgment(option=index)), False
