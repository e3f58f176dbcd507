"""A labels file (``LABELS.csv`` / ``LABELS.jsonl``): people's verdicts on outputs, for the units of a file
that is not itself a labelled set (docs/calibration.md, "Labels files").

One row per labelled output. The columns every row reads here, whatever the format: ``config`` (the file
whose unit it labels, relative to the labels file; or ``--config``), ``output`` or ``output_file``
(relative to the labels file), optionally ``query``, and the human ``verdict`` (pass/fail) or ``score``
(a number from 0 to 1). Which unit a row labels (``test`` and ``assertion``, ``grader``) is the format's to
read (``LabelRow.fields``); it refuses a bad one naming the row as :class:`LabelsError` does here.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rubric_lsp.calibration.evidence import row_labelled
from rubric_lsp.calibration.record import OwnJudge
from rubric_lsp.calibration.units import UnitSamples
from rubric_lsp.document.files import TooLarge, read_regular_text

SUFFIXES = (".csv", ".jsonl")
MAX_LABELS_BYTES = 16 * 1024 * 1024
MAX_OUTPUT_BYTES = 1024 * 1024  # one output_file
PASS, FAIL = "PASS", "FAIL"
VERDICTS = {
    "pass": True,
    "passed": True,
    "true": True,
    "1": True,
    "fail": False,
    "failed": False,
    "false": False,
    "0": False,
}


class LabelsError(ValueError):
    """A labels file or row that cannot be used; one line, naming the file and the row."""


@dataclass(frozen=True)
class LabelRow:
    """One labelled output. ``number``: the row's number as a spreadsheet shows it (the header is row 1
    of a CSV; a JSONL file's first line is row 1)."""

    number: int
    where: str  # "LABELS.csv row 3", for messages
    config: Path | None
    output: str
    query: str | None
    verdict: bool | None  # the human verdict, when given as pass/fail
    score: float | None  # the human score, when given as a number
    fields: dict[str, str] = field(default_factory=dict)  # every column, as text (the format reads its own)

    def human_pass(self, threshold: float) -> bool:
        """The human verdict; a score passes at ``threshold`` or above (the unit's own pass mark)."""
        return self.verdict if self.verdict is not None else (self.score or 0.0) >= threshold

    def refuse(self, message: str) -> LabelsError:
        return LabelsError(f"{self.where}: {message}")


def is_labels_file(path: Path) -> bool:
    return path.suffix.lower() in SUFFIXES


def read_labels(path: Path, config: Path | None = None) -> list[LabelRow]:
    """The rows of ``path``; ``config`` stands in for rows that name none. LabelsError on the first bad row."""
    try:
        text = read_regular_text(path, MAX_LABELS_BYTES)
    except TooLarge:
        raise LabelsError(f"{path}: larger than {MAX_LABELS_BYTES // (1024 * 1024)} MiB") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LabelsError(f"cannot read {path}: {exc}") from None
    raw = _jsonl(path, text) if path.suffix.lower() == ".jsonl" else _csv(path, text)
    rows = [_row(path, number, fields, config) for number, fields in raw]
    if not rows:
        raise LabelsError(f"{path}: no labelled rows (docs/calibration.md shows the columns)")
    return rows


