"""A promptfoo config's calibration units (docs/calibration.md): each model-graded assertion (llm-rubric, g-eval,
model-graded-closedqa, factuality and their ``not-`` forms) of each test, as ``rubric calibrate LABELS --config``
names it. :func:`assertion_unit` is the one place a unit's id, text and prompt fingerprint are made: the labels
file's calibration writes them into the record (``labels.py``), the lint (RL020), the hover and ``rubric grade
--require-calibrated`` compare them (:data:`CALIBRATION`), so a record is fresh exactly when nothing changed.

A unit is one assertion of one test (a test's vars are part of what the judge reads), so a ``defaultTest``
assertion is one unit per test, each named by its test. Assertions inside an ``assert-set`` are not units: a
labels file names a test's top-level assertions only.

Its judge is the grader promptfoo's precedence gives it (``ConfigView.grader``: the assertion's ``provider``, the
test's ``options.provider``, defaultTest's ``options.provider``, defaultTest's ``provider``), with the settings of
that grader's ``config`` that change a verdict, as the grading calls it (``judges.py``); a grader from
defaultTest's ``options.provider`` or ``provider`` is only a default, which a judge given to the grading replaces as
promptfoo's ``--grader`` does (``GraderChoice.cli_grader_applies``). No grader named: the grading's judge.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from rubric_lsp.calibration.check import CalibrationUnit, Family
from rubric_lsp.calibration.hook import CalibrationHook, Graded
from rubric_lsp.calibration.record import OwnJudge
from rubric_lsp.calibration.units import CurrentUnit
from rubric_lsp.document import Document, Node
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.document.positions import Span
from rubric_lsp.engine.judge import PROMPT_VERSION
from rubric_lsp.engine.runner import GradingError
from rubric_lsp.formats.promptfoo.grading import owner_prompts
from rubric_lsp.formats.promptfoo.grading.assertions import GRADED_TYPES
from rubric_lsp.formats.promptfoo.grading.defaults import default_grader
from rubric_lsp.formats.promptfoo.grading.providers import GraderConfigError, promptfoo_to_litellm, verdict_settings
from rubric_lsp.formats.promptfoo.reading import read_config


@dataclass(frozen=True)
class AssertionUnit:
    """One model-graded assertion of one test, as its calibration record names it."""

    id: str  # "test 1 polite" (its metric), "test 1 assertion 2" (its place in the test's assert list)
    title: str
    text: Any  # what the judge reads of it: type, value, threshold and the test's vars
    prompt: str  # the fingerprint of promptfoo's grading prompts and any rubricPrompt
    settings: dict[str, Any]  # none of its own: the judge's settings are the grading's
    test: int  # the test's number, from 1
    assertion: Any  # the view's AssertionInfo
    judge: OwnJudge | None  # the grader the config names for it (None: the grading's judge)
    name: str  # its id without its test: "polite", "defaultTest assertion 1"


def prompt_fingerprint(*custom: Any) -> str:
    """A hash of promptfoo's grading prompts (its version's own), any ``rubricPrompt`` given, and the
    prompt version the verdict cache keys on."""
    owned = {name: value for name, value in vars(owner_prompts).items() if name.isupper()}
    parts = [PROMPT_VERSION, owned, [c for c in custom if c is not None]]
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode("utf-8")).hexdigest()[:16]


def assertion_unit(view: Any, number: int, assertion: Any) -> AssertionUnit:
    """The unit of ``assertion`` (model-graded, top-level) in test ``number`` of the config ``view``.

    Its id is the test and the assertion's ``metric`` when it is the first of the test's assertions with that
    metric (a labels row naming the metric finds that one), else its position in the test's own ``assert``
    list, else (a metric-less ``defaultTest`` assertion) its position in defaultTest's."""
    test = view.test_number(number)
    name = unit_name(test, assertion) or "defaultTest assertion None"
    text = {
        "type": assertion.type,
        "value": assertion.value,
        "threshold": to_plain(assertion.field("threshold")),
        "vars": view.test_vars(number),
    }
    prompt = prompt_fingerprint(_rubric_prompt(test), to_plain(assertion.field("rubricPrompt")))
    judge = own_judge(view.grader(assertion, test))
    return AssertionUnit(
        f"test {number} {name}", f"test {number}: {assertion.type}", text, prompt, {}, number, assertion, judge, name
    )


def unit_name(test: Any, assertion: Any) -> str | None:
    """A top-level assertion's name within its test (a view's test): its ``metric`` when it is the first of the
    test's assertions with it, else ``assertion N`` (its place in the test's own ``assert`` list), else
    ``defaultTest assertion N``; None for one inside an ``assert-set``. What a labels file's ``assertion`` column
    takes, and what ``rubric grade --format csv`` writes in its own."""
    metric = to_plain(assertion.field("metric"))
    first = next((a for a in test.top_assertions if metric and to_plain(a.field("metric")) == metric), None)
    if metric and first is assertion:
        return str(metric)
    if (position := _position(test.own_top, assertion)) is not None:
        return f"assertion {position}"
    default = test.default.own_top if test.default is not None else []
    if (position := _position(default, assertion)) is not None:
        return f"defaultTest assertion {position}"
    return None


def own_judge(grader: Any) -> OwnJudge | None:
    """The judge a grader the config names is (``resolve.GraderChoice``): its model as the grading calls it and
    its config's settings that change a verdict; None when it names none (or one promptfoo refuses: no judge)."""
    if grader.problem or not grader.grades(False):
        return None
    try:
        settings = verdict_settings(grader.config or {})
    except GraderConfigError:
        settings = {}  # the grading refuses this grader: every call fails, nothing is measured
    return OwnJudge((promptfoo_to_litellm(grader.provider_id),), settings, default=grader.cli_grader_applies)


