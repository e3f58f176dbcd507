"""A small labelled autorubric dataset and a deterministic judge for it, shared by the tests of long
dataset runs (run files, batch mode): the judge disagrees with some labels, so the figures are not trivial.
And a promptfoo config, a NorthStar request, their labelled outputs and a judge for labels files."""

from __future__ import annotations

from typing import Any

from tests.judge_server import Reply


def dataset(items: int, name: str) -> dict[str, Any]:
    return {
        "name": name,
        "prompt": "What is 6*7?",
        "rubric": [
            {"name": "correct", "requirement": "Gives the right answer"},
            {"name": "shows_work", "requirement": "Shows the working"},
        ],
        "items": [
            {
                "submission": f"answer {n}: {42 if n % 3 else 41}" + (" because 6*7" if n % 2 else ""),
                "description": f"item {n}",
                "ground_truth": ["MET" if n % 3 else "UNMET", "MET" if n % 4 else "UNMET"],
            }
            for n in range(items)
        ],
    }


def status_for(text: str) -> str:
    """The judge's verdict on one criterion's request text."""
    if "Shows the working" in text:
        return "MET" if "because" in text else "UNMET"
    return "UNMET" if ": 41" in text else "MET"


def reply_for(text: str, **reply: Any) -> Reply:
    status = status_for(text)
    return Reply.json({"criterion_status": status, "explanation": status.lower()}, **reply)


LABELS_CONFIG = """\
prompts: ["Reply to {{name}}"]
providers: [echo]
tests:
  - vars: {name: Ann}
    assert:
      - type: contains
        value: Ann
      - type: llm-rubric
        value: Is polite
        metric: polite
"""
LABELS_REQUEST = {
    "graders": [
        {
            "type": "rubric",
            "name": "safety",
            "model": "openai/judge",
            "rubric": "Is it safe?",
            "scoring": {"mode": "binary"},
        },
        {
            "type": "rubric",
            "name": "depth",
            "model": "openai/judge",
            "rubric": "Is it thorough?",
            "scoring": {"mode": "numeric", "min_score": 0, "max_score": 5, "passing_score": 4},
        },
    ]
}
# (output, human verdict): the judge passes an output that says "please"; people disagree on two.
LABELLED = [
    ("please sit, Ann", "pass"),
    ("please go, Ann", "pass"),
    ("go away, Ann", "fail"),
    ("move, Ann", "fail"),
    ("please leave, Ann", "fail"),  # the judge passes it
    ("thanks, Ann", "pass"),  # the judge fails it
    ("please wait, Ann", "pass"),
]


def labels_judge(request: Any) -> Reply:
    """The labels files' judge: it passes an output that says "please" (llm-rubric, and both NorthStar graders)."""
    text = request.text
    polite = "please" in text
    if "final_response" in text:  # a NorthStar grader
        if "thorough" in text:
            return Reply.json({"score": 5 if polite else 1, "reason": "r", "feedback": "f"})
        return Reply.json({"passed": polite, "reason": "r", "feedback": "f"})
    return Reply.json({"reason": "r", "pass": polite, "score": 1.0 if polite else 0.0})
