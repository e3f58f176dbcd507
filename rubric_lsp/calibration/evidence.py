"""A calibration record's evidence: per unit, the paired observations its figures were computed from.

Each labelled item graded is one line, ``"<item> <label> <truth> <verdict>…"``: the fingerprint of what the
judge read of the item (its response, its question: never its text), a short fingerprint of the human label as
written, the label's category and each column's verdict (positions in the unit's ``scale``; ``!`` a failed ask,
``-`` not asked, ``?`` a label that is no category); identical lines are written once, ending ``*N`` for the N items
they stand for (a labels file's rows that label one output alike), so a million rows of a thousand outputs are
a few thousand lines. Its columns are the record's judge, then each ``--repeat``
ask, then each judge of a panel alone. The record's figures are computed from these lines
(:func:`figures_of`), and so are they again wherever the record is trusted (``rubric grade
--require-calibrated``, RL020, the hover): a figure block that does not follow from its evidence is a damaged
record, and evidence whose items or labels are not the labelled set's now (:func:`label_changes`) is stale.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rubric_lsp.calibration import record
from rubric_lsp.calibration.units import Labelled, UnitSamples, figures, raters_agreement

ITEM_DIGITS = 16
LABEL_DIGITS = 8
FAILED, NOT_ASKED, NO_CATEGORY = "!", "-", "?"
MAX_COLUMNS = 400  # 20 asks × 20 judges: more is no record of ours
REPEAT = "*"  # a line's last part ``*N``: it stands for N items (rows of a labels file with one output and label)
MAX_ITEMS = 10_000_000  # items a unit's evidence may stand for: more is no record of ours (nor memory to read it)


class Damaged(ValueError):
    """Evidence that cannot be read, or figures that do not follow from it; the message says which."""


def item_mark(value: Any) -> str:
    """What identifies a labelled item: a fingerprint of what the judge reads of it (never its label)."""
    return _fingerprint(value)[:ITEM_DIGITS]


def label_mark(value: Any) -> str:
    """A short fingerprint of a human label as written (a verdict, a score, an option, a pick)."""
    return _fingerprint(value)[:LABEL_DIGITS]


def _fingerprint(value: Any) -> str:
    """``record.fingerprint(value)``, remembered for a mapping or sequence of strings (and None): a labels file's
    rows repeat their outputs, labels and keys, and each row was marked thrice (~30 µs a row, issue 36)."""
    key = _strings_key(value)
    return record.fingerprint(value) if key is None else _remembered(key)


def _strings_key(value: Any) -> tuple[str, tuple[Any, ...]] | None:
    """``value`` as a hashable key that only an equal value has (str and None only: JSON tells ``1`` from
    ``True`` and Python's equality does not), or None."""
    if isinstance(value, dict):
        if all(type(k) is str and (v is None or type(v) is str) for k, v in value.items()):
            return "object", tuple(sorted(value.items()))  # (keys differ: no two values are compared)
    elif isinstance(value, (list, tuple)) and all(v is None or type(v) is str for v in value):
        return "array", tuple(value)
    return None


@functools.lru_cache(maxsize=1 << 16)
def _remembered(key: tuple[str, tuple[Any, ...]]) -> str:
    kind, parts = key
    return record.fingerprint(dict(parts) if kind == "object" else list(parts))


def column(ask: int, model: str | None = None) -> dict[str, Any]:
    """A column's name: the ``ask``-th pass of the record's judge (``model`` None) or of one judge of a panel alone."""
    return {"ask": ask} if model is None else {"ask": ask, "judge": model}


def build(columns: Sequence[tuple[dict[str, Any], UnitSamples]]) -> dict[str, Any]:
    """The evidence of one unit from its passes (``columns``: the record's judge's first pass first)."""
    first = columns[0][1]
    scale = list(dict.fromkeys([*first.categories, *first.names]))
    index: dict[Any, int] = {category: i for i, category in enumerate(scale)}

    def at(category: Any) -> str:
        if category not in index:  # a verdict or a label outside the scale the format named: kept, not lost
            index[category] = len(scale)
            scale.append(category)
        return str(index[category])

    counts: dict[str, int] = {}  # each distinct line and how many items it stands for, in the items' order
    for item in sorted(first.labelled):
        seen = first.labelled[item]
        truth = NO_CATEGORY if seen.truth is None else at(seen.truth)
        verdicts = [
            NOT_ASKED if item not in unit.judged else FAILED if unit.judged[item] is None else at(unit.judged[item])
            for _, unit in columns
        ]
        line = " ".join([seen.item, seen.label, truth, *verdicts])
        counts[line] = counts.get(line, 0) + 1
    lines = [line if n == 1 else f"{line} {REPEAT}{n}" for line, n in counts.items()]
    data: dict[str, Any] = {
        "scale": [first.names.get(c, str(c)) for c in scale],
        "compared": len(first.categories),
        "columns": [name for name, _ in columns],
        "items": lines,
    }
    if first.positive is not None:
        data["positive"] = index.get(first.positive)
    keys = sorted({seen.key for seen in first.labelled.values() if seen.key})
    if keys:
        data["keys"] = keys
    return data


@dataclass(frozen=True)
class Row:
    item: str
    label: str
    truth: int | None  # None: no category
    verdicts: tuple[int | str, ...]  # a position, FAILED or NOT_ASKED


def rows_of(evidence: Any) -> list[Row]:
    """The evidence's lines read back; Damaged when they are not evidence of ours."""
    if not isinstance(evidence, Mapping):
        raise Damaged("its evidence is not an object")
    scale, columns, lines = evidence.get("scale"), evidence.get("columns"), evidence.get("items")
    compared = evidence.get("compared")
    if not (isinstance(scale, list) and isinstance(columns, list) and isinstance(lines, list)):
        raise Damaged("its evidence has no scale, columns and items")
    if not columns or len(columns) > MAX_COLUMNS or not all(isinstance(c, Mapping) for c in columns):
        raise Damaged("its evidence's columns are not the judges' asks")
    if not isinstance(compared, int) or isinstance(compared, bool) or not 0 < compared <= len(scale):
        raise Damaged("its evidence's scale is not a scale")
    truths: dict[str, int | None] = {str(i): i for i in range(len(scale))}
    verdicts: dict[str, int | str] = {str(i): i for i in range(len(scale))}
    verdicts.update({FAILED: FAILED, NOT_ASKED: NOT_ASKED})
    truths[NO_CATEGORY] = None
    width = 3 + len(columns)
    rows: list[Row] = []
    for number, line in enumerate(lines, 1):
        parts = line.split(" ") if isinstance(line, str) else []
        times = _repeats(parts, width)
        if len(parts) != width or times is None:
            raise Damaged(f"its evidence's item {number} is not '<item> <label> <truth> <verdict>…'")
        if len(rows) + times > MAX_ITEMS:
            raise Damaged(f"its evidence holds more than {MAX_ITEMS:,} items")
        try:
            row = Row(parts[0], parts[1], truths[parts[2]], tuple(verdicts[p] for p in parts[3:]))
        except KeyError:
            raise Damaged(f"its evidence's item {number} names a category its scale does not have") from None
        rows.extend([row] * times)  # one object shared by the items a line stands for
    return rows


def _repeats(parts: list[str], width: int) -> int | None:
    """How many items a line stands for (its last part ``*N``, popped; else 1); None when ``*N`` is no count."""
    if len(parts) != width + 1 or not parts[-1].startswith(REPEAT):
        return 1
    count = parts.pop()[1:]
    if not (count.isascii() and count.isdigit() and len(count) <= 9 and int(count) >= 2):
        return None
    return int(count)


def samples(evidence: Mapping[str, Any], rows: Sequence[Row], kind: str, col: int = 0) -> UnitSamples:
    """One column of the evidence as the figures take it: the pairs where neither side abstained, the
    abstentions and this column's failed asks (categories are scale positions; the first ``compared`` are
    the scale's, the rest abstentions)."""
    compared = evidence["compared"]
    names = {i: str(name) for i, name in enumerate(evidence["scale"])}
    pairs: list[tuple[Any, Any]] = []
    abstained = {"both": 0, "judge_only": 0, "truth_only": 0}
    failed = 0
    judged: dict[int, Any] = {}
    for number, row in enumerate(rows):
        verdict = row.verdicts[col]
        if not isinstance(verdict, int):
            if verdict == FAILED:
                failed += 1
                judged[number] = None
            continue
        judged[number] = verdict
        if row.truth is None:
            continue
        truth_abstains, judge_abstains = row.truth >= compared, verdict >= compared
        if truth_abstains or judge_abstains:
            abstained[
                "both" if truth_abstains and judge_abstains else "judge_only" if judge_abstains else "truth_only"
            ] += 1
        else:
            pairs.append((row.truth, verdict))
    positive = evidence.get("positive")
    return UnitSamples(
        id="",
        title="",
        kind=kind,
        text=None,
        prompt="",
        categories=tuple(range(compared)),
        names=names,
        positive=positive if kind == "binary" else None,
        pairs=pairs,
        abstained=abstained,
        failed=failed,
        judged=judged,
    )


@dataclass(frozen=True)
class Derived:
    """What a unit's evidence says: its figures against the labels, every failed ask, and why it is ambiguous."""

    figures: dict[str, Any]
    failed: int  # every failed ask, of every column
    ambiguous: tuple[tuple[str, str], ...]  # (short, in full), as every face words them
    rows: tuple[Row, ...]


def figures_of(evidence: Mapping[str, Any], kind: str, thresholds: Mapping[str, Any] | None) -> Derived:
    """The figures of a unit from its evidence alone (Damaged when it is not evidence of ours).

    ``thresholds``: the agreement below which the judge's asks (``"self"``) or the panel's judges
    (``"judges"``) make the unit ambiguous, as the record says them (None: ambiguity is not asked; a
    threshold missing or not a share where the evidence has several asks or judges is a damaged record)."""
    rows = rows_of(evidence)
    columns = list(evidence["columns"])
    data = figures(samples(evidence, rows, kind), corrected_interval=thresholds is None)
    failed = sum(v == FAILED for row in rows for v in row.verdicts)
    data["failed"] = failed
    own = [i for i, c in enumerate(columns) if "judge" not in c]
    panel = [i for i, c in enumerate(columns) if "judge" in c and c.get("ask") == 1]
    ambiguous: list[tuple[str, str]] = []
    if thresholds is None:
        return Derived(data, failed, (), tuple(rows))
    if len(own) > 1:
        share = _unanimous(rows, own, evidence, kind)
        limit = _threshold(thresholds, "self")
        if share is not None and share < limit:
            ambiguous.append(
                (
                    "the judge disagrees with itself",
                    f"the judge agreed with itself on {share:.2f} of the items over {len(own)} asks (below {limit})",
                )
            )
    if len(panel) > 1:
        share = _unanimous(rows, panel, evidence, kind)
        limit = _threshold(thresholds, "judges")
        models = [str(columns[i]["judge"]) for i in panel]
        if share is not None and share < limit:
            every = "all " if len(models) > 2 else ""
            ambiguous.append(
                (
                    "its judges disagree",
                    f"its judges ({', '.join(models)}) {every}agreed on {share:.2f} of the items (below {limit})",
                )
            )
    return Derived(data, failed, tuple(ambiguous), tuple(rows))


def _threshold(thresholds: Mapping[str, Any], which: str) -> float:
    value = thresholds.get(which)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= 1:
        asked = "asks" if which == "self" else "judges"
        raise Damaged(f"its evidence holds several {asked} but it names no agreement threshold for them")
    return float(value)


def _unanimous(rows: Sequence[Row], cols: Sequence[int], evidence: Mapping[str, Any], kind: str) -> float | None:
    raters = [samples(evidence, rows, kind, c) for c in cols]
    share = raters_agreement(raters, 2.0)["unanimous"]["value"]
    return None if share is None else float(share)


# -- checking a record's figures against its evidence ------------------------------------------------------
CHECKED = (("labels",), ("accuracy", "successes"), ("accuracy", "n"), ("kappa", "value"), ("failed",))


def mismatch(recorded: Any, derived: Derived) -> str | None:
    """Why a record's figures are not those its evidence gives (None: they are), in a few words."""
    if not isinstance(recorded, Mapping):
        return "it has no figures"
    for path in CHECKED:
        then, now = _at(recorded, path), _at(derived.figures, path)
        if isinstance(now, float) or isinstance(then, float):
            same = (
                isinstance(then, (int, float))
                and not isinstance(then, bool)
                and now is not None
                and abs(then - now) <= 10**-record.DIGITS
            )
        else:
            same = then == now and type(then) is type(now)
        if not same:
            name = ".".join(path)
            return f"its {name} is {_shown(then)} where its evidence gives {_shown(now)}"
    return None


def _at(data: Any, path: Sequence[str]) -> Any:
    for key in path:
        data = data.get(key) if isinstance(data, Mapping) else None
    return data


def _shown(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return "nothing" if value is None else str(value)[:40]


# -- the labelled set now -----------------------------------------------------------------------------------
# What a labelled file holds now: per key (a unit's id; a labels file's row key), each item's label marks.
Current = Mapping[str, Mapping[str, str]]


def stored(evidence: Mapping[str, Any], unit_id: str, rows: Sequence[Row]) -> tuple[list[str], dict[str, str]]:
    """The unit's keys in the labelled set and its items' labels as the evidence holds them."""
    keys = evidence.get("keys")
    keys = [str(k) for k in keys] if isinstance(keys, list) and keys else [unit_id]
    marks: dict[str, list[str]] = {}
    for row in rows:
        marks.setdefault(row.item, []).append(row.label)
    return keys, {item: "+".join(sorted(labels)) for item, labels in marks.items()}


def label_changes(
    evidence: Mapping[str, Any], unit_id: str, rows: Sequence[Row], now: Current, limited: bool = False
) -> str | None:
    """How the unit's labelled items differ from the labelled set's now ("12 of 12 differ"), or None.

    ``limited``: the record measured the set's first items only (``--limit``): items added since are not a change."""
    keys, then = stored(evidence, unit_id, rows)
    current: dict[str, str] = {}
    for key in keys:
        current.update(now.get(key, {}))
    relabelled = sum(1 for item, label in then.items() if item in current and current[item] != label)
    gone = sum(1 for item in then if item not in current)
    added = 0 if limited else sum(1 for item in current if item not in then)
    if not (relabelled or gone or added):
        return None
    parts = [f"{n} {what}" for n, what in ((relabelled, "relabelled"), (gone, "gone"), (added, "added")) if n]
    return f"{relabelled + gone + added} of {len(then)} differ ({', '.join(parts)})"


def set_fingerprint(pairs: Sequence[tuple[str, str, str]]) -> str:
    """The labelled set's fingerprint: its (key, item, label) triples, in any order."""
    return record.fingerprint(sorted(" ".join(p) for p in pairs))


# -- labels files (``labels.py``): a row is an item of the unit its other columns name ----------------------
LABEL_COLUMNS = ("output", "output_file", "query", "verdict", "score")


def row_key(fields: Mapping[str, str]) -> str:
    """Which unit a labels row labels, as a mark of the columns that name it (all but the output and the label):
    a record keeps its units' keys, so the rows of a unit are found again without the format."""
    return item_mark({k: v for k, v in fields.items() if k not in LABEL_COLUMNS})


def row_labelled(row: Any, truth: Any) -> Labelled:
    """A labels row as a record's evidence keeps it (``row``: a ``labels.LabelRow``)."""
    label = ("verdict", row.verdict) if row.verdict is not None else ("score", row.score)
    return Labelled(
        item_mark({"output": row.output, "query": row.query}), label_mark(label), truth, row_key(row.fields)
    )


def labels_now(rows: Iterable[Any]) -> dict[str, dict[str, str]]:
    """A labels file's rows now, per row key: each item's label marks (as :func:`stored` joins them)."""
    found: dict[str, dict[str, list[str]]] = {}
    for row in rows:
        seen = row_labelled(row, None)
        found.setdefault(seen.key, {}).setdefault(seen.item, []).append(seen.label)
    return {key: {item: "+".join(sorted(marks)) for item, marks in items.items()} for key, items in found.items()}
