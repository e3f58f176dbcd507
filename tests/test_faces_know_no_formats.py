"""The faces (CLI, commands, reporters, the language server, the lint entry point) know no format by name.

What a format knows lives in its package under ``rubric_lsp/formats/``; the faces reach it
only through the plugin interface (``rubric_lsp.formats.plugin.Format``). A face that names
a format (an id, a product name) is branching on it: move that knowledge into the format's
package (its editor hooks, converters, rule prefix, …) instead.

Nor do the faces and the grading engine know a format by its *vocabulary*: a verdict word
(MET, UNMET, CANNOT_ASSESS), an assertion type, a field of one format's result. A face that
reads a verdict word decides what it means, which is the format's to say (that is how a
perfect score once got a FAIL badge): it renders the outcome the format gave each unit
(``rubric_lsp/engine/result.py``) instead. Templates are faces too.
"""

from __future__ import annotations

import re
from pathlib import Path

from rubric_lsp.formats.registry import formats

PACKAGE = Path(__file__).resolve().parent.parent / "rubric_lsp"
# The engine is held to the faces' rule: it knows no format either (formats reach it as plugins).
FACES = ("engine", "server", "commands", "reporters", "labelling", "cli.py", "lint.py")
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


# Where format vocabulary must not appear: the engine (engine/) and the reporters (with their templates) and every face.
VOCABULARY_FOLDERS = ("engine", "server", "commands", "reporters", "labelling/page")
# Case-sensitive: "met" is English, MET is autorubric's verdict ("NOT MET" is an expectation that failed).
VOCABULARY = (
    r"(?<!NOT )\bMET\b",
    r"\bUNMET\b",
    r"\bCANNOT_ASSESS\b",
    r"llm-rubric",
    r"max[_-]score",
    r"select[_-]best",
    r"kappa|κ",
)
# Vocabulary still in a face, each with why and where it goes: (path, word) -> reason. Shrink it, never grow it.
VOCABULARY_NOT_YET: dict[tuple[str, str], str] = {}


def vocabulary_files() -> list[Path]:
    found = []
    for folder in VOCABULARY_FOLDERS:
        found += sorted(p for p in (PACKAGE / folder).rglob("*") if p.suffix in (".py", ".j2", ".html", ".js"))
    return found


def test_no_face_or_engine_module_uses_a_format_vocabulary():
    files = vocabulary_files()
    assert len(files) > 40 and any(p.suffix == ".j2" for p in files)
    found = []
    for path in files:
        where = path.relative_to(PACKAGE).as_posix()
        for word in VOCABULARY:
            if (where, word) in VOCABULARY_NOT_YET:
                continue
            pattern = re.compile(word)
            lines = path.read_text(encoding="utf-8").splitlines()
            found += [f"{where}:{n}: {word}: {line.strip()}" for n, line in enumerate(lines, 1) if pattern.search(line)]
    assert not found, "format vocabulary belongs in the format's package:\n" + "\n".join(found)


def test_the_vocabulary_check_would_see_a_verdict_word():
    words = [re.compile(w) for w in VOCABULARY]
    seen = ['if verdict == "MET":', "weight < 0 and UNMET", '"CANNOT_ASSESS"', "{{ c.kappa }}", 'data["max_score"]']
    assert all(any(w.search(line) for w in words) for line in seen)
    assert not any(w.search("expectation NOT MET, met, metric, unmet") for w in words)
    for (where, _word), reason in VOCABULARY_NOT_YET.items():  # every exception still needed, and explained
        assert reason and re.search(_word, (PACKAGE / where).read_text(encoding="utf-8")), where


def test_the_check_would_see_a_format_name():
    names = {fmt.name for fmt in formats()}
    assert {"promptfoo-config", "autorubric-rubric", "northstar-eval-cases", "rubrics-task"} <= names
