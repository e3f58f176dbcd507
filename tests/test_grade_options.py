"""A format's grading options (``Format.grade_options``): declared once in the format, they become
``rubric grade`` flags and editor settings, and reach the format's grader untouched in
``GradeRequest.options``; neither the command, the server nor the engine names one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from rubric_lsp.commands.grade import _request as request_of
from rubric_lsp.commands.grade import _run_fields, build_parser, grade_options
from rubric_lsp.document import Document
from rubric_lsp.engine.request import GradeRequest
from rubric_lsp.engine.runner import Grading
from rubric_lsp.formats.autorubric.options import GRADE_OPTIONS, AutorubricOptions
from rubric_lsp.formats.options import GradeOption, distinct, read_options
from rubric_lsp.server.settings import ServerSettings

TOY = "toy-options"
STRICTNESS = GradeOption(
    "strictness",
    "lenient",
    "how strict the toy grader is (default: lenient)",
    "--strictness",
    choices=("lenient", "strict"),
    setting="grading.strictness",
)
EXPLAIN = GradeOption("explain", True, "no explanations", "--no-explain")
ROUNDS = GradeOption("rounds", 1, "how many rounds (default: 1)", "--rounds", parse=int)


@dataclass
class Echo:
    """The toy grader's result: the options it was given."""

    options: dict[str, Any]
    failed: bool = False
    incomplete: str | None = None

    def to_json(self) -> Any:
        return self.options

    kind = "response"

    def text_lines(self) -> list[str]:
        return [json.dumps(self.options)]

    def units(self) -> list[Any]:  # the result protocol: nothing judged, so no unit
        return []


def _options_echoed(out: str) -> dict[str, Any]:
    """The toy result's JSON without the judge card every grading's JSON carries (docs/calibration.md)."""
    data = json.loads(out)
    assert "judge_card" in data
    return {name: value for name, value in data.items() if name != "judge_card"}


async def grade(doc: Document, request: GradeRequest, grading: Grading) -> Echo:
    return Echo(read_options(request.options, (STRICTNESS, EXPLAIN, ROUNDS)))


@pytest.fixture
def toy_format():
    from rubric_lsp.formats import registry

    fmt = registry.register(
        registry.Format(
            name=TOY,
            title="toy options",
            languages=("yaml",),
            file_patterns=("*.toyopt.yaml",),
            grader=__name__,
            grade_options=(STRICTNESS, EXPLAIN, ROUNDS),
        )
    )
    yield fmt
    registry._FORMATS.pop(TOY, None)


def test_a_formats_options_become_flags_that_reach_its_grader_untouched(toy_format, tmp_path, capsys):
    from rubric_lsp.cli import main

    path = tmp_path / "a.toyopt.yaml"
    path.write_text("checks: []\n")
    assert main(["grade", str(path), "--format", "json"]) == 0
    assert _options_echoed(capsys.readouterr().out) == {"strictness": "lenient", "explain": True, "rounds": 1}
    argv = ["grade", str(path), "--format", "json", "--strictness", "strict", "--no-explain", "--rounds", "3"]
    assert main(argv) == 0
    assert _options_echoed(capsys.readouterr().out) == {"strictness": "strict", "explain": False, "rounds": 3}
    with pytest.raises(SystemExit) as refused:  # the declaration's parse refuses it
        main(["grade", str(path), "--rounds", "many"])
    assert refused.value.code == 2
    assert "argument --rounds" in capsys.readouterr().err
    help_text = build_parser().format_help()
    assert "grading toy options files:" in help_text and "how strict the toy grader is" in help_text


def test_the_command_sends_every_declared_option_and_a_run_file_names_each(toy_format):
    args = build_parser().parse_args(["r.yaml", "--cannot-assess", "zero"])
    request = request_of(args, "text", "r.yaml")
    assert isinstance(request, GradeRequest)
    assert request.options == {option.name: option.default for option in grade_options()} | {"cannot_assess": "zero"}
    fields = _run_fields(request)
    # Under their own names, as when they were judge settings: run files written then still resume.
    assert (fields["cannot_assess"], fields["partial_credit"], fields["normalize"]) == ("zero", 0.5, True)
    assert (fields["shuffle_options"], fields["aggregation"], fields["strictness"]) == (True, "majority", "lenient")


