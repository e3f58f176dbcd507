"""What a judge is shown for one autorubric criterion, and how its reply is read.

Faithful to autorubric 1.6.1 (semantics.md §1): the binary and multi-choice reply contracts,
an automatic "cannot assess" option appended to multi-choice criteria without one, and
deterministic option shuffling mapped back to the authored order. The prompts are our own.
A reply without content (``content: null``, ``"choices": []``) is unknown there
(``json.loads(None)``, ``choices[0]``); two verdict objects or a JSON array are parse
failures (``json.loads`` / its reply model).
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import re
from collections.abc import Sequence
from typing import Any

from rubric_lsp.engine.failures import JudgeFailure
from rubric_lsp.engine.replies import Extracted, extract, snippet, strip_thinking
from rubric_lsp.formats.autorubric.fields import CriterionValues, OptionValues

NA_OPTION = OptionValues(label="Cannot assess / not applicable", value=0.0, na=True)
NA_TAG = "(choose this when the response gives no way to judge the criterion, or it does not apply)"
BINARY = ("MET", "UNMET", "CANNOT_ASSESS")

BINARY_SYSTEM = (
    "You are an impartial evaluator. You check one criterion of a grading rubric against a "
    "response and decide whether the response satisfies it.\n"
    "- MET: the response clearly satisfies the criterion.\n"
    "- UNMET: it does not.\n"
    "- CANNOT_ASSESS: the response gives you no way to tell (for example the criterion does not apply).\n"
    "Judge only this criterion. Some criteria describe a flaw; for those, MET means the response has the flaw.\n"
    'Answer with one JSON object and nothing else: {"criterion_status": "MET" | "UNMET" | "CANNOT_ASSESS", '
    '"explanation": "<one or two sentences citing the response>"}'
)
CHOICE_SYSTEM = (
    "You are an impartial evaluator. You rate a response on one criterion of a grading rubric "
    "by choosing exactly one of the numbered options.\n"
    "Judge only this criterion. Choose the 'cannot assess' option only when the response gives you no way to tell.\n"
    'Answer with one JSON object and nothing else: {"selected_option": <the option number>, '
    '"explanation": "<one or two sentences citing the response>"}'
)

BINARY_FORMAT = {
    "type": "json_schema",
    "json_schema": {
        "name": "criterion_judgment",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {
                "criterion_status": {"type": "string", "enum": list(BINARY)},
                "explanation": {"type": "string"},
            },
            "required": ["criterion_status", "explanation"],
            "additionalProperties": False,
        },
    },
}
CHOICE_FORMAT = {
    "type": "json_schema",
    "json_schema": {
        "name": "multi_choice_judgment",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {"selected_option": {"type": "integer"}, "explanation": {"type": "string"}},
            "required": ["selected_option", "explanation"],
            "additionalProperties": False,
        },
    },
}


def effective_options(criterion: CriterionValues) -> list[OptionValues]:
    """The options the judge is shown: authored ones, plus the NA option appended last if none is NA."""
    assert criterion.options is not None
    options = list(criterion.options)
    if not any(o.na for o in options):
        options.append(NA_OPTION)
    return options


def shuffle_order(count: int, response: str, criterion_index: int, judge_id: str, seed: int) -> list[int]:
    """Deterministic permutation: order[shown position] = effective option index."""
    item_key = hashlib.sha256(response.encode()).hexdigest()[:16]
    key = f"{seed}:{item_key}:{criterion_index}:{judge_id}"
    rng = random.Random(int(hashlib.sha256(key.encode()).hexdigest()[:16], 16) % (2**31))
    order = list(range(count))
    rng.shuffle(order)
    return order


def _context(response: str, query: str | None, guidelines: str | None) -> str:
    parts = []
    if guidelines:
        parts.append(f"<guidelines>\n{guidelines}\n</guidelines>")
    if query:
        parts.append(f"<query>\n{query}\n</query>")
    parts.append(f"<response>\n{response}\n</response>")
    return "\n\n".join(parts)


def binary_messages(
    criterion: CriterionValues, response: str, query: str | None, guidelines: str | None
) -> list[dict[str, str]]:
    flaw = "\n(This criterion describes a flaw: MET means the response has it.)" if criterion.weight < 0 else ""
    user = f"{_context(response, query, guidelines)}\n\n<criterion>\n{criterion.requirement}{flaw}\n</criterion>"
    return [{"role": "system", "content": BINARY_SYSTEM}, {"role": "user", "content": user}]


def label_signals_na(label: str) -> bool:
    low = label.lower()
    return any(token in low for token in ("n/a", "not applicable", "cannot assess"))


def option_line(number: int, option: OptionValues) -> str:
    """One numbered option; an NA option whose label does not say so is tagged as the abstain choice."""
    if option.na and not label_signals_na(option.label):
        return f"{number}. {option.label} {NA_TAG}"
    return f"{number}. {option.label}"


def choice_messages(
    criterion: CriterionValues, shown: Sequence[OptionValues], response: str, query: str | None, guidelines: str | None
) -> list[dict[str, str]]:
    lines = "\n".join(option_line(n, option) for n, option in enumerate(shown, 1))
    user = f"{_context(response, query, guidelines)}\n\n<criterion>\n{criterion.requirement}\n</criterion>\n\n<options>\n{lines}\n</options>"
    return [{"role": "system", "content": CHOICE_SYSTEM}, {"role": "user", "content": user}]


_FENCE = re.compile(r"^```[A-Za-z]*\s*\n?(.*?)\n?```$", re.DOTALL)


def refuse_ambiguous(content: str, found: Extracted | None) -> None:
    """autorubric reads the whole reply as one JSON object (``json.loads``, then its reply model):
    a JSON array, or several objects, is a parse failure there, so it abstains — never a verdict.
    (Fenced or prose-wrapped single objects are read here: a documented difference.)"""
    visible = strip_thinking(content).strip()
    fenced = _FENCE.match(visible)
    if fenced is not None:
        visible = fenced.group(1).strip()
    if visible.startswith("["):
        try:
            is_array = isinstance(json.loads(visible), list)
        except ValueError:
            is_array = False
        if is_array:
            raise JudgeFailure(
                "parse", f"The judge replied with a JSON array, not one object: {snippet(content)!r}", "bad_reply"
            )
    if found is not None and found.candidates > 1:
        raise JudgeFailure(
            "parse",
            f"The judge's reply holds {found.candidates} verdict objects, not one; autorubric reads it as "
            f"unparseable and abstains: {snippet(content)!r}",
            "bad_reply",
        )


def parse_binary(content: str) -> tuple[str, str, bool]:
    found = extract(content, lambda o: "criterion_status" in o, lambda o: o.get("criterion_status"))
    refuse_ambiguous(content, found)
    if found is None:
        raise JudgeFailure(
            "parse",
            f'The judge\'s reply has no {{"criterion_status", "explanation"}} object: {snippet(content)!r}',
            "bad_reply",
        )
    status = found.value.get("criterion_status")
    if status not in BINARY:
        raise JudgeFailure(
            "parse",
            f"The judge answered criterion_status {status!r}; expected MET, UNMET or CANNOT_ASSESS.",
            "bad_reply",
        )
    explanation = found.value.get("explanation")
    if not isinstance(explanation, str):
        raise JudgeFailure("parse", "The judge's reply has no explanation.", "bad_reply")
    return status, explanation, found.ambiguous


def lax_int(value: Any) -> int | None:
    """``value`` as autorubric's pydantic model reads an ``int`` field (lax mode), or None.

    Accepted: ints, integral floats (2.0), numeric strings of an integer ("2", " 2 ", "2.0"),
    and bools (True = 1), exactly as pydantic does; rejected: 2.5, "two", None, ...

    A plain int, what judges send, is its own value (pydantic returns it unchanged, any size):
    pydantic is imported only for anything else, so a grading whose judge answers with numbers
    never imports it (~0.1 s of CPU at start-up, issue 36). tests/test_grading_fast_paths.py compares both."""
    if type(value) is int:
        return value
    return _lax_int_by_pydantic(value)


def _lax_int_by_pydantic(value: Any) -> int | None:
    from pydantic import ValidationError

    try:
        return _int_adapter().validate_python(value)
    except ValidationError:
        return None


@functools.cache
def _int_adapter() -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(int)


def parse_choice(content: str, shown_count: int) -> tuple[int, str, bool]:
    """(0-based shown position, explanation, ambiguous)."""
    found = extract(content, lambda o: "selected_option" in o, lambda o: o.get("selected_option"))
    refuse_ambiguous(content, found)
    if found is None:
        raise JudgeFailure(
            "parse",
            f'The judge\'s reply has no {{"selected_option", "explanation"}} object: {snippet(content)!r}',
            "bad_reply",
        )
    selected = lax_int(found.value.get("selected_option"))
    if selected is None:
        raise JudgeFailure(
            "parse",
            f"The judge answered selected_option {found.value.get('selected_option')!r}; expected an option number.",
            "bad_reply",
        )
    if not 1 <= selected <= shown_count:
        raise JudgeFailure("parse", f"The judge chose option {selected}, outside 1–{shown_count}.", "bad_reply")
    explanation = found.value.get("explanation")
    if not isinstance(explanation, str):
        raise JudgeFailure("parse", "The judge's reply has no explanation.", "bad_reply")
    return selected - 1, explanation, found.ambiguous


def effective_option_index(criterion: CriterionValues, label: str) -> int | None:
    """The effective option (the automatic NA one included) ``label`` names, matched as autorubric
    matches labels (``strip().lower()``, first match), or None."""
    wanted = label.strip().lower()
    return next(
        (i for i, option in enumerate(effective_options(criterion)) if option.label.strip().lower() == wanted), None
    )
