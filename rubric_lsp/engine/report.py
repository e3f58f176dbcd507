"""Grading results: one ``Verdict`` per criterion or assertion, a ``GradeReport`` per response."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rubric_lsp.engine.result import Case, Outcome, Unit
from rubric_lsp.engine.usage import Usage

ERROR_VERDICT = "ERROR"  # what a failed judgment shows instead of a verdict
# How a numbered test ends besides ERROR (a failed judgment leaves it undecided): the words every face shows.
PASSED, FAILED, INCOMPLETE = "PASS", "FAIL", "INCOMPLETE"


@dataclass
class Verdict:
    """What the judge concluded about one criterion / assertion / grader.

    ``verdict``: the format's own word for it (shown as written), or ``ERROR`` when the
    judgment failed — then ``error`` is ``"<category>: <message>"`` and ``counted_as`` says
    how the score treats it (an abstention, or the worst case). An error is never a pass.
    ``outcome`` is what the verdict means (``result.Outcome``), decided by the format that made
    it; without one, a failed judgment is an error and a verdict with ``passed`` passes or fails
    by it. ``credit``: the share of its weight it earned, when that is not its ``score``.
    """

    name: str
    index: int
    verdict: str
    reason: str
    range: dict[str, Any] | None = None
    option: int | None = None  # 0-based index of the chosen option in the criterion as written
    error: str | None = None
    counted_as: str | None = None
    score: float | None = None  # this item's own score (option value, the judge's score, a normalised score)
    passed: bool | None = None
    weight: float | None = None
    label: str | None = None  # the label the format gives the score
    feedback: str | None = None  # what the judge tells the answer's author to fix
    confidence: float | None = None  # the judge's own confidence, 0..1
    evidence: list[str] | None = None  # short quotes or summaries the judge relied on
    ambiguous: bool = False
    cached: bool = False
    votes: list[str] | None = None  # several judges: each one's verdict
    failed_votes: int = 0  # several judges: the votes that were failed calls (a stand-in voted for each)
    outcome: Outcome | None = None
    credit: float | None = None
    cells: tuple[tuple[str, Any], ...] = ()  # columns of the format's own in tables (not in the JSON)

    def __post_init__(self) -> None:
        if self.error is not None:
            self.outcome = Outcome.ERROR  # never a pass, whatever else it says
        elif self.outcome is None and self.passed is not None:
            self.outcome = Outcome.PASS if self.passed else Outcome.FAIL
        elif self.outcome is None:
            raise ValueError(f"verdict {self.verdict!r} on {self.name!r}: its format gave it no outcome")

    @property
    def failed(self) -> bool:
        return self.error is not None

    def unit(self, group: str, path: tuple[Any, ...]) -> Unit:
        """This verdict as the faces read it (``result.Unit``)."""
        outcome = self.outcome or Outcome.ERROR
        counts = outcome in (Outcome.PASS, Outcome.FAIL, Outcome.LOSS)
        return Unit(
            self.name,
            outcome,
            self.verdict,
            group,
            self.reason or "",
            self.error or "",
            self.counted_as or "",
            self.range,
            path,
            score=self.score,
            weight=self.weight,
            credit=(self.credit if self.credit is not None else self.score) if counts else None,
            feedback=self.feedback or "",
            cached=self.cached,
            ambiguous=self.ambiguous,
            cells=self.cells,
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "index": self.index,
            "verdict": self.verdict,
            "reason": self.reason,
            "range": self.range,
        }
        if self.option is not None:
            data["option"] = self.option
        if self.error is not None:
            data["error"] = self.error
            data["counted_as"] = self.counted_as
        for key in ("score", "passed", "weight", "label", "feedback", "confidence", "evidence"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        if self.ambiguous:
            data["ambiguous"] = True
        if self.cached:
            data["cached"] = True
        if self.votes is not None:
            data["votes"] = self.votes
        if self.failed_votes:
            data["failed_votes"] = self.failed_votes
        return data


@dataclass(frozen=True)
class Subject:
    """What a verdict is about (a criterion, assertion or grader as written); builds its verdicts, typed."""

    name: str
    index: int
    range: dict[str, Any] | None = None
    weight: float | None = None

    def judged(
        self,
        verdict: str,
        reason: str,
        *,
        option: int | None = None,
        score: float | None = None,
        passed: bool | None = None,
        label: str | None = None,
        feedback: str | None = None,
        confidence: float | None = None,
        evidence: list[str] | None = None,
        ambiguous: bool = False,
        cached: bool = False,
        outcome: Outcome | None = None,
        credit: float | None = None,
    ) -> Verdict:
        """The judge's verdict (or one derived from it); ``outcome`` unless ``passed`` says it."""
        return Verdict(
            self.name,
            self.index,
            verdict,
            reason,
            self.range,
            option=option,
            score=score,
            passed=passed,
            weight=self.weight,
            label=label,
            feedback=feedback,
            confidence=confidence,
            evidence=evidence,
            ambiguous=ambiguous,
            cached=cached,
            outcome=outcome,
            credit=credit,
        )

    def failure(
        self,
        reason: str,
        error: str,
        counted_as: str,
        *,
        passed: bool | None = None,
        feedback: str | None = None,
        ambiguous: bool = False,
        cached: bool = False,
    ) -> Verdict:
        """A judgment that failed: ``ERROR``, ``error`` = ``"<category>: <message>"``, never a pass."""
        return Verdict(
            self.name,
            self.index,
            ERROR_VERDICT,
            reason,
            self.range,
            error=error,
            counted_as=counted_as,
            passed=passed,
            weight=self.weight,
            feedback=feedback,
            ambiguous=ambiguous,
            cached=cached,
        )

    def skipped(self, reason: str) -> Verdict:
        """Not judged, by the format's own rule (e.g. a grader that needs input the request lacks)."""
        return Verdict(
            self.name, self.index, "SKIPPED", reason, self.range, weight=self.weight, outcome=Outcome.NOT_RUN
        )


