"""samples/promptfoo: the good config is clean, the bad one shows each pitfall on its line."""

from __future__ import annotations

from rubric_lsp.lint import lint_path
from tests.conftest import SAMPLES

FOLDER = SAMPLES / "promptfoo"


def findings(name: str):
    result = lint_path(FOLDER / name, root_dir=FOLDER)
    return result, sorted((d.code, d.range.start.line + 1) for d in result.diagnostics)


def test_good_sample_is_clean_and_reads_its_test_files():
    result, found = findings("promptfooconfig.yaml")
    assert result.format.name == "promptfoo-config"
    assert found == []
    assert any(path.endswith("billing.yaml") for path in result.dependencies)


def test_bad_sample_shows_every_pitfall_where_its_comment_says():
    _result, found = findings("promptfooconfig.bad.yaml")
    assert found == sorted(
        [
            ("PF006", 20),
            ("PF002", 22),
            ("PF100", 26),
            ("PF103", 27),
            ("PF101", 28),
            ("PF007", 30),
            ("PF005", 30),
            ("PF009", 31),
            ("PF003", 34),
            ("PF106", 38),
            ("PF014", 39),
            ("PF017", 42),
            ("PF102", 43),
            ("PF008", 50),
            ("PF008", 50),
            ("RL010", 51),
            ("PF001", 52),
        ]
    )
    text = (FOLDER / "promptfooconfig.bad.yaml").read_text(encoding="utf-8").splitlines()
    for code, line in found:
        if code != "PF103":  # the missing value is the flip side of the 'rubric:' key below it
            assert code in text[line - 1] or code in " ".join(text[line - 3 : line + 1]), (code, line)
