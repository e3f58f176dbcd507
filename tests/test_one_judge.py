"""Several ``--model``s reach only a grader that takes a panel (``Format.judge_panel``): a format whose grader
grades with one judge (a promptfoo config, a NorthStar request, a format that does not say) is graded with the
first, and ``rubric grade`` says once which went unused (a user's setting never breaks a format: issue 35) —
while an autorubric rubric still grades with the panel, and ``rubric calibrate`` still compares the judges
(its record is the first judge's, as ``rubric grade`` grades such a file; see test_calibrate_judges)."""

from __future__ import annotations

import asyncio
import json

import pytest

from rubric_lsp.cli import main
from rubric_lsp.engine.request import GradeRequest, RequestKind
from rubric_lsp.engine.runner import GradingError, as_graded, grade, panel_note, read
from rubric_lsp.engine.settings import JudgeSettings
from rubric_lsp.formats.registry import formats
from tests.conftest import use_judge
from tests.judge_server import Reply

A, B = "openai/judge-a", "openai/judge-b"
TOY = "one-judge-toy"

PROMPTFOO = """\
prompts: ["Reply to {{name}}"]
providers: [echo]
tests:
  - vars: {name: Ann}
    assert:
      - type: llm-rubric
        value: Is polite
"""
NORTHSTAR = {
    "graders": [
        {"type": "rubric", "name": "polite", "rubric": "Is it polite?", "scoring": {"mode": "binary"}},
    ]
}
LABELLED = [("please sit", "pass"), ("thanks, sit", "pass"), ("sit", "fail"), ("please, sit", "fail")]
RUBRIC = "- requirement: Says hello\n- requirement: Is rude\n  weight: -2\n"


@pytest.fixture
def judged(judge_server, tmp_path, monkeypatch):
    use_judge(monkeypatch, judge_server, "sk-test-one-judge", tmp_path / "cache")
    (tmp_path / "out.txt").write_text("please sit, Ann")
    return tmp_path


def run(capfd, *argv):
    code = main([str(a) for a in argv])
    out, err = capfd.readouterr()
    return code, out, err


def note(title: str) -> str:
    return (
        f"rubric grade: a {title} is graded with one judge model, not a panel: graded with {A}, and {B} went "
        "unused; to compare judges on it, give them to `rubric calibrate` with a labelled set (docs/calibration.md)"
    )


def said(err: str) -> list[str]:
    """Standard error without the progress lines a slow grading prints."""
    return [line for line in err.splitlines() if " done · " not in line]


def test_a_promptfoo_config_given_two_models_is_graded_with_the_first_and_says_so(judged, judge_server, capfd):
    config = judged / "promptfooconfig.yaml"
    config.write_text(PROMPTFOO)
    argv = ("grade", config, "--response", judged / "out.txt", "--model", A, "--model", B, "--format", "json")
    code, out, err = run(capfd, *argv, "--run", judged / "run.sqlite")
    assert (code, said(err)) == (0, [note("promptfoo config")]), err  # said once, on standard error
    assert [r.model for r in judge_server.requests] == ["judge-a"]
    assert json.loads(out)["model"] == A
    # the run file records the judge it was graded with: resumed with that one alone, it is the same run
    code, _, err = run(
        capfd, "grade", config, "--response", judged / "out.txt", "--model", A, "--resume", judged / "run.sqlite"
    )
    assert (code, said(err)) == (0, []), err


def test_a_northstar_request_given_two_models_is_graded_with_the_first_and_says_so(judged, judge_server, capfd):
    judge_server.default = Reply.json({"passed": True, "reason": "r", "feedback": "f"})  # a NorthStar grader's reply
    path = judged / "run.json"
    path.write_text(json.dumps(NORTHSTAR))
    code, _, err = run(capfd, "grade", path, "--response", judged / "out.txt", "--model", A, "--model", B)
    assert (code, said(err)) == (0, [note("NorthStar eval run request (judge configuration)")])
    assert [r.model for r in judge_server.requests] == ["judge-a"]


def test_an_autorubric_rubric_still_grades_with_the_panel(judged, judge_server, capfd):
    path = judged / "r.rubric.yaml"
    path.write_text(RUBRIC)
    argv = ("grade", path, "--response", judged / "out.txt", "--model", A, "--model", B, "--format", "json")
    code, out, err = run(capfd, *argv)
    assert code in (0, 1), err
    assert sorted(r.model for r in judge_server.requests) == ["judge-a", "judge-a", "judge-b", "judge-b"]
    assert all(len(v["votes"]) == 2 for v in json.loads(out)["verdicts"])


def test_two_spellings_of_one_model_are_one_judge(tmp_path):
    request = GradeRequest(PROMPTFOO, str(tmp_path / "promptfooconfig.yaml"), RequestKind.RESPONSE, ("x",))
    assert panel_note(request, JudgeSettings(model="openai:chat:judge-a", models=[A])) is None
    assert panel_note(request, JudgeSettings(model=A, models=[B])) is not None
    rescored = GradeRequest(PROMPTFOO, str(tmp_path / "promptfooconfig.yaml"), RequestKind.RESCORE)
    assert panel_note(rescored, JudgeSettings(model=A, models=[B])) is None  # given verdicts: no judge asked


