"""Is a unit calibrated? The one decision RL020, the hover, ``rubric grade --require-calibrated`` and the judge
card all take, from the one setting ``calibration = { required, min-kappa, min-labels, allow-ambiguous, … }``,
and the one set of words they all say it in (docs/calibration.md, "What a fresh record certifies").

A unit is calibrated when its record is **fresh** (its text, judge, prompt and settings fingerprints match, and
the items and labels its evidence holds are the labelled set's now), **sound** (its figures are those its
evidence gives: they are computed again from it here, never taken from the record), it rests on at least
``min-labels`` compared labels, no judge call failed while calibrating, it is not ambiguous (unless
``allow-ambiguous``), and, with ``min-kappa`` set, the *lower bound* of its κ interval reaches it: a κ of 0.80
over 5 labels ([−0.2, 1.0]) does not show a judge at 0.6, and the gate must not pass what the figures cannot show.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rubric_lsp.calibration import evidence, record
from rubric_lsp.calibration.settings import CalibrationSettings

FRESH, STALE, MISSING, DAMAGED = "fresh", "stale", "missing", "damaged"

# What a labelled file holds now (evidence.Current), or why it cannot be read; given by the face that checks.
LabelledNow = Callable[[Path], "evidence.Current | str"]


@dataclass(frozen=True)
class Rules:
    """``calibration = {…}``'s part that decides (check.CalibrationSettings carries it)."""

    min_kappa: float | None = None
    min_labels: int = 1
    allow_ambiguous: bool = False

    @classmethod
    def of(cls, settings: CalibrationSettings) -> Rules:
        """The deciding part of the settings: the lint's and the gate's alike."""
        return cls(settings.min_kappa, settings.min_labels, settings.allow_ambiguous)


@dataclass(frozen=True)
class Found:
    """A unit's record entry, as a face found it: where, and which of its fingerprints changed."""

    record: Mapping[str, Any] | None = None
    entry: Mapping[str, Any] | None = None
    where: Path | None = None
    stale: tuple[str, ...] = ()  # text, judge, prompt, settings
    judge_change: str = ""  # "openai/a then, openai/b now", when the judge changed


@dataclass
class Decision:
    """What the gate says of one unit: its status, whether it is calibrated, and why not, in the words every face shows."""

    status: str
    reasons: list[str] = field(default_factory=list)
    derived: evidence.Derived | None = None  # the figures its evidence gives (None: none to compute)

    @property
    def calibrated(self) -> bool:
        return self.status == FRESH and not self.reasons

    @property
    def figures(self) -> dict[str, Any]:
        return {} if self.derived is None else self.derived.figures

    @property
    def ambiguous(self) -> list[str]:
        return [] if self.derived is None else [short for short, _ in self.derived.ambiguous]


def decide(found: Found, rules: Rules, labelled_now: LabelledNow | None = None) -> Decision:
    """The decision for one unit (``labelled_now``: what the record's labelled set holds now; None: not compared)."""
    if found.entry is None or found.record is None:
        return Decision(MISSING, ["missing: no calibration record"])
    since = str(found.record.get("date") or "the record was made")
    reasons = []
    if found.stale:
        detail = f" ({found.judge_change})" if found.judge_change else ""
        reasons.append(f"stale: its {_listed(found.stale)} changed since {since}{detail}")
    try:
        derived = _derived(found.entry)
    except evidence.Damaged as exc:
        return Decision(DAMAGED, [*reasons, f"damaged: {exc}; re-run `rubric calibrate`"])
    changed = _labels_changed(found, derived, labelled_now)
    if changed:
        reasons.append(f"stale: its labels changed since {since}: {changed}")
    if reasons:
        return Decision(STALE, reasons, derived)
    return Decision(FRESH, shortfalls(derived, rules), derived)


def shortfalls(derived: evidence.Derived, rules: Rules) -> list[str]:
    """Why a fresh, sound unit is still not calibrated (none: it is)."""
    f = derived.figures
    n = f["labels"]
    out = []
    if n < rules.min_labels:
        what = "nothing was compared (0 labels)" if n == 0 else f"{n} compared label(s)"
        out.append(f"short of labels: {what}, min-labels {rules.min_labels}")
    if derived.failed:
        out.append(f"incomplete: {derived.failed} judge call(s) failed while calibrating")
    if not rules.allow_ambiguous:
        out += [f"ambiguous: {why}" for _, why in derived.ambiguous]
    if rules.min_kappa is not None and n:
        kappa = f["kappa"]
        if kappa["value"] is None or kappa["interval"] is None:
            out.append(f"below min-kappa {rules.min_kappa}: κ is undefined over its {n} labels (one category in all)")
        elif kappa["interval"][0] < rules.min_kappa:
            out.append(
                f"below min-kappa {rules.min_kappa}: {kappa_line(kappa)}, its lower bound "
                f"{kappa['interval'][0]:.2f} short of it"
            )
    return out


