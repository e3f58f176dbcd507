"""A labels file's rows graded against a file's units, streamed: what each format's labels grader
(``formats/<fmt>/grading/labels.py``) hands its rows to, and the result it returns.

:func:`grade_rows` reads the rows twice and holds neither: first every row's unit is found (the format's
``unit_of``; a bad row is refused before any judge call), then each row's output is graded (the format's
``ask``), rows whose output the same grading covers sharing one (``asked``: a promptfoo test and its output),
and folded in the file's order into its unit's :class:`Tally`: per row only the pair, the judge's category and
a reference to its reason. A million rows of a thousand outputs are a thousand gradings and a few tens of bytes
a row.
"""

from __future__ import annotations

import asyncio
from array import array
from bisect import bisect_left
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from rubric_lsp.calibration.evidence import row_labelled
from rubric_lsp.calibration.labels import FAIL, PASS, LabelRow
from rubric_lsp.calibration.record import OwnJudge
from rubric_lsp.calibration.units import UnitSamples

Unit = TypeVar("Unit", bound=Hashable)
Answer = tuple[bool | None, str]  # the judge's pass (None: its call failed) and its reason
# Gradings whose answers are kept for rows that come later with the same output (the verdict cache serves one
# that fell out again), up to this many and this much text in their keys.
MEMO_GRADINGS = 100_000
MEMO_CHARS = 64 * 1024 * 1024
# Rows read ahead of the first one still being graded (each waits with its output's text), by count and by text.
MAX_WAITING_ROWS = 1_000
MAX_WAITING_CHARS = 8 * 1024 * 1024
_CATEGORY = {True: PASS, False: FAIL}
_PAIRS = {(h, j): (_CATEGORY[h], _CATEGORY[j]) for h in (True, False) for j in (True, False)}  # shared, not per row


class RowValues(Mapping[int, Any]):
    """Values by row number (rows in increasing order, as a file gives them), held in arrays beside the rows' own
    array: a few bytes a row where a dict takes ~100. Each distinct value is held once."""

    def __init__(self, numbers: array[int]) -> None:
        self._numbers = numbers  # shared with the tally's other columns
        self._codes = array("I")
        self._values: list[Any] = []
        self._code: dict[Any, int] = {}

    def append(self, value: Any) -> None:
        code = self._code.get(value)
        if code is None:
            code = self._code[value] = len(self._values)
            self._values.append(value)
        self._codes.append(code)

    def __getitem__(self, number: int) -> Any:
        at = bisect_left(self._numbers, number)
        if at == len(self._numbers) or self._numbers[at] != number:
            raise KeyError(number)
        return self._values[self._codes[at]]

    def __iter__(self) -> Iterator[int]:
        return iter(self._numbers)

    def __len__(self) -> int:
        return len(self._numbers)


class Tally:
    """One unit's labelled rows as graded, in the file's order: what its calibration samples are made of. Per row
    only its number, its (human, judge) pair, the judge's category, which reason and which label (the record's
    evidence): ~25 bytes."""

    def __init__(self) -> None:
        self.numbers = array("q")
        self.pairs: list[tuple[str, str]] = []  # (human, judge) where the judge answered: shared tuples
        self.judged = RowValues(self.numbers)  # row → the judge's category (None: failed)
        self.reasons = RowValues(self.numbers)  # row → the judge's reason
        self.labelled = RowValues(self.numbers)  # row → its label as the record's evidence keeps it
        self.failed = 0
        self.agreed = 0

    @property
    def rows(self) -> int:
        return len(self.numbers)

    def add(self, row: LabelRow, human: bool, answer: Answer) -> None:
        number = row.number
        if self.numbers and number <= self.numbers[-1]:
            raise ValueError(f"row {number} comes after row {self.numbers[-1]}: rows are tallied in order")
        judge, reason = answer
        self.numbers.append(number)
        self.reasons.append(reason)
        self.labelled.append(row_labelled(row, _CATEGORY[human]))
        if judge is None:
            self.failed += 1
            self.judged.append(None)
            return
        self.pairs.append(_PAIRS[human, judge])
        self.judged.append(_CATEGORY[judge])
        self.agreed += human == judge


@dataclass
class LabelledUnit:
    """One unit's labelled rows, graded: what the record needs of it besides the figures."""

    id: str
    title: str
    text: Any  # what the judge reads of the unit: its fingerprint makes a record stale
    prompt: str  # the fingerprint of the prompts the judge is sent for it
    settings: dict[str, Any]  # the unit's own settings that change a verdict
    tally: Tally
    judge: OwnJudge | None = None  # the judge the file named for it, when that (not the grading's) graded it


def binary_unit(unit: LabelledUnit) -> UnitSamples:
    """A pass/fail unit's samples from its labelled rows (each row is one item, by its row number)."""
    tally = unit.tally
    return UnitSamples(
        id=unit.id,
        title=unit.title,
        kind="binary",
        text=unit.text,
        prompt=unit.prompt,
        settings=unit.settings,
        categories=(PASS, FAIL),
        names={PASS: PASS, FAIL: FAIL},
        positive=PASS,
        pairs=tally.pairs,
        abstained={"both": 0, "judge_only": 0, "truth_only": 0},
        failed=tally.failed,
        judged=tally.judged,
        reasons=tally.reasons,
        judge=unit.judge,
        labelled=tally.labelled,
    )


