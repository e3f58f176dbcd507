"""What the judge is sent for one criterion, and how its reply is read (docs/review.md, "The prompt").

One request per criterion answers every question of the review rubric at once: the criterion is read once, and
a review costs one judge call per criterion. The reply is a JSON object with one answer per smell; a reply that
misses one, or says neither true nor false, is a failed judgment (never a clean review).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rubric_lsp.calibration import record
from rubric_lsp.engine.failures import JudgeFailure
from rubric_lsp.engine.replies import extract, snippet
from rubric_lsp.review.questions import QUESTIONS

SYSTEM = (
    "You review one criterion of a rubric that a language-model judge will use to grade responses, as a rubric "
    "expert would before the rubric is used: can the judge, and the people checking it, apply this criterion "
    "the same way every time? Answer each question below about the criterion's own wording.\n\n"
    "- Answer false unless the problem is clear: only a problem an expert would want pointed out is true.\n"
    "- Words that describe what the response should say (explains that the side effects may include nausea), "
    "quoted text, {{placeholders}} and words inside a prohibition or a penalty are not the criterion's own "
    "wording.\n"
    "- A penalty criterion takes points away when the response does what it describes.\n\n"
    "Questions:\n"
    + "\n".join(f'"{q.smell}": {q.ask}' for q in QUESTIONS)
    + "\n\nReply with one JSON object and nothing else. For each question, under its name: "
    '{"present": true or false, "words": the words of the criterion that show the problem, copied exactly '
    '(empty when false), "reason": one sentence}.'
)

# The prompt's fingerprint: a calibration record of the review is stale once it changes.
PROMPT_FINGERPRINT = record.fingerprint(SYSTEM)

_ANSWER = {
    "type": "object",
    "properties": {"present": {"type": "boolean"}, "words": {"type": "string"}, "reason": {"type": "string"}},
    "required": ["present", "words", "reason"],
    "additionalProperties": False,
}
RESPONSE_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {
        "name": "criterion_review",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {q.smell: _ANSWER for q in QUESTIONS},
            "required": [q.smell for q in QUESTIONS],
            "additionalProperties": False,
        },
    },
}


@dataclass(frozen=True)
class Criterion:
    """What the judge is shown of one criterion (from ``Format.criteria``, or a labelled row)."""

    name: str
    text: str
    levels: tuple[str, ...] = ()
    penalty: bool = False
    choice: bool = False


@dataclass(frozen=True)
class Answer:
    smell: str
    present: bool
    words: str
    reason: str


def messages(criterion: Criterion) -> list[dict[str, Any]]:
    notes = []
    if criterion.penalty:
        notes.append("It is a penalty: a response that does what it describes loses points.")
    if criterion.choice:
        notes.append("The judge uses it to choose the best of several responses.")
    # Its name is not sent: the same words under another name are the same question (one verdict-cache entry).
    body = f"The criterion:\n<<<\n{criterion.text}\n>>>"
    if criterion.levels:
        body += "\nIts levels, in order:\n" + "\n".join(f"{i}. {level}" for i, level in enumerate(criterion.levels, 1))
    if notes:
        body += "\n" + " ".join(notes)
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": body}]


def parse(reply: str) -> tuple[Answer, ...]:
    """The answer to every question; JudgeFailure when the reply does not give them all."""
    found = extract(reply, _fits, lambda obj: {q.smell: obj[q.smell].get("present") for q in QUESTIONS})
    if found is None:
        raise JudgeFailure(
            "parse",
            f"the judge's reply does not answer every review question with true or false: {snippet(reply)!r}",
            "reply",
        )
    return tuple(
        Answer(
            q.smell,
            _true(found.value[q.smell]["present"]),
            str(found.value[q.smell].get("words") or "").strip(),
            str(found.value[q.smell].get("reason") or "").strip(),
        )
        for q in QUESTIONS
    )


def _fits(obj: dict[str, Any]) -> bool:
    return all(isinstance(obj.get(q.smell), dict) and _true(obj[q.smell].get("present")) is not None for q in QUESTIONS)


def _true(value: Any) -> Any:
    """True or False as the judge wrote it (a JSON boolean, or the words true/false); None otherwise."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def fingerprint(criterion: Criterion) -> str:
    """What the judge reads of the criterion, as a short hash (the editor keeps a finding while it holds)."""
    return record.fingerprint([criterion.text, list(criterion.levels), criterion.penalty, criterion.choice])
