"""What judge calls cost: ``Usage`` (requests, retries, cache hits, tokens, cost) and the checked
reading of a provider's token counts.

Below the judge, batch mode and the progress meter, which all count calls (``judge.py``,
``batch.py``, ``meter.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rubric_lsp.engine.failures import JudgeFailure


@dataclass
class Usage:
    calls: int = 0  # HTTP requests made (retries included)
    retries: int = 0  # of those, repeats of a failed request
    cached: int = 0  # verdicts served from the cache
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None

    def add(self, usage: Mapping[str, Any] | None, cost: float | None) -> None:
        """Add one reply's reported usage; a count that is not a number fails the call (JudgeFailure)."""
        if usage:
            self.prompt_tokens += token_count(usage, "prompt_tokens")
            self.completion_tokens += token_count(usage, "completion_tokens")
        if cost is not None:
            self.cost_usd = (self.cost_usd or 0.0) + cost

    def merge(self, other: Usage) -> None:
        self.calls += other.calls
        self.retries += other.retries
        self.cached += other.cached
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        if other.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + other.cost_usd

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "retries": self.retries,
            "cached": self.cached,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 8),
        }


def token_count(usage: Mapping[str, Any], name: str) -> int:
    """``usage[name]`` as a count of tokens (absent: 0). A provider that reports something else
    (``"12k"``, a negative or fractional count) gave a reply that cannot be accounted for: that one
    call fails, never the grading (an ``int()`` of it once stopped a batch run and every resume)."""
    value = usage.get(name)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 2**53 or value % 1:
        raise JudgeFailure(
            "parse", f"The judge's reply reports {name} as {str(value)[:40]!r}, not a number of tokens.", "bad_reply"
        )
    return int(value)


def usage_from_json(data: Mapping[str, Any]) -> Usage:
    """A ``Usage`` from its ``to_json`` form (a run file's record of one call)."""

    def count(name: str) -> int:
        value = data.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    cost = data.get("cost_usd")
    return Usage(
        calls=count("calls"),
        retries=count("retries"),
        cached=count("cached"),
        prompt_tokens=count("prompt_tokens"),
        completion_tokens=count("completion_tokens"),
        cost_usd=float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else None,
    )
