"""What a format tells labelling (``Format.labelling``): its items, its units in its own verdict words, where
a label is written, and what a grading said of each (docs/labelling.md).

The page, the ``rubric label`` command and the editor's label features read a format only through this:
they never read a verdict word to decide what it means. Two kinds of format:

- **in the file** (``Sheet.in_file``): the labelled file holds its labels itself (a dataset's list of
  verdicts per item, a task's ratings per response); :meth:`LabellingHook.write` gives the minimal text edits that
  make an item's labels what the labeller gave;
- **in a labels file** (a config of tests, a request of graders): the file holds units, not outputs; the items come from a
  grading's or the owner's own results (:meth:`LabellingHook.read_source`) or from a labels file's rows
  (:meth:`LabellingHook.item_for`), and each label is a row of a labels file (``labelling/table.py``) whose
  columns (``LabelItem.fields`` and ``LabelUnit.fields``) are docs/calibration.md's.

A format module declares ``LABELLING: LabellingHook = …`` so that mypy checks it against the protocol.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # types only
    from rubric_lsp.document import Document
    from rubric_lsp.document.issues import TextEdit
    from rubric_lsp.document.positions import Span

# What a choice means, for colour and for the figures (never read off its word): a pass, a fail, an
# abstention, or one option of a multi-choice scale.
PASS, FAIL, ABSTAIN, OPTION = "pass", "fail", "abstain", "option"
KEY_DIGITS = 12


@dataclass(frozen=True)
class Choice:
    """One verdict a person can give a unit, in the format's own word (a verdict, ``pass``, an option's label)."""

    word: str
    meaning: str = OPTION  # PASS, FAIL, ABSTAIN or OPTION
    hint: str = ""  # what it means, when the word alone does not say


@dataclass(frozen=True)
class LabelUnit:
    """A unit a person labels on an item: a criterion, an assertion, a grader."""

    id: str  # the calibration unit's id: what a record and ``rubric calibrate`` name it
    title: str  # what it asks, as written
    choices: tuple[Choice, ...]
    noun: str = "criterion"  # "criterion", "assertion", "grader": how the page names it
    where: Span | None = None  # where it is written, in ``path`` (None: the labelled file)
    path: str | None = None  # the file it is written in, when not the labelled one
    fields: Mapping[str, str] = field(default_factory=dict)  # labels-file columns naming it (assertion, grader)
    ordinal: bool = False  # its options are a scale in order (κ weighs near misses less)
    group: str | None = None  # units the page's figures pool (one assertion of a defaultTest, one per test)

    def choice(self, word: str) -> Choice | None:
        return next((c for c in self.choices if c.word == word), None)


@dataclass(frozen=True)
class Part:
    """One piece of what an item's response answers: its prompt, a conversation turn, a var."""

    name: str
    text: str


@dataclass(frozen=True)
class Label:
    """A person's verdict on one unit of one item."""

    word: str
    note: str = ""
    labeller: str = ""  # who gave it ("": not recorded, a label the file held before any log)


@dataclass(frozen=True)
class Slot:
    """Where one unit's label of an item is written in the file (the editor's hover, inlay hint, completion)."""

    unit: LabelUnit
    span: Span  # the entry holding it


@dataclass
class LabelItem:
    """One thing to label: a response, what it answers, and the units to label on it."""

    key: str  # stable while its content is: a fingerprint of what is labelled (``item_key``)
    number: int  # 1-based, as a person counts the items
    title: str  # its description
    inputs: list[Part]
    response: str
    units: list[LabelUnit]
    labels: dict[str, Label] = field(default_factory=dict)  # unit id → what the file holds now
    span: Span | None = None  # where it is written in the labelled file
    slots: list[Slot] = field(default_factory=list)
    label_list: Span | None = None  # where its labels are listed (a completion inside it names the next unit)
    fields: Mapping[str, str] = field(default_factory=dict)  # labels-file columns naming it (config, test, output)

    def unit(self, unit_id: str) -> LabelUnit | None:
        return next((u for u in self.units if u.id == unit_id), None)


@dataclass(frozen=True)
class JudgeSaid:
    """What a grading said of one unit of one item: shown once the person has answered."""

    verdict: str | None  # its word (None: the judgment failed)
    reason: str = ""
    votes: tuple[str, ...] = ()  # several judges or repeated asks: each one's word
    score: float | None = None  # the score behind the verdict, where a threshold decides it
    threshold: float | None = None


@dataclass
class Sheet:
    """A file's items as labelling sees them."""

    items: list[LabelItem]
    in_file: bool  # labels are written into the file itself (else into a labels file)
    judged: dict[tuple[str, str], JudgeSaid] = field(default_factory=dict)  # (item key, unit id) → the grading's
    found: dict[tuple[str, str], Label] = field(default_factory=dict)  # labels a source already holds (thumbs)
    notes: list[str] = field(default_factory=list)  # what a source held that is not taken, and why

    def item(self, key: str) -> LabelItem | None:
        return next((i for i in self.items if i.key == key), None)


class SourceError(ValueError):
    """A ``--from`` source that cannot be read, in one line naming it."""


@runtime_checkable
class LabellingHook(Protocol):
    """A format's part in labelling (the module docstring)."""

    def sheet(self, doc: Document) -> Sheet:
        """The file's items with the labels it holds now (in-file formats), with their slots; a file of
        units only (a config of tests, a request of graders) gives no items and ``in_file`` False."""
        ...

    def write(self, doc: Document, item: LabelItem, labels: Mapping[str, Label]) -> list[TextEdit]:
        """Minimal edits making ``doc`` hold exactly ``labels`` for ``item`` (unit id → label; a unit left out
        is unlabelled): what the format can hold (a list it needs whole is written when whole, else removed)."""
        ...

    def read_source(self, doc: Document, data: Any, path: Path) -> Sheet | None:
        """What a ``--from`` source (``data``: its JSON) says about ``doc``: a grading's verdicts per item and
        unit, and for a file of units the items it graded and the labels it already holds; None when the
        source is not one this format reads. SourceError when it is but cannot be used."""
        ...

    def item_for(self, doc: Document, fields: Mapping[str, str], number: int) -> LabelItem | None:
        """The item a labels file's row names (``fields``: its columns), for a file of units; None when the
        row names none of ``doc``'s (another config's row, a unit that does not exist)."""
        ...


@dataclass(frozen=True)
class Labelling:
    """A :class:`LabellingHook` made of a format's four module functions (what ``Format.labelling`` names)."""

    sheet: Callable[[Document], Sheet]
    write: Callable[[Document, LabelItem, Mapping[str, Label]], list[TextEdit]]
    read_source: Callable[[Document, Any, Path], Sheet | None]
    item_for: Callable[[Document, Mapping[str, str], int], LabelItem | None]


def item_keys(contents: Sequence[Any]) -> list[str]:
    """Each item's key from what is labelled of it (its response and what it answers, JSON-able): a fingerprint,
    so labels follow an item that moves; the second item with the same content gets ``-2``, and so on."""
    seen: Counter[str] = Counter()
    keys = []
    for content in contents:
        text = json.dumps(content, sort_keys=True, ensure_ascii=False, default=str)
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:KEY_DIGITS]
        seen[digest] += 1
        keys.append(digest if seen[digest] == 1 else f"{digest}-{seen[digest]}")
    return keys
