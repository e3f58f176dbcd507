"""The autorubric rubric's grader (``Format.grader``): a response, the file's examples, or given verdicts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rubric_lsp.document import Document, Node
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.document.positions import Span
from rubric_lsp.engine.report import ExampleResult, ExamplesResult, GradeReport, Verdict
from rubric_lsp.engine.request import GradeRequest, GradeResult, RequestKind
from rubric_lsp.engine.runner import Grader, Grading, GradingError, Run, UnsupportedRequest, fan_out
from rubric_lsp.formats.autorubric.grading.criteria import CriterionInput, grade_criteria
from rubric_lsp.formats.autorubric.grading.inputs import check_gradable, criterion_inputs
from rubric_lsp.formats.autorubric.grading.rescore import rescore
from rubric_lsp.formats.autorubric.options import AutorubricOptions
from rubric_lsp.formats.autorubric.score import find_option


async def grade(doc: Document, request: GradeRequest, grading: Grading) -> GradeResult:
    options = AutorubricOptions.of(request.options)
    if request.kind is RequestKind.RESCORE:
        return rescore(doc, request, options)
    if request.kind not in (RequestKind.RESPONSE, RequestKind.EXAMPLES):
        raise UnsupportedRequest(request.kind, "an autorubric rubric grades one response, or its own examples")
    if request.kind is RequestKind.EXAMPLES and _examples_node(doc) is None:
        return ExamplesResult()
    items, guidelines = criterion_inputs(doc)
    check_gradable(items)
    graded = selected_criteria(items, request.units)
    run = grading.start()
    judges = run.judges_for_models()  # checks credentials before any call
    if request.kind is RequestKind.EXAMPLES:
        return await grade_examples(doc, items, guidelines, run, grading, options, graded=graded)
    grading.expect(len(graded) * len(judges))
    report = await score_response(judges, graded, request.response, request.query, guidelines, run, grading, options)
    _note_partial(report, graded, items)
    return report


def selected_criteria(items: list[CriterionInput], units: tuple[str, ...]) -> list[CriterionInput]:
    """The criteria a request names (an editor selection), in rubric order; all of them when it names none."""
    if not units:
        return items
    wanted = set(units)
    graded = [item for item in items if item.name in wanted]
    if not graded:
        names = ", ".join(repr(u) for u in units)
        raise GradingError(f"The rubric has no criterion named {names}: nothing was graded.")
    return graded


def _note_partial(report: GradeReport, graded: list[CriterionInput], items: list[CriterionInput]) -> None:
    if len(graded) < len(items):
        report.notes.append(
            f"Graded {len(graded)} of {len(items)} criteria (the selection): the score covers these only, "
            "not the rubric's."
        )


async def score_response(
    judges: list[Any],
    items: list[CriterionInput],
    response: str,
    query: str | None,
    guidelines: str | None,
    run: Run,
    grading: Grading,
    options: AutorubricOptions,
) -> GradeReport:
    return await grade_criteria(
        judges,
        items,
        response,
        query,
        guidelines,
        strategy=options.cannot_assess,
        partial_credit=options.partial_credit,
        normalize=options.normalize,
        shuffle=options.shuffle_options,
        seed=run.settings.seed,
        aggregation=options.aggregation,
        on_progress=grading.tick,
    )


@dataclass
class _Example:
    node: Node
    plain: dict[str, Any]


async def grade_examples(
    doc: Document,
    items: list[CriterionInput],
    guidelines: str | None,
    run: Run,
    grading: Grading,
    options: AutorubricOptions,
    *,
    graded: list[CriterionInput] | None = None,
) -> ExamplesResult:
    """Grade the file's top-level ``examples`` and check their ``expect``ations. ``graded``: only these
    criteria (an editor selection); then only their ``verdicts`` expectations are checked, not ``min_score``."""
    examples_node = _examples_node(doc)
    if examples_node is None:
        return ExamplesResult()
    graded = items if graded is None else graded
    examples = [_Example(e, _plain(e)) for e in examples_node.value if e.is_map]
    grading.expect(len(examples) * len(graded) * len(run.settings.judge_models()))

    async def one(example: _Example) -> ExampleResult:
        name = str(example.plain.get("name") or "example")
        where = doc.range(example.node).to_json()
        response = example.plain.get("response")
        if not isinstance(response, str):
            return ExampleResult(name, where, None, False, ["The example has no 'response' text to grade."])
        query = example.plain.get("query")
        # Judges of their own (sharing the run's concurrency limit and cache) so usage is per example.
        report = await score_response(
            run.fresh_judges(),
            graded,
            response,
            query if isinstance(query, str) else None,
            guidelines,
            run,
            grading,
            options,
        )
        _note_partial(report, graded, items)
        expect = example.plain.get("expect")
        if not isinstance(expect, dict):
            return ExampleResult(name, where, report, None, [])
        failures = expectation_failures(items, report, expect, graded=graded)
        ranges = [_failure_range(doc, example.node.get("expect"), f) for f in failures]
        return ExampleResult(name, where, report, not failures, failures, ranges)

    return ExamplesResult(await fan_out(one(e) for e in examples))


def _failure_range(doc: Document, expect: Node | None, failure: str) -> dict[str, Any] | None:
    """The ``expect`` entry a failure is about: ``min_score``, the criterion's ``verdicts`` entry, else ``expect``."""
    if expect is None:
        return None
    target: Node = expect
    if expect.is_map:
        if failure.startswith("expected a score"):
            target = expect.get("min_score") or expect
        verdicts = expect.get("verdicts")
        if verdicts is not None and verdicts.is_map:
            for key, value in verdicts.pairs():
                if key.is_scalar and (failure.startswith(f"{key.value}:") or f"{key.value!r}" in failure):
                    return doc.range(Span(key.start, max(key.end, value.end))).to_json()
    return doc.range(target).to_json()


