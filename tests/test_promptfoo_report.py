"""``rubric grade CONFIG --report``: a promptfoo grading's page answers "why did test N fail?".

One section per test (number, description, vars, the aggregate's result, score, threshold), each
assertion with its value, verdict, score, weight, reason and what the judge was sent (collapsed),
the output's text (collapsed), a "failures only" toggle and a search box. Graded through litellm's
real HTTP path against tests/judge_server.py; the page is driven in headless Chromium
(tests/report_browser.py) and every figure it shows is checked against ``--format json``.
"""

from __future__ import annotations

import json
import re
from html import escape as html_escape

import jsonschema
import pytest

from rubric_lsp.cli import main
from rubric_lsp.reporters.grade.html import figure
from tests.conftest import REPO, use_judge
from tests.judge_server import Reply
from tests.promptfoo_report_figures import (
    _label,
    _rate_figures,
    _test_figures,
    _usage_figures,
    banner_figures,
    expected_figures,
)
from tests.report_browser import available, load

KEY = "sk-test-pfreport-0123456789abcdefXYZ"
SCHEMA = json.loads((REPO / "schemas" / "rubric-grade-output.schema.json").read_text(encoding="utf-8"))
CONFIG = """\
prompts: ["Answer: {{question}}"]
providers: [echo]
defaultTest:
  options: {provider: openai:judge}
  assert:
    - type: not-icontains
      value: as an AI
tests:
  - description: password reset
    vars: {question: How do I reset my password?}
    threshold: 0.5
    assert:
      - type: icontains
        value: password
      - type: llm-rubric
        value: "Explains how to answer: {{question}}"
        metric: helpfulness
  - description: refund policy
    vars: {question: Can I get a refund after 30 days?, ticket: T-4711}
    assert:
      - type: contains
        value: refund
      - type: llm-rubric
        value: States the refund policy accurately
        weight: 2
  - description: custom check
    vars: {question: Hello, token: sk-canary-0123456789abcdefgh}
    assert:
      - type: python
        value: len(output) > 3
      - type: contains
        value: password
  - description: judge down
    vars: {question: Status?}
    assert:
      - type: llm-rubric
        value: Mentions the outage status
"""
CANARY = "sk-canary-0123456789abcdefgh"  # a key in the config's vars: masked wherever it is shown
RESPONSE = "To reset your password, open <Settings>. A refund is possible."
RESULTS = {1: "PASS", 2: "FAIL", 3: "INCOMPLETE", 4: "ERROR"}


def judge(request) -> Reply:
    """The refund rubric fails, the outage rubric's judge is down, every other rubric passes."""
    if "outage status" in request.text:
        return Reply.server_error()
    if "refund policy" in request.text:
        return Reply.json({"pass": False, "score": 0, "reason": "no policy stated"})
    return Reply.json({"pass": True, "score": 1, "reason": "explains it"})


@pytest.fixture
def graded(judge_server, tmp_path, monkeypatch, capfd):
    """(the JSON result, the report's path) of one grading of CONFIG against RESPONSE."""
    use_judge(monkeypatch, judge_server, KEY, tmp_path / "cache")
    judge_server.handler = judge
    (tmp_path / "promptfooconfig.yaml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "answer.txt").write_text(RESPONSE, encoding="utf-8")
    argv = ["grade", str(tmp_path / "promptfooconfig.yaml"), "--response", str(tmp_path / "answer.txt")]
    argv += ["--no-cache", "--retries", "0", "--format", "json", "--report", str(tmp_path / "report.html")]
    code = main(argv)
    out, err = capfd.readouterr()
    assert code == 2, err  # a judge call failed: incomplete
    assert CANARY not in out and '"token": "sk-cana***"' in out  # the var is shown, the key in it masked
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA, cls=jsonschema.Draft202012Validator)
    return data, tmp_path / "report.html"


def test_the_json_carries_what_the_report_shows(graded):
    """Each test's vars and threshold, each assertion's value, weight and the messages its judge was sent."""
    data, _ = graded
    tests = {t["test"]: t for t in data["tests"]}
    assert [_label(tests[n], data["verdicts"]) for n in sorted(tests)] == [RESULTS[n] for n in sorted(tests)]
    assert tests[1]["threshold"] == 0.5 and tests[1]["named_scores"] == {"helpfulness": 1.0}
    assert tests[2]["vars"] == {"question": "Can I get a refund after 30 days?", "ticket": "T-4711"}
    assert [a.get("from_default_test", False) for a in tests[1]["assertions"]] == [True, False, False]
    rubric = tests[1]["assertions"][2]
    assert rubric["value"] == "Explains how to answer: {{question}}"
    assert rubric["rendered"] == "Explains how to answer: How do I reset my password?"
    (call,) = rubric["sent"]
    assert "How do I reset my password?" in call[-1]["content"] and RESPONSE in call[-1]["content"]
    assert [a["weight"] for a in tests[2]["assertions"]] == [1.0, 1.0, 2.0]
    assert "sent" not in tests[2]["assertions"][1]  # contains is checked here: no judge
    assert data["verdicts"][tests[3]["assertions"][1]["verdict"]]["verdict"] == "NOT_RUN"
    # every verdict belongs to exactly one test's assertions
    indices = sorted(a["verdict"] for t in data["tests"] for a in t["assertions"])
    assert indices == list(range(len(data["verdicts"])))


