"""The calibration record, ``<file>.calibration.json``: how far to trust the judge on each unit of a file.

Written to diff well in review and to be the same bytes on a re-run with the same verdicts: keys
sorted, floats rounded to ``DIGITS`` places, units in the file's order, two-space indent, the date
without a time. Read back defensively: a record is a file in a repository, so a damaged or hostile
one (too large, not JSON, the wrong shape) is a :class:`RecordError` with one line saying why, never
a crash. docs/calibration.md describes every field.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rubric_lsp.calibration import record_file
from rubric_lsp.calibration.settings import MAX_RECORD_BYTES as MAX_RECORD_BYTES
from rubric_lsp.calibration.settings import SUFFIX as SUFFIX
from rubric_lsp.document.files import TooLarge, read_regular

RECORD_VERSION = 1
DIGITS = 4
# What a unit's fingerprints cover, in the order staleness names them.
CAUSES = ("text", "judge", "prompt", "settings")


class RecordError(ValueError):
    """A record that cannot be used; the message names the file and what is wrong."""


@dataclass(frozen=True)
class JudgeDescription:
    """The judge a record was made with: everything besides the unit's text that changes a verdict."""

    models: tuple[str, ...]  # every judge model, in the order given
    prompt: str  # the fingerprint of the prompts and templates the judge is sent
    settings: Mapping[str, Any]  # temperature, max tokens, option shuffling, aggregation, …


@dataclass(frozen=True)
class OwnJudge:
    """The judge a file names for one unit (a promptfoo assertion's grader), which grades it instead of the
    grading's: its models, and its own settings that change a verdict (over the grading's, which fill in the rest).
    ``default``: only the file's default, which a judge given to the grading (``--model``; for the lint, the
    settings' ``calibration.judge``) replaces, as promptfoo's ``--grader`` replaces ``defaultTest.options.provider``."""

    models: tuple[str, ...]
    settings: Mapping[str, Any]
    default: bool = False

    def judges(self, given: bool) -> bool:
        """Whether this judge grades its unit when a judge is (``given``) or is not given to the grading."""
        return not (self.default and given)


def grading_own(own: OwnJudge | None, given: bool) -> OwnJudge | None:
    """``own``, the judge a file names for a unit, when it grades the unit (a judge is or is not ``given`` to the
    grading); None when the file names none or the given judge replaces it."""
    return own if own is not None and own.judges(given) else None


def unit_judge(judge: JudgeDescription, own: OwnJudge | None, given: bool) -> JudgeDescription:
    """``judge`` (the grading's) as it grades a unit whose file names ``own`` judge for it."""
    own = grading_own(own, given)
    if own is None:
        return judge
    return replace(judge, models=own.models, settings={**judge.settings, **own.settings})


def fingerprint(value: Any) -> str:
    """SHA-256 of ``value``'s canonical JSON (sorted keys, no spaces), first 16 hex digits."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def fingerprints(text: Any, judge: JudgeDescription) -> dict[str, str]:
    """A unit's fingerprints: one per cause of staleness, and ``all`` over the four."""
    parts = {
        "text": fingerprint(text),
        "judge": fingerprint(list(judge.models)),
        "prompt": judge.prompt,
        "settings": fingerprint(dict(judge.settings)),
    }
    return {**parts, "all": fingerprint(parts)}


def record_path(source: Path) -> Path:
    """Where the record of ``source`` lives: beside it, ``<name>.calibration.json``."""
    return source.with_name(source.name + SUFFIX)


