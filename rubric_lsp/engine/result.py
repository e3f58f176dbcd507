"""The result protocol: what every format's grader returns, read the same way by every face.

A grading result is made of *units* — a criterion, an assertion, a grader, a test, a dataset
label — each with an :class:`Outcome` from a small closed set. The format decides a unit's
outcome where it knows what its verdict words mean (``formats/<fmt>/grading/``); the faces
(the text, JSON, JUnit, CSV and HTML outputs, the language server's marks) only render
outcomes and never read a verdict word to decide what it means. So a format with verdict
kinds of its own is shown correctly without an edit outside its package.

Nothing here names a format, and this module imports nothing of the engine: it can move as is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol


class Outcome(str, Enum):
    """What one unit's verdict means for the result; the faces render these and nothing else.

    ``NOT_RUN`` is apart from ``ABSTAIN``: an abstention is a judge that was asked and could not
    tell (the format's score may count it), a unit not run was never asked (a grader that needs
    input the request lacks, an assertion that runs code, a dataset item with no label to
    compare with); both are skipped in JUnit, but a reader must know which one happened.
    """

    PASS = "pass"  # met, passed, agreed with the label, a penalty avoided
    FAIL = "fail"  # not met, failed, disagreed with the label
    LOSS = "loss"  # a penalty that applied: it takes points away (a ✓ would read as a gain)
    ABSTAIN = "abstain"  # the judge (or the label) could not tell
    ERROR = "error"  # the judgment failed: never a pass, never a verdict
    NOT_RUN = "not-run"  # not graded here


@dataclass(frozen=True)
class Unit:
    """One graded unit as the faces show it.

        ``verdict`` is the format's own word for what was concluded, shown as written (never
        interpreted: ``outcome`` says what it means). ``credit`` is the share of the unit's
        ``weight`` it earned (1 all of it, 0 none, between for a partial option), None when it
        does not count towards the score. A unit that compares several outputs (a group of its
    own, not inside one output's entry) has ``scores`` and ``choice``. ``path`` locates the unit's entry in ``to_json()``
        (e.g. ``("outputs", 1, "verdicts", 2)``); ``range`` is where it is written in the graded
        text (0-based code points, the JSON's shape).
    """

    title: str
    outcome: Outcome
    verdict: str = ""
    group: str = ""  # what it belongs to: a response, an output, an example, a dataset item
    reason: str = ""
    error: str = ""
    counted_as: str = ""  # an error: how the score counts it
    range: dict[str, Any] | None = None
    path: tuple[Any, ...] = ()
    score: float | None = None  # the unit's own score, as the format reports it
    scores: tuple[float | None, ...] = ()  # a comparison of several outputs: each one's score
    choice: int | None = None  # a comparison: the 0-based output it chose (None: none)
    weight: float | None = None
    credit: float | None = None
    expected: str = ""  # what a human label or an expectation wanted
    feedback: str = ""
    cached: bool = False
    ambiguous: bool = False
    # Columns of its own the format gives the unit in tables (CSV): (column name, plain value) pairs.
    cells: tuple[tuple[str, Any], ...] = ()

    @property
    def penalty(self) -> bool:
        """The unit can only take points away (a negative weight): passing it avoided a loss."""
        return self.weight is not None and self.weight < 0


class Result(Protocol):
    """What every grading returns, whatever the format and the request (see also ``request.GradeResult``).

    ``kind`` is the shape of the result: ``response`` (units of one graded response),
    ``outputs`` (several outputs compared), ``examples`` (worked examples and their
    expectations), ``dataset`` (judged against human labels), ``rescore`` (given verdicts
    scored) or ``grid`` (a results file's outputs, tests × columns: ``grid()``): the faces lay
    their pages out by it. ``cases()``, where a result has it, says what it passes or fails by
    (``cases_of``).
    """

    kind: str

    def units(self) -> list[Unit]:
        """Every unit, in order, each with its group."""
        ...

    def to_json(self) -> Any:
        """The machine output (schemas/rubric-grade-output.schema.json)."""
        ...

    # A ``dataset`` result also has ``figures() -> Figures``: what it measured per criterion, in its words.


@dataclass(frozen=True)
class Figure:
    """A figure a format measured, headed in its own words: the faces print ``label`` and ``value``
    and never know what it measures. ``interval`` is a confidence interval (low, high) when it has one."""

    label: str
    value: float | None
    interval: Sequence[float] | None = None


@dataclass(frozen=True)
class Figures:
    """What a result measured per group of units beyond the faces' own counts (a dataset's criteria:
    the format's agreement statistic beside accuracy), groups in ``to_json()["agreement"]`` order.

    ``ranked[i]`` is the figure the report tabulates, ranks group i by (lowest first) and charts,
    under the heading ``label`` (``key`` names its cells for tests and links); ``interval`` says
    what its intervals are, ``note`` how the figures were measured, ``chart`` titles the chart;
    ``brief[i]`` is what the editor shows on the group's line. Empty when the format has none.
    """

    key: str = ""
    label: str = ""
    ranked: tuple[Figure, ...] = ()
    brief: tuple[tuple[Figure, ...], ...] = ()
    interval: str = ""
    note: str = ""
    chart: str = ""


def figures_of(result: Any) -> Figures:
    """The result's own :class:`Figures` (a ``figures()`` method, for the ``dataset`` kind), or none."""
    figures = getattr(result, "figures", None)
    return figures() if callable(figures) else Figures()


@dataclass(frozen=True)
class Case:
    """One thing a result passes or fails by — a test, a response, an example, a row of a results file — and the
    units it is made of. The exit code is the cases': JUnit writes one testcase per case, so its failures are
    the failed cases and cannot say FAIL where the grading passed (a test rescued by its threshold passes,
    whatever its failed assertion says; a dataset's disagreement with a label is a measurement, no failure).

    ``outcome``: PASS, FAIL, ERROR (undecided: a judgment failed), NOT_RUN (undecided: it rests on what is not
    run here); ``verdict`` the format's word for it; ``reason`` why it ended so."""

    name: str
    suite: str
    outcome: Outcome
    verdict: str = ""
    score: float | None = None
    reason: str = ""
    units: tuple[Unit, ...] = ()


def cases_of(result: Any) -> list[Case]:
    """The result's own ``cases()``, else one case per group of its units, decided so that no case contradicts
    the result: with the result not failed, a failed unit fails no case (it is a measurement: a dataset's
    label); with the result failed, the groups holding failed units fail (all its groups, when none does)."""
    own = getattr(result, "cases", None)
    if callable(own):
        return list(own())
    groups: dict[str, list[Unit]] = {}
    for unit in result.units():
        groups.setdefault(unit.group, []).append(unit)
    failed = bool(getattr(result, "failed", False))
    found = []
    for group, units in groups.items():
        outcomes = {u.outcome for u in units}
        if Outcome.ERROR in outcomes:
            outcome = Outcome.ERROR
        elif failed and outcomes & {Outcome.FAIL, Outcome.LOSS}:
            outcome = Outcome.FAIL
        elif outcomes <= {Outcome.ABSTAIN, Outcome.NOT_RUN}:
            outcome = Outcome.NOT_RUN
        else:
            outcome = Outcome.PASS
        found.append(Case(group, group, outcome, units=tuple(units)))
    if failed and not any(c.outcome is Outcome.FAIL for c in found):
        found = [Case(c.name, c.suite, Outcome.FAIL, units=c.units) if c.outcome is Outcome.PASS else c for c in found]
    return found


@dataclass(frozen=True)
class GridRow:
    """A row of a grid: a test, with what sets it apart (its vars as (name, text) pairs)."""

    label: str
    detail: str = ""
    vars: tuple[tuple[str, str], ...] = ()
    number: int | None = None  # the case's number as the format numbers them (a GradePlan's ``test``)


@dataclass(frozen=True)
class GridColumn:
    """A column of a grid (what produced the outputs in it: a prompt and a provider), with its pass rates."""

    label: str
    detail: str = ""
    passed: int = 0
    total: int = 0  # the cells decided here (passed or failed)
    recorded_passed: int = 0
    recorded_total: int = 0  # the cells whose recorded verdict is a pass or a fail


@dataclass(frozen=True)
class GridCell:
    """One graded output: ``case`` is its grading (outcome, score, reason, units); ``recorded`` the verdict the
    results file holds for it (None: none), ``differs`` whether this grading decided otherwise; ``path`` its
    entry in ``to_json()``."""

    row: int
    column: int
    case: Case
    recorded: Outcome | None = None
    recorded_score: float | None = None
    recorded_reason: str = ""
    differs: bool = False
    path: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Grid:
    """A ``grid`` result's layout (``result.grid()``): tests as rows, what produced the outputs as columns, each
    cell a graded output beside the verdict the results file recorded; ``recorded_by`` names that verdict's
    maker, in the format's words."""

    rows: tuple[GridRow, ...]
    columns: tuple[GridColumn, ...]
    cells: tuple[GridCell, ...]
    recorded_by: str = ""


def grid_of(result: Any) -> Grid | None:
    """The result's :class:`Grid` (a ``grid()`` method, for the ``grid`` kind), or None."""
    grid = getattr(result, "grid", None)
    return grid() if callable(grid) else None


# How the table outputs (JUnit, CSV) name an outcome: an abstention and a unit not run are both skipped,
# a loss fails (a penalty that applies is a failed check).
ROW_OUTCOME = {
    Outcome.PASS: "pass",
    Outcome.FAIL: "fail",
    Outcome.LOSS: "fail",
    Outcome.ABSTAIN: "skipped",
    Outcome.NOT_RUN: "skipped",
    Outcome.ERROR: "error",
}


def counts(units: Iterable[Unit]) -> dict[Outcome, int]:
    """How many units have each outcome (every outcome present, 0 when none)."""
    found = dict.fromkeys(Outcome, 0)
    for unit in units:
        found[unit.outcome] += 1
    return found