@dataclass
class GradeReport:
    format: str
    verdicts: list[Verdict] = field(default_factory=list)
    score: float | None = None
    raw_score: float | None = None
    passed: bool | None = None
    error: str | None = None  # the whole grade failed (e.g. every criterion's judgment failed)
    model: str | None = None
    usage: Usage = field(default_factory=Usage)
    notes: list[str] = field(default_factory=list)
    test_index: int | None = None  # 0-based here; the JSON's "test" is 1-based
    # Whether the format decides pass/fail at all; without one, ``passed`` is left out of the JSON when unset.
    has_pass: bool = True
    # Grader-internal links (e.g. (test number, assertion node) per verdict); not serialised.
    links: list[Any] = field(default_factory=list, repr=False)
    # Formats with several numbered tests per response: each test's own result.
    tests: list[dict[str, Any]] = field(default_factory=list)
    # Why pass/fail could not be decided here (e.g. it rests on assertions this tool does not run).
    undecided: str | None = None
    # When ``score`` is not known but bounded (what is not known can only move it so far): its least and most.
    score_range: tuple[float, float] | None = None
    kind = "response"  # the result's shape (``result.Result``)

    def units(self, group: str = "response", path: tuple[Any, ...] = ()) -> list[Unit]:
        """Each verdict as a unit of ``group`` (with the test number, where one test was graded)."""
        if self.test_index is not None:
            group = f"{group} (test {self.test_index + 1})"
        if not self.verdicts and self.error:  # the grade failed before any verdict
            return [Unit("score", Outcome.ERROR, group=group, error=self.error, path=path)]
        return [v.unit(group, (*path, "verdicts", i)) for i, v in enumerate(self.verdicts)]

    def cases(self, group: str = "response", path: tuple[Any, ...] = ()) -> list[Case]:
        """What it passes or fails by (``result.Case``): each numbered test, else the response itself."""
        units = self.units(group, path)
        if self.tests and len(units) == len(self.verdicts):
            return [self._test_case(test, units, group) for test in self.tests]
        name = units[0].group if units else group
        failed_calls = any(v.failed for v in self.verdicts)
        if self.error or failed_calls:
            outcome, word = Outcome.ERROR, ERROR_VERDICT
        elif self.passed is not None:
            outcome, word = (Outcome.PASS, PASSED) if self.passed else (Outcome.FAIL, FAILED)
        elif self.undecided:
            outcome, word = Outcome.NOT_RUN, INCOMPLETE
        else:  # no pass mark: measured
            outcome, word = Outcome.PASS, ""
        reason = self.error or self.incomplete or ""
        return [Case(name, name, outcome, word, self.score, reason, tuple(units))]

    def _test_case(self, test: dict[str, Any], units: list[Unit], group: str) -> Case:
        word = test_result(test)
        outcome = {PASSED: Outcome.PASS, FAILED: Outcome.FAIL, ERROR_VERDICT: Outcome.ERROR}.get(word, Outcome.NOT_RUN)
        described = f": {test['description']}" if test.get("description") else ""
        mine = tuple(units[a["verdict"]] for a in test.get("assertions", []) if isinstance(a.get("verdict"), int))
        return Case(f"test {test['test']}{described}", group, outcome, word, test["score"], test["reason"], mine)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"score": self.score, "raw_score": self.raw_score}
        if self.passed is not None or self.has_pass:
            data["passed"] = self.passed
        data["verdicts"] = [v.to_json() for v in self.verdicts]
        data["usage"] = self.usage.to_json()
        data["format"] = self.format
        if self.model:
            data["model"] = self.model
        if self.error:
            data["error"] = self.error
        if self.notes:
            data["notes"] = list(self.notes)
        if self.test_index is not None:  # 1-based, as `--test N` takes it and every other output numbers tests
            data["test"] = self.test_index + 1
        if self.score is None and self.score_range is not None:
            data["score_range"] = list(self.score_range)
        if self.tests:
            data["tests"] = self.tests
        if (incomplete := self.incomplete) is not None:
            data["incomplete"] = incomplete
        return data

    def _tests_summary(self) -> str:
        words = [test_result(t) for t in self.tests]
        parts = [f"{words.count(PASSED)} passed", f"{words.count(FAILED)} failed"]
        parts += [f"{words.count(word)} {word.lower()}" for word in (ERROR_VERDICT, INCOMPLETE) if word in words]
        score = f", mean score {score_words(self.score, self.score_range)}" if self.verdicts else ""
        return f"tests: {', '.join(parts)} of {len(self.tests)}{score}"

    @property
    def failed(self) -> bool:
        """Graded, and something failed (a pass mark not met): exit 1 unless incomplete."""
        return self.passed is False

    @property
    def incomplete(self) -> str | None:
        """Why the result rests on fewer judgments than it needs (exit 2), or None."""
        return incomplete_reason(self.verdicts) or self.undecided

    def text_lines(self) -> list[str]:
        """The report as ``rubric grade`` prints it."""
        lines: list[str] = []
        width = max([len(v.verdict) for v in self.verdicts] + [7])
        for verdict in self.verdicts:
            flags = [flag for flag, on in (("ambiguous reply", verdict.ambiguous), ("cached", verdict.cached)) if on]
            extra = f" [{', '.join(flags)}]" if flags else ""
            where = f" (line {verdict.range['start']['line'] + 1})" if verdict.range else ""
            lines.append(f"{verdict.verdict:<{width}}  {verdict.name}{where}{extra}")
            if verdict.error:
                lines.append(f"{'':<{width}}  {verdict.error} — counted as {verdict.counted_as}")
            elif verdict.reason:
                lines.append(f"{'':<{width}}  {verdict.reason}")
            if verdict.feedback:
                lines.append(f"{'':<{width}}  feedback: {verdict.feedback}")
        for test in self.tests:
            score = "" if test["score"] is None and "score_range" not in test else f" score {test_score_words(test)}"
            lines.append(f"test {test['test']}: {test_result(test)}{score} — {test['reason']}")
        incomplete = self.incomplete
        ended = "" if self.passed is None else f" — {PASSED if self.passed else FAILED}"
        if self.error:
            lines.append(f"no score: {self.error}")
        elif self.tests and len(self.tests) > 1:
            lines.append(self._tests_summary())
        elif self.score is not None and self.raw_score is not None:
            lines.append(
                f"score: {self.score:.4g} (raw {self.raw_score:.4g}){ended or (f' — {INCOMPLETE}' if incomplete else '')}"
            )
        elif self.passed is not None:
            # Decided, though the score rests on what is not known (e.g. a threshold no outcome of it could reach).
            lines.append(f"score: {score_words(None, self.score_range)}{ended}")
        else:
            # One wording for each way there is no score: incomplete (a failed judgment, or what is not run), or none.
            lines.append(f"no score: {'incomplete, ' + incomplete if incomplete else 'nothing was graded'}")
        lines.extend(f"note: {note}" for note in self.notes)
        lines.append(usage_line(self.model, self.usage))
        return lines