def build(
    *, tool_version: str, date: str, source: str, judge: JudgeDescription, units: list[dict[str, Any]]
) -> dict[str, Any]:
    """A record. ``judge``: the models and settings (its ``prompt`` is each unit's own); ``units``: each
    with ``id``, ``title``, ``kind``, ``text`` (what the judge reads of it), ``prompt`` and its figures, and
    ``judge``, an :class:`OwnJudge` that graded it instead (None: ``judge``), kept in the unit's entry."""
    out_units = []
    settings = dict(judge.settings)
    for unit in units:
        unit = dict(unit)
        text = unit.pop("text")
        own: OwnJudge | None = unit.pop("judge", None)
        options = unit.pop("settings", {})
        graded_by = replace(unit_judge(judge, own, False), prompt=unit.pop("prompt"))
        graded_by = replace(graded_by, settings={**graded_by.settings, **options})
        if own is not None:
            unit["judge"] = {"models": list(own.models), "settings": dict(own.settings)}
        out_units.append({**unit, "fingerprints": fingerprints(text, graded_by)})
        settings = {**judge.settings, **options}  # one file's units share their options: the record shows them once
    return {
        "calibration": RECORD_VERSION,
        "tool": {"name": "rubric-lsp", "version": tool_version},
        "date": date,
        "source": source,
        "judge": {"models": list(judge.models), "settings": settings},
        "units": out_units,
    }


