"""A module's logger, got when there is something to log: ``logging`` (with ``traceback``, ``string``,
``threading``) is ~10 % of a small lint's start-up, and the lint path logs only when a check crashes or a
format fails to load (tests/test_speed_guard.py keeps it off that path)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import logging


def logger(name: str) -> logging.Logger:
    """``logging.getLogger(name)``, importing logging on first use."""
    import logging

    return logging.getLogger(name)
