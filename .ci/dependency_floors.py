"""The oldest releases pyproject.toml allows for the product's own requirements.

Prints ``name==floor`` for each requirement of the base install and of ``[grade]`` that has a
lower bound, for ``uv pip install --override`` in .ci/dependency-suite. ``--resolution
lowest-direct`` alone would not test them all: a test tool may ask for more than the product
does (mypy 2.4 needs pathspec>=1.0; the linter itself declares 0.12), and a floor that is no
longer on PyPI would quietly resolve to a newer release. Forced here, such a floor fails the
install instead. Run with the python the venv is made from (it reads the markers for it).
"""

from __future__ import annotations

import sys
from pathlib import Path

import tomllib
from packaging.requirements import Requirement

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def floors() -> list[str]:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["grade"]
    pins = []
    for line in wanted:
        req = Requirement(line)
        if req.marker is not None and not req.marker.evaluate():
            continue
        lower = [s.version for s in req.specifier if s.operator in (">=", "==")]
        if lower:
            pins.append(f"{req.name}=={lower[0]}")
    return pins


if __name__ == "__main__":
    sys.stdout.write("".join(pin + "\n" for pin in floors()))