def test_the_page_shows_each_test_its_assertions_and_the_output(graded):
    data, page = graded
    html = page.read_text(encoding="utf-8")
    assert KEY not in html and CANARY not in html
    assert html_escape(RESPONSE) in html and RESPONSE not in html  # the output's text, escaped
    assert re.search(r"<details class=\"output\"><summary>", html)  # collapsed
    for test in data["tests"]:
        assert f'id="test-{test["test"]}"' in html
        assert html_escape(test["description"]) in html
        for value in test["vars"].values():
            assert html_escape(value) in html
        for entry in test["assertions"]:
            assert html_escape(entry["value"]) in html
            for call in entry.get("sent", []):
                assert html_escape(call[-1]["content"]) in html
    assert html.count('<details class="sent">') == sum("sent" in a for t in data["tests"] for a in t["assertions"])
    assert "<details open" not in html  # the judge's prompts and the output stay collapsed
    assert "share" not in re.sub(r"<script>.*?</script>", "", html, flags=re.S)  # no share column without shares


PROBE = """<script>
window.addEventListener("load", function () {
  var visible = function () {
    return Array.prototype.filter.call(document.querySelectorAll("section.test"), function (s) {
      return s.offsetParent !== null;
    }).map(function (s) { return s.id; }).join(",");
  };
  var failures = document.getElementById("failures-only"), search = document.getElementById("search");
  var body = document.body.dataset;
  body.all = visible();
  failures.click(); body.failures = visible();
  search.value = "t-4711 REFUND"; search.dispatchEvent(new Event("input")); body.found = visible();
  body.counter = document.getElementById("tests-shown").textContent;
  failures.click(); search.value = "password"; search.dispatchEvent(new Event("input")); body.password = visible();
  search.value = "no-such-words"; search.dispatchEvent(new Event("input")); body.none = visible();
});
</script></body>"""


@pytest.mark.skipif(not available(), reason="needs /usr/bin/chromium")
def test_in_chromium_the_toggle_and_the_search_find_the_failing_test_and_every_figure_is_the_jsons(graded):
    data, page = graded
    page.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE), encoding="utf-8")
    loaded = load(page)
    assert loaded.console == [] and loaded.requests == []
    body = dict(re.findall(r'data-(\w+)="([^"]*)"', re.search(r"<body([^>]*)>", loaded.dom).group(1)))
    everything = ",".join(f"test-{t['test']}" for t in data["tests"])
    assert body["all"] == everything
    not_passed = ",".join(f"test-{t['test']}" for t in data["tests"] if _label(t, data["verdicts"]) != "PASS")
    assert body["failures"] == not_passed == "test-2,test-3,test-4"
    assert body["found"] == "test-2" and body["counter"] == "1 of 4 tests shown"  # the failing test, found
    assert body["password"] == "test-1,test-3"  # a var, a value: whatever the test's section says
    assert body["none"] == ""
    shown = loaded.figures()
    wanted = expected_figures(data)
    assert shown == wanted
    assert not [v for v in shown.values() if v.startswith(("-", "−"))]


@pytest.mark.skipif(not available(), reason="needs /usr/bin/chromium")
def test_several_outputs_show_each_outputs_text_and_tests_with_the_jsons_figures(
    judge_server, tmp_path, monkeypatch, capfd
):
    use_judge(monkeypatch, judge_server, KEY, tmp_path / "cache")
    judge_server.handler = judge
    (tmp_path / "promptfooconfig.yaml").write_text(CONFIG, encoding="utf-8")
    outputs = [RESPONSE, "Sorry, as an AI I cannot help."]
    argv = ["grade", str(tmp_path / "promptfooconfig.yaml")]
    for position, text in enumerate(outputs):
        (tmp_path / f"out{position}.txt").write_text(text, encoding="utf-8")
        argv += ["--response", str(tmp_path / f"out{position}.txt")]
    code = main([*argv, "--no-cache", "--retries", "0", "--format", "json", "--report", str(tmp_path / "r.html")])
    out, err = capfd.readouterr()
    assert code == 2, err
    data = json.loads(out)
    loaded = load(tmp_path / "r.html")
    assert loaded.console == [] and loaded.requests == []
    for text in outputs:
        assert html_escape(text) in loaded.dom
    wanted = {"kind": "outputs"}
    calls = {
        key: sum(o["usage"][key] for o in data["outputs"]) for key in ("calls", "cached", "total_tokens", "cost_usd")
    }
    wanted |= _usage_figures(calls, data["outputs"][0]["model"])
    for position, report in enumerate(data["outputs"]):
        wanted[f"output_score:{position}"] = figure(report["score"])
        wanted |= _test_figures(report, f"o{position + 1}:")
    wanted |= _rate_figures(data["pass_rates"]) | banner_figures(data)
    assert loaded.figures() == wanted
    # the second output says "as an AI": defaultTest's not-icontains fails it in every test
    assert {_label(t, data["outputs"][1]["verdicts"]) for t in data["outputs"][1]["tests"]} == {"FAIL"}
