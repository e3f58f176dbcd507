"""The test suite's own rules: fixtures come from conftest.py, test modules never import each other."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_no_test_module_imports_another():
    offenders = []
    for path in sorted(TESTS.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tests.test_"):
                offenders.append(f"{path.name} imports {node.module}")
            elif isinstance(node, ast.Import):
                offenders += [f"{path.name} imports {a.name}" for a in node.names if a.name.startswith("tests.test_")]
    assert offenders == [], "move shared helpers into tests/helpers.py, a helper module or conftest.py"


def test_the_judge_server_fixture_is_not_imported_by_name():
    offenders = [
        path.name
        for path in sorted(TESTS.glob("test_*.py"))
        if any(
            isinstance(node, ast.ImportFrom) and any(a.name == "judge_server" for a in node.names)
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        )
    ]
    assert offenders == [], "the judge_server fixture lives in tests/conftest.py"


# Imported at collection, a module costs every worker its import whether or not it runs the module's tests:
# autorubric imports litellm (seconds of CPU). Tests import these where they use them (import_or_require).
COLLECTION_HEAVY = ("autorubric", "litellm")


def test_no_module_imports_litellm_or_autorubric_at_collection():
    offenders = []
    for path in sorted(TESTS.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:  # module level only
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [a.name for a in node.names] if isinstance(node, ast.Import) else []
            offenders += [f"{path.name} imports {n}" for n in names if n.split(".")[0] in COLLECTION_HEAVY]
    assert offenders == [], "import it inside the tests that use it (tests.conftest.import_or_require)"
