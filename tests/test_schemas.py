"""``rubric schema``: the committed schemas/ are current, and usable by other tools."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from rubric_lsp.cli import main
from rubric_lsp.commands.schema import rendered_schemas
from rubric_lsp.document import parse_document
from rubric_lsp.formats.registry import detect, formats
from tests.conftest import CORPUS, REPO, SAMPLES, require

SCHEMAS = REPO / "schemas"


def test_committed_schemas_are_current(capsys):
    code = main(["schema", "--check", "--dir", str(SCHEMAS)])
    _out, err = capsys.readouterr()
    assert code == 0, f"schemas/ is stale: run `rubric schema --write` ({err.strip()})"


def test_every_format_with_a_schema_has_its_file():
    for fmt in formats():
        if fmt.schema_file:
            assert (SCHEMAS / fmt.schema_file).is_file(), f"{fmt.name}: schemas/{fmt.schema_file} missing"


def test_check_fails_on_a_stale_file_and_write_repairs_it(tmp_path, capsys):
    for name in rendered_schemas():  # the completion-only copies are in a folder of their own
        (tmp_path / name).parent.mkdir(exist_ok=True)
        shutil.copy(SCHEMAS / name, tmp_path / name)
    victim = sorted(rendered_schemas())[0]
    (tmp_path / victim).write_text("{}\n")
    assert main(["schema", "--check", "--dir", str(tmp_path)]) == 1
    assert victim in capsys.readouterr().err
    assert main(["schema", "--write", "--dir", str(tmp_path)]) == 0
    assert "wrote 1 schema file(s)" in capsys.readouterr().out
    assert main(["schema", "--check", "--dir", str(tmp_path)]) == 0


def test_schema_of_one_kind_to_stdout(capsys):
    assert main(["schema", "autorubric-rubric"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema == json.loads((SCHEMAS / "autorubric-rubric.schema.json").read_text())
    assert main(["schema", "no-such-kind"]) == 2


def test_every_schema_is_a_valid_json_schema():
    import jsonschema

    for text in rendered_schemas().values():
        schema = json.loads(text)
        validator = jsonschema.validators.validator_for(schema)
        validator.check_schema(schema)


def check_jsonschema(schema: str, *files) -> subprocess.CompletedProcess:
    exe = shutil.which("check-jsonschema")
    require(exe is not None, "check-jsonschema is not installed")
    return subprocess.run(
        [exe, "--schemafile", str(SCHEMAS / schema), *map(str, files)], capture_output=True, text=True, timeout=120
    )


def test_check_jsonschema_accepts_the_autorubric_corpus(corpus):
    rubrics = sorted((CORPUS / "autorubric" / "rubrics").glob("*.json"))
    datasets = sorted((CORPUS / "autorubric" / "datasets").glob("*.json"))
    assert rubrics and datasets
    proc = check_jsonschema("autorubric-rubric.schema.json", *rubrics)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = check_jsonschema("autorubric-dataset.schema.json", *datasets)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
def test_check_jsonschema_accepts_the_samples():
    if not SAMPLES.is_dir():
        pytest.skip("no samples/ folder yet")
    checked = 0
    for fmt in formats():
        if not fmt.schema_file:
            continue
        files = []
        for path in sorted(SAMPLES.rglob("*")):
            if path.suffix not in (".yaml", ".yml", ".json") or "bad" in path.name:
                continue
            doc = parse_document(path.read_bytes(), str(path))
            found = detect(doc)
            if found is not None and found.name == fmt.name:
                files.append(path)
        if files:
            proc = check_jsonschema(fmt.schema_file, *files)
            assert proc.returncode == 0, proc.stdout + proc.stderr
            checked += len(files)
    if not checked:
        pytest.skip("no good sample of a kind with a schema yet")


def test_check_jsonschema_rejects_a_broken_rubric(tmp_path):
    bad = tmp_path / "bad.rubric.yaml"
    bad.write_text("criteria:\n  - weight: 1\n")
    proc = check_jsonschema("autorubric-rubric.schema.json", bad)
    assert proc.returncode == 1
    assert "requirement" in proc.stdout


def test_modeline_selects_the_format_for_editors_and_the_linter(tmp_path):
    text = (
        "# yaml-language-server: $schema=../schemas/autorubric-rubric.schema.json\n"
        "criteria:\n  - requirement: Cites a source\n    weight: 1\n"
    )
    doc = parse_document(text, str(tmp_path / "anything.yaml"))
    assert detect(doc).name == "autorubric-rubric"
    path = tmp_path / "anything.yaml"
    path.write_text(text)
    proc = check_jsonschema("autorubric-rubric.schema.json", path)
    assert proc.returncode == 0, proc.stdout


def test_schema_key_in_json_selects_the_format():
    doc = parse_document('{"$schema": "./schemas/autorubric-rubric.schema.json", "x": 1}', "any.json")
    assert detect(doc).name == "autorubric-rubric"


def test_kind_forces_a_format_and_unknown_content_is_no_format():
    doc = parse_document("a: 1\n", "x.yaml")
    assert detect(doc) is None
    assert detect(doc, "autorubric-rubric").name == "autorubric-rubric"
