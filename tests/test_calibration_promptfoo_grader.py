"""A promptfoo assertion's own grader is part of its calibration unit (issue 28): the judge promptfoo 0.123.1's
precedence gives it (the assertion's ``provider``, the test's ``options.provider``, defaultTest's
``options.provider``, defaultTest's ``provider``: ``getFinalTest`` and ``getGradingProvider`` in
dist/src/graders-*.js) with its config's verdict settings. Calibrated from a labels file against the local
test judge, a record goes stale naming the judge when the grader changes — in the lint and in ``rubric grade
--require-calibrated``, which refuses with exit 2 before any judge call — and stays fresh when nothing that
decides the judge changed. A ``defaultTest.options.provider`` is only a default: a judge given to the grading
(``--model``, like promptfoo's ``--grader``) replaces it."""

from __future__ import annotations

import json

import pytest

from rubric_lsp.document import parse_document
from rubric_lsp.formats.promptfoo.grading.calibration import graded_units
from rubric_lsp.formats.promptfoo.reading import read_config
from tests.calibration import LABELLED, labels_judge
from tests.calibration_cli import CSV_HEADER, answer, line_of, lint, run
from tests.conftest import use_judge

OWN = """\
prompts: ["Reply to {{name}}"]
providers: [echo]
tests:
  - vars: {name: Ann}
    assert:
      - type: llm-rubric
        value: Is polite
        metric: polite
        provider:
          id: openai:chat:judge
          config: {temperature: 0}
"""
DEFAULT = """\
prompts: ["Reply to {{name}}"]
providers: [echo]
defaultTest:
  options:
    provider: openai:chat:judge
tests:
  - vars: {name: Ann}
    assert:
      - type: llm-rubric
        value: Is polite
        metric: polite
"""


@pytest.fixture
def env(judge_server, tmp_path, monkeypatch):
    use_judge(monkeypatch, judge_server, "sk-test-own-grader", tmp_path / "cache")
    judge_server.handler = labels_judge
    (tmp_path / "rubric-lint.toml").write_text("calibration = { required = true }\n")
    return tmp_path


def calibrate(env, capfd, text: str) -> dict:
    (env / "promptfooconfig.yaml").write_text(text)
    rows = "".join(f'1,polite,"{output}",{verdict}\n' for output, verdict in LABELLED)
    (env / "labels.csv").write_text(CSV_HEADER + rows)
    code, _, err = run(capfd, "calibrate", str(env / "labels.csv"), "--config", str(env / "promptfooconfig.yaml"))
    assert code == 0, err
    return json.loads((env / "promptfooconfig.yaml.calibration.json").read_text())


def grade(env, capfd, *extra: str) -> tuple[int, str, str]:
    response = answer(env, "please sit, Ann")
    return run(
        capfd, "grade", str(env / "promptfooconfig.yaml"), "--response", response, "--require-calibrated", *extra
    )


def test_changing_an_assertions_own_grader_makes_its_record_stale_naming_the_judge(env, capfd, judge_server):
    record = calibrate(env, capfd, OWN)
    [unit] = record["units"]
    assert unit["judge"] == {"models": ["openai/judge"], "settings": {"temperature": 0.0}}
    config = env / "promptfooconfig.yaml"
    assert lint(capfd, config) == (0, [])
    code, out, err = grade(env, capfd)
    assert code == 0 and "calibration: test 1 polite: fresh" in out, err

    # What does not decide the judge leaves the record fresh: the test's target, the grader's endpoint and key.
    config.write_text(
        OWN.replace("providers: [echo]", "providers: [echo, openai:chat:target]").replace(
            "{temperature: 0}", f"{{temperature: 0, apiBaseUrl: '{judge_server.base_url}', apiKey: sk-other}}"
        )
    )
    assert lint(capfd, config) == (0, [])
    code, out, err = grade(env, capfd)
    assert code == 0 and "calibration: test 1 polite: fresh" in out, err

    config.write_text(OWN.replace("openai:chat:judge", "openai:chat:judge-b"))
    code, found = lint(capfd, config)
    assert code == 1 and len(found) == 1, found
    message = found[0]["message"]
    assert "assertion 'test 1 polite' is stale: its judge changed since" in message
    assert "(openai/judge then, openai/judge-b now)" in message
    assert found[0]["line"] == line_of(config, "metric: polite")
    calls = judge_server.call_count
    code, out, err = grade(env, capfd, "--no-cache")
    assert code == 2 and out == "" and judge_server.call_count == calls  # refused before any judge call
    assert "(openai/judge then, openai/judge-b now)" in err


