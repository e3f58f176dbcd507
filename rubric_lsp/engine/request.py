"""What to grade: one ``GradeRequest`` for every face (CLI, language server) and every format.

A request names the file (its text and path) and what to do with it; the format's grader
(``Format.grader``) decides what that means for its files. The result of any request is a
:class:`GradeResult`: JSON for the machine faces, text lines for the terminal, and whether
it passed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from rubric_lsp.engine.result import Unit


class RequestKind(str, Enum):
    """What a request asks of the file."""

    RESPONSE = "response"  # grade one response against the file's rubric / tests / graders
    OUTPUTS = "outputs"  # compare several outputs of one prompt (pick the best of them)
    EXAMPLES = "examples"  # grade the worked examples the file holds and check their expectations
    DATASET = "dataset"  # grade the file's labelled items and measure agreement with the labels
    RESCORE = "rescore"  # score given verdicts (one per criterion) with no judge
    LABELS = "labels"  # grade the labelled outputs of a labels file against the file's units (rubric calibrate)
    RESULTS = "results"  # grade every output a results file holds (the tool's own run: tests × columns), each as run
    REVIEW = "review"  # grade the file's criteria themselves against the review rubric (rubric review; ``labels``:
    # a labelled set of criteria instead, for the review's calibration)


@dataclass(frozen=True)
class GradeRequest:
    """One grading: ``text``/``path`` of the rubric file; ``responses`` as the kind needs them.

    ``test_index``: 0-based test to grade, where the format has numbered tests (None = all);
    ``limit``: grade only the first N items of a dataset; ``verdicts``: what a RESCORE scores;
    ``units``: grade only these units (by name: e.g. a judge config's graders) where the format can;
    ``labels``: what a LABELS request grades, a labels file's rows (``calibration.labels.LabelRow``), which
    may be read again from the file each time they are iterated (``calibration.labels.LabelsFile``);
    ``results``: what a RESULTS request grades, the text of a results file the file's tool wrote (and its name);
    ``options``: the format's grading options by name (``Format.grade_options``), passed to its grader
    untouched: the grader checks them and fills in their defaults.
    """

    text: str
    path: str | None
    kind: RequestKind = RequestKind.RESPONSE
    responses: tuple[str, ...] = ()
    query: str | None = None
    test_index: int | None = None
    limit: int | None = None
    verdicts: tuple[Any, ...] = ()  # RESCORE: the given verdicts
    units: tuple[str, ...] = ()  # names of the units to grade, where the format grades them apart (empty: all)
    labels: Iterable[Any] = ()  # LABELS: the labelled rows (re-iterable: a grader reads them more than once)
    results: str | None = None  # RESULTS: the results file's text
    results_name: str | None = None  # RESULTS: its name, for messages
    options: Mapping[str, object] = field(default_factory=dict)

    @property
    def response(self) -> str:
        """The one response of a RESPONSE request."""
        if len(self.responses) != 1:
            raise ValueError(f"a {self.kind.value} request carries one response, not {len(self.responses)}")
        return self.responses[0]

    @classmethod
    def for_response(cls, text: str, path: str | None, response: str, **fields: Any) -> GradeRequest:
        return cls(text, path, RequestKind.RESPONSE, (response,), **fields)

    @classmethod
    def for_results(cls, text: str, path: str | None, results: str, results_name: str, **fields: Any) -> GradeRequest:
        """Every output of a results file the file's tool wrote (``rubric grade --outputs``, the editor's
        *Grade a results file*): the same request from either face."""
        return cls(text, path, RequestKind.RESULTS, results=results, results_name=results_name, **fields)

    @classmethod
    def for_responses(
        cls, text: str, path: str | None, responses: list[str] | tuple[str, ...], **fields: Any
    ) -> GradeRequest:
        """One response → RESPONSE; several → OUTPUTS."""
        kind = RequestKind.RESPONSE if len(responses) == 1 else RequestKind.OUTPUTS
        return cls(text, path, kind, tuple(responses), **fields)


class GradeResult(Protocol):
    """What every grading returns, whatever the format and the request (the faces' side: ``result.Result``)."""

    kind: str  # response | outputs | examples | dataset | rescore | grid: the result's shape

    def units(self) -> list[Unit]:
        """Every graded unit with the outcome its format gave it (``result.Unit``)."""
        ...

    def to_json(self) -> Any:
        """The CLI's ``--format json`` output and the server command's result."""
        ...

    def text_lines(self) -> list[str]:
        """The CLI's text output, one line each."""
        ...

    @property
    def failed(self) -> bool:
        """Graded, and something failed: a pass mark or an expectation not met."""
        ...

    @property
    def incomplete(self) -> str | None:
        """Why the figures rest on fewer judgments than the request needs, or None (see ``exit_code``)."""
        ...


EXIT_PASSED, EXIT_FAILED, EXIT_INCOMPLETE = 0, 1, 2


def exit_code(result: Any) -> int:
    """The one rule for every request kind (the CLI's exit code; the README's table):

    2 when the result is incomplete: a judge call failed (an ERROR verdict, a dataset item's failed
    judgment — any: "too few" is "fewer than the request needs"; re-running asks only those
    again), or the outcome rests on what is not run here (an assertion that runs code);
    else 1 when something failed; else 0. A refusal (bad arguments, a file the owner refuses, a
    missing key) never reaches a result: the CLI exits 2 for it too."""
    if getattr(result, "incomplete", None):
        return EXIT_INCOMPLETE
    return EXIT_FAILED if result.failed else EXIT_PASSED
