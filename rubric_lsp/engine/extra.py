"""Whether the optional ``[grade]`` extra (litellm) is installed, and the one line saying how to add it.

The base install (linter and language server) leaves litellm out: it is ~335 MB in 56
packages. Without it every judge call would fail on its own (a column of per-criterion
import errors); the runner asks here first and refuses the whole grading with one line.
``find_spec`` looks for the package without importing it (importing litellm takes seconds).
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import sys
from importlib import metadata

DISTRIBUTION = "rubric-lsp"
# pyproject.toml's [grade] extra, for a source tree run without being installed (a test keeps them equal).
FALLBACK_REQUIREMENTS = (
    "litellm>=1.85",
    "aiohttp>=3.10",
    "httptools>=0.6",
    "rich>=13",
    "jinja2>=3.1.6",
    "pygal>=3.0.4",
    "mini-racer>=0.14.1",
    "jsonschema>=4.18",
    "rapidfuzz>=3.0",
)


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


def install_command(requirements: list[str]) -> str:
    """The command that installs ``requirements`` into the running interpreter's environment."""
    # `python -m pip` of this very interpreter reaches the right environment however rubric-lsp was
    # installed (pip, pipx, a clone, the editor extension's private environment); the requirements
    # are the packages' own, which the package index has whether or not rubric-lsp is published there.
    return " ".join(shlex.quote(part) for part in (sys.executable, "-m", "pip", "install", *requirements))


def missing_message() -> str:
    """One line: what is missing and the command that installs it into the running interpreter's environment."""
    command = install_command(grade_requirements())
    return f"grading needs litellm, which is not installed (the optional [grade] extra, ~335 MB): run {command}"


# What `--report` imports (html_report.py), by requirement name: checked before the first judge call,
# so a missing one never costs a paid grading (a pipx install injected with litellm alone has neither).
REPORT_MODULES = ("jinja2", "pygal")


def report_extra_missing() -> str | None:
    """None when the HTML report can be rendered, else one line naming what is missing and how to add it."""
    missing = [name for name in REPORT_MODULES if not _importable(name)]
    if not missing:
        return None
    wanted = [r for r in grade_requirements() if _name(r) in missing] or missing
    return f"the HTML report needs {' and '.join(missing)}, not installed: run {install_command(wanted)}"


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement, maxsplit=1)[0].strip().lower()


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a broken or half-removed installation
        return False


def grade_extra_missing() -> str | None:
    """None when litellm can be imported, else the one-line message saying how to install it."""
    return None if _importable("litellm") else missing_message()
