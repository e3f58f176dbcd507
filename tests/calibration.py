"""A small labelled autorubric dataset and a deterministic judge for it, shared by the tests of long
dataset runs (run files, batch mode): the judge disagrees with some labels, so the figures are not trivial."""

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