def score_words(score: float | None, bounds: tuple[float, float] | Any = None) -> str:
    """A score as every text output words it: ``0.5``, ``not known (0.333 to 0.667)`` or ``not known``."""
    if score is not None:
        return f"{score:.4g}"
    if bounds:
        return f"not known ({bounds[0]:.3g} to {bounds[1]:.3g})"
    return "not known"


def test_score_words(test: dict[str, Any]) -> str:
    """A numbered test's score (``tests[]`` of a report's JSON) in those words."""
    return score_words(test["score"], test.get("score_range"))


def test_result(test: dict[str, Any]) -> str:
    """How a numbered test ended (``tests[]`` of a report's JSON): the word its format gave it (``result``), else
    PASS / FAIL by ``passed``, and undecided: INCOMPLETE."""
    word = test.get("result")
    if isinstance(word, str) and word:
        return word
    return {True: PASSED, False: FAILED}.get(test["passed"], INCOMPLETE)


def incomplete_reason(verdicts: list[Verdict]) -> str | None:
    """ "N of M judgments failed (first error)" when any verdict is a failed judgment, else None."""
    failures = [v for v in verdicts if v.failed]
    # A panel's verdict some judge's failed call voted in rests on fewer judges than asked: incomplete too.
    short = [v for v in verdicts if not v.failed and v.failed_votes]
    if not failures and not short:
        return None
    said = []
    if failures:
        said.append(f"{len(failures)} of {len(verdicts)} judgment(s) failed ({failures[0].error})")
    if short:
        votes = sum(v.failed_votes for v in short)
        said.append(
            f"{votes} judge vote(s) failed in {len(short)} of {len(verdicts)} panel verdict(s) ({short[0].reason})"
        )
    return "; ".join(said)


