"""The grading engine: grade a response against any supported rubric with an LLM judge.

Importing this package does not import litellm (the first judge call does, off the event
loop), so the language server can import it at start-up.

API: one request for everything the engine grades (what ``rubric grade`` and the server's
``rubric-lsp.grade`` call)::

    from rubric_lsp.engine import GradeRequest, RequestKind, grade
    result = await grade(GradeRequest(text, path, RequestKind.DATASET, limit=50), settings,
                         on_progress=lambda done, total: ...)
    result.to_json(); result.text_lines(); result.failed
    # kinds: RESPONSE (responses=(r,)), OUTPUTS (several), EXAMPLES, DATASET, RESCORE (verdicts=...)

The call-style entry points (kept for the server's gradeText/gradeDocument and the tests)::

    from rubric_lsp.engine import (
        JudgeSettings,
        grade_text,
        grade_examples,
        GradeReport,
    )

    settings = JudgeSettings(model=None, api_base=None, concurrency=16, timeout_seconds=60.0,
                             cache_enabled=True, cache_dir=None)   # None → RUBRIC_JUDGE_MODEL,
                             # RUBRIC_JUDGE_API_BASE, RUBRIC_CACHE_DIR, then defaults
    report: GradeReport = await grade_text(rubric_text, path, response, query, settings,
                                           test_index=None, on_progress=lambda done, total: ...)
    # test_index: for formats with numbered tests, 0-based position of the test (None = every
    # test); the CLI's --test N is 1-based (N = test_index + 1), as those formats number them.
    report.to_json()   # exactly the CLI's JSON (below)
    results = await grade_examples(rubric_text, path, settings, on_progress=...)
    # each ExampleResult: .name, .range (of the example node), .report, .met (bool | None),
    # .failures (list[str]); .to_json()

``report.to_json()``::

    {"score": float|None, "raw_score": float|None, "passed": bool|None (formats with a pass mark),
     "verdicts": [{"name", "index", "verdict", "reason", "range", "option"?, "error"?,
                   "counted_as"?, "score"?, "passed"?, "weight"?, "label"?, "ambiguous"?,
                   "cached"?, "votes"?, "feedback"?, "confidence"?, "evidence"?}],
     "usage": {"calls", "cached", "prompt_tokens", "completion_tokens", "total_tokens", "cost_usd"},
     "format", "model", "error"?, "notes"?}

Extra ``JudgeSettings`` fields (all optional): ``models`` (more judges: a panel, for a format whose
grader takes one, ``Format.judge_panel``; any other grades with the first, ``runner.as_graded``, and the
faces say so, ``runner.panel_note``), ``temperature``
(default 0), ``max_tokens``, ``max_retries`` (default 4), ``seed``, ``env`` (a mapping used
instead of ``os.environ``), ``rpm`` / ``tpm`` (requests / tokens a minute, ceilings for the
run's rate limiter). What one format's grader alone reads (how several judges' votes combine,
how abstentions count, …) is that format's: ``Format.grade_options`` declares it, and the value
travels in ``GradeRequest.options`` (``grade_text(..., options={...})``).

``range`` is the 0-based code-point range ``{"start": {"line", "character"}, "end": {...}}``
of the criterion / assertion / grader node in ``rubric_text``. ``verdict`` is the format's own
word (its grading package says which, and what each one means: ``engine/result.py``), SKIPPED,
or ``"ERROR"`` when the judgment failed: then ``error`` = ``"<category>: <message>"``
(infrastructure | parse | unknown) and ``counted_as`` says how the score treats it. A
failure is never a genuine-looking verdict and never a pass.

Errors raised instead of a report: ``GradingError`` (the file cannot be graded; message says
why) and ``MissingCredentials`` (no API key for the judge; raised before any call, naming the
environment variable to set). Cancellation = cancelling the task: in-flight HTTP calls stop
and the cache only ever holds complete entries.

How requests leave (``judge.py``): at most ``concurrency`` calls in flight, fewer for a while
after a burst of 429s, none while a 429's Retry-After lasts (``rate_limit.py``); on each event
loop one call at a time builds and sends its request (``send_gate.py``), so answers come
back spread out instead of in bursts; ``openai/<name>`` at an ``api_base`` goes through
litellm's ``hosted_vllm`` route unless ``<name>`` is one of OpenAI's own models
(``transports.via_litellm_route``: the same request for ~40 % less CPU). Both were measured with
``bench/bench_grading.py``; the reasons are in those modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rubric_lsp.engine.report import ERROR_VERDICT, GradeReport, Verdict
    from rubric_lsp.engine.settings import JudgeSettings, MissingCredentials

__all__ = [
    "ERROR_VERDICT",
    "ExampleResult",
    "GradeReport",
    "GradeRequest",
    "GradingError",
    "JudgeSettings",
    "MissingCredentials",
    "RequestKind",
    "Verdict",
    "grade",
    "grade_examples",
    "grade_text",
    "warm_up",
]


def __getattr__(name: str) -> Any:
    # Every name loads its module on first use: the language server reads the results' types
    # (engine/result.py) at start, and the grading's modules only when it grades.
    if name in ("ERROR_VERDICT", "GradeReport", "Verdict"):
        from rubric_lsp.engine import report

        return getattr(report, name)
    if name in ("JudgeSettings", "MissingCredentials"):
        from rubric_lsp.engine import settings

        return getattr(settings, name)
    if name in ("grade_text", "grade_examples", "GradingError", "ExampleResult"):
        from rubric_lsp.engine import calls as engine

        return getattr(engine, name)
    if name in ("GradeRequest", "RequestKind"):
        from rubric_lsp.engine import request

        return getattr(request, name)
    if name == "grade":
        from rubric_lsp.engine.runner import grade

        return grade
    raise AttributeError(name)


async def grade_text(*args: Any, **kwargs: Any) -> GradeReport:
    from rubric_lsp.engine.calls import grade_text as run

    return await run(*args, **kwargs)


async def grade_examples(*args: Any, **kwargs: Any) -> list[Any]:
    from rubric_lsp.engine.calls import grade_examples as run

    return await run(*args, **kwargs)


def warm_up() -> None:
    """Import litellm now (blocking, seconds); the server may call this on a worker thread after start-up."""
    from rubric_lsp.engine.transports.via_litellm import load_litellm

    load_litellm()
