"""A Rubrics task with human ratings and selected responses, and a judge rating each response as its first
word says: shared by the Rubrics-task calibration tests (CLI and server)."""

from __future__ import annotations

from tests.judge_server import Reply

CRITERIA = ("Answers the question.", "Is polite.")
# Per turn: each response's text (the judge rates GOOD no_issues, MID minor_issues, BAD major_issues on
# every criterion) and the response people selected.
TURNS = [
    (["GOOD one", "BAD one"], "m0"),  # the judge picks m0: agrees
    (["BAD two", "MID two", "GOOD two"], "m1"),  # the judge picks m2: disagrees
    (["GOOD three", "GOOD three again"], "m0"),  # a tie: no pick (the judge abstains)
    (["MID four", "GOOD four"], "m1"),  # agrees
    (["BAD five", "GOOD five"], None),  # no human pick
]
RATING = {"GOOD": "no_issues", "MID": "minor_issues", "BAD": "major_issues"}


def human_rating(turn: int, response: int, criterion: int) -> str:
    """People mostly agree with the judge; on the second criterion of turn 0's first response they do not."""
    text = TURNS[turn][0][response]
    if (turn, response, criterion) == (0, 0, 1):
        return "minor_issues"
    return RATING[text.split()[0]]


def task() -> dict:
    turns = []
    for t, (texts, selected) in enumerate(TURNS):
        keys = [f"rubric_{t}_criteria_{c}" for c in range(len(CRITERIA))]
        messages = [{"role": "user", "source_id": "user", "content": {"text": f"Question {t}?"}, "annotations": []}]
        for r, text in enumerate(texts):
            ratings = [
                {"id": f"{k}_rating", "title": title, "value": human_rating(t, r, c), "metadata": {"criteria": k}}
                for c, (k, title) in enumerate(zip(keys, CRITERIA))
            ]
            messages.append(
                {"role": "assistant", "source_id": f"m{r}", "content": {"text": text}, "annotations": ratings}
            )
        annotations = [{"key": k, "title": title, "value": "objective"} for k, title in zip(keys, CRITERIA)]
        if selected is not None:
            annotations.insert(0, {"key": "selected_model_id", "value": selected})
        turns.append({"id": f"turn_{t}", "messages": messages, "annotations": annotations})
    return {
        "task_id": "t1",
        "project": "p",
        "status": "completed",
        "created_at": "2025-01-01T00:00:00Z",
        "threads": [{"id": "thread_0", "turns": turns, "annotations": []}],
    }


def rate(request):
    """The judge: the option named for the response's first word, wherever the shuffle put it."""
    response = request.text.split("<response>")[1].split("</response>")[0].strip()
    label = RATING[response.split()[0]]
    for line in request.text.split("<options>")[1].splitlines():
        number, _, text = line.partition(". ")
        if text.strip() == label:
            return Reply.json({"selected_option": int(number), "explanation": label})
    raise AssertionError(label)
