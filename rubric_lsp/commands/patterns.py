"""``rubric patterns``: the editor extension's file patterns, generated from the formats' own.

The formats' ``file_patterns`` are the one source. From them this writes, in the VS Code
extension folder:

- ``package.json`` ``contributes.yamlValidation`` / ``jsonValidation``: which files get
  which JSON Schema (VS Code's own YAML/JSON support validates and completes with it).
  (What a selected text can be graded against the server lists itself: ``rubric-lsp.gradeTargets``.)

``--check`` (and the test suite) fails when it is stale, as ``rubric schema --check`` does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from rubric_lsp.formats.registry import formats

PACKAGE_JSON = "package.json"
SCHEMA_DIR = "./schemas"  # where the extension ships the schemas (scripts/copy-schemas.mjs)
LANGUAGES = {"yamlValidation": (".yaml", ".yml"), "jsonValidation": (".json",)}


def validations() -> dict[str, list[dict]]:
    """The ``yamlValidation`` and ``jsonValidation`` contributions, one entry per format and language."""
    out: dict[str, list[dict]] = {key: [] for key in LANGUAGES}
    for fmt in formats():
        if fmt.schema_file is None:
            continue
        for key, suffixes in LANGUAGES.items():
            matches = [p for p in fmt.file_patterns if p.endswith(suffixes)]
            if matches:
                out[key].append({"fileMatch": matches, "url": f"{SCHEMA_DIR}/{fmt.schema_file}"})
    return out


def package_json(current: str) -> str:
    """``current`` (the extension's package.json) with its validation contributions regenerated."""
    data = json.loads(current)
    data.setdefault("contributes", {}).update(validations())
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def rendered(folder: Path) -> dict[Path, str]:
    """Each generated file under the extension ``folder`` and the text it should have."""
    package = folder / PACKAGE_JSON
    return {package: package_json(package.read_text(encoding="utf-8"))}


def run_patterns(args) -> int:
    folder: Path = args.extension
    if not (folder / PACKAGE_JSON).is_file():
        print(f"rubric: no {PACKAGE_JSON} in {folder} (pass --extension DIR)", file=sys.stderr)
        return 2
    stale = []
    for path, text in rendered(folder).items():
        if (path.read_text(encoding="utf-8") if path.exists() else None) != text:
            stale.append(str(path))
            if args.write:
                path.write_text(text, encoding="utf-8")
    if args.write:
        print(f"wrote {', '.join(stale)}" if stale else f"file patterns in {folder} are up to date")
        return 0
    if stale:
        print(f"stale file patterns in {', '.join(stale)} (run: rubric patterns --write)", file=sys.stderr)
        return 1
    print(f"file patterns in {folder} are up to date")
    return 0