def kappa_line(kappa: Mapping[str, Any]) -> str:
    """ "κ 0.82 [0.74, 0.89] over 412 labels" (QWK for an ordinal scale): the figure with its interval and its n."""
    symbol = "κ" if kappa.get("statistic", "cohen") == "cohen" else "QWK"
    value = kappa.get("value")
    shown = f"{symbol} {'n/a' if value is None else f'{value:.2f}'}"
    interval = kappa.get("interval")
    if isinstance(interval, Sequence) and len(interval) == 2:
        shown += f" [{interval[0]:.2f}, {interval[1]:.2f}]"
    return f"{shown} over {kappa.get('n', '?')} labels"


# Entries already computed (records are read once per modification, check._read): the entry, a signature of
# what decides (so an entry changed in place is computed again), and what it gave.
_DERIVED: OrderedDict[int, tuple[Mapping[str, Any], tuple[Any, ...], evidence.Derived | evidence.Damaged]] = (
    OrderedDict()
)
DERIVED_KEPT = 256


def _derived(entry: Mapping[str, Any]) -> evidence.Derived:
    """:func:`_derive`, once per entry (the lint asks on every keystroke; 10,000 items take ~0.1 s)."""
    signature = _signature(entry)
    kept = _DERIVED.get(id(entry))
    if kept is None or kept[0] is not entry or kept[1] != signature:
        try:
            result: evidence.Derived | evidence.Damaged = _derive(entry)
        except evidence.Damaged as exc:
            result = exc
        kept = (entry, signature, result)
        _DERIVED[id(entry)] = kept
        while len(_DERIVED) > DERIVED_KEPT:
            _DERIVED.popitem(last=False)
    if isinstance(kept[2], evidence.Damaged):
        raise kept[2]
    return kept[2]


def _signature(entry: Mapping[str, Any]) -> tuple[Any, ...]:
    proof = entry.get("evidence")
    items = proof.get("items") if isinstance(proof, Mapping) else None
    shape = (id(proof), id(items), len(items)) if isinstance(items, list) else (id(proof),)
    blocks = tuple(repr(entry.get(name)) for name in ("self_agreement", "judge_agreement", "figures", "kind"))
    return (*shape, *blocks)


def _derive(entry: Mapping[str, Any]) -> evidence.Derived:
    """The entry's figures computed from its evidence, checked against those it records."""
    if "evidence" not in entry:
        raise evidence.Damaged("it holds no evidence of its figures (made before records kept it, or edited)")
    thresholds = {
        which: block.get("threshold") if isinstance(block := entry.get(name), Mapping) else None
        for which, name in (("self", "self_agreement"), ("judges", "judge_agreement"))
    }
    kind = entry.get("kind")
    if kind not in ("binary", "ordinal", "nominal"):
        raise evidence.Damaged(f"its kind {str(kind)[:20]!r} is not binary, ordinal or nominal")
    derived = evidence.figures_of(entry["evidence"], kind, thresholds)
    wrong = evidence.mismatch(entry.get("figures"), derived)
    if wrong:
        raise evidence.Damaged(f"its figures do not follow from its evidence: {wrong}")
    return derived


def _labels_changed(found: Found, derived: evidence.Derived, labelled_now: LabelledNow | None) -> str | None:
    """How the record's labelled items differ from its labelled set's now, or None (the same, or not compared)."""
    assert found.record is not None and found.entry is not None and found.where is not None
    source = found.record.get("source")
    if labelled_now is None or not isinstance(source, str) or not source:
        return None if labelled_now is None else "its record names no labelled set"
    now = labelled_now(found.where.parent / source)
    if isinstance(now, str):
        return f"its labelled set {source} cannot be read ({now})"
    block = found.record.get("labelled")
    limited = isinstance(block, Mapping) and bool(block.get("limit"))
    return evidence.label_changes(found.entry["evidence"], str(found.entry.get("id")), derived.rows, now, limited)


def _listed(causes: Sequence[str]) -> str:
    return causes[0] if len(causes) == 1 else ", ".join(causes[:-1]) + " and " + causes[-1]


def judge_change(data: Mapping[str, Any], entry: Mapping[str, Any], now: Sequence[str]) -> str:
    """How a stale unit's judge changed, for a reason: "openai/a then, openai/b now"."""
    return record.judge_change(record.models_of(data, entry), now)
