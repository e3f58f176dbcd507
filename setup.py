"""The package's long description: README.md with its relative links made absolute.

README.md links to docs/ and samples/ relatively, so that they work on GitHub and in a
clone at the version checked out; PyPI (and any other page showing the description) has no
repository to resolve them against. The rewrite happens at build time so that the README
itself, and the rule table `rubric rule --readme` generates into it, keep relative links.
Everything else is in pyproject.toml (``readme`` is declared dynamic there).
"""

from __future__ import annotations

import re
from pathlib import Path

from setuptools import setup

REPOSITORY = "https://github.com/rubric-lsp/rubric-lsp"
# `blob/` shows files and redirects folders to `tree/`; `raw/` serves images as images.
BLOB, RAW = f"{REPOSITORY}/blob/main/", f"{REPOSITORY}/raw/main/"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp")
# A Markdown link or image target, `](target)` or `](target "title")`, that has no scheme and is not an anchor.
RELATIVE_LINK = re.compile(r"\]\((?![a-zA-Z][a-zA-Z0-9+.-]*:|#|/)([^)\s]+)")


def absolute(match: re.Match[str]) -> str:
    target = match.group(1)
    path = target.split("#", 1)[0].removeprefix("./")
    base = RAW if path.lower().endswith(IMAGE_SUFFIXES) else BLOB
    return f"]({base}{target.removeprefix('./')}"


def long_description() -> str:
    return RELATIVE_LINK.sub(absolute, Path(__file__).with_name("README.md").read_text(encoding="utf-8"))


setup(long_description=long_description(), long_description_content_type="text/markdown")