def graded_tests(view: Any, test_index: int | None) -> list[int]:
    """The tests (numbers from 1) a grading of the config grades: all, or the one ``--test`` names (``test_index``,
    from 0). GradingError when there is none to grade: a grading and its ``--require-calibrated`` say so alike."""
    numbering = view.numbering
    if numbering.refused and (test_index is None or test_index >= len(numbering.cases)):
        raise GradingError(f"This promptfoo config's tests cannot all be numbered here: {numbering.refused}.")
    count = len(numbering.cases)
    if not count:
        raise GradingError("This promptfoo config has no tests to grade.")
    if test_index is None:
        return list(range(1, count + 1))
    if not 0 <= test_index < count:
        raise GradingError(f"There is no test {test_index + 1}: the config has {count} test(s){_as_numbered(view)}.")
    return [test_index + 1]


def _as_numbered(view: Any) -> str:
    """How the count was made, when it is not the number of entries written."""
    return "" if view.test_count == len(view.tests) else f" as promptfoo numbers them ({len(view.tests)} written)"


def graded_units(view: Any, numbers: list[int] | None = None) -> Iterator[AssertionUnit]:
    """Every model-graded top-level assertion of the tests ``numbers`` (all when None), in the config's order."""
    for number in range(1, view.test_count + 1) if numbers is None else numbers:
        for assertion in view.test_number(number).top_assertions:
            if assertion.type in GRADED_TYPES:
                yield assertion_unit(view, number, assertion)


def link_key(number: int, node: Node) -> tuple[int, int, int]:
    """How a grading's verdict (``GradeReport.links``: test number, assertion node) finds its unit: by place, not
    identity, since each reading of a config reads its test files anew."""
    return number, node.start, node.end


def _position(assertions: list[Any], assertion: Any) -> int | None:
    return next((i for i, a in enumerate(assertions, 1) if a is assertion), None)


def _rubric_prompt(test: Any) -> Any:
    node = test.options_field("rubricPrompt")
    if node is None and test.default is not None and test.default is not test:
        node = test.default.options_field("rubricPrompt")
    return to_plain(node)


def _where(assertion: Any) -> tuple[Span, Span]:
    """Where to report an assertion's unit (its metric, else its type) and the whole of it, in the config: an
    assertion read from a test file is reported on the config's reference to that file."""
    source = assertion.source
    if not source.is_config:
        return source.reference.span, source.reference.span
    node = assertion.ref_node or assertion.node
    named = next((node.get(k) for k in ("metric", "type") if node.is_map and node.get(k) is not None), node)
    return named.span, node.span


class _Calibration:
    """``Format.calibration`` of a promptfoo config."""

    def document_units(self, doc: Document, view: Any) -> list[CalibrationUnit]:
        if view is None:
            return []
        out = []
        for unit in graded_units(view):
            span, extent = _where(unit.assertion)
            # A defaultTest assertion (or a test file's, reported on the config's reference to the file) is
            # written once for many tests: the same finding for several of them is one, naming the tests.
            family = Family(unit.name, "test", unit.test)
            out.append(
                CalibrationUnit(
                    unit.id, unit.text, unit.prompt, span, "assertion", extent, judge=unit.judge, family=family
                )
            )
        return out

    def current_units(self, doc: Document, graded: Graded) -> list[CurrentUnit]:
        if doc.root is None:
            return []
        view = read_config(doc.root, doc.path, doc)
        numbers = graded_tests(view, graded.test_index)  # no such test: refused, naming how many there are
        return [
            CurrentUnit(
                u.id, u.title, u.text, u.prompt, u.settings, judge=u.judge, family=Family(u.name, "test", u.test)
            )
            for u in graded_units(view, numbers)
        ]

    def default_judge(self, env: Mapping[str, str]) -> tuple[str, ...]:
        """The grader promptfoo 0.123.1 picks from the API keys at hand when neither the config nor the grading
        names one (``defaults.default_grader``): the judge that grades such an assertion, as its record names it."""
        chosen = default_grader(env)
        return () if chosen is None else (chosen.model,)

    def judge_card(self, doc: Document, graded: Graded, units: list[CurrentUnit]) -> list[tuple[str, str]]:
        """promptfoo 0.123.1's own rules (dist/src/graders-*.js, evaluator-*.js), in its words."""
        kinds: dict[str, int] = {}
        for unit in units:
            kinds[unit.text["type"]] = kinds.get(unit.text["type"], 0) + 1
        counted = ", ".join(f"{kind} ({count})" for kind, count in kinds.items())
        return [
            (
                "scale",
                "pass / fail with a score from 0 to 1 per assertion"
                + (f": {counted}" if counted else "")
                + "; llm-rubric passes on the judge's pass and, with a threshold, score ≥ threshold; g-eval on "
                "score / 10 ≥ threshold (0.7 unless set); model-graded-closedqa on a reply ending in Y; factuality "
                "on a category its factuality scores pass; a not- form inverts the pass",
            ),
            (
                "abstention",
                "none: every verdict is pass or fail; a failed judge call (or script) is an ERROR counted as "
                "unknown, neither a pass nor a fail, and a not- form does not invert it (promptfoo records a FAIL "
                "with score 0: graderFail); it is counted apart from agreement",
            ),
            ("ties", "none: each assertion has one grader, so no votes to tie"),
            (
                "aggregation",
                "a test passes when every assertion passes; with a threshold (the test's, else defaultTest's), "
                "when the weighted mean score (each assertion's weight, 1 unless set) reaches it",
            ),
        ]


# What the format's ``calibration`` names (annotated: mypy checks it against the protocol).
CALIBRATION: CalibrationHook = _Calibration()
