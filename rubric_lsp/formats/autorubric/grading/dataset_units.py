"""A graded dataset's units (``result.Unit``): one per item and criterion, read against its human label.

A unit passes when the judge gave the label the human gave (case-blind), fails when it gave
another; either side abstaining (CANNOT_ASSESS, or an option marked ``na``) is an abstention,
counted apart as the agreement figures count it; an item with no label for the criterion has
nothing to compare with (not run); a failed judgment is an error.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from rubric_lsp.engine.report import ERROR_VERDICT
from rubric_lsp.engine.result import Outcome, Unit


def same_label(a: Any, b: Any) -> bool:
    """A judged verdict and a human label name the same category (labels are matched case-blind)."""
    return isinstance(a, str) and isinstance(b, str) and a.strip().casefold() == b.strip().casefold()


def abstentions(criterion: Any) -> frozenset[str]:
    """The labels that are abstentions on a criterion's agreement (casefolded)."""
    labels = criterion.labels
    named = {labels[c] if isinstance(c, int) and 0 <= c < len(labels) else str(c) for c in criterion.abstain}
    return frozenset(label.strip().casefold() for label in named)


def dataset_units(items: Sequence[dict[str, Any]], criteria: Sequence[Any]) -> Iterator[Unit]:
    by_index = {c.index: c for c in criteria}
    abstain = {c.index: abstentions(c) for c in criteria}
    for i, item in enumerate(items):
        group = f"item {item['index'] + 1}" + (f": {item['description']}" if item.get("description") else "")
        truth = item["ground_truth"] or []
        reasons = item.get("reasons") or []
        if item.get("error") and not item["verdicts"]:
            yield Unit("score", Outcome.ERROR, group=group, error=item["error"], path=("items", i))
        for position, verdict in enumerate(item["verdicts"]):
            criterion = by_index.get(position)
            wanted = truth[position] if position < len(truth) else None
            reason = reasons[position] if position < len(reasons) else ""
            outcome = _outcome(verdict, wanted, abstain.get(position, frozenset()))
            failed = outcome is Outcome.ERROR
            yield Unit(
                (criterion.name if criterion is not None else None) or f"criterion {position + 1}",
                outcome,
                verdict,
                group,
                "" if failed else reason,
                (reason or item["error"] or "judgment failed") if failed else "",
                range=item.get("range"),
                path=("items", i, "verdicts", position),
                expected=wanted if isinstance(wanted, str) else "",
            )


def _outcome(verdict: str, wanted: Any, abstain: frozenset[str]) -> Outcome:
    if verdict == ERROR_VERDICT:
        return Outcome.ERROR
    if not isinstance(wanted, str):
        return Outcome.NOT_RUN
    if same_label(verdict, wanted):
        return Outcome.ABSTAIN if verdict.strip().casefold() in abstain else Outcome.PASS
    if {verdict.strip().casefold(), wanted.strip().casefold()} & abstain:
        return Outcome.ABSTAIN
    return Outcome.FAIL
