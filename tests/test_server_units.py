"""Unit tests of the server's pure parts: position conversion and settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from rubric_lsp.document.positions import LineIndex, Position
from rubric_lsp.server.positions import Converter
from rubric_lsp.server.settings import ServerSettings

TEXT = "a: é🎉x\nb: plain\r\nc: 𝄞end"


@pytest.mark.parametrize("encoding,expected", [("utf-16", 6), ("utf-8", 9), ("utf-32", 5)])
def test_column_after_accent_and_emoji(encoding: str, expected: int):
    convert = Converter(LineIndex(TEXT), encoding)
    # code point 5 of line 0 is the 'x' after "a: é🎉"
    assert convert.position(Position(0, 5)) == types.Position(line=0, character=expected)
    assert convert.offset(types.Position(line=0, character=expected)) == 5


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_round_trip_every_offset(encoding: str):
    lines = LineIndex(TEXT)
    convert = Converter(lines, encoding)
    for offset in range(len(TEXT) + 1):
        if offset and TEXT[offset - 1] == "\r":
            continue  # inside a CRLF line break: not a position a client can name
        assert convert.offset(convert.position(lines.position(offset))) == offset


def test_positions_beyond_the_text_are_clamped():
    convert = Converter(LineIndex("ab\ncd"), "utf-16")
    assert convert.offset(types.Position(line=9, character=0)) == 5
    assert convert.offset(types.Position(line=0, character=99)) == 2


def test_settings_nested_dotted_and_wrapped():
    nested = ServerSettings().merged(
        {
            "judge": {"model": "openai/j", "apiBase": "http://127.0.0.1:9/v1", "concurrency": 4},
            "gradeOnSave": True,
            "cache": {"enabled": False},
            "lint": {"ignore": ["ar104"]},
        }
    )
    dotted = ServerSettings().merged(
        {
            "judge.model": "openai/j",
            "judge.apiBase": "http://127.0.0.1:9/v1",
            "judge.concurrency": 4,
            "gradeOnSave": True,
            "cache.enabled": False,
            "lint.ignore": "AR104",
        }
    )
    wrapped = ServerSettings().merged(
        {
            "rubric": {
                "judge": {"model": "openai/j", "apiBase": "http://127.0.0.1:9/v1", "concurrency": 4},
                "gradeOnSave": True,
                "cache": {"enabled": False},
                "lint": {"ignore": ["AR104"]},
            }
        }
    )
    assert nested == dotted == wrapped
    assert nested.judge_model == "openai/j" and nested.judge_concurrency == 4 and nested.grade_on_save
    assert nested.cache_enabled is False and nested.lint_ignore == ("AR104",)


def test_bad_settings_are_ignored_with_a_reason_and_keys_never_read():
    settings = ServerSettings().merged(
        {
            "judge": {"concurrency": 0, "timeoutSeconds": "soon", "apiKey": "sk-secret"},
            "gradeOnSave": "maybe",
            "grading": {"cannotAssess": "ignore"},
        }
    )
    assert settings == ServerSettings()  # nothing taken
    assert len(settings.problems) == 5
    assert all("sk-secret" not in problem for problem in settings.problems)
    assert any("environment" in problem for problem in settings.problems)


def test_null_resets_a_setting_to_its_default():
    settings = ServerSettings().merged({"gradeOnSave": True}).merged({"gradeOnSave": None})
    assert settings.grade_on_save is False


def test_lint_settings_combine_pyproject_and_editor(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.rubric-lint]\nignore = ["AR001"]\n')
    editor = ServerSettings().merged({"lint": {"ignore": ["AR104"]}})
    lint = editor.lint_settings(str(tmp_path / "a.rubric.yaml"))
    assert not lint.is_enabled("AR001") and not lint.is_enabled("AR104") and lint.is_enabled("AR103")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "pyproject.toml").write_text("[tool.rubric-lint]\nselect = 3\n")
    assert ServerSettings().lint_settings(str(broken / "a.rubric.yaml")).is_enabled("AR001")  # falls back, no crash
