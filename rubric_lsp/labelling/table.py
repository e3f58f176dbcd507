"""Writing a labels file (``.csv`` / ``.jsonl``, docs/calibration.md's columns) one row at a time, as the
smallest change: a new label is a row appended at the end, a changed one replaces its own row's text, a
withdrawn one removes it; every other row, the header's columns and their order, blank lines and line breaks
are the file's own, byte for byte. Columns the page writes that the file lacks (``labeller``, ``note``) are
added at the end of a CSV's header (earlier rows read them as empty).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

LABELLER, NOTE, VERDICT = "labeller", "note", "verdict"
T = TypeVar("T")


@dataclass(frozen=True, slots=True)  # slots: a million-row labels file is a million of these
class Row:
    """One row of the file: its columns (lower-cased names, as the labels reader reads them) and its place."""

    fields: dict[str, str]
    start: int  # where its text begins (code points)
    end: int  # where it ends, its line break included
    number: int  # as a spreadsheet numbers it (a CSV's header is row 1; a JSONL file's first line is 1)


@dataclass
class Table:
    """A labels file's text read into rows, and how to write a row in it."""

    text: str
    jsonl: bool
    columns: list[str]  # a CSV's header, as written
    rows: list[Row]
    header_end: int = 0  # a CSV: where its header line ends, line break included

    @property
    def newline(self) -> str:
        return "\r\n" if "\r\n" in self.text else "\n"


def read(text: str, jsonl: bool) -> Table:
    """``text`` as rows; ValueError (one line) for a row that cannot be read."""
    if jsonl:
        return Table(text, True, [], list(_jsonl_rows(text)))
    header, header_end, rows = _csv_rows(text)
    return Table(text, False, header, list(rows), header_end)


def rows_of(text: str, jsonl: bool) -> Iterator[Row]:
    """``read``'s rows one at a time: a labels file read for its labels need not hold a million rows at once."""
    return _jsonl_rows(text) if jsonl else _csv_rows(text)[2]


# Where str.splitlines breaks a line, as a lazy scan: the same lines without a list of them all.
_LINE = re.compile("[^\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]*(?:\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029])?")


def _lines(text: str) -> Iterator[str]:
    """``text.splitlines(keepends=True)``, one line at a time."""
    for found in _LINE.finditer(text):
        if found.end() > found.start():
            yield found.group()


def _jsonl_rows(text: str) -> Iterator[Row]:
    offset = 0
    for number, line in enumerate(_lines(text), 1):
        start, offset = offset, offset + len(line)
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            raise ValueError(f"row {number} is not JSON") from None
        if not isinstance(value, dict):
            raise ValueError(f"row {number} is not a JSON object")
        fields = {
            str(k).strip().lower(): "" if v is None else v if isinstance(v, str) else json.dumps(v)
            for k, v in value.items()
        }
        yield Row(fields, start, offset, number)


class _Fed:
    """The lines handed to the CSV reader, and where the next one starts (the reader reads none ahead)."""

    def __init__(self, text: str) -> None:
        self.offset = 0
        self._lines = _lines(text)

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self.offset += len(line)
        return line


def _csv_rows(text: str) -> tuple[list[str], int, Iterator[Row]]:
    """(the header as written, where it ends, the rows)."""
    fed = _Fed(text)
    reader = csv.reader(fed)
    try:
        header = next(reader, None)
    except csv.Error as exc:  # (an unterminated quote makes the header one cell of the whole file)
        raise ValueError(f"row 1: {exc}") from None
    if header is None:
        return [], 0, iter(())
    columns = [c.strip().lower() for c in header]

    def rows() -> Iterator[Row]:
        while True:
            first_line, start = reader.line_num, fed.offset
            try:
                cells = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                raise ValueError(f"row {first_line + 1}: {exc}") from None
            if not any(c.strip() for c in cells):
                continue
            fields = {name: value.strip() for name, value in zip(columns, cells)}
            yield Row(fields, start, fed.offset, first_line + 1)

    return list(header), fed.offset, rows()


def matches(row: Row, wanted: Mapping[str, str]) -> bool:
    """Whether ``row`` holds each of ``wanted``'s columns as given (a missing column reads as empty)."""
    return all(row.fields.get(name, "").strip() == value.strip() for name, value in wanted.items())


class RowIndex(Generic[T]):
    """Of candidates (each the columns a row must hold, and what to answer), the first a row holds, in the order
    they were added: ``matches`` against each in turn, as a lookup per set of column names instead (a million
    label rows against a thousand items was a billion comparisons). ``strip``: compared as ``matches`` compares
    (surrounding spaces ignored); else exactly."""

    def __init__(self, strip: bool = True) -> None:
        self._strip = strip
        self._groups: dict[tuple[str, ...], dict[tuple[str, ...], tuple[int, T]]] = {}
        self._added = 0

    def add(self, wanted: Mapping[str, str], answer: T) -> None:
        names = tuple(sorted(wanted))
        values = tuple(wanted[name].strip() if self._strip else wanted[name] for name in names)
        self._groups.setdefault(names, {}).setdefault(values, (self._added, answer))  # an earlier one wins
        self._added += 1

    def first(self, row: Row) -> T | None:
        found: tuple[int, T] | None = None
        fields = row.fields
        for names, answers in self._groups.items():
            held = tuple(fields.get(name, "").strip() if self._strip else fields.get(name, "") for name in names)
            hit = answers.get(held)
            if hit is not None and (found is None or hit[0] < found[0]):
                found = hit
        return None if found is None else found[1]


def find(table: Table, wanted: Mapping[str, str]) -> Row | None:
    return next((r for r in table.rows if matches(r, wanted)), None)


def put(table: Table, wanted: Mapping[str, str], values: Mapping[str, str] | None, order: Sequence[str]) -> str:
    """The file's text with the row matching ``wanted`` holding ``values`` (None: removed): replaced in place,
    or appended when there is none. ``order``: the columns of a new file, in order."""
    row = find(table, wanted)
    text = table.text
    if values is None:
        return text if row is None else text[: row.start] + text[row.end :]
    if table.jsonl:
        line = json.dumps(dict(values), ensure_ascii=False) + table.newline
    else:
        text, columns = _with_columns(table, [c for c in order if c in values] + [c for c in values if c not in order])
        line = _csv_line([values.get(c, "") for c in columns], table.newline)
        if row is not None:
            row = Row(row.fields, row.start + len(text) - len(table.text), row.end + len(text) - len(table.text), 0)
    if row is not None:
        return text[: row.start] + line + text[row.end :]
    if text and not text.endswith(("\n", "\r")):
        text += table.newline
    return text + line


def _with_columns(table: Table, wanted: list[str]) -> tuple[str, list[str]]:
    """The text with a CSV header holding every column of ``wanted`` (missing ones appended), and the columns."""
    columns = [c.strip().lower() for c in table.columns]
    missing = [c for c in wanted if c not in columns]
    if not table.columns:  # a new file: its header
        return _csv_line(wanted, table.newline) + table.text, list(wanted)
    if not missing:
        return table.text, columns
    header = table.text[: table.header_end]
    body = header.rstrip("\r\n")
    ending = header[len(body) :]
    new_header = body + "," + ",".join(missing) + (ending or table.newline)
    return new_header + table.text[table.header_end :], columns + missing


def _csv_line(cells: Sequence[str], newline: str) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator=newline).writerow(cells)
    return out.getvalue()
