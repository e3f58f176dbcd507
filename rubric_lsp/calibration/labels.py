"""A labels file (``LABELS.csv`` / ``LABELS.jsonl``): people's verdicts on outputs, for the units of a file
that is not itself a labelled set (docs/calibration.md, "Labels files").

One row per labelled output. The columns every row reads here, whatever the format: ``config`` (the file
whose unit it labels, relative to the labels file; or ``--config``), ``output`` or ``output_file``
(relative to the labels file), optionally ``query``, and the human ``verdict`` (pass/fail) or ``score``
(a number from 0 to 1). Which unit a row labels (``test`` and ``assertion``, ``grader``) is the format's to
read (``LabelRow.fields``); it refuses a bad one naming the row as :class:`LabelsError` does here.

The file is streamed, never held: :func:`iter_labels` reads one row at a time (a million rows cost the memory
of one), :class:`LabelsFile` reads it again each time it is iterated, and :func:`survey` checks every row once
before any judge call. What a row may name is confined to the labels file's own folder tree (``root``): a
``config`` or ``output_file`` that leads elsewhere (an absolute path, ``../``, a link out) is refused before it
is read, so a labels file cannot send another file's content to a judge. What cannot be read is one line
naming the row, never a traceback: a cell over the CSV reader's limit, a line over :data:`MAX_LINE_CHARS`, a
JSON row nested too deeply, text that is not UTF-8.
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from rubric_lsp.document.files import TooLarge, open_regular, read_regular_text

SUFFIXES = (".csv", ".jsonl")
MAX_OUTPUT_BYTES = 1024 * 1024  # one output_file
# One physical line of a labels file (a CSV record may span several): longer is refused, never held whole.
MAX_LINE_CHARS = 4 * 1024 * 1024
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
LABEL_COLUMNS = ("verdict", "score")  # what a row says of its output; the rest says which output of which unit
MAX_NOTED_ROWS = 5  # repeated rows named one by one; the rest counted


class LabelsError(ValueError):
    """A labels file or row that cannot be used; one line, naming the file and the row."""


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ costs twice as much, once per row
class LabelRow:
    """One labelled output. ``number``: the row's number as a spreadsheet shows it (the header is row 1
    of a CSV; a JSONL file's first line is row 1)."""

    number: int
    file: str  # the labels file, as given
    config: Path | None
    output: str
    query: str | None
    verdict: bool | None  # the human verdict, when given as pass/fail
    score: float | None  # the human score, when given as a number
    fields: dict[str, str] = field(default_factory=dict)  # every column, as text (the format reads its own)

    @property
    def where(self) -> str:
        """ "LABELS.csv row 3", for messages."""
        return f"{self.file} row {self.number}"

    def human_pass(self, threshold: float) -> bool:
        """The human verdict; a score passes at ``threshold`` or above (the unit's own pass mark)."""
        return self.verdict if self.verdict is not None else (self.score or 0.0) >= threshold

    def refuse(self, message: str) -> LabelsError:
        return LabelsError(f"{self.where}: {message}")

    @property
    def label(self) -> str:
        """The human label as written: "pass", "fail" or the score."""
        return ("pass" if self.verdict else "fail") if self.verdict is not None else f"score {self.score:g}"


def is_labels_file(path: Path) -> bool:
    return path.suffix.lower() in SUFFIXES


def iter_labels(path: Path, config: Path | None = None, *, root: Path | None = None) -> Iterator[LabelRow]:
    """The rows of ``path``, read one at a time; ``config`` stands in for rows that name none; ``root``: the folder
    a row may name files in (default: the labels file's own). LabelsError on the first bad row."""
    reader = _Reader(path, config, root)
    try:
        handle = open_regular(path)
    except OSError as exc:
        raise LabelsError(f"cannot read {path}: {exc.strerror or exc}") from None
    with handle:
        lines = _lines(path, handle)
        for number, fields in _jsonl(path, lines) if path.suffix.lower() == ".jsonl" else _csv(path, lines):
            yield reader.row(number, fields)


def read_labels(path: Path, config: Path | None = None, *, root: Path | None = None) -> list[LabelRow]:
    """Every row of ``path`` in a list (small files and tests; ``rubric calibrate`` streams them)."""
    return list(stream_labels(path, config, root=root))


def stream_labels(path: Path, config: Path | None = None, *, root: Path | None = None) -> Iterator[LabelRow]:
    """``iter_labels``, refusing (once read through) a file without a labelled row, as ``read_labels`` does."""
    empty = True
    for row in iter_labels(path, config, root=root):
        empty = False
        yield row
    if empty:
        raise LabelsError(f"{path}: no labelled rows (docs/calibration.md shows the columns)")