def usage_line(model: str | None, usage: Usage) -> str:
    """The closing line of a text report: the judge, its calls, tokens and cost."""
    cost = f", ${usage.cost_usd:.4f}" if usage.cost_usd is not None else ""
    retried = f" (retried {usage.retries}×)" if usage.retries else ""
    tokens = usage.prompt_tokens + usage.completion_tokens
    return f"judge: {model or 'none'}; {usage.calls} calls{retried}, {usage.cached} cached, {tokens} tokens{cost}"


@dataclass
class ExampleResult:
    """One worked example of a file, graded, and whether its expectations held."""

    name: str
    range: dict[str, Any] | None
    report: GradeReport | None
    met: bool | None  # None: no expectation
    failures: list[str] = field(default_factory=list)
    # Where each failure's expectation is written (the ``expect`` entry that failed), when known.
    failure_ranges: list[dict[str, Any] | None] = field(default_factory=list)

    def units(self, path: tuple[Any, ...] = ()) -> list[Unit]:
        """The example's verdicts, then whether its expectations held (when it has any)."""
        found = self.report.units(self.name, (*path, "report")) if self.report is not None else []
        if self.met is not None:
            outcome = Outcome.PASS if self.met else Outcome.FAIL
            found.append(Unit("expectations", outcome, group=self.name, reason="; ".join(self.failures), path=path))
        return found

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "range": self.range,
            "report": self.report.to_json() if self.report else None,
            "met": self.met,
            "failures": self.failures,
        }
        if self.failure_ranges:
            data["failure_ranges"] = self.failure_ranges
        return data


@dataclass
class ExamplesResult:
    """A file's worked examples, graded (an EXAMPLES request)."""

    examples: list[ExampleResult] = field(default_factory=list)
    kind = "examples"

    def units(self) -> list[Unit]:
        return [unit for i, example in enumerate(self.examples) for unit in example.units((i,))]

    def cases(self) -> list[Case]:
        """Each example: FAIL when an expectation did not hold, ERROR when its grading is incomplete."""
        found = []
        for i, e in enumerate(self.examples):
            incomplete = e.report.incomplete if e.report is not None else "not graded"
            if e.met is False:
                outcome, word, reason = Outcome.FAIL, "NOT MET", "; ".join(e.failures)
            elif incomplete:
                outcome, word, reason = Outcome.ERROR, ERROR_VERDICT, incomplete
            else:
                outcome, word, reason = Outcome.PASS, "" if e.met is None else "met", ""
            score = e.report.score if e.report is not None else None
            found.append(Case(e.name, "examples", outcome, word, score, reason, tuple(e.units((i,)))))
        return found

    def to_json(self) -> list[dict[str, Any]]:
        return [e.to_json() for e in self.examples]

    @property
    def failed(self) -> bool:
        return any(e.met is False for e in self.examples)

    @property
    def incomplete(self) -> str | None:
        reasons = [f"{e.name}: {r.incomplete}" for e in self.examples if (r := e.report) is not None and r.incomplete]
        return "; ".join(reasons) or None

    def text_lines(self) -> list[str]:
        lines: list[str] = []
        for e in self.examples:
            score = "no score" if e.report is None or e.report.score is None else f"{e.report.score:.3f}"
            state = {True: "ok", False: "NOT MET", None: ""}[e.met]
            lines.append(f"{e.name}: {score} {state}")
            lines.extend(f"  {failure}" for failure in e.failures)
        return lines
