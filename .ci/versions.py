"""Print the versions of the product's requirements and test tools installed in this Python (CI's log).

python .ci/versions.py LABEL
"""

import sys
from importlib.metadata import version

from packaging.requirements import Requirement

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

with open("pyproject.toml", "rb") as file:
    project = tomllib.load(file)["project"]
extras = project["optional-dependencies"]
reqs = [Requirement(r) for r in project["dependencies"] + extras["grade"] + extras["test"]]
found = [
    f"{r.name} {version(r.name)}" for r in reqs if r.name != "rubric-lsp" and (r.marker is None or r.marker.evaluate())
]
print(f"-- {sys.argv[1]}:", ", ".join(found))
