"""autorubric 1.6.1 itself, as the reference the owner-exact tests compare with.

Both autorubric's ``CriterionGrader`` and our engine are pointed at the same scripted judge
(tests/judge_server.py) through litellm's real HTTP client. Not a test module: the tests that
compare with autorubric import it (test modules never import each other).
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from tests.conftest import import_or_require

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

SECRET = "sk-test-SECRET-owner-exact-0123456789"


def judge_specs(server: Any, models: list[str]) -> list[Any]:
    import_or_require("autorubric")
    from autorubric.graders.criterion_grader import JudgeSpec
    from autorubric.llm import LLMConfig

    return [
        JudgeSpec(
            LLMConfig(
                model=m,
                api_base=server.base_url,
                api_key=SECRET,
                max_retries=1,
                retry_min_wait=0.0,
                retry_max_wait=0.0,
                timeout=10.0,
            ),
            m,
        )
        for m in models
    ]


def reference_grade(
    server: Any,
    rubric: Any,
    response: str,
    models: list[str],
    *,
    aggregation: str = "majority",
    strategy: str = "skip",
    query: str | None = None,
) -> tuple[float | None, list[str]]:
    """autorubric's score and final verdicts (binary value or option label) for ``rubric`` (an autorubric Rubric)."""
    from autorubric.graders.criterion_grader import CriterionGrader
    from autorubric.types import CannotAssessConfig, CannotAssessStrategy

    grader = CriterionGrader(
        judges=judge_specs(server, models),
        aggregation=aggregation,
        seed=0,
        cannot_assess_config=CannotAssessConfig(strategy=CannotAssessStrategy(strategy)),
    )
    report = asyncio.run(grader.grade(response, rubric.rubric, query=query))
    verdicts = []
    for entry in report.report:
        if getattr(entry, "final_verdict", None) is not None:
            verdicts.append(entry.final_verdict.value)
        elif getattr(entry, "final_multi_choice_verdict", None) is not None:
            verdicts.append(entry.final_multi_choice_verdict.selected_label)
        else:
            verdicts.append(entry.verdict.value)
    return report.score, verdicts


def empty_choices_body() -> bytes:
    """A chat completion with ``"choices": []`` (what some gateways return for a filtered prompt)."""
    return json.dumps(
        {
            "id": "chatcmpl-empty",
            "object": "chat.completion",
            "created": 0,
            "model": "judge",
            "choices": [],
            "usage": {"prompt_tokens": 10, "completion_tokens": 0, "total_tokens": 10},
        }
    ).encode()