def test_which_built_in_formats_take_a_panel():
    """The autorubric graders (and the Rubrics task, graded as its autorubric dataset) combine several judges'
    votes (--aggregation); the others grade with one judge."""
    takes = {fmt.name for fmt in formats() if fmt.judge_panel}
    assert takes == {"autorubric-rubric", "autorubric-dataset", "rubrics-task"}


# -- a format of its own: the declaration alone decides, and the default is one judge ----------------------


async def _grade(doc, request, grading):
    """A toy grader that says which judges it was handed (as an error: no result to build)."""
    raise GradingError(f"handed {grading.settings.judge_models()}")


@pytest.fixture(params=[False, True], ids=["one judge", "panel"])
def toy(request):
    from rubric_lsp.formats import registry

    fmt = registry.Format(
        name=TOY, title="toy deck", languages=("yaml",), file_patterns=("*.deck.yaml",), grader=_grade
    )
    if request.param:
        fmt.judge_panel = True
    yield registry.register(fmt)
    registry._FORMATS.pop(TOY, None)


def test_a_format_that_does_not_say_is_handed_one_judge(toy, tmp_path):
    request = GradeRequest("cards: []\n", str(tmp_path / "a.deck.yaml"), RequestKind.RESPONSE, ("x",))
    settings = JudgeSettings(model=A, models=[B], env={"OPENAI_API_KEY": "x"})
    with pytest.raises(GradingError) as handed:
        asyncio.run(grade(request, settings))
    assert str(handed.value) == f"handed {[A, B] if toy.judge_panel else [A]}"
    said = panel_note(request, settings)
    if toy.judge_panel:
        assert said is None
    else:
        assert said is not None and said.startswith(
            f"a toy deck is graded with one judge model, not a panel: graded with {A}"
        )
    doc = read(request.text, request.path)
    assert as_graded(doc, settings).judge_models() == ([A, B] if toy.judge_panel else [A])


def test_the_editor_takes_one_judge_model_and_says_so_of_a_list():
    """rubric.judge.model is one model: a list there is refused with a warning, never its first taken in
    silence (a panel is rubric.judge.models: tests/test_server_judge_panel.py)."""
    from rubric_lsp.server.settings import ServerSettings

    settings = ServerSettings().merged({"judge": {"model": [A, B]}})
    assert settings.judge_model is None
    assert settings.problems == (
        f"setting rubric.judge.model = {[A, B]!r} is ignored: it must be a model name such as openai/gpt-4o-mini",
    )


def test_calibrate_grades_each_one_judge_file_with_the_first_model_and_compares_both(judged, judge_server, capfd):
    """One labels file naming a promptfoo config and a NorthStar request, two judges: each record is the first
    judge's (what `rubric grade --model A` grades with), each judge's figures and their agreement beside."""

    def polite(request):  # each judge passes an output with "please"; judge B one with "thanks" too
        text = request.text  # promptfoo's llm-rubric: its user turn (the system one has examples)
        output = text[text.rindex("<Output>") :] if "<Output>" in text else text
        verdict = "please" in output or (request.model == "judge-b" and "thanks" in output)
        if "final_response" in request.text:  # a NorthStar grader's reply
            return Reply.json({"passed": verdict, "reason": "r", "feedback": "f"})
        return Reply.json({"reason": "r", "pass": verdict, "score": float(verdict)})

    judge_server.handler = polite
    (judged / "promptfooconfig.yaml").write_text(PROMPTFOO)
    (judged / "run.json").write_text(json.dumps(NORTHSTAR))
    lines = [
        {"config": "promptfooconfig.yaml", "test": 1, "assertion": "1", "output": o, "verdict": v} for o, v in LABELLED
    ]
    lines += [{"config": "run.json", "grader": "polite", "output": o, "verdict": v} for o, v in LABELLED]
    (judged / "labels.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, out, err = run(capfd, "calibrate", judged / "labels.jsonl", "--model", A, "--model", B)
    assert code == 0, err
    assert out.count(f"({A}; each of {A}, {B} alone)") == 2
    for name in ("promptfooconfig.yaml", "run.json"):
        data = json.loads((judged / f"{name}.calibration.json").read_text())
        assert data["judge"]["models"] == [A]
        (unit,) = data["units"]
        assert unit["figures"]["accuracy"]["value"] == 0.5  # judge A's: "thanks" failed, "please, sit" passed
        assert [(j["model"], j["figures"]["accuracy"]["value"]) for j in unit["per_judge"]] == [(A, 0.5), (B, 0.75)]
        assert unit["judge_agreement"]["pairs"][0]["agreement"]["successes"] == 3
    # Each judge asked once per labelled output and file: the first judge's passes are replayed from the cache.
    assert sorted(r.model for r in judge_server.requests) == ["judge-a"] * 2 * len(LABELLED) + ["judge-b"] * 2 * len(
        LABELLED
    )
