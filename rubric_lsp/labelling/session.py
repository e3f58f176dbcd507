"""A labelling session: one file, one labeller, one item at a time (docs/labelling.md).

The session is what the page (``page/server.py``) and the editor talk to, in plain JSON-able dicts. Every
answer reads the file from disk again, applies the label as the format's minimal edit and writes it
atomically (``stores.py``), so a page closed at any moment loses nothing and a second run resumes where the
first stopped: the labels themselves say what is done. Undo withdraws the session's own changes, last first.

**Blind**: a grading's verdict and reason on a unit (``Sheet.judged``) and other people's labels of it are
left out of the state until this labeller has answered that unit (``Options.blind``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rubric_lsp.document import Document, parse_document
from rubric_lsp.document.files import read_regular
from rubric_lsp.formats import registry
from rubric_lsp.labelling import links, planning, sources, table
from rubric_lsp.labelling.files import Target
from rubric_lsp.labelling.hook import JudgeSaid, Label, LabelItem, LabelUnit, Sheet
from rubric_lsp.labelling.sources import LabellingError, labelling_hook
from rubric_lsp.labelling.stores import FileStore, Given, Key, Store, TableStore

MAX_NOTE_CHARS = 2000


@dataclass
class Options:
    labeller: str
    blind: bool = True  # the judge's verdicts hidden until answered
    again: bool = False  # label what others labelled too (a second opinion for their agreement)
    labels: Path | None = None  # the labels file of a file of units (-o)
    sources: tuple[Path, ...] = ()  # --from: gradings and the owner's results
    kind: str | None = None
    width: float = planning.TARGET_HALF_WIDTH
    page: bool = True  # False: read for its labels only (people.agreement): no item is chosen to show first


@dataclass
class _Action:
    """One change, as undo takes it back."""

    key: str
    unit: str
    before: Given | None  # this labeller's label before
    wrote_file: bool = False
    file_before: Label | None = None  # the file's label before, when the change made it another
    displaced: tuple[str, Given] | None = None  # another labeller's file label that became a second opinion


@dataclass
class _Loaded:
    data: bytes | None
    doc: Document
    sheet: Sheet
    given: dict[Key, list[Given]] = field(default_factory=dict)


class Session:
    def __init__(self, path: Path, options: Options) -> None:
        self.path = Path(path)
        self.options = options
        self.target = Target.of(self.path)
        self._lock = threading.RLock()  # the page serves several requests at once
        self._undo: list[_Action] = []
        data = self._read_bytes()
        doc = parse_document(data.decode("utf-8", errors="replace"), str(self.path))
        if not doc.readable:
            raise LabellingError(f"{self.path} cannot be read as YAML or JSON: fix it first (rubric lint says where)")
        fmt = registry.detect(doc, options.kind)
        hook = labelling_hook(fmt) if fmt is not None else None
        if fmt is None or hook is None:
            what = f"a {fmt.title}" if fmt is not None else "no kind of file rubric-lsp knows"
            raise LabellingError(f"{self.path} is {what}: rubric label takes files whose items or units it can label")
        self.format, self.hook = fmt, hook
        self.sources = [sources.read_source(hook, doc, p, self.path) for p in options.sources]
        in_file = hook.sheet(doc).in_file
        if in_file:
            if options.labels is not None:
                raise LabellingError(f"{self.path} keeps its labels itself: -o names a labels file for a file of units")
            self.store: Store = FileStore(self.target, hook, self._read_file)
        else:
            if options.labels is None:
                raise LabellingError(
                    f"{self.path} holds units, not labels: name the labels file to write with -o LABELS.csv (or .jsonl)"
                )
            if options.labels.suffix.lower() not in (".csv", ".jsonl"):
                raise LabellingError(f"{options.labels}: a labels file is .csv or .jsonl")
            self.store = TableStore(Target.of(options.labels), self.path)
        self.current: str | None = None
        self.imported = self._import_found()
        if options.page:  # (a reading of every label: a million-row labels file's is seconds and its rows' memory)
            self.current = self._next_key(self._load(), None)

    # -- reading ---------------------------------------------------------------------------------
    def _read_bytes(self) -> bytes:
        try:
            return read_regular(self.target.path)
        except OSError as exc:
            raise LabellingError(f"cannot read {self.path}: {exc.strerror or exc}") from None

    def _read_file(self) -> tuple[bytes | None, Document, Sheet]:
        data = self._read_bytes()
        doc = parse_document(data.decode("utf-8", errors="replace"), str(self.target.path))
        return data, doc, self.hook.sheet(doc)

    def _load(self) -> _Loaded:
        data, doc, sheet = self._sheet()
        return _Loaded(data, doc, sheet, self.store.given(sheet))

    def _sheet(self) -> tuple[bytes | None, Document, Sheet]:
        """The labelled file and its items (the sources', and a labels file's rows typed by hand, among them)."""
        data, doc, sheet = self._read_file()
        for source in self.sources:  # a file of units: the items the sources graded; every source's verdicts
            known = {item.key for item in sheet.items}
            sheet.items += [item for item in source.items if item.key not in known]
            sheet.judged.update(source.judged)
            sheet.notes += [n for n in source.notes if n not in sheet.notes]
        if isinstance(self.store, TableStore):
            self._rows_as_items(doc, sheet)
        return data, doc, sheet

    def _rows_as_items(self, doc: Document, sheet: Sheet) -> None:
        """A labels file's rows whose outputs no source holds become items too (rows typed by hand)."""
        assert isinstance(self.store, TableStore)
        known: table.RowIndex[bool] = table.RowIndex(strip=False)  # the items so far, by their columns
        keys = set()
        for existing in sheet.items:
            known.add(existing.fields, True)
            keys.add(existing.key)
        for row in self.store.rows():
            if known.first(row):
                continue
            item = self.hook.item_for(doc, row.fields, len(sheet.items) + 1)
            if item is not None and item.key not in keys:
                sheet.items.append(item)
                known.add(item.fields, True)
                keys.add(item.key)

    def _import_found(self) -> int:
        """Labels a source already holds (the thumbs a person gave in the owner's viewer) written to the store,
        unless a label of that unit of that item is there already; how many."""
        found = {key: label for source in self.sources for key, label in source.found.items()}
        if not found:
            return 0
        loaded = self._load()
        count = 0
        for (item_key, unit_id), label in found.items():
            item = loaded.sheet.item(item_key)
            if item is None or loaded.given.get((item_key, unit_id)):
                continue
            who = label.labeller or self.options.labeller
            self.store.set_given(loaded.sheet, item, unit_id, who, Given(replace(label, labeller=who)))
            count += 1
        return count

    # -- what is done ----------------------------------------------------------------------------
    def _mine(self, givens: list[Given]) -> Given | None:
        return next((g for g in givens if g.label.labeller == self.options.labeller), None)

    def _done(self, loaded: _Loaded, key: Key) -> bool:
        givens = loaded.given.get(key, [])
        if self._mine(givens) is not None:
            return True
        return not self.options.again and any(g.in_file for g in givens)

    def _todo(self, loaded: _Loaded, item: LabelItem) -> list[LabelUnit]:
        return [u for u in item.units if not self._done(loaded, (item.key, u.id))]

    def _next_key(self, loaded: _Loaded, after: str | None) -> str | None:
        queue = self._queue(loaded)
        keys = [entry["key"] for entry in queue if entry["key"] != after]
        return keys[0] if keys else after

    def _queue(self, loaded: _Loaded) -> list[dict[str, Any]]:
        pending = [item for item in loaded.sheet.items if self._todo(loaded, item)]
        return planning.order(pending, loaded.sheet, loaded.given)

    # -- changes -----------------------------------------------------------------------------------
    def answer(self, key: str, unit_id: str, word: str, note: str = "") -> dict[str, Any]:
        """This labeller's ``word`` (one of the unit's choices) for ``unit_id`` on item ``key``."""
        with self._lock:
            loaded = self._load()
            item, unit = self._unit(loaded, key, unit_id)
            if unit.choice(word) is None:
                choices = ", ".join(c.word for c in unit.choices)
                raise LabellingError(f"{word!r} is not a verdict of {unit.id!r} (it takes {choices})")
            label = Label(word, _note(note), self.options.labeller)
            self._set(loaded, item, unit_id, label, take_file=False)
            self.current = key
            return self.state()

    def change(self, key: str, unit_id: str, word: str) -> dict[str, Any]:
        """Review: the person erred; the label the file holds becomes ``word``, given by this labeller."""
        with self._lock:
            loaded = self._load()
            item, unit = self._unit(loaded, key, unit_id)
            if unit.choice(word) is None:
                raise LabellingError(f"{word!r} is not a verdict of {unit.id!r}")
            mine = self._mine(loaded.given.get((key, unit_id), []))
            note = mine.label.note if mine is not None else ""
            self._set(loaded, item, unit_id, Label(word, note, self.options.labeller), take_file=True)
            return self.state()

    def keep(self, key: str, unit_id: str) -> dict[str, Any]:
        """Review: the judge erred; this labeller's label stays, marked as kept against the judge's verdict."""
        with self._lock:
            loaded = self._load()
            item, _unit = self._unit(loaded, key, unit_id)
            givens = loaded.given.get((key, unit_id), [])
            said = loaded.sheet.judged.get((key, unit_id))
            held = self._reviewable(givens)
            if held is None or said is None or said.verdict is None:
                raise LabellingError("there is no disagreement with the judge to keep on that unit")
            before = self._mine(givens)
            kept = Given(replace(held.label, labeller=self.options.labeller), held.in_file, said.verdict)
            self.store.set_given(loaded.sheet, item, unit_id, self.options.labeller, kept)
            self._undo.append(_Action(key, unit_id, before))
            return self.state()

    def _set(self, loaded: _Loaded, item: LabelItem, unit_id: str, label: Label, take_file: bool) -> None:
        """This labeller's ``label``; it becomes the file's when the file holds none or theirs, or when
        ``take_file`` (a review's change), the label it replaces staying its giver's second opinion."""
        givens = loaded.given.get((item.key, unit_id), [])
        before = self._mine(givens)
        held = next((g for g in givens if g.in_file), None)
        theirs = held is not None and held.label.labeller != self.options.labeller
        to_file = self.store.in_file and (held is None or not theirs or take_file)
        action = _Action(item.key, unit_id, before, wrote_file=to_file)
        if to_file and held is not None:
            action.file_before = held.label
            if theirs:  # never lost: the replaced label stays its giver's, as a second opinion
                action.displaced = (held.label.labeller, held)
                self.store.set_given(loaded.sheet, item, unit_id, held.label.labeller, replace(held, in_file=False))
        mine = Given(label, to_file or not self.store.in_file)
        self.store.set_given(loaded.sheet, item, unit_id, self.options.labeller, mine)
        if to_file:
            self.store.set_file(item, unit_id, label)
        self._undo.append(action)

    def undo(self) -> dict[str, Any]:
        """Take back this session's last change (a label, a change, a kept label)."""
        with self._lock:
            if not self._undo:
                raise LabellingError("nothing to undo")
            action = self._undo.pop()
            loaded = self._load()
            item = loaded.sheet.item(action.key)
            if item is None:
                raise LabellingError("the item of the last change is no longer in the file; nothing undone")
            self.store.set_given(loaded.sheet, item, action.unit, self.options.labeller, action.before)
            if action.displaced is not None:
                who, given = action.displaced
                self.store.set_given(loaded.sheet, item, action.unit, who, given)
            if action.wrote_file:
                self.store.set_file(item, action.unit, action.file_before)
            self.current = action.key
            return self.state()

    def go(self, key: str | None = None) -> dict[str, Any]:
        """Show item ``key``, or the next item with something left to label."""
        with self._lock:
            loaded = self._load()
            if key is not None and loaded.sheet.item(key) is None:
                raise LabellingError("no such item in the file now")
            self.current = key if key is not None else self._next_key(loaded, self.current)
            return self.state()

    def _unit(self, loaded: _Loaded, key: str, unit_id: str) -> tuple[LabelItem, LabelUnit]:
        item = loaded.sheet.item(key)
        if item is None:
            raise LabellingError("that item is no longer in the file (it changed on disk): the page shows it now")
        unit = item.unit(unit_id)
        if unit is None:
            raise LabellingError(f"item {item.number} has no unit {unit_id!r}")
        return item, unit

    def _reviewable(self, givens: list[Given]) -> Given | None:
        """The label a review of this labeller weighs against the judge: theirs, else one given before any log."""
        return self._mine(givens) or next((g for g in givens if g.in_file and not g.label.labeller), None)

    # -- what the page shows -----------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        with self._lock:
            loaded = self._load()
            sheet = loaded.sheet
            units = [(item, u) for item in sheet.items for u in item.units]
            done = sum(self._done(loaded, (item.key, u.id)) for item, u in units)
            item = sheet.item(self.current) if self.current else None
            return {
                "file": self.path.name,
                "format": self.format.title,
                "labeller": self.options.labeller,
                "blind": self.options.blind,
                "again": self.options.again,
                "writes": [str(p) for p in self.store.paths()],
                "progress": {"done": done, "total": len(units), "items": len(sheet.items)},
                "item": None if item is None else self._item_state(loaded, item),
                "queue": self._queue(loaded)[:50],
                "figures": planning.figures(sheet, loaded.given, self.options.width),
                "can_undo": bool(self._undo),
                "imported": self.imported,
                "notes": sheet.notes,
            }

    def _item_state(self, loaded: _Loaded, item: LabelItem) -> dict[str, Any]:
        units = []
        for unit in item.units:
            givens = loaded.given.get((item.key, unit.id), [])
            mine = self._mine(givens)
            answered = mine is not None or (not self.options.again and any(g.in_file for g in givens))
            shown = answered or not self.options.blind
            said = loaded.sheet.judged.get((item.key, unit.id))
            units.append(
                {
                    "id": unit.id,
                    "title": unit.title,
                    "noun": unit.noun,
                    "choices": [{"word": c.word, "meaning": c.meaning, "hint": c.hint} for c in unit.choices],
                    "label": None if mine is None else {"word": mine.label.word, "note": mine.label.note},
                    "held": _held(givens, mine) if shown else None,
                    "others": [
                        {"word": g.label.word, "labeller": g.label.labeller, "note": g.label.note}
                        for g in givens
                        if g is not mine and g.label.labeller != self.options.labeller
                    ]
                    if shown
                    else [],
                    "judge": _judge(said) if shown and said is not None else None,
                    "judged": said is not None,
                    "open": links.unit_links(self.target.path, loaded.doc, unit),
                }
            )
        return {
            "key": item.key,
            "number": item.number,
            "title": item.title,
            "inputs": [{"name": p.name, "text": p.text} for p in item.inputs],
            "response": item.response,
            "units": units,
            "open": links.item_links(self.target.path, loaded.doc, item),
        }

    def labels_by_unit(self) -> dict[str, tuple[LabelUnit, dict[str, dict[str, str]]]]:
        """Every label given with who gave it, by calibration unit: unit id → (the unit, labeller → item key →
        word); labels of nobody in particular (given before any log) left out: what people's agreement is
        measured on."""
        with self._lock:
            _data, _doc, sheet = self._sheet()
            units = {unit.id: unit for item in sheet.items for unit in item.units}
            out: dict[str, tuple[LabelUnit, dict[str, dict[str, str]]]] = {}
            # One label at a time (a labels file's million rows need not be held), in ``given``'s order: the last
            # of a labeller's on an item counts.
            for (item_key, unit_id), label in self.store.labels(sheet):
                if label.labeller and unit_id in units:
                    raters = out.setdefault(unit_id, (units[unit_id], {}))[1]
                    raters.setdefault(label.labeller, {})[item_key] = label.word
            return out

    def review(self) -> dict[str, Any]:
        """The units where this labeller's label (or one given before any log) and the judge's verdict differ."""
        with self._lock:
            loaded = self._load()
            rows = []
            for item in loaded.sheet.items:
                for unit in item.units:
                    said = loaded.sheet.judged.get((item.key, unit.id))
                    held = self._reviewable(loaded.given.get((item.key, unit.id), []))
                    if said is None or said.verdict is None or held is None or held.label.word == said.verdict:
                        continue
                    rows.append(
                        {
                            "key": item.key,
                            "number": item.number,
                            "title": item.title,
                            "response": item.response,
                            "unit": {
                                "id": unit.id,
                                "title": unit.title,
                                "choices": [{"word": c.word, "meaning": c.meaning} for c in unit.choices],
                                "open": links.unit_links(self.target.path, loaded.doc, unit),
                            },
                            "label": {
                                "word": held.label.word,
                                "note": held.label.note,
                                "labeller": held.label.labeller,
                            },
                            "judge": _judge(said),
                            "kept": held.reviewed == said.verdict,
                        }
                    )
            return {"disagreements": rows, "can_undo": bool(self._undo)}


def _note(note: str) -> str:
    note = " ".join(str(note).split())
    return note[:MAX_NOTE_CHARS]


def _held(givens: list[Given], mine: Given | None) -> dict[str, Any] | None:
    """The label the file holds, when it is not this labeller's own."""
    held = next((g for g in givens if g.in_file), None)
    if held is None or held is mine:
        return None
    return {"word": held.label.word, "labeller": held.label.labeller, "note": held.label.note}


def _judge(said: JudgeSaid) -> dict[str, Any]:
    return {
        "verdict": said.verdict,
        "reason": said.reason,
        "votes": list(said.votes),
        "score": said.score,
        "threshold": said.threshold,
    }