def _csv(path: Path, text: str) -> list[tuple[int, dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(text))
    columns = [c.strip().lower() for c in reader.fieldnames or []]
    out = []
    # Rows as a spreadsheet numbers them: the header is row 1, each record one row (a cell may hold line breaks).
    for number, values in enumerate(reader, 2):
        extra = values.pop(None, None)
        if extra:
            raise LabelsError(f"{path} row {number}: more cells than the header has columns")
        row = {c: (v or "").strip() for c, v in zip(columns, values.values())}
        if any(row.values()):
            out.append((number, row))
    return out


def _jsonl(path: Path, text: str) -> list[tuple[int, dict[str, str]]]:
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise LabelsError(f"{path} row {number}: not JSON ({str(exc)[:100]})") from None
        if not isinstance(value, dict):
            raise LabelsError(f"{path} row {number}: not a JSON object")
        out.append((number, {str(k).lower(): "" if v is None else _text(v) for k, v in value.items()}))
    return out


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _row(path: Path, number: int, fields: dict[str, str], config: Path | None) -> LabelRow:
    where = f"{path} row {number}"
    named = fields.get("config")
    chosen = path.parent / named if named else config
    output = fields.get("output", "")
    if fields.get("output_file"):
        if output:
            raise LabelsError(f"{where}: both 'output' and 'output_file'; give one")
        output = _output_file(where, path.parent / fields["output_file"])
    elif "output" not in fields:
        raise LabelsError(f"{where}: no 'output' or 'output_file' column")
    verdict, score = _label(where, fields.get("verdict", ""), fields.get("score", ""))
    return LabelRow(number, where, chosen, output, fields.get("query") or None, verdict, score, fields)


def _output_file(where: str, path: Path) -> str:
    try:
        return read_regular_text(path, MAX_OUTPUT_BYTES)
    except TooLarge:
        raise LabelsError(f"{where}: output_file {path} is larger than 1 MiB") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LabelsError(f"{where}: cannot read output_file {path}: {exc}") from None


def _label(where: str, verdict: str, score: str) -> tuple[bool | None, float | None]:
    if verdict and score:
        raise LabelsError(f"{where}: both 'verdict' and 'score'; give one")
    if verdict:
        if verdict.lower() not in VERDICTS:
            raise LabelsError(f"{where}: verdict {verdict!r} is not pass or fail")
        return VERDICTS[verdict.lower()], None
    if score:
        try:
            value = float(score)
        except ValueError:
            value = math.nan
        if not 0.0 <= value <= 1.0:
            raise LabelsError(f"{where}: score {score!r} is not a number from 0 to 1")
        return None, value
    raise LabelsError(f"{where}: no human 'verdict' (pass/fail) or 'score' (0 to 1)")


def index_or_name(row: LabelRow, column: str) -> int | str | None:
    """A column that names a unit by its 1-based position or by name: the position as an int, else the name."""
    text = row.fields.get(column, "")
    if not text:
        return None
    if text.isdigit():
        if int(text) < 1:
            raise row.refuse(f"{column} {text} is not a position (they start at 1)")
        return int(text)
    return text


@dataclass
class Judged:
    """One labelled row's outcome: the human pass, the judge's (None: its call failed) and the judge's reason."""

    row: LabelRow
    human: bool
    judge: bool | None
    reason: str = ""


def binary_unit(
    unit_id: str,
    title: str,
    text: Any,
    prompt: str,
    settings: dict[str, Any],
    judged: Sequence[Judged],
    judge: OwnJudge | None = None,
) -> UnitSamples:
    """A pass/fail unit's samples from its labelled rows (each row is one item, by its row number)."""
    names = {PASS: PASS, FAIL: FAIL}
    category = {True: PASS, False: FAIL}
    return UnitSamples(
        id=unit_id,
        title=title,
        kind="binary",
        text=text,
        prompt=prompt,
        settings=settings,
        categories=(PASS, FAIL),
        names=names,
        positive=PASS,
        pairs=[(category[j.human], category[j.judge]) for j in judged if j.judge is not None],
        abstained={"both": 0, "judge_only": 0, "truth_only": 0},
        failed=sum(j.judge is None for j in judged),
        judged={j.row.number: None if j.judge is None else category[j.judge] for j in judged},
        reasons={j.row.number: j.reason for j in judged},
        judge=judge,
        labelled={j.row.number: row_labelled(j.row, category[j.human]) for j in judged},
    )


@dataclass
class LabelledUnit:
    """One unit's labelled rows, graded: what the record needs of it besides the figures."""

    id: str
    title: str
    text: Any  # what the judge reads of the unit: its fingerprint makes a record stale
    prompt: str  # the fingerprint of the prompts the judge is sent for it
    settings: dict[str, Any]  # the unit's own settings that change a verdict
    judged: list[Judged]
    judge: OwnJudge | None = None  # the judge the file named for it, when that (not the grading's) graded it


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
        failed = sum(j.judge is None for u in self.labelled for j in u.judged)
        return f"{failed} judgment(s) failed" if failed else None

    def to_json(self) -> dict[str, Any]:
        return {
            "labels": [
                {"unit": u.id, "row": j.row.number, "human": j.human, "judge": j.judge, "reason": j.reason}
                for u in self.labelled
                for j in u.judged
            ]
        }

    def text_lines(self) -> list[str]:
        return [
            f"{u.id}: {sum(j.judge == j.human for j in u.judged)} of {len(u.judged)} label(s) agree"
            for u in self.labelled
        ]

    def calibration_units(self, doc: Any, options: Any) -> list[UnitSamples]:
        """One pass/fail unit per labelled unit, in the order their first rows come."""
        return [binary_unit(u.id, u.title, u.text, u.prompt, u.settings, u.judged, u.judge) for u in self.labelled]
