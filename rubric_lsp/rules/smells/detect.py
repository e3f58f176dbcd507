"""Every criterion-level detector, run over one criterion (:func:`smells`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from rubric_lsp.rules.smells import structure, wording
from rubric_lsp.rules.smells.reading import Hit, Reading

Detector = Callable[[Reading], Iterator[Hit]]

# Rule name -> its detector, in the rules' order.
DETECTORS: dict[str, Detector] = {
    "double-barreled": structure.double_barreled,
    "vague-wording": wording.vague,
    "hedging-language": wording.hedging,
    "verbosity-rewarding": wording.verbosity,
    "counting-dependent": wording.counting,
    "unfalsifiable": wording.unfalsifiable,
    "circular-criterion": wording.circular,
    "poorly-anchored-scale": structure.poorly_anchored,
    "needs-external-knowledge": wording.external,
}


def smells(reading: Reading, names: set[str] | None = None) -> list[Hit]:
    """The smells of one criterion (only those named, when ``names`` is given), at most one hit each."""
    found: list[Hit] = []
    if not reading.english or reading.scope == "content":
        return found  # a reference answer (factuality) is what the response is compared with, not a criterion
    for name, detector in DETECTORS.items():
        if names is None or name in names:
            found += list(detector(reading))[:1]
    return found
