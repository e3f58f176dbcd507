"""A review's result: each criterion with the judge's answer to every question (docs/review.md, "Output").

It satisfies the engine's result protocol (``kind`` "review", ``units()``, ``to_json()``, ``text_lines()``):
a smell found is a unit that failed its question, one not found a pass, a judge failure an error (never a
clean review). Over a labelled set it also hands the calibration its units, one per smell
(:meth:`ReviewResult.calibration_units`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rubric_lsp.calibration.units import UnitSamples
from rubric_lsp.document import Document
from rubric_lsp.document.positions import Span
from rubric_lsp.engine.result import Outcome, Unit
from rubric_lsp.engine.usage import Usage
from rubric_lsp.review.prompt import PROMPT_FINGERPRINT, Answer, Criterion, fingerprint
from rubric_lsp.review.questions import BY_SMELL, QUESTIONS

SOURCE = "rubric-review"  # the diagnostics' source, beside the lint's rubric-lint


@dataclass(frozen=True)
class Subject:
    """A criterion to review: what the judge is shown, and where it is written (None: not in the file)."""

    criterion: Criterion
    rubric: str = ""
    pieces: tuple[Any, ...] = ()  # its text's Piece, then its levels' (rules.smells.criteria.Piece)
    labels: Mapping[str, bool] = field(default_factory=dict)  # a labelled row's: smell -> a person's answer


@dataclass(frozen=True)
class Reviewed:
    subject: Subject
    answers: tuple[Answer, ...] = ()
    error: str = ""
    cached: bool = False

    def span_of(self, words: str) -> Span | None:
        """Where the judge's quoted words are written (the criterion's text first, then its levels), else where
        the criterion is; None for a criterion not in the file."""
        pieces = self.subject.pieces
        if not pieces:
            return None
        for piece in pieces if words else ():
            at = piece.text.find(words)
            if at < 0:
                at = piece.text.lower().find(words.lower())
            if at >= 0:
                return piece.span(at, at + len(words))
        return pieces[0].anchor


@dataclass
class ReviewResult:
    doc: Document
    reviewed: list[Reviewed]
    model: str
    usage: Usage = field(default_factory=Usage)
    kind: str = "review"

    def findings(self) -> list[tuple[Reviewed, Answer]]:
        return [(r, a) for r in self.reviewed for a in r.answers if a.present]

    @property
    def errors(self) -> list[Reviewed]:
        return [r for r in self.reviewed if r.error]

    @property
    def failed(self) -> bool:
        return bool(self.findings())

    @property
    def incomplete(self) -> str | None:
        if not self.errors:
            return None
        first = self.errors[0]
        return (
            f"{len(self.errors)} of {len(self.reviewed)} criteria were not reviewed (the judge failed: "
            f"{first.error}); re-run to ask for those again"
        )

    def _range(self, span: Span | None) -> dict[str, Any] | None:
        return None if span is None else self.doc.lines.range(span).to_json()

    def units(self) -> list[Unit]:
        out = []
        for i, reviewed in enumerate(self.reviewed):
            name = reviewed.subject.criterion.name
            if reviewed.error:
                span = reviewed.span_of("")
                out += [
                    Unit(f"{name}: {q.smell}", Outcome.ERROR, group=name, error=reviewed.error, range=self._range(span))
                    for q in QUESTIONS
                ]
                continue
            for j, answer in enumerate(reviewed.answers):
                out.append(
                    Unit(
                        f"{name}: {answer.smell}",
                        Outcome.FAIL if answer.present else Outcome.PASS,
                        verdict="found" if answer.present else "not found",
                        group=name,
                        reason=answer.reason,
                        range=self._range(reviewed.span_of(answer.words if answer.present else "")),
                        path=("criteria", i, "answers", j),
                        cached=reviewed.cached,
                    )
                )
        return out

    def to_json(self) -> dict[str, Any]:
        criteria = []
        for reviewed in self.reviewed:
            criterion = reviewed.subject.criterion
            criteria.append(
                {
                    "name": criterion.name,
                    "rubric": reviewed.subject.rubric,
                    "text": criterion.text,
                    "fingerprint": fingerprint(criterion),
                    "range": self._range(reviewed.span_of("")),
                    "error": reviewed.error or None,
                    "cached": reviewed.cached,
                    "answers": [
                        {
                            "smell": a.smell,
                            "rule": BY_SMELL[a.smell].rule,
                            "present": a.present,
                            "words": a.words,
                            "reason": a.reason,
                            "range": self._range(reviewed.span_of(a.words)) if a.present else None,
                        }
                        for a in reviewed.answers
                    ],
                }
            )
        return {
            "kind": self.kind,
            "source": SOURCE,
            "path": self.doc.path,
            "model": self.model,
            "criteria": criteria,
            "findings": len(self.findings()),
            "errors": len(self.errors),
            "usage": self.usage.to_json(),
        }

    def text_lines(self) -> list[str]:
        path = self.doc.path or "-"
        lines = []
        for reviewed, answer in self.findings():
            span = reviewed.span_of(answer.words)
            where = _where(self.doc, span)
            words = f" ('{answer.words}')" if answer.words else ""
            lines.append(
                f"{path}{where}: {answer.smell} [{SOURCE}] criterion {reviewed.subject.criterion.name}: "
                f"{answer.reason or BY_SMELL[answer.smell].title}{words}"
            )
        for reviewed in self.errors:
            lines.append(
                f"{path}{_where(self.doc, reviewed.span_of(''))}: error [{SOURCE}] criterion "
                f"{reviewed.subject.criterion.name} was not reviewed: {reviewed.error}"
            )
        done = len(self.reviewed) - len(self.errors)
        lines.append(
            f"reviewed {done} of {len(self.reviewed)} criteria with {self.model}: {len(self.findings())} "
            f"finding(s) ({self.usage.calls} judge calls, {self.usage.cached} from the cache)"
        )
        return lines

    def calibration_units(self, _doc: Any = None, _options: Any = None) -> list[UnitSamples]:
        """One unit per smell: each labelled criterion's person's answer against the judge's."""
        units = []
        for q in QUESTIONS:
            judged: dict[int, Any] = {}  # item -> the judge's answer (None: failed)
            reasons: dict[int, str] = {}
            unit = UnitSamples(
                id=q.smell,
                title=f"{q.title} ({q.rule})",
                kind="binary",
                text=q.ask,
                prompt=PROMPT_FINGERPRINT,
                categories=(True, False),
                names={True: "found", False: "not found"},
                positive=True,
                judged=judged,
                reasons=reasons,
            )
            for item, reviewed in enumerate(self.reviewed):
                human = reviewed.subject.labels.get(q.smell)
                if human is None:
                    continue
                if reviewed.error:
                    unit.failed += 1
                    judged[item] = None
                    continue
                answer = next(a for a in reviewed.answers if a.smell == q.smell)
                unit.pairs.append((human, answer.present))
                judged[item] = answer.present
                reasons[item] = answer.reason
            units.append(unit)
        return units


def _where(doc: Document, span: Span | None) -> str:
    if span is None:
        return ""
    position = doc.lines.position(span.start)
    return f":{position.line + 1}:{position.character + 1}"
