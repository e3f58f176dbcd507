"""Caps that keep hostile input from crashing or hanging the process.

Measured (engineering notes): libyaml's compose segfaults near 50,000 levels of
nesting, and a 432-byte "billion laughs" file composes in milliseconds but makes
anything that walks the expanded value run for minutes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    max_bytes: int = 10 * 1024 * 1024
    max_depth: int = 200
    # Nodes reachable once aliases are expanded, over the whole document.
    max_expanded_nodes: int = 250_000


DEFAULT_LIMITS = Limits()