def test_a_grader_setting_that_changes_a_verdict_is_the_records_settings(env, capfd, judge_server):
    calibrate(env, capfd, OWN)
    config = env / "promptfooconfig.yaml"
    config.write_text(OWN.replace("{temperature: 0}", "{temperature: 0.7}"))
    assert lint(capfd, config) == (0, [])  # the lint never compares settings: a grading's own
    calls = judge_server.call_count
    code, _, err = grade(env, capfd)
    assert code == 2 and judge_server.call_count == calls
    assert "test 1 polite: stale: its settings changed since" in err


def test_a_default_grader_yields_to_a_given_judge(env, capfd, judge_server, monkeypatch):
    """Calibrated with a judge given (``$RUBRIC_JUDGE_MODEL``), defaultTest's ``options.provider`` did not judge:
    changing it leaves gradings with that judge fresh. Without one given it judges, so the record is stale; the
    lint compares the config's default unless the settings name the judge gradings use (``calibration.judge``)."""
    record = calibrate(env, capfd, DEFAULT)
    assert "judge" not in record["units"][0]  # the given judge graded it
    config = env / "promptfooconfig.yaml"
    config.write_text(DEFAULT.replace("openai:chat:judge", "openai:chat:judge-b"))
    code, out, err = grade(env, capfd)
    assert code == 0 and "test 1 polite: fresh" in out, err

    monkeypatch.delenv("RUBRIC_JUDGE_MODEL")
    calls = judge_server.call_count
    code, _, err = grade(env, capfd)
    assert code == 2 and judge_server.call_count == calls
    assert "(openai/judge then, openai/judge-b now)" in err

    code, found = lint(capfd, config)
    assert code == 1 and "its judge changed" in found[0]["message"]
    (env / "rubric-lint.toml").write_text('calibration = { required = true, judge = ["openai/judge"] }\n')
    assert lint(capfd, config) == (0, [])


def test_each_unit_carries_the_grader_promptfoos_precedence_gives_it():
    text = """\
prompts: [p]
providers: [echo]
defaultTest:
  provider: openai:chat:target-grades
  options: {provider: {id: 'anthropic:messages:claude-x', config: {max_tokens: 300}}}
tests:
  - assert:
      - {type: llm-rubric, value: a, provider: openai:chat:own}
      - {type: g-eval, value: b}
  - options: {provider: {id: openai:chat:test-level, config: {temperature: 1}}}
    assert:
      - {type: factuality, value: c}
"""
    doc = parse_document(text, "promptfooconfig.yaml")
    units = list(graded_units(read_config(doc.root, doc.path, doc)))
    judges = [(u.id, u.judge.models, dict(u.judge.settings), u.judge.default) for u in units if u.judge]
    assert judges == [
        ("test 1 assertion 1", ("openai/own",), {}, False),
        ("test 1 assertion 2", ("anthropic/claude-x",), {"max_tokens": 300}, True),
        ("test 2 assertion 1", ("openai/test-level",), {"temperature": 1.0}, False),
    ]
    without = parse_document("prompts: [p]\ntests:\n  - assert: [{type: llm-rubric, value: a}]\n", "c.yaml")
    [unit] = graded_units(read_config(without.root, without.path, without))
    assert unit.judge is None  # no grader named: the grading's judge


SHARED = (
    'prompts: ["Reply to {{name}}"]\nproviders: [echo]\n'
    "defaultTest:\n  assert:\n    - type: llm-rubric\n      value: Is polite\n      metric: polite\n"
    "tests:\n" + "".join(f"  - vars: {{name: N{n}}}\n" for n in range(1, 41))
)


