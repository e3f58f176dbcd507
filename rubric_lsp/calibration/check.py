"""Whether each unit of a file has a fresh calibration record: what the lint rule (``rules/calibration.py``)
reports and the hover shows (docs/calibration.md, "In the editor and in CI").

A format names its units through ``Format.calibration_units`` (:class:`CalibrationUnit`: an id, what the
judge reads of it, the prompt fingerprint, where it is). Records are read from beside the file
(``<file>.calibration.json``) and from the settings' ``calibration.path`` (a record, or a folder of them);
a unit matches a record's unit by its text fingerprint, so a record made from a dataset applies to any
file holding the same criterion text. What the lint cannot know, it does not compare: the judge only when
the settings name one (``calibration.judge``), the judge's settings never (they are given per grading).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from rubric_lsp.calibration import record
from rubric_lsp.calibration.settings import CalibrationSettings as CalibrationSettings
from rubric_lsp.calibration.units import Family as Family
from rubric_lsp.document.positions import Span

MAX_RECORDS = 200  # records read from a settings folder: a folder of thousands is a mistake, not records
VIEW_KEY = "calibration.matches"  # CheckContext.cache: each unit's match, for the hover


@dataclass(frozen=True)
class CalibrationUnit:
    """One unit of a file as a format names it (``Format.calibration_units``)."""

    id: str  # the name a record gives it (``units[].id``)
    text: Any  # what the judge reads of it: its fingerprint decides staleness
    prompt: str  # the fingerprint of the prompts the judge is sent
    span: Span  # where to report it
    noun: str = "criterion"
    extent: Span | None = None  # the whole unit, where the hover shows its record (None: ``span``)
    judge: record.OwnJudge | None = None  # the judge the file names for it: compared whatever the settings say
    family: Family | None = None  # the units it is one of, at its place (None: alone)

    def holds(self, offset: int) -> bool:
        where = self.extent or self.span
        return where.start <= offset <= where.end


@dataclass(frozen=True)
class Match:
    """A unit's record: the record, its unit there, and what changed since (empty: fresh)."""

    unit: CalibrationUnit
    record: Mapping[str, Any] | None = None
    entry: Mapping[str, Any] | None = None
    where: Path | None = None
    stale: tuple[str, ...] = ()
    judge: tuple[str, ...] = ()  # the judge models compared (none: the judge was not compared)

    @property
    def fresh(self) -> bool:
        return self.entry is not None and not self.stale