@dataclass(frozen=True)
class LabelsFile:
    """A labels file's rows for one config (``only``; None: all), read from the file again each time it is
    iterated: what a LABELS request carries (``GradeRequest.labels``), so no pass holds the rows. ``limit``: the
    first rows of the file only, whichever config they name (``rubric calibrate --limit``)."""

    path: Path
    config: Path | None = None
    only: Path | None = None
    limit: int | None = None
    root: Path | None = None

    def __iter__(self) -> Iterator[LabelRow]:
        only = None if self.only is None else os.fspath(self.only)
        seen: dict[int, bool] = {}  # each config object a row holds (the reader keeps one per name): is it ours?
        for count, row in enumerate(iter_labels(self.path, self.config, root=self.root)):
            if self.limit is not None and count >= self.limit:
                return
            if only is None:
                yield row
                continue
            ours = seen.get(id(row.config))
            if ours is None:
                ours = seen[id(row.config)] = row.config is not None and os.fspath(row.config) == only
            if ours:
                yield row


@dataclass
class Survey:
    """What :func:`survey` found in a labels file: the configs its rows label (with how many rows each, in the
    order they first come), and lines about rows that repeat an earlier row's output."""

    configs: dict[Path | None, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def survey(path: Path, config: Path | None = None, *, limit: int | None = None, root: Path | None = None) -> Survey:
    """Every row of ``path`` read and checked once (LabelsError on the first bad one), before any judge call.

    A row that labels the same output of the same unit as an earlier row (every column the same but the
    label) is noted: with the same label (a duplicate) or another (a conflict). Both rows are counted, as
    written; the notes say so, so a repeated row never weighs twice without a word. Only a hash of each
    distinct row is held (two different rows taken for one cost a note, nothing else)."""
    found = Survey()
    first: dict[int, tuple[int, str]] = {}
    repeats = {"duplicate": 0, "conflict": 0}
    for count, row in enumerate(iter_labels(path, config, root=root)):
        if limit is not None and count >= limit:
            break
        found.configs[row.config] = found.configs.get(row.config, 0) + 1
        key = _same_output(row)
        earlier = first.setdefault(key, (row.number, row.label))
        if earlier[0] == row.number:
            continue
        kind = "duplicate" if earlier[1] == row.label else "conflict"
        repeats[kind] += 1
        if repeats[kind] <= MAX_NOTED_ROWS:
            same = "with the same label" if kind == "duplicate" else f"with another label ({earlier[1]}, {row.label})"
            found.notes.append(
                f"{row.where} labels the same output of the same unit as row {earlier[0]} {same}; both are counted"
            )
    for kind, count in repeats.items():
        if count > MAX_NOTED_ROWS:
            found.notes.append(f"{path}: {count} rows in all repeat an earlier row's output {_REPEAT_WORDS[kind]}")
    if not found.configs:
        raise LabelsError(f"{path}: no labelled rows (docs/calibration.md shows the columns)")
    return found


_REPEAT_WORDS = {"duplicate": "with the same label", "conflict": "with another label"}


def _same_output(row: LabelRow) -> int:
    """A hash of what a row labels: its config, output, query and every column but the label."""
    others = row.fields.copy()
    for column in _NOT_WHICH:  # (popping a copy's few keys costs less than filtering every item)
        others.pop(column, None)
    return hash((row.config, row.output, row.query, frozenset(others.items())))


_NOT_WHICH = (*LABEL_COLUMNS, "output", "output_file")  # columns that do not say which output is labelled


def _lines(path: Path, handle: BinaryIO) -> Iterator[str]:
    """The file's lines, each decoded as UTF-8 (a BOM dropped) and within MAX_LINE_CHARS. A line ends at a line
    feed (a carriage return before it is kept for the csv module): U+2028 and a lone carriage return are text, as
    JSON Lines has them."""
    number = 0
    while True:
        number += 1
        raw = handle.readline(MAX_LINE_CHARS + 1)
        if not raw:
            return
        if len(raw) > MAX_LINE_CHARS:
            raise LabelsError(
                f"{path} line {number}: longer than {MAX_LINE_CHARS // (1024 * 1024)} MiB; "
                "put a long output in a file and name it in 'output_file'"
            )
        try:
            yield raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            raise LabelsError(f"{path} line {number}: not UTF-8 text ({exc.reason})") from None


def _csv(path: Path, lines: Iterator[str]) -> Iterator[tuple[int, dict[str, str]]]:
    reader = csv.reader(lines)
    number = 1  # the row being read, as a spreadsheet numbers them: the header is row 1
    try:
        columns = [c.strip().lower() for c in next(reader, None) or []]
        twice = next((c for i, c in enumerate(columns) if c and c in columns[:i]), None)
        if twice is not None:
            raise LabelsError(f"{path} row 1: the column {twice!r} is named twice")
        number = 2
        for values in reader:  # each record one row (a cell may hold line breaks)
            if len(values) > len(columns):
                raise LabelsError(f"{path} row {number}: more cells than the header has columns")
            row = {c: v.strip() for c, v in zip(columns, values)}
            if any(row.values()):
                yield number, row
            number += 1
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):
            raise LabelsError(
                f"{path} row {number}: a cell is larger than the CSV reader's {csv.field_size_limit() // 1024} KiB; "
                "put a long output in a file and name it in 'output_file'"
            ) from None
        raise LabelsError(f"{path} row {number}: not CSV ({exc})") from None


