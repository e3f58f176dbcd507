"""Reading a judge's reply: the JSON object it concluded with, not one it quoted on the way.

Judges wrap JSON in code fences, prepend reasoning (sometimes in ``<think>`` tags) that may
itself contain example objects, or restate their answer. We collect every JSON object in
the reply (outside ``<think>`` blocks), keep those that fit the reply contract, and take the
*last* one — the verdict the judge actually concluded. When the fitting objects disagree,
the reply is marked ambiguous so the report can say so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_UNCLOSED_THINK = re.compile(r"^\s*<(think|thinking|reasoning)>.*", re.DOTALL | re.IGNORECASE)
# Built once, not per reply: neither keeps state between calls (``json.dumps`` with options builds an encoder
# per call, ``JSONDecoder()`` its scanner; a few µs of every judge call, issue 36).
_DECODER = json.JSONDecoder()
_VERDICT_KEY = json.JSONEncoder(sort_keys=True, default=str)


@dataclass
class Extracted:
    value: dict[str, Any]
    ambiguous: bool = False
    candidates: int = 1


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every top-level JSON object in ``text``, in order (nested ones are part of their parent)."""
    decoder = _DECODER
    found: list[dict[str, Any]] = []
    position = 0
    while True:
        start = text.find("{", position)
        if start < 0:
            return found
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            position = start + 1
            continue
        if isinstance(value, dict):
            found.append(value)
        position = end


def strip_thinking(text: str) -> str:
    text = _THINK.sub(" ", text)
    if "</think>" in text.lower():  # an opening tag the server dropped: keep what follows the close
        text = re.split(r"</think>", text, flags=re.IGNORECASE)[-1]
    return text


def extract(
    text: str, fits: Callable[[dict[str, Any]], bool], verdict_of: Callable[[dict[str, Any]], Any]
) -> Extracted | None:
    """The last object in ``text`` that ``fits`` the contract; ambiguous when fitting objects disagree."""
    visible = strip_thinking(text)
    candidates = [obj for obj in json_objects(visible) if fits(obj)]
    if not candidates:
        return None
    chosen = candidates[-1]
    distinct = {_VERDICT_KEY.encode(verdict_of(obj)) for obj in candidates}
    return Extracted(chosen, ambiguous=len(distinct) > 1, candidates=len(candidates))


def snippet(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
