"""The faces (CLI, commands, reporters, the language server, the lint entry point) know no format by name.

What a format knows lives in its package under ``rubric_lsp/formats/``; the faces reach it
only through the plugin interface (``rubric_lsp.formats.plugin.Format``). A face that names
a format (an id, a product name) is branching on it: move that knowledge into the format's
package (its editor hooks, converters, rule prefix, …) instead.
"""

from __future__ import annotations

import re
from pathlib import Path

from rubric_lsp.formats.registry import formats

PACKAGE = Path(__file__).resolve().parent.parent / "rubric_lsp"
FACES = ("server", "commands", "reporters", "cli.py", "lint.py")
# Grading's faces are being moved onto the plugin interface separately; they join this list then.
NOT_YET: set[str] = set()  # every face names no format now
PRODUCT_NAMES = ("autorubric", "promptfoo", "northstar", "rubrics-task", "rubrics_task", "rubrics task")


def face_modules() -> list[Path]:
    found = []
    for face in FACES:
        path = PACKAGE / face
        found += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return [p for p in found if p.relative_to(PACKAGE).as_posix() not in NOT_YET]


def test_no_face_module_names_a_format():
    names = {fmt.name for fmt in formats()} | set(PRODUCT_NAMES)
    pattern = re.compile("|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)), re.IGNORECASE)
    modules = face_modules()
    assert len(modules) > 15 and all(p.is_file() for p in modules)
    found = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for path in modules
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not found, "faces must not name formats:\n" + "\n".join(found)


def test_the_check_would_see_a_format_name():
    names = {fmt.name for fmt in formats()}
    assert {"promptfoo-config", "autorubric-rubric", "northstar-eval-cases", "rubrics-task"} <= names
