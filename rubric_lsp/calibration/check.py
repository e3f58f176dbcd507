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
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from rubric_lsp.calibration import gate, record
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
    decision: gate.Decision | None = None  # what the gate says of it (``decided``)

    @property
    def fresh(self) -> bool:
        return self.entry is not None and not self.stale

    def found(self) -> gate.Found:
        change = ""
        if "judge" in self.stale and self.record is not None and self.entry is not None:
            change = gate.judge_change(self.record, self.entry, self.judge)
        return gate.Found(self.record, self.entry, self.where, self.stale, change)


@dataclass
class Records:
    """The records that apply to a file: beside it first, then the settings path's, and the unreadable ones."""

    found: list[tuple[Path, dict[str, Any]]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    watched: list[Path] = field(default_factory=list)  # the records read, and the one beside the file even if absent
    # What a record's labelled set holds now (``formats.labelled.reader``), or None where the face cannot say.
    labelled_now: gate.LabelledNow | None = None


def records_for(
    path: str | None,
    settings: CalibrationSettings,
    given: Path | None = None,
    labelled_now: gate.LabelledNow | None = None,
) -> Records:
    """The records that apply to the file at ``path``, in the order they are searched: the one beside it, then
    the settings' ``calibration.path`` (a record, or a folder searched for records). ``given`` (``rubric grade
    --calibration``) stands in for both, and must exist. The lint (RL020) and ``rubric grade`` both search so."""
    out = Records(labelled_now=labelled_now)
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
                return decided(Match(unit, data, entry, where, judge=models), records)
            if by_id is None and entry["id"] == unit.id:
                by_id = Match(unit, data, entry, where, tuple(c for c in record.CAUSES if c in stale), models)
    return decided(by_id or Match(unit), records)


def decided(found: Match, records: Records) -> Match:
    """``found`` with the gate's decision (settings' rules are applied when its findings are worded)."""
    return replace(
        found, decision=gate.decide(found.found(), gate.Rules(min_labels=0, allow_ambiguous=True), records.labelled_now)
    )


def decision(found: Match, settings: CalibrationSettings) -> gate.Decision:
    """The gate's decision on ``found`` under ``settings``' rules (the lint's and ``--require-calibrated``'s)."""
    made = found.decision or gate.decide(found.found(), gate.Rules.of(settings))
    if made.status != gate.FRESH or made.derived is None:
        return made
    return gate.Decision(made.status, gate.shortfalls(made.derived, gate.Rules.of(settings)), made.derived)


def problems(found: Match, settings: CalibrationSettings) -> list[str]:
    """What the rule says of a unit's match (nothing when it is calibrated), each reason the gate's words."""
    unit = found.unit
    name = f"{unit.noun} {unit.id!r}"
    made = decision(found, settings)
    if made.status == gate.MISSING:
        return (
            [f"The {name} has no calibration record: run `rubric calibrate` on a labelled set holding it."]
            if settings.required
            else []
        )
    where = f" ({found.where.name})" if found.where is not None else ""
    hint = "; re-run `rubric calibrate`" if made.status == gate.STALE else ""
    return [f"The {name} is {reason}{where if made.status != gate.FRESH else ''}{hint}." for reason in made.reasons]


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
    """One line for the hover, the κ first: "κ 0.82 [0.74, 0.89] over 412 labels · gpt-4.1-mini · 2026-11-20"
    (figures from the record's evidence, never its own figure block)."""
    assert found.entry is not None and found.record is not None
    made = found.decision or gate.decide(found.found(), gate.Rules())
    kappa = _table(made.figures.get("kappa"))
    parts = [gate.kappa_line(kappa) if kappa else "no figures (" + "; ".join(made.reasons) + ")"]
    models = record.models_of(found.record, found.entry)
    parts += [
        ", ".join(str(m).split("/", 1)[-1] for m in models) or "no judge named",
        str(found.record.get("date", "?")),
    ]
    line = " · ".join(parts)
    if made.status == gate.STALE:
        line += " (" + "; ".join(made.reasons) + ")"
    if made.ambiguous:
        line += " · ambiguous: " + _listed(made.ambiguous)
    return line


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


def _listed(causes: Sequence[str]) -> str:
    return causes[0] if len(causes) == 1 else ", ".join(causes[:-1]) + " and " + causes[-1]
