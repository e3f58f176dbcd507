"""RL020: each unit a judge grades (a criterion, …) should have a fresh calibration record (docs/calibration.md).

Format-neutral: a format names its units (``Format.calibration``'s ``document_units``, given to the
checker as ``CheckContext.calibration_units``); ``rubric_lsp.calibration.check`` finds and compares the records.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from rubric_lsp.calibration.settings import SUFFIX
from rubric_lsp.diagnostics import Severity
from rubric_lsp.document.positions import Span
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import checker, rule

if TYPE_CHECKING:
    from rubric_lsp.calibration import check

UNCALIBRATED = rule(
    "RL020",
    "judge-calibration",
    Severity.INFO,
    "A unit the judge grades (an autorubric criterion, a promptfoo model-graded assertion, a NorthStar LLM grader, a Rubrics task's criterion or preference) is not calibrated: "
    "it has no calibration record (reported with `calibration = { required = true }`), a stale one (its text, judge, prompt or labels changed since: "
    "the message names which), a damaged one (figures that do not follow from the evidence it keeps), fewer than `min-labels` compared labels, "
    "judge calls that did not answer, an ambiguous verdict (unless `allow-ambiguous`), or a κ interval whose lower bound is below `min-kappa`.",
    "A judge that agrees with people on one criterion can be no better than chance on the next, and a record "
    "measured on other words, another judge model, another prompt or other labels says nothing about this one. `rubric calibrate` "
    "measures the judge against human labels and writes `<file>.calibration.json`, keeping the paired observations "
    "(fingerprints of each item and label, each verdict) its figures come from; this rule computes the figures again from them, "
    "checks them against the labelled set as it is now, and decides as `rubric grade --require-calibrated` does, from the same "
    "settings and in the same words. Records are read beside the file and from the settings' `calibration.path`; a record "
    "unit applies to every file holding the same unit text (its fingerprint). The judge is compared when the file names one for the unit "
    "(a promptfoo assertion's grader, a NorthStar grader's model) or the settings name the one gradings use (`calibration.judge`, "
    "which replaces a promptfoo defaultTest grader as `--grader` does); the judge's settings (temperature, grading options) are "
    "given per grading, so the lint does not compare them. Info by default; `required = true` makes every finding a warning, "
    "so a CI run of `rubric-lint` exits 1 on it.",
    bad="""\
        # rubric.yaml.calibration.json beside it was measured when this said "Cites at least one source"
        - name: cites_sources
          requirement: Cites at least one source, with a link
          weight: 1
    """,
    good="""\
        # rubric.yaml.calibration.json beside it was measured on these very words
        - name: cites_sources
          requirement: Cites at least one source
          weight: 1
    """,
)


@checker("*")
def report_calibration(ctx: CheckContext) -> None:
    settings = ctx.calibration
    units_of = ctx.calibration_units
    if settings is None or units_of is None or not ctx.enabled(UNCALIBRATED):
        return
    if not settings.searches_elsewhere:
        # Only the record beside the file can apply: when it is absent there is nothing to compare, and
        # records, matching and statistics (``calibration.check``) are not even imported.
        beside = os.fspath(ctx.path) + SUFFIX if ctx.path and ctx.path != "-" else None  # (``record_path``)
        if beside is None or not os.path.exists(beside):
            ctx.dependencies.update([str(Path(beside))] if beside is not None else [])
            return
    from rubric_lsp.calibration import check

    records = check.records_for(ctx.path, settings, labelled_now=ctx.calibration_labelled)
    # The server lints the file again when a record it read, or the one beside it, changes or appears.
    ctx.dependencies.update(str(where) for where in records.watched)
    if not records.found and not records.errors and not settings.required:
        return  # nothing to compare against and nothing required: the units are not even read
    severity = Severity.WARNING if settings.required else None
    for error in records.errors:
        ctx.report(UNCALIBRATED, _first_line(ctx), error, severity=severity)
    matches = {}
    # The same finding of several units written at one place (a defaultTest assertion's, one per test) is one.
    shared: dict[tuple[int, int, str], list[tuple[check.CalibrationUnit, check.Family, str]]] = {}
    for unit in units_of():
        found = check.match(unit, records, settings.judge)
        matches[unit.id] = found
        messages = check.problems(found, settings)
        if unit.family is None:
            for message in messages:
                ctx.report(UNCALIBRATED, unit.span, message, severity=severity)
            continue
        # The same findings naming the unit by what its family shares: equal across members when they agree.
        named = check.problems(replace(found, unit=replace(unit, id=unit.family.name)), settings)
        for message, as_member in zip(messages, named):
            shared.setdefault((unit.span.start, unit.span.end, as_member), []).append((unit, unit.family, message))
    for (_, _, as_member), members in shared.items():
        unit, family, message = members[0]
        if len(members) > 1:
            message = check.for_members(as_member, family, [f.number for _, f, _ in members])
        ctx.report(UNCALIBRATED, unit.span, message, severity=severity)
    ctx.cache[check.VIEW_KEY] = list(matches.values())


def _first_line(ctx: CheckContext) -> Span:
    return ctx.document.lines.single_line_span(0) if ctx.document.text else Span(0, 0)
