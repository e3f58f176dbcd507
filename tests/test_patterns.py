"""The editor extension's file patterns are generated from the formats' (``rubric patterns``) and current."""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path

import pytest

from rubric_lsp.cli import main
from rubric_lsp.commands.patterns import rendered
from rubric_lsp.document import parse_document
from rubric_lsp.formats.registry import detect, formats

EXTENSION = Path(__file__).resolve().parent.parent / "vscode-extension"


def test_generated_files_are_current():
    stale = [str(path) for path, text in rendered(EXTENSION).items() if path.read_text(encoding="utf-8") != text]
    assert not stale, f"stale: {stale} (run: rubric patterns --write)"


def test_check_command(capsys):
    assert main(["patterns", "--extension", str(EXTENSION)]) == 0
    assert main(["patterns", "--extension", str(EXTENSION / "nowhere")]) == 2


def test_check_command_reports_and_write_repairs_a_stale_copy(tmp_path, capsys):
    package = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    package["contributes"]["yamlValidation"][0]["fileMatch"].append("rubric*.yaml")
    (tmp_path / "package.json").write_text(json.dumps(package), encoding="utf-8")
    (tmp_path / "src").mkdir()
    assert main(["patterns", "--extension", str(tmp_path)]) == 1
    assert "rubric patterns --write" in capsys.readouterr().err
    assert main(["patterns", "--write", "--extension", str(tmp_path)]) == 0
    assert main(["patterns", "--extension", str(tmp_path)]) == 0


def _contributed() -> dict[str, str]:
    """File pattern -> schema file, from the extension's package.json."""
    contributes = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))["contributes"]
    return {
        pattern: entry["url"].rsplit("/", 1)[-1]
        for key in ("yamlValidation", "jsonValidation")
        for entry in contributes[key]
        for pattern in entry["fileMatch"]
    }


@pytest.mark.parametrize("name", ["redteam.yml", "x.dataset.json", "promptfooconfig.prod.yaml", "a.rubric.json"])
def test_the_extension_maps_what_the_linter_recognises_by_name(name):
    """The drift the generator ended: names the linter knew that the editor did not (and the reverse)."""
    fmt = detect(parse_document("{}\n" if name.endswith("json") else "a: 1\n", name))
    assert fmt is not None
    matches = {schema for pattern, schema in _contributed().items() if fnmatch.fnmatch(name, pattern)}
    assert matches == {fmt.schema_file}


def test_the_extension_maps_no_name_the_linter_does_not_recognise():
    known = {pattern for fmt in formats() for pattern in fmt.file_patterns}
    assert set(_contributed()) <= known
    assert "rubric*.yaml" not in _contributed()