def test_a_default_test_assertions_findings_are_one_naming_the_tests(env, capfd):
    """One defaultTest assertion is one unit per test (each test's vars are part of it), written on one line:
    the same finding for many tests is one, naming them; a test whose finding differs keeps its own."""
    from rubric_lsp.calibration.check import VIEW_KEY, hover_lines
    from rubric_lsp.lint import lint_path
    from rubric_lsp.settings import settings_for

    config = env / "promptfooconfig.yaml"
    config.write_text(SHARED)
    code, found = lint(capfd, config)
    assert code == 1 and len(found) == 1, found
    assert found[0]["message"].startswith("In tests 1–40, the assertion 'polite' has no calibration record")
    assert found[0]["line"] == line_of(config, "metric: polite")

    rows = "".join(f'{t},polite,"{output}",{verdict}\n' for t in (1, 2, 3, 7) for output, verdict in LABELLED)
    (env / "labels.csv").write_text(CSV_HEADER + rows)
    code, _, err = run(capfd, "calibrate", str(env / "labels.csv"), "--config", str(config))
    assert code == 0, err
    code, found = lint(capfd, config)
    assert [f["message"].split(" has no")[0] for f in found] == ["In tests 4–6, 8–40, the assertion 'polite'"]
    result = lint_path(config, settings=settings_for(config))
    shown = hover_lines(result.shared[VIEW_KEY], config.read_text().index("Is polite"))
    assert len(shown) == 1 and shown[0].startswith("**Calibration** of assertion `polite` in tests 1–3, 7: κ")

    config.write_text(SHARED.replace("{name: N2}", "{name: M2}"))  # test 2's vars: its unit's text
    code, found = lint(capfd, config)
    messages = sorted(f["message"] for f in found)
    assert len(messages) == 2 and messages[0].startswith("In tests 4–6, 8–40, the assertion 'polite' has no")
    assert messages[1].startswith("The assertion 'test 2 polite' is stale: its text changed")


def test_require_calibrated_on_a_test_there_is_not_says_so(env, capfd, judge_server):
    calibrate(env, capfd, OWN)
    calls = judge_server.call_count
    code, out, err = grade(env, capfd, "--test", "99")
    assert code == 2 and out == "" and judge_server.call_count == calls
    assert "There is no test 99: the config has 1 test(s)." in err and "names no calibration units" not in err


def test_a_declared_grader_calibrates_and_is_named_with_or_without_a_key(env, capfd, judge_server, monkeypatch):
    """Issue 33, item 5: where the config declares its grader (``defaultTest.options.provider``) and no judge is
    given, ``rubric calibrate`` works as ``rubric grade`` does, the record and the judge card name that grader
    (never "none" or the engine's default for an API key), and fresh or stale does not depend on the key."""
    monkeypatch.delenv("RUBRIC_JUDGE_MODEL")
    monkeypatch.delenv("OPENAI_API_KEY")  # the test judge is a local OpenAI-compatible server: no key needed
    data = calibrate(env, capfd, DEFAULT)
    assert data["judge"]["models"] == ["openai/judge"] and data["units"][0]["judge"]["models"] == ["openai/judge"]
    for key in (None, "sk-test-any"):
        if key is not None:
            monkeypatch.setenv("OPENAI_API_KEY", key)
        code, out, err = grade(env, capfd, "--format", "json")
        assert code == 0, err
        card = json.loads(out)["judge_card"]
        assert card["models"] == ["openai/judge"], card["models"]
        assert [(u["status"], u["calibrated"]) for u in card["units"]] == [("fresh", True)]


def test_the_editors_hover_names_the_judge_its_gradings_use():
    """Issue 33, item 5: the editor's own judge (``rubric.judge.model``) replaces defaultTest's grader in the
    editor's gradings, as ``--model`` does, so the hover names it; a grader the assertion names itself stays."""
    from rubric_lsp.formats.editor import EditorContext
    from rubric_lsp.formats.promptfoo.editor import hover

    for text, replaced in ((DEFAULT, True), (OWN, False)):
        doc = parse_document(text, "promptfooconfig.yaml")
        view = read_config(doc.root, doc.path, doc)
        at = text.index("llm-rubric")
        shown = hover(EditorContext(doc, view, {}, ("openai/editor-judge",)), at)[0]
        assert ("Graded here by the editor's judge openai/editor-judge" in shown) == replaced, shown
        assert "openai:chat:judge" in shown
        assert "editor-judge" not in hover(EditorContext(doc, view, {}), at)[0]
