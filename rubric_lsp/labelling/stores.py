"""Where a session's labels live: in the labelled file with a labels log beside it (:class:`FileStore`), or in a
labels file (:class:`TableStore`). Both answer the same questions (every label given per item and unit, with
who gave it) and take the same change (one person's label of one unit of one item, or its withdrawal), each
read fresh from disk and written atomically (``files.py``): a second run, or a second page, sees the first's.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from rubric_lsp.document import Document
from rubric_lsp.fixes import apply_edits
from rubric_lsp.labelling import log, table
from rubric_lsp.labelling.files import Target
from rubric_lsp.labelling.hook import Label, LabelItem, LabellingHook, Sheet

Key = tuple[str, str]  # (item key, unit id)
ORDER = ("config", "test", "assertion", "grader", "output", "query", "verdict", "labeller", "note", "reviewed")


@dataclass(frozen=True)
class Given:
    """One label as stored: the label, and whether it is the one the file holds (a second opinion is not)."""

    label: Label
    in_file: bool = True
    reviewed: str = ""  # the judge's verdict this label was kept against in a review ("": not reviewed)


class Store(Protocol):
    in_file: bool

    def given(self, sheet: Sheet) -> dict[Key, list[Given]]:
        """Every label given per (item key, unit id), the one the file holds first."""
        ...

    def labels(self, sheet: Sheet) -> Iterator[tuple[Key, Label]]:
        """Every label given, with its (item key, unit id), in ``given``'s order, one at a time."""
        ...

    def set_given(self, sheet: Sheet, item: LabelItem, unit: str, labeller: str, given: Given | None) -> None:
        """``labeller``'s label of ``unit`` on ``item`` made ``given`` (None: withdrawn)."""
        ...

    def set_file(self, item: LabelItem, unit: str, label: Label | None) -> None:
        """The label the labelled file holds for ``unit`` on ``item`` made ``label`` (None: none)."""
        ...

    def paths(self) -> list[Path]:
        """The files it writes."""
        ...


class FileStore:
    """Labels in the labelled file (the format's own place) and who gave them in its labels log."""

    in_file = True

    def __init__(self, target: Target, hook: LabellingHook, read: Callable[[], tuple[bytes | None, Document, Sheet]]):
        self.target = target
        self.log = Target.of(log.log_path(target.path))
        self.hook = hook
        self._read = read  # () -> (bytes, Document, Sheet): the labelled file as it is on disk now

    def paths(self) -> list[Path]:
        return [self.target.path, self.log.path]

    def given(self, sheet: Sheet) -> dict[Key, list[Given]]:
        entries = log.read(self.log.path)
        keys = {item.key for item in sheet.items}
        held = {(item.key, unit): label for item in sheet.items for unit, label in item.labels.items()}
        out: dict[Key, list[Given]] = {}
        owned = set()
        for entry in entries:
            key = (entry.key, entry.unit)
            if entry.key not in keys:
                continue  # an item no longer in the file (its content changed): its labels stay in the log
            label = Label(entry.label, entry.note, entry.labeller)
            if entry.file and key in held and held[key].word == entry.label and key not in owned:
                owned.add(key)  # the file's label, given by this labeller: its note is the file's
                out.setdefault(key, []).insert(
                    0, Given(replace(held[key], labeller=entry.labeller), True, entry.reviewed)
                )
            else:  # a second opinion; a label waiting for its item's other units; one the file no longer holds
                waiting = entry.file and key not in held
                out.setdefault(key, []).append(Given(label, waiting, entry.reviewed))
        for key, label in held.items():
            if key not in owned:  # in the file with no log line: given by hand, or before any log
                out.setdefault(key, []).insert(0, Given(label, True))
        return out

    def labels(self, sheet: Sheet) -> Iterator[tuple[Key, Label]]:
        return ((key, g.label) for key, givens in self.given(sheet).items() for g in givens)

    def set_given(self, sheet: Sheet, item: LabelItem, unit: str, labeller: str, given: Given | None) -> None:
        entries = [
            e for e in log.read(self.log.path) if not (e.key == item.key and e.unit == unit and e.labeller == labeller)
        ]
        if given is not None:
            label = given.label
            entries.append(
                log.Entry(item.number, item.key, unit, label.word, labeller, label.note, given.in_file, given.reviewed)
            )
        places = {i.key: (i.number, {u.id: n for n, u in enumerate(i.units)}) for i in sheet.items}

        def place(entry: log.Entry) -> tuple[int, int, str]:
            number, units = places.get(entry.key, (entry.item, {}))
            return number, units.get(entry.unit, len(units)), entry.labeller

        entries.sort(key=place)
        before = self.log.read()
        text = log.dumps(entries)
        if before is None and not entries:
            return
        if before is None or text != before.decode("utf-8"):
            self.log.write(text, before)

    def set_file(self, item: LabelItem, unit: str, label: Label | None) -> None:
        """The file's labels of the item as they are, with ``unit``'s made ``label`` and the log's waiting ones
        (given while the item was incomplete) added: what the format then holds of them is its to say."""
        data, doc, sheet = self._read()
        fresh = sheet.item(item.key)
        if fresh is None:
            return
        labels: dict[str, Label] = dict(fresh.labels)
        for entry in log.read(self.log.path):
            if entry.key == item.key and entry.file and entry.unit not in labels:
                labels[entry.unit] = Label(entry.label, entry.note, entry.labeller)
        if label is None:
            labels.pop(unit, None)
        else:
            labels[unit] = label
        edits = self.hook.write(doc, fresh, labels)
        if edits:
            self.target.write(apply_edits(doc.text, edits), data)