def expectation_failures(
    items: list[CriterionInput],
    report: GradeReport,
    expect: dict[str, Any],
    *,
    graded: list[CriterionInput] | None = None,
) -> list[str]:
    """What of an example's ``expect`` (``min_score``, ``verdicts``) the graded report does not meet.
    ``graded``: the criteria the report holds, when only some were graded (``min_score`` is then not checked)."""
    partial = graded is not None and len(graded) < len(items)
    failures = [] if partial else _min_score_failures(report, expect.get("min_score"))
    position = {item.index: k for k, item in enumerate(graded if graded is not None else items)}
    expected = expect.get("verdicts")
    pairs: list[tuple[CriterionInput, Any]] = []
    if isinstance(expected, list):
        pairs = [(items[i], v) for i, v in enumerate(expected) if i < len(items)]
    elif isinstance(expected, dict):
        by_name = {item.name: item for item in items}
        pairs = [(by_name[k], v) for k, v in expected.items() if k in by_name]
        failures.extend(
            f"expect.verdicts names {k!r}, which is no criterion's name" for k in expected if k not in by_name
        )
    for item, wanted in pairs:
        if item.index not in position:
            continue  # not graded this time
        failure = _verdict_failure(item, report.verdicts[position[item.index]], wanted)
        if failure:
            failures.append(failure)
    return failures


def _min_score_failures(report: GradeReport, min_score: Any) -> list[str]:
    if not isinstance(min_score, (int, float)) or isinstance(min_score, bool):
        return []
    if report.score is None:
        why = report.error or "nothing was scored"
        return [f"expected a score of at least {min_score:g}, but there is no score ({why})"]
    if report.score < min_score:
        return [f"expected a score of at least {min_score:g}, got {report.score:.3f}"]
    return []


def _verdict_failure(item: CriterionInput, got: Verdict, wanted: Any) -> str | None:
    if got.failed:
        return f"{item.name}: expected {wanted}, but the judgment failed ({got.error})"
    same = got.verdict == wanted
    if item.criterion.options is not None and isinstance(wanted, str):
        try:
            same = got.option == find_option(item.criterion, wanted)
        except ValueError:
            same = got.verdict.strip().lower() == wanted.strip().lower()
    return None if same else f"{item.name}: expected {wanted}, the judge said {got.verdict}"


def _examples_node(doc: Document) -> Node | None:
    root = doc.root
    node = root.get("examples") if root is not None and root.is_map else None
    return node if node is not None and node.is_seq else None


def _plain(node: Node) -> dict[str, Any]:
    value = to_plain(node)
    return value if isinstance(value, dict) else {}


# What Format.grader names: annotated, so that mypy checks ``grade`` against the engine's protocol.
GRADER: Grader = grade
