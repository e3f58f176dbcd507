"""A dataset to label and a judge that grades it, shared by the labelling tests: twelve unlabelled items (and one
labelled, which ``rubric grade`` needs to measure anything) on two criteria, one pass/fail and one of two options;
and the expected bytes of the file once some of them are labelled, built by plain text replacement (not by the
edit code under test)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.judge_server import Reply

UNLABELLED = 12


def dataset_text(items: int = UNLABELLED) -> str:
    lines = [
        "{",
        '  "name": "support replies",',
        '  "prompt": "Where is my parcel?",',
        '  "rubric": [',
        '    {"name": "polite", "requirement": "The reply is polite"},',
        '    {"name": "tone", "requirement": "How warm is the reply?", "options": [{"label": "Cold", "value": 0}, '
        '{"label": "Warm", "value": 1}]}',
        "  ],",
        '  "items": [',
    ]
    for n in range(1, items + 1):
        lines += [
            "    {",
            f'      "submission": "reply {n}: it ships on day {n}",',
            f'      "description": "case {n}"',
            "    },",
        ]
    lines += [
        "    {",
        '      "submission": "reply 99: it shipped",',
        '      "description": "already labelled",',
        '      "ground_truth": ["MET", "Warm"]',
        "    }",
        "  ]",
        "}",
        "",
    ]
    return "\n".join(lines)


def labelled_text(text: str, labels: dict[int, tuple[str, str]]) -> str:
    """``text`` with item n's ``ground_truth`` set to ``labels[n]``: what the labelled file must hold, byte for byte."""
    for n, (polite, tone) in labels.items():
        old = f'"description": "case {n}"\n'
        new = f'"description": "case {n}",\n      "ground_truth": [{json.dumps(polite)}, {json.dumps(tone)}]\n'
        assert text.count(old) == 1
        text = text.replace(old, new)
    return text


def item_number(request_text: str) -> int:
    found = re.search(r"reply (\d+):", request_text)
    return int(found.group(1)) if found else 0


def judge_reply(request) -> Reply:  # type: ignore[no-untyped-def]
    """Even items: polite MET and tone Cold; odd ones: UNMET and Warm (option 2 in the authored order)."""
    n = item_number(request.text)
    if "selected_option" in request.text:
        return Reply.json({"selected_option": 1 if n % 2 == 0 else 2, "explanation": f"tone-reason-{n}"})
    return Reply.json({"criterion_status": "MET" if n % 2 == 0 else "UNMET", "explanation": f"polite-reason-{n}"})


def write_dataset(folder: Path, items: int = UNLABELLED) -> Path:
    path = folder / "replies.dataset.json"
    path.write_text(dataset_text(items), encoding="utf-8")
    return path
