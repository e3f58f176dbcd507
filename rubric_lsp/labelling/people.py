"""People's agreement with one another, for ``rubric calibrate``'s record: the ceiling a judge can reach.

A unit labelled by more than one person (``rubric label --labeller NAME --again``: the labels log of a file that
keeps its labels, a labels file's ``labeller`` column) gets a ``people_agreement`` block beside the judge's figures,
each pair of labellers over the items both labelled with a category, in the statistic of the judge's figures
(``planning.people_figures``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rubric_lsp.labelling.planning import people_figures
from rubric_lsp.labelling.session import Options, Session


def agreement(labelled: Path, units_file: Path) -> dict[str, dict[str, Any]]:
    """Each unit's people agreement (unit id → block), for units more than one person labelled; {} when none was
    or the file is none ``rubric label`` reads. ``labelled``: the labelled set, or the labels file of
    ``units_file``."""
    labels = labelled if labelled.resolve() != units_file.resolve() else None
    try:
        session = Session(units_file, Options(labeller="", labels=labels, page=False))
        by_unit = session.labels_by_unit()
    except (ValueError, OSError):
        return {}
    found = {uid: people_figures(raters, unit) for uid, (unit, raters) in by_unit.items() if len(raters) > 1}
    return {uid: block for uid, block in found.items() if block["pairs"]}


def add_to(record: dict[str, Any], labelled: Path, units_file: Path) -> None:
    """``record``'s units each with its ``people_agreement``, where more than one person labelled it."""
    found = agreement(labelled, units_file)
    for entry in record.get("units", []):
        block = found.get(entry.get("id"))
        if block is not None:
            entry["people_agreement"] = block