class TableStore:
    """Labels as rows of a labels file (docs/calibration.md's columns), each person's label a row of its own."""

    in_file = False

    def __init__(self, target: Target, config: Path) -> None:
        self.target = target
        self.config = os.path.relpath(os.path.realpath(config), target.path.parent)

    def paths(self) -> list[Path]:
        return [self.target.path]

    def _read(self) -> tuple[bytes | None, str, bool]:
        """The file's bytes as read (None: no file yet), its text, and whether it is JSON Lines."""
        data = self.target.read()
        return data, "" if data is None else data.decode("utf-8"), self.target.path.suffix.lower() == ".jsonl"

    def _table(self) -> tuple[bytes | None, table.Table]:
        data, text, jsonl = self._read()
        return data, table.read(text, jsonl)

    def rows(self) -> Iterator[table.Row]:
        """The file's rows one at a time (read for its labels, a large file is not held row by row)."""
        _data, text, jsonl = self._read()
        return table.rows_of(text, jsonl)

    def _names(self, item: LabelItem, unit_id: str) -> dict[str, str]:
        unit = item.unit(unit_id)
        return {**dict(item.fields), **(dict(unit.fields) if unit is not None else {})}

    def given(self, sheet: Sheet) -> dict[Key, list[Given]]:
        out: dict[Key, list[Given]] = {}
        for key, label, reviewed in self._rows_labels(sheet):
            out.setdefault(key, []).append(Given(label, True, reviewed))
        return out

    def labels(self, sheet: Sheet) -> Iterator[tuple[Key, Label]]:
        """A row at a time: a million-row labels file is never held."""
        return ((key, label) for key, label, _reviewed in self._rows_labels(sheet))

    def _rows_labels(self, sheet: Sheet) -> Iterator[tuple[Key, Label, str]]:
        """Every row's label, with its item and unit and the verdict it was reviewed against, one row at a time."""
        # Each row is the first item's first unit whose columns it holds (table.matches), found by lookup.
        units: table.RowIndex[Key] = table.RowIndex()
        for item in sheet.items:
            for unit in item.units:
                units.add({**item.fields, **unit.fields}, (item.key, unit.id))
        for row in self.rows():
            if row.fields.get("config") and os.path.normpath(row.fields["config"]) != os.path.normpath(self.config):
                continue
            key = units.first(row)
            if key is None:
                continue
            word = row.fields.get(table.VERDICT) or f"score {row.fields.get('score', '')}".strip()
            label = Label(word, row.fields.get(table.NOTE, ""), row.fields.get(table.LABELLER, ""))
            yield key, label, row.fields.get("reviewed", "")

    def set_file(self, item: LabelItem, unit: str, label: Label | None) -> None:
        return None  # a labels file holds each person's label as a row: set_given writes it

    def set_given(self, sheet: Sheet, item: LabelItem, unit: str, labeller: str, given: Given | None) -> None:
        data, rows = self._table()
        wanted = {**self._names(item, unit), table.LABELLER: labeller}
        values = None
        if given is not None:
            values = {"config": self.config, **wanted, table.VERDICT: given.label.word}
            if given.label.note:
                values[table.NOTE] = given.label.note
            if given.reviewed:
                values["reviewed"] = given.reviewed
        text = table.put(rows, wanted, values, ORDER)
        if text != rows.text:
            self.target.write(text, data)


def labels_of(givens: Mapping[Key, list[Given]]) -> dict[Key, Label]:
    """The reference label per unit and item: the one the file holds (else the first given)."""
    return {key: g[0].label for key, g in givens.items() if g}
