"""The labels log, ``<file>.labellers.jsonl``: who gave each label of a file that keeps its labels itself.

A labelled set's own list of labels holds one verdict per unit, with no word of who gave it; a second
person's verdicts (for their agreement with the first) and a half-labelled item (a format that reads no partial
list) have no place there. The log keeps every label given on the page, one line each, beside the file:

    {"item": 3, "key": "1f0c…", "unit": "politeness", "label": "Rude", "labeller": "ann", "note": "", "file": true}

``key`` is the item's content fingerprint (labels follow an item that moves), ``item`` its number when the
label was given (for a reader), ``file`` whether this label is the one the file holds (else a second
opinion). The lines are in the file's order of items and units, then by labeller, so the log diffs well;
it is rewritten whole and atomically on each change (``labelling/files.py``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from rubric_lsp.document.files import TooLarge, read_regular_text

SUFFIX = ".labellers.jsonl"
MAX_LOG_BYTES = 32 * 1024 * 1024


class LogError(ValueError):
    """A log that cannot be read; one line naming it and the line."""


@dataclass(frozen=True)
class Entry:
    item: int
    key: str
    unit: str
    label: str
    labeller: str
    note: str = ""
    file: bool = True  # the label the file holds (else a second opinion, kept here only)
    reviewed: str = ""  # the judge's verdict the label was kept against in a review of disagreements


def log_path(labelled: Path) -> Path:
    return labelled.with_name(labelled.name + SUFFIX)


def read(path: Path) -> list[Entry]:
    """The log's entries ([] when there is none); LogError naming the line that cannot be read."""
    try:
        text = read_regular_text(path, MAX_LOG_BYTES)
    except FileNotFoundError:
        return []
    except TooLarge:
        raise LogError(f"{path}: larger than {MAX_LOG_BYTES // (1024 * 1024)} MiB: not a labels log") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LogError(f"cannot read the labels log {path}: {exc}") from None
    entries = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
            entry = Entry(
                item=int(value["item"]),
                key=str(value["key"]),
                unit=str(value["unit"]),
                label=str(value["label"]),
                labeller=str(value.get("labeller") or ""),
                note=str(value.get("note") or ""),
                file=bool(value.get("file", True)),
                reviewed=str(value.get("reviewed") or ""),
            )
        except (ValueError, KeyError, TypeError, RecursionError):
            raise LogError(f"{path} line {number}: not a labels log entry (item, key, unit, label)") from None
        entries.append(entry)
    return entries


def dumps(entries: list[Entry]) -> str:
    return "".join(json.dumps(_line(e), ensure_ascii=False) + "\n" for e in entries)


def _line(entry: Entry) -> dict[str, object]:
    line = asdict(entry)
    if not entry.reviewed:
        del line["reviewed"]
    return line
