"""Entry points: grade a response against any supported rubric file's text.

``grade_text`` reads the document, decides its format and dispatches to the format's
grader; ``grade_examples`` grades an autorubric file's embedded ``examples``. Nothing here
imports litellm at module level: the first judge call does (off the event loop).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rubric_lsp.document import Document, Node, parse_document
from rubric_lsp.grading.cache import VerdictCache
from rubric_lsp.grading.judge import Judge
from rubric_lsp.grading.report import GradeReport
from rubric_lsp.grading.settings import JudgeSettings, MissingCredentials, api_key_for

Progress = Callable[[int, int], None]


class GradingError(Exception):
    """The file cannot be graded (not readable, not a rubric, invalid); the message says why."""


@dataclass
class Run:
    """Judges shared by one grading run: one per model, one concurrency limit for all."""

    settings: JudgeSettings  # resolved
    semaphore: asyncio.Semaphore
    cache: VerdictCache | None
    judges: dict[tuple[str, str | None, float | None, int | None, str | None], Judge] = field(default_factory=dict)

    @classmethod
    def start(cls, settings: JudgeSettings) -> Run:
        resolved = settings.resolved()
        cache = VerdictCache(resolved.cache_dir) if resolved.cache_enabled and resolved.cache_dir else None
        return cls(resolved, asyncio.Semaphore(max(1, resolved.concurrency)), cache)

    def judge(self, settings: JudgeSettings | None = None, model: str | None = None) -> Judge:
        settings = settings or self.settings
        model = model or settings.model
        assert model is not None
        # Graders with a key of their own (promptfoo's apiKey / apiKeyEnvar) get judges of their
        # own; the key is held here only as a digest.
        credential = api_key_for(model, settings.api_base, settings.environ())
        digest = None if credential is None else hashlib.sha256(credential.encode("utf-8")).hexdigest()
        key = (model, settings.api_base, settings.temperature, settings.max_tokens, digest)
        if key not in self.judges:
            self.judges[key] = Judge(settings, model, self.semaphore, self.cache)
        return self.judges[key]


def kind_of(doc: Document, path: str | None) -> str:
    """autorubric-rubric | autorubric-dataset | promptfoo | northstar | rubrics-task | unknown."""
    from rubric_lsp.formats.registry import detect

    try:
        fmt = detect(doc)
    except Exception:
        fmt = None
    name = fmt.name if fmt is not None else ""
    for prefix in ("autorubric-rubric", "autorubric-dataset", "promptfoo", "northstar", "rubrics-task"):
        if name.startswith(prefix):
            if prefix == "northstar" and not _is_run_request(doc.root):
                return "northstar-dataset"
            return prefix
    root = doc.root
    if _is_run_request(root):
        return "northstar"
    if fmt is None:  # detection failed or found nothing: fall back on content
        try:
            from rubric_lsp.formats.autorubric import detect_dataset, detect_rubric

            if detect_rubric(doc) > 0:
                return "autorubric-rubric"
            if detect_dataset(doc) > 0:
                return "autorubric-dataset"
        except Exception:
            pass
    if root is not None and root.is_map and (root.has("prompts") or root.has("tests") or root.has("defaultTest")):
        return "promptfoo"
    return "unknown"


def _is_run_request(root: Node | None) -> bool:
    if root is None or not root.is_map:
        return False
    graders = root.get("graders")
    return graders is not None and graders.is_seq


def read(rubric_text: str, path: str | None) -> Document:
    doc = parse_document(rubric_text, path or "rubric.yaml")
    if not doc.readable or doc.root is None:
        issue = next((i for i in doc.issues if i.fatal), None)
        raise GradingError(f"The file cannot be read: {issue.message if issue else 'it is empty'}")
    return doc


def autorubric_inputs(doc: Document) -> tuple[list[Any], str | None]:
    from rubric_lsp.formats.autorubric.view import read_rubric
    from rubric_lsp.grading.autorubric_grader import CriterionInput

    view = read_rubric(doc.root)
    if view.problems or not view.entries or any(e.criterion is None for e in view.entries):
        problem = view.problems[0] if view.problems else None
        where = f" (line {doc.range(problem.node).start.line + 1})" if problem is not None else ""
        message = problem.message if problem is not None else "The rubric has no criteria"
        raise GradingError(f"autorubric would reject this rubric{where}: {message}. Run `rubric lint` for details.")
    items = [CriterionInput(e.index, e.criterion, e.label, doc.range(e.node).to_json()) for e in view.entries]
    return items, view.guidelines


def autorubric_gradable(items: list[Any]) -> None:
    """Raise GradingError, before any call, for a rubric autorubric loads but crashes grading.

    A nominal multi-choice criterion with an aggregation autorubric does not know (rule AR108)
    crashes autorubric's grader when it combines the judges' picks, even one judge's.
    """
    from rubric_lsp.grading.autorubric_grader import NOMINAL_AGGREGATIONS, unknown_aggregation

    for item in items:
        name = unknown_aggregation(item.criterion)
        if name is not None:
            line = f" (line {item.range['start']['line'] + 1})" if item.range else ""
            raise GradingError(
                f"autorubric cannot grade this rubric{line}: criterion {item.name!r} is nominal and its aggregation "
                f"{name!r} is none of {', '.join(NOMINAL_AGGREGATIONS)}, so autorubric crashes when it combines "
                "the judges' picks. Rename it. Run `rubric lint` for details (AR108)."
            )


async def grade_text(
    rubric_text: str,
    path: str | None,
    response: str,
    query: str | None,
    settings: JudgeSettings,
    *,
    test_index: int | None = None,
    on_progress: Progress | None = None,
) -> GradeReport:
    """Grade ``response`` against the rubric in ``rubric_text``; see ``rubric_lsp.grading``.

    Raises GradingError (the file cannot be graded) or MissingCredentials (no API key; raised
    before any call). Judge failures are verdicts with ``error`` set, never exceptions.
    """
    doc = read(rubric_text, path)
    kind = kind_of(doc, path)
    if kind == "autorubric-rubric":
        return await _grade_autorubric(doc, response, query, settings, on_progress)
    if kind == "northstar":
        return await _grade_northstar(doc, response, query, settings, on_progress)
    if kind == "promptfoo":
        from rubric_lsp.grading.promptfoo_grader import grade_promptfoo

        return await grade_promptfoo(doc, response, query, settings, test_index=test_index, on_progress=on_progress)
    if kind == "autorubric-dataset":
        raise GradingError(
            "This is an autorubric dataset: grade it without --response (`rubric grade DATASET.json`) to measure the judge's agreement with its ground truth."
        )
    raise GradingError(_not_gradable(kind))


def _not_gradable(kind: str) -> str:
    if kind == "rubrics-task":
        return "A Rubrics task holds human ratings, not a rubric to grade with; convert it (`rubric convert`) to an autorubric dataset and grade that."
    if kind == "northstar-dataset":
        return "This is a NorthStar eval dataset; grade against the EvalRunRequest that holds the graders."
    return "This file is not a rubric rubric-lsp can grade with (an autorubric rubric, a promptfoo config or a NorthStar EvalRunRequest)."


async def _grade_autorubric(
    doc: Document, response: str, query: str | None, settings: JudgeSettings, on_progress: Progress | None
) -> GradeReport:
    from rubric_lsp.grading.autorubric_grader import grade_criteria

    items, guidelines = autorubric_inputs(doc)
    autorubric_gradable(items)
    run = Run.start(settings)
    judges = [run.judge(model=m) for m in run.settings.judge_models()]
    s = run.settings
    return await grade_criteria(
        judges,
        items,
        response,
        query,
        guidelines,
        strategy=s.cannot_assess,
        partial_credit=s.partial_credit,
        normalize=s.normalize,
        shuffle=s.shuffle_options,
        seed=s.seed,
        aggregation=s.aggregation,
        on_progress=on_progress,
    )


async def _grade_northstar(
    doc: Document, response: str, query: str | None, settings: JudgeSettings, on_progress: Progress | None
) -> GradeReport:
    from dataclasses import replace

    from rubric_lsp.grading.northstar_grader import (
        DEFAULT_JUDGE_MODEL,
        GraderRequestError,
        grade_graders,
        read_graders,
        skip_reason,
    )

    try:
        plan = read_graders(doc.root, lambda node: doc.range(node).to_json())
    except GraderRequestError as exc:
        raise GradingError(str(exc)) from None
    if not plan.judges:
        others = f" (it has {', '.join(plan.not_run)}, which are not LLM judges)" if plan.not_run else ""
        raise GradingError(f"This EvalRunRequest has no LLM graders (type 'rubric' or 'faithfulness') to run{others}.")
    # --model / RUBRIC_JUDGE_MODEL stand in for every judge's model (to try a request on another
    # judge); otherwise each grader's own model, and NorthStar's default where it names none.
    explicit_model = settings.model or settings.environ().get("RUBRIC_JUDGE_MODEL")
    run = Run.start(
        replace(settings, model=explicit_model or next((g.model for g in plan.judges if g.model), DEFAULT_JUDGE_MODEL))
    )

    def judge_for(grader) -> Any:
        model = explicit_model or grader.model or DEFAULT_JUDGE_MODEL
        return run.judge(replace(run.settings, model=model, temperature=grader.temperature))

    # Credentials are checked for every grader that will call its judge, before any call is made.
    for grader in plan.judges:
        if grader.config_error is None and skip_reason(grader, query) is None:
            judge_for(grader)
    return await grade_graders(judge_for, plan, response, query, on_progress=on_progress)


@dataclass
class ExampleResult:
    name: str
    range: dict[str, Any] | None
    report: GradeReport | None
    met: bool | None  # None: no expectation
    failures: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "range": self.range,
            "report": self.report.to_json() if self.report else None,
            "met": self.met,
            "failures": self.failures,
        }


async def grade_examples(
    rubric_text: str, path: str | None, settings: JudgeSettings, *, on_progress: Progress | None = None
) -> list[ExampleResult]:
    """Grade the autorubric file's top-level ``examples`` and check their ``expect``ations."""
    from rubric_lsp.formats.autorubric.score import find_option
    from rubric_lsp.grading.autorubric_grader import grade_criteria

    doc = read(rubric_text, path)
    root = doc.root
    examples_node = root.get("examples") if root.is_map else None
    if examples_node is None or not examples_node.is_seq:
        return []
    items, guidelines = autorubric_inputs(doc)
    autorubric_gradable(items)
    run = Run.start(settings)
    s = run.settings
    for model in s.judge_models():
        run.judge(model=model)  # checks credentials before any call
    examples = [e for e in examples_node.value if e.is_map]
    judge_count = len(s.judge_models())
    total = len(examples) * len(items) * judge_count
    progress = {"done": 0}

    def tick(_done: int, _total: int) -> None:
        progress["done"] += 1
        if on_progress:
            on_progress(progress["done"], total)

    async def one(node: Node) -> ExampleResult:
        plain = _plain(node)
        name = str(plain.get("name") or "example")
        response = plain.get("response")
        if not isinstance(response, str):
            return ExampleResult(
                name, doc.range(node).to_json(), None, False, ["The example has no 'response' text to grade."]
            )
        query = plain.get("query") if isinstance(plain.get("query"), str) else None
        # Judges of their own (sharing the run's concurrency limit and cache) so usage is per example.
        judges = [Judge(s, m, run.semaphore, run.cache) for m in s.judge_models()]
        report = await grade_criteria(
            judges,
            items,
            response,
            query,
            guidelines,
            strategy=s.cannot_assess,
            partial_credit=s.partial_credit,
            normalize=s.normalize,
            shuffle=s.shuffle_options,
            seed=s.seed,
            aggregation=s.aggregation,
            on_progress=tick,
        )
        failures: list[str] = []
        expect = plain.get("expect") if isinstance(plain.get("expect"), dict) else None
        if expect is None:
            return ExampleResult(name, doc.range(node).to_json(), report, None, failures)
        min_score = expect.get("min_score")
        if isinstance(min_score, (int, float)) and not isinstance(min_score, bool):
            if report.score is None:
                failures.append(
                    f"expected a score of at least {min_score:g}, but there is no score ({report.error or 'nothing was scored'})"
                )
            elif report.score < min_score:
                failures.append(f"expected a score of at least {min_score:g}, got {report.score:.3f}")
        expected = expect.get("verdicts")
        if isinstance(expected, list):
            pairs = [(items[i], v) for i, v in enumerate(expected) if i < len(items)]
        elif isinstance(expected, dict):
            by_name = {item.name: item for item in items}
            pairs = [(by_name[k], v) for k, v in expected.items() if k in by_name]
            failures.extend(
                f"expect.verdicts names {k!r}, which is no criterion's name" for k in expected if k not in by_name
            )
        else:
            pairs = []
        for item, wanted in pairs:
            got = report.verdicts[item.index]
            if got.failed:
                failures.append(f"{item.name}: expected {wanted}, but the judgment failed ({got.error})")
                continue
            same = got.verdict == wanted
            if item.criterion.options is not None and isinstance(wanted, str):
                try:
                    same = got.option == find_option(item.criterion, wanted)
                except ValueError:
                    same = got.verdict.strip().lower() == wanted.strip().lower()
            if not same:
                failures.append(f"{item.name}: expected {wanted}, the judge said {got.verdict}")
        return ExampleResult(name, doc.range(node).to_json(), report, not failures, failures)

    tasks = [asyncio.ensure_future(one(node)) for node in examples]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        raise


def _plain(node: Node) -> dict[str, Any]:
    from rubric_lsp.document.nodes import to_plain

    value = to_plain(node)
    return value if isinstance(value, dict) else {}


__all__ = [
    "ExampleResult",
    "GradingError",
    "MissingCredentials",
    "Run",
    "grade_examples",
    "grade_text",
    "kind_of",
    "read",
]