@dataclass
class Records:
    """The records that apply to a file: beside it first, then the settings path's, and the unreadable ones."""

    found: list[tuple[Path, dict[str, Any]]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    watched: list[Path] = field(default_factory=list)  # the records read, and the one beside the file even if absent


def records_for(path: str | None, settings: CalibrationSettings, given: Path | None = None) -> Records:
    """The records that apply to the file at ``path``, in the order they are searched: the one beside it, then
    the settings' ``calibration.path`` (a record, or a folder searched for records). ``given`` (``rubric grade
    --calibration``) stands in for both, and must exist. The lint (RL020) and ``rubric grade`` both search so."""
    out = Records()
    candidates: list[Path] = []
    if given is not None:
        candidates.append(given)
        if not given.exists():
            out.errors.append(f"{given}: cannot read the calibration record: it does not exist")
    elif path and path != "-":
        candidates.append(record.record_path(Path(path)))
    if settings.path is not None and not settings.path.exists():
        out.errors.append(f"{settings.path}: the settings' calibration.path does not exist")
    elif settings.path is not None:
        if settings.path.is_dir():
            candidates += sorted(settings.path.rglob("*" + record.SUFFIX))[:MAX_RECORDS]
        else:
            candidates.append(settings.path)
    out.watched = list(candidates)
    seen: set[Path] = set()
    for candidate in candidates:
        try:
            key = candidate.resolve()
            if key in seen or not candidate.exists():
                continue
            seen.add(key)
            out.found.append((candidate, _read(key, candidate.stat().st_mtime_ns)))
        except record.RecordError as exc:
            out.errors.append(str(exc))
        except OSError as exc:
            out.errors.append(f"{candidate}: cannot read the calibration record: {exc.strerror or exc}")
    return out


@lru_cache(maxsize=64)
def _read(path: Path, _mtime: int) -> dict[str, Any]:
    return record.read(path)


def match(unit: CalibrationUnit, records: Records, judge: Sequence[str] = ()) -> Match:
    """The record that applies to ``unit``: one whose unit has its text (and prompt, and judge) is fresh; else a
    record's unit of the same id, stale, naming what changed; else none. The judge compared is the one the file
    names for the unit (unless it is only a default and ``judge``, the settings' ``calibration.judge``, is given),
    else ``judge`` when given: the lint has no judge of its own."""
    text = record.fingerprint(unit.text)
    own = record.grading_own(unit.judge, bool(judge))
    models = own.models if own is not None else tuple(judge)
    judge_mark = record.fingerprint(list(models)) if models else None
    by_id: Match | None = None
    for where, data in records.found:
        for entry in data["units"]:
            marks = entry["fingerprints"]
            stale = tuple(
                cause
                for cause, now in (("text", text), ("judge", judge_mark), ("prompt", unit.prompt))
                if now is not None and marks.get(cause) != now
            )
            if not stale:
                return Match(unit, data, entry, where, judge=models)
            if by_id is None and entry["id"] == unit.id:
                by_id = Match(unit, data, entry, where, tuple(c for c in record.CAUSES if c in stale), models)
    return by_id or Match(unit)


def problems(found: Match, settings: CalibrationSettings) -> list[str]:
    """What the rule says of a unit's match (nothing when it is fresh and good enough)."""
    unit = found.unit
    name = f"{unit.noun} {unit.id!r}"
    if found.entry is None:
        return (
            [f"The {name} has no calibration record: run `rubric calibrate` on a labelled set holding it."]
            if settings.required
            else []
        )
    if found.stale:
        since = found.record.get("date", "it was made") if found.record else "it was made"
        judge = ""
        if "judge" in found.stale and found.record is not None:
            judge = f" ({record.judge_change(record.models_of(found.record, found.entry), found.judge)})"
        return [
            f"The calibration record of the {name} is stale: its {_listed(found.stale)} changed since "
            f"{since}{judge} ({found.where}); re-run `rubric calibrate`."
        ]
    out = [
        f"The {name} is ambiguous: {why}; reword it before trusting its figures." for _, why in ambiguity(found.entry)
    ]
    if settings.min_kappa is not None:
        kappa = _kappa(found.entry)
        if kappa is None:
            out.append(
                f"The {name} has no κ in its calibration record (its labels are all one category); min-kappa is {settings.min_kappa}."
            )
        elif kappa < settings.min_kappa:
            out.append(f"The judge's κ on the {name} is {kappa:.2f}, below min-kappa {settings.min_kappa}.")
    return out


def members(family: Family, numbers: Sequence[int]) -> str:
    """Several members of a family, their numbers as runs: "tests 1–40", "tests 2, 5–7", "test 3"."""
    ordered = sorted(set(numbers))
    runs: list[list[int]] = []
    for number in ordered:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    listed = ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs)
    return f"{family.member if len(ordered) == 1 else family.member + 's'} {listed}"


def for_members(message: str, family: Family, numbers: Sequence[int]) -> str:
    """A finding that holds for several members of a family, once: "In tests 1–40, the assertion …"."""
    return f"In {members(family, numbers)}, {message[0].lower()}{message[1:]}"


