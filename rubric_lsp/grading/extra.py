"""Whether the optional ``[grade]`` extra (litellm) is installed, and the one line saying how to add it.

The base install (linter and language server) leaves litellm out: it is ~335 MB in 56
packages. Without it every judge call would fail on its own (a column of per-criterion
import errors); the runner asks here first and refuses the whole grading with one line.
``find_spec`` looks for the package without importing it (importing litellm takes seconds).
"""

from __future__ import annotations

import importlib.util
import shlex
import sys
from importlib import metadata

DISTRIBUTION = "rubric-lsp"
# pyproject.toml's [grade] extra, for a source tree run without being installed (a test keeps them equal).
FALLBACK_REQUIREMENTS = ("litellm>=1.85", "aiohttp>=3.10", "rich>=13", "jinja2>=3.1.6", "pygal>=3.0.4")


def grade_requirements() -> list[str]:
    """The requirements of the ``[grade]`` extra, as the installed metadata lists them."""
    try:
        declared = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return list(FALLBACK_REQUIREMENTS)
    found = []
    for line in declared:
        requirement, _, marker = line.partition(";")
        if marker.replace("'", '"').replace(" ", "") == 'extra=="grade"':
            found.append(requirement.strip())
    return found or list(FALLBACK_REQUIREMENTS)


def missing_message() -> str:
    """One line: what is missing and the command that installs it into the running interpreter's environment."""
    # `python -m pip` of this very interpreter reaches the right environment however rubric-lsp was
    # installed (pip, pipx, a clone, the editor extension's private environment); the requirements
    # are litellm's own, which the package index has whether or not rubric-lsp is published there.
    command = " ".join(shlex.quote(part) for part in (sys.executable, "-m", "pip", "install", *grade_requirements()))
    return f"grading needs litellm, which is not installed (the optional [grade] extra, ~335 MB): run {command}"


def grade_extra_missing() -> str | None:
    """None when litellm can be imported, else the one-line message saying how to install it."""
    try:
        found = importlib.util.find_spec("litellm") is not None
    except (ImportError, ValueError):  # a broken or half-removed installation
        found = False
    return None if found else missing_message()