def _jsonl(path: Path, lines: Iterator[str]) -> Iterator[tuple[int, dict[str, str]]]:
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except RecursionError:
            raise LabelsError(f"{path} row {number}: not a labels row (nested too deeply)") from None
        except ValueError as exc:
            raise LabelsError(f"{path} row {number}: not JSON ({str(exc)[:100]})") from None
        if not isinstance(value, dict):
            raise LabelsError(f"{path} row {number}: not a JSON object")
        try:
            yield number, {str(k).lower(): "" if v is None else _text(v) for k, v in value.items()}
        except (RecursionError, ValueError):  # a cell nested deeply (or a huge number) cannot be shown as text
            raise LabelsError(f"{path} row {number}: a cell cannot be read as text (nested too deeply)") from None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


class _Reader:
    """Turns a row's cells into a :class:`LabelRow`: its config and output file found (inside ``root`` only)."""

    def __init__(self, path: Path, config: Path | None, root: Path | None) -> None:
        self.path = path
        self.file = str(path)
        self.config = config
        self.folder = path.parent
        self.root = Path(os.path.realpath(root if root is not None else path.parent))
        self._configs: dict[str, Path] = {}  # each config a row names, found once

    def row(self, number: int, fields: dict[str, str]) -> LabelRow:
        try:
            return self._row(number, fields)
        except _RowProblem as problem:  # named here: no row pays for its message unless it is refused
            raise LabelsError(f"{self.file} row {number}: {problem}") from None

    def _row(self, number: int, fields: dict[str, str]) -> LabelRow:
        named = fields.get("config")
        chosen = self._config(named) if named else self.config
        output = fields.get("output", "")
        if fields.get("output_file"):
            if output:
                raise _RowProblem("both 'output' and 'output_file'; give one")
            output = _output_file(self.inside("output_file", fields["output_file"])[1])
        elif "output" not in fields:
            raise _RowProblem("no 'output' or 'output_file' column")
        verdict, score = _label(fields.get("verdict", ""), fields.get("score", ""))
        return LabelRow(number, self.file, chosen, output, fields.get("query") or None, verdict, score, fields)

    def _config(self, named: str) -> Path:
        found = self._configs.get(named)
        if found is None:
            found = self._configs[named] = self.inside("config", named)[0]
        return found

    def inside(self, column: str, named: str) -> tuple[Path, Path]:
        """The file a row names, as named and as its links lead (the one read), when the latter lies inside the
        root; refused before it is read. (A config is kept as named, so its record goes beside the name.)"""
        path = self.folder / named
        target = Path(os.path.realpath(path))
        if target != self.root and not target.is_relative_to(self.root):
            raise _RowProblem(
                f"{column} {named[:200]!r} is outside {self.root}: a labels file names files in its own folder tree only"
            )
        return Path(os.path.normpath(path)), target


class _RowProblem(Exception):
    """What is wrong with a row, before the row is named."""


def _output_file(path: Path) -> str:
    try:
        return read_regular_text(path, MAX_OUTPUT_BYTES)
    except TooLarge:
        raise _RowProblem(f"output_file {path} is larger than 1 MiB") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise _RowProblem(f"cannot read output_file {path}: {reason}") from None


def _label(verdict: str, score: str) -> tuple[bool | None, float | None]:
    if verdict and score:
        raise _RowProblem("both 'verdict' and 'score'; give one")
    if verdict:
        if verdict.lower() not in VERDICTS:
            raise _RowProblem(f"verdict {verdict[:100]!r} is not pass or fail")
        return VERDICTS[verdict.lower()], None
    if score:
        try:
            value = float(score)
        except (ValueError, OverflowError):
            value = math.nan
        if not 0.0 <= value <= 1.0:
            raise _RowProblem(f"score {score[:100]!r} is not a number from 0 to 1")
        return None, value
    raise _RowProblem("no human 'verdict' (pass/fail) or 'score' (0 to 1)")


def index_or_name(row: LabelRow, column: str) -> int | str | None:
    """A column that names a unit by its 1-based position or by name: the position as an int, else the name."""
    text = row.fields.get(column, "")
    if not text:
        return None
    if text.isascii() and text.isdigit():
        position = int(text) if len(text) <= 9 else 10**9  # past any unit's position: refused as such
        if position < 1:
            raise row.refuse(f"{column} {text} is not a position (they start at 1)")
        return position
    return text