def summary(found: Match) -> str:
    """One line for the hover: "κ 0.82 [0.74, 0.89] over 412 labels · gpt-4.1-mini · 2026-11-20"."""
    assert found.entry is not None and found.record is not None
    figures = _table(found.entry.get("figures"))
    kappa = _table(figures.get("kappa"))
    symbol = "κ" if kappa.get("statistic", "cohen") == "cohen" else "QWK"
    interval = kappa.get("interval")
    shown = f"{symbol} {_number(kappa.get('value'))}"
    if isinstance(interval, list) and len(interval) == 2 and all(isinstance(v, (int, float)) for v in interval):
        shown += f" [{interval[0]:.2f}, {interval[1]:.2f}]"
    parts = [f"{shown} over {figures.get('labels', '?')} labels"]
    models = record.models_of(found.record, found.entry)
    parts += [
        ", ".join(str(m).split("/", 1)[-1] for m in models) or "no judge named",
        str(found.record.get("date", "?")),
    ]
    line = " · ".join(parts)
    if found.stale:
        line += f" (stale: its {_listed(found.stale)} changed since)"
    if causes := ambiguity(found.entry):
        line += " · ambiguous: " + _listed([short for short, _ in causes])
    return line


def ambiguity(entry: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Why a record's unit is ambiguous, each cause short (the hover) and in full (the rule): the judge
    disagreed with itself over ``--repeat`` asks, its several judges disagreed with one another, or both."""
    out = []
    repeats = entry.get("self_agreement")
    if isinstance(repeats, Mapping) and repeats.get("ambiguous"):
        share = _number(_value(repeats.get("unanimous")))
        out.append(
            (
                "the judge disagrees with itself",
                f"the judge agreed with itself on {share} of the items over {repeats.get('repeats')} asks "
                f"(below {repeats.get('threshold')})",
            )
        )
    judges = entry.get("judge_agreement")
    if isinstance(judges, Mapping) and judges.get("ambiguous"):
        models = judges.get("models")
        named = [str(m) for m in models] if isinstance(models, list) else []
        out.append(
            (
                "its judges disagree",
                f"its judges ({', '.join(named) or '?'}) {'all ' if len(named) > 2 else ''}agreed on "
                f"{_number(_value(judges.get('unanimous')))} of the items (below {judges.get('threshold')})",
            )
        )
    return out


def hover_lines(matches: Sequence[Match], offset: int) -> list[str]:
    """The hover's lines for the units at ``offset`` that have a record (fresh or stale); the same line of several
    members of a family once, naming them ("… `polite` in tests 1–40: κ …")."""
    lines: dict[tuple[str, str], list[Match]] = {}
    for m in matches:
        if m.entry and m.unit.holds(offset):
            key = m.unit.family.name if m.unit.family is not None else "\0" + m.unit.id  # never a family's name
            lines.setdefault((key, summary(m)), []).append(m)
    out = []
    for (_, line), found in lines.items():
        unit, family = found[0].unit, found[0].unit.family
        if len(found) > 1 and family is not None:
            numbers = [m.unit.family.number for m in found if m.unit.family is not None]
            out.append(f"**Calibration** of {unit.noun} `{family.name}` in {members(family, numbers)}: {line}")
        else:
            out.append(f"**Calibration** of {unit.noun} `{unit.id}`: {line}")
    return out


def _table(value: Any) -> Mapping[str, Any]:
    """``value`` when it is a JSON object, else an empty one (a record is read defensively)."""
    return value if isinstance(value, Mapping) else {}


def _kappa(entry: Mapping[str, Any]) -> float | None:
    figures = entry.get("figures")
    kappa = figures.get("kappa") if isinstance(figures, Mapping) else None
    return _value(kappa)


def _value(share: Any) -> float | None:
    value = share.get("value") if isinstance(share, Mapping) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _number(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, (int, float)) and not isinstance(value, bool) else "n/a"


def _listed(causes: Sequence[str]) -> str:
    return causes[0] if len(causes) == 1 else ", ".join(causes[:-1]) + " and " + causes[-1]