def same_but_date(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether two records differ in their date alone (a re-run that changed nothing keeps the old file)."""
    return json.loads(dumps({**old, "date": None})) == json.loads(dumps({**new, "date": None}))


def dumps(record: Mapping[str, Any]) -> str:
    """The record's text: the same bytes for the same figures."""
    return json.dumps(_rounded(record), sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write(path: Path, record: Mapping[str, Any]) -> None:
    """Write the record whole or not at all, through a symlink, one writer at a time (``record_file.py``)."""
    text = dumps(record)
    with record_file.writer_lock(path):
        record_file.write_atomic(path, text)


def save(path: Path, record: Mapping[str, Any], protected: Sequence[Path] = ()) -> bool:
    """Write ``record`` to ``path`` unless the record there differs from it in its date alone (a re-run that
    measured the same keeps the old file, so it shows no diff); whether it wrote. Only a record of ours is
    replaced, never ``protected`` files (the labelled set) nor anything that is not a regular file
    (``record_file.refusal``): RecordFileError, an OSError, as when the file cannot be written."""
    text = dumps(record)
    with record_file.writer_lock(path):  # the comparison and the write are one writer's
        problem = write_refusal(path, protected)
        if problem is not None:
            raise record_file.RecordFileError(problem)
        try:
            if path.exists() and same_but_date(read(path), record):
                return False
        except RecordError:
            pass  # a damaged record of ours is replaced
        record_file.write_atomic(path, text)
    return True


def write_refusal(path: Path, protected: Sequence[Path] = ()) -> str | None:
    """Why :func:`save` would refuse to write a record to ``path`` (one line), or None: asked before any judge
    call, so a grading is never spent on a record that cannot be written."""
    return record_file.refusal(path, _not_ours, protected)


def _not_ours(path: Path) -> str | None:
    """None when ``path`` holds a calibration record of ours, even a damaged or older one (a JSON object naming
    this tool and a ``calibration`` version); else why not."""
    try:
        data = read_regular(path, MAX_RECORD_BYTES)
    except TooLarge:
        return f"larger than {MAX_RECORD_BYTES // (1024 * 1024)} MiB"
    except OSError as exc:
        return f"cannot read it: {exc.strerror or exc}"
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return "not JSON" if data.strip() else "empty"
    tool = value.get("tool") if isinstance(value, dict) else None
    if isinstance(tool, dict) and tool.get("name") == "rubric-lsp" and "calibration" in value:
        return None
    return "no 'calibration' and 'tool' of rubric-lsp"


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        rounded = round(value, DIGITS)
        return 0.0 if rounded == 0 else rounded  # never "-0.0"
    if isinstance(value, Mapping):
        return {str(k): _rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(v) for v in value]
    return value


def read(path: Path) -> dict[str, Any]:
    """A record read back and checked; RecordError (one line, naming ``path``) when it cannot be used."""
    # A regular file only (a FIFO or /dev/zero under that name would block or never end), read up to the bound.
    try:
        data = read_regular(path, MAX_RECORD_BYTES)
    except TooLarge:
        raise RecordError(
            f"{path}: larger than {MAX_RECORD_BYTES // (1024 * 1024)} MiB: not a calibration record"
        ) from None
    except OSError as exc:
        raise RecordError(f"{path}: cannot read the calibration record: {exc.strerror or exc}") from None
    return loads(data, str(path))


def loads(data: bytes | str, name: str = "calibration record") -> dict[str, Any]:
    """:func:`read` for text already in hand."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        record = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float, parse_int=_float_range_int)
    except _NotANumber as exc:
        raise RecordError(f"{name}: not a calibration record ({exc})") from None
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise RecordError(f"{name}: not a calibration record (not JSON: {_short(exc)})") from None
    problem = _shape_problem(record)
    if problem is not None:
        raise RecordError(f"{name}: not a usable calibration record: {problem}")
    return record


class _NotANumber(ValueError):
    """A number a record cannot hold (one line: which)."""


def _no_constant(name: str) -> Any:
    raise _NotANumber(f"{name} is not a number JSON allows")


# A record's numbers are read as floats (figures, counts): one past a float's range would crash every reader that
# computes with it (OverflowError), and 1e400 reads as Infinity, so each is refused where the record is read.
def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotANumber(f"the number {text[:20]}{'…' if len(text) > 20 else ''} is outside a float's range")
    return value


def _float_range_int(text: str) -> int:
    if len(text) > 400:  # past any float (and int() refuses over 4,300 digits)
        raise _NotANumber(f"the number {text[:20]}… is outside a float's range")
    value = int(text)
    if abs(value) > sys.float_info.max:
        raise _NotANumber(f"the number {text[:20]}… is outside a float's range")
    return value


def _short(exc: BaseException) -> str:
    return "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:200]


def _shape_problem(record: Any) -> str | None:
    """What makes ``record`` unusable, or None: only the fields staleness and the faces rely on are checked."""
    if not isinstance(record, dict):
        return "the top level is not an object"
    version = record.get("calibration")
    if version != RECORD_VERSION:
        return f"'calibration' is {version!r}; this version of rubric-lsp reads records of version {RECORD_VERSION}"
    judge = record.get("judge")
    if not isinstance(judge, dict) or not isinstance(judge.get("models"), list):
        return "'judge' is not an object with a 'models' list"
    units = record.get("units")
    if not isinstance(units, list):
        return "'units' is not a list"
    for number, unit in enumerate(units):
        if not isinstance(unit, dict) or not isinstance(unit.get("id"), str):
            return f"unit {number} has no string 'id'"
        marks = unit.get("fingerprints")
        if not isinstance(marks, dict) or not all(isinstance(marks.get(c), str) for c in (*CAUSES, "all")):
            return f"unit {unit['id']!r} has no fingerprints of its text, judge, prompt and settings"
    return None


def models_of(record: Mapping[str, Any], entry: Mapping[str, Any]) -> list[str]:
    """The judge models that graded a record's unit: the judge its file named for it (the entry's ``judge``), else
    the record's. Read defensively: a record is a file in a repository."""
    for judge in (entry.get("judge"), record.get("judge")):
        models = judge.get("models") if isinstance(judge, Mapping) else None
        if isinstance(models, list) and models:
            return [str(m) for m in models]
    return []


def judge_change(before: Sequence[str], now: Sequence[str]) -> str:
    """How a stale judge changed, for a message: "openai/a then, openai/b now"."""
    return f"{', '.join(before) or 'no judge named'} then, {', '.join(now) or 'no judge named'} now"


def find_unit(record: Mapping[str, Any], unit_id: str) -> dict[str, Any] | None:
    """The record's unit ``unit_id`` (the first, if a damaged record names it twice)."""
    return next((u for u in record["units"] if u["id"] == unit_id), None)


def staleness(record_unit: Mapping[str, Any], current_text: Any, current_judge: JudgeDescription) -> list[str]:
    """Which of the unit's text, judge, prompt and settings changed since the record was made (in that order)."""
    now = fingerprints(current_text, current_judge)
    then = record_unit["fingerprints"]
    return [cause for cause in CAUSES if then.get(cause) != now[cause]]