def test_the_autorubric_flags_keep_their_names_defaults_and_help():
    parser = build_parser()
    args = vars(parser.parse_args(["r.yaml"]))
    defaults = {key.split(":", 1)[1]: value for key, value in args.items() if key.startswith("grade_option:")}
    assert defaults == {
        "cannot_assess": "skip",
        "partial_credit": 0.5,
        "normalize": True,
        "aggregation": "majority",
        "shuffle_options": True,
        "swap": False,  # promptfoo's (select-best position consistency)
    }
    flipped = vars(parser.parse_args(["r.yaml", "--raw", "--no-shuffle", "--partial-credit", "1"]))
    assert (flipped["grade_option:normalize"], flipped["grade_option:shuffle_options"]) == (False, False)
    assert flipped["grade_option:partial_credit"] == 1.0
    help_text = " ".join(parser.format_help().split())
    for text in (
        "--cannot-assess {skip,zero,partial,fail} how abstentions count (default: skip)",
        "--partial-credit PARTIAL_CREDIT credit for an abstention under --cannot-assess partial (default: 0.5)",
        "--raw report the raw weighted sum instead of a 0–1 score",
        "--aggregation {majority,weighted,unanimous,any} several judges: how binary votes combine",
        "--no-shuffle show multi-choice options in authored order",
        "--swap select-best: ask again with the outputs in reverse order",
    ):
        assert text in help_text


def test_autorubric_reads_its_options_checked_with_defaults():
    assert AutorubricOptions.of({}) == AutorubricOptions()
    assert AutorubricOptions.of(
        {"normalize": "false", "partial_credit": "0.25", "other-format": 1}
    ) == AutorubricOptions(normalize=False, partial_credit=0.25)
    with pytest.raises(ValueError, match="cannot_assess must be one of skip, zero, partial, fail"):
        AutorubricOptions.of({"cannot_assess": "ignore"})
    with pytest.raises(ValueError, match="between 0 and 1"):
        AutorubricOptions.of({"partial_credit": 2})
    assert {o.name for o in GRADE_OPTIONS} == set(AutorubricOptions.__dataclass_fields__)


def test_the_server_reads_an_options_setting_by_its_declaration(toy_format):
    settings = ServerSettings().merged({"grading": {"strictness": "strict", "cannotAssess": "zero"}})
    assert dict(settings.grade_options) == {"strictness": "strict", "cannot_assess": "zero"}
    assert settings.problems == ()
    reset = settings.merged({"grading.strictness": None, "grading.cannotAssess": ""})
    assert reset.grade_options == ()
    bad = ServerSettings().merged({"grading.strictness": "harsh"})
    assert bad.grade_options == ()
    assert bad.problems == (
        "setting rubric.grading.strictness = 'harsh' is ignored: it must be one of lenient, strict",
    )


def test_two_formats_may_share_an_option_but_not_spell_it_differently():
    assert distinct([STRICTNESS, EXPLAIN, STRICTNESS]) == [STRICTNESS, EXPLAIN]
    with pytest.raises(ValueError, match="'strictness' differently"):
        distinct([STRICTNESS, GradeOption("strictness", "strict", "other", "--strictness")])


def test_the_server_falls_back_on_an_options_environment_variable(monkeypatch):
    from rubric_lsp.server.app import RubricServer

    ls = RubricServer()
    monkeypatch.delenv("RUBRIC_CANNOT_ASSESS", raising=False)
    assert ls.grade_options() == {}  # nothing set: each grader's default
    monkeypatch.setenv("RUBRIC_CANNOT_ASSESS", "zero")
    assert ls.grade_options() == {"cannot_assess": "zero"}
    ls.settings = ls.settings.merged({"grading.cannotAssess": "fail"})
    assert ls.grade_options() == {"cannot_assess": "fail"}  # the setting wins
    ls.settings = ls.settings.merged({"grading.cannotAssess": None})
    monkeypatch.setenv("RUBRIC_CANNOT_ASSESS", "bogus")
    assert ls.grade_options() == {}  # an invalid value is ignored, as an invalid setting is