@dataclass
class LabelsResult:
    """A labels file graded against a file's units (a LABELS request's result, for any format)."""

    labelled: list[LabelledUnit]
    kind = "labels"

    def units(self) -> list[Any]:
        return []  # a measurement: no graded unit passes or fails

    @property
    def failed(self) -> bool:
        return False

    @property
    def incomplete(self) -> str | None:
        failed = sum(u.tally.failed for u in self.labelled)
        return f"{failed} judgment(s) failed" if failed else None

    def to_json(self) -> dict[str, Any]:
        """Each unit's counts (its rows' verdicts are the record's, not repeated here)."""
        return {
            "labels": [
                {"unit": u.id, "rows": u.tally.rows, "agree": u.tally.agreed, "failed": u.tally.failed}
                for u in self.labelled
            ]
        }

    def text_lines(self) -> list[str]:
        return [f"{u.id}: {u.tally.agreed} of {u.tally.rows} label(s) agree" for u in self.labelled]

    def calibration_units(self, doc: Any, options: Any) -> list[UnitSamples]:
        """One pass/fail unit per labelled unit, in the order their first rows come."""
        return [binary_unit(u) for u in self.labelled]


@dataclass
class RowGrading(Generic[Unit]):
    """How a format grades a labels file's rows (:func:`grade_rows`).

    ``unit_of``: the unit a row labels (LabelsError, naming the row, when it names none; called for every row,
    so it keeps what it found); ``asked``: what one grading of a row's output is (rows with the same are graded
    once); ``ask``: that grading, the answer for each unit it covers; ``pass_mark``: a unit's pass mark for a
    human score."""

    unit_of: Callable[[LabelRow], Unit]
    asked: Callable[[Unit, LabelRow], Hashable]
    ask: Callable[[Unit, LabelRow], Awaitable[Mapping[Unit, Answer]]]
    pass_mark: Callable[[Unit], float]
    concurrency: int = 1
    expect: Callable[[int], None] = lambda items: None
    tick: Callable[[], None] = lambda: None


_NO_VERDICT: Answer = (None, "the grading gave no verdict for this unit")


def _size(key: Hashable) -> int:
    return sum(len(part) for part in key if isinstance(part, str)) if isinstance(key, tuple) else 0


async def grade_rows(rows: Iterable[LabelRow], how: RowGrading[Unit]) -> dict[Unit, Tally]:
    """Each unit's tally over ``rows`` (read twice: see the module docstring), in the order units first come."""
    # Every row checked before any call; the gradings counted by their hashes (a progress total, nothing more).
    distinct = {hash(how.asked(how.unit_of(row), row)) for row in rows}
    how.expect(len(distinct))
    del distinct
    tallies: dict[Unit, Tally] = {}
    memo: OrderedDict[Hashable, Any] = OrderedDict()  # a grading's answers, or its task while it runs
    held = 0  # the characters of the memo's keys
    ahead = 0  # the characters of the waiting rows' outputs
    marks: dict[Unit, float] = {}  # each unit's pass mark, found once
    waiting: deque[tuple[LabelRow, Unit, Hashable, Any]] = deque()
    running: set[asyncio.Future[Any]] = set()

    async def graded(unit: Unit, row: LabelRow) -> Mapping[Unit, Answer]:
        answers = await how.ask(unit, row)
        how.tick()
        return answers

    def fold_ready() -> None:
        nonlocal ahead
        while waiting and not (isinstance(waiting[0][3], asyncio.Future) and not waiting[0][3].done()):
            row, unit, key, got = waiting.popleft()
            ahead -= len(row.output)
            if isinstance(got, asyncio.Future):
                got = got.result()
                if memo.get(key) is not None:
                    memo[key] = got  # the answers, not the finished task
            mark = marks.get(unit)
            if mark is None:
                mark = marks[unit] = how.pass_mark(unit)
            human = row.human_pass(mark)
            tally = tallies.get(unit)
            if tally is None:
                tally = tallies[unit] = Tally()
            tally.add(row, human, got.get(unit, _NO_VERDICT))

    try:
        for row in rows:
            unit = how.unit_of(row)
            key = how.asked(unit, row)
            got = memo.get(key)
            if got is None:
                got = memo[key] = asyncio.ensure_future(graded(unit, row))
                running.add(got)
                got.add_done_callback(running.discard)
                held += _size(key)
                while len(memo) > 1 and (len(memo) > MEMO_GRADINGS or held > MEMO_CHARS):
                    held -= _size(memo.popitem(last=False)[0])
            waiting.append((row, unit, key, got))
            ahead += len(row.output)
            fold_ready()
            while running and (
                len(running) >= how.concurrency or len(waiting) >= MAX_WAITING_ROWS or ahead >= MAX_WAITING_CHARS
            ):
                await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                fold_ready()
        while waiting:
            await asyncio.wait({waiting[0][3]})
            fold_ready()
    finally:
        for task in running:
            task.cancel()
    return tallies
