"""``rubric grade promptfooconfig.yaml --outputs results.json``: a whole promptfoo eval graded in one run.

Replays results files promptfoo 0.123.1 wrote with its echo provider (``tests/data/promptfoo-recorded/results``,
``record_results.py``), graded through litellm's real HTTP path against tests/judge_server.py answering as the
recording's judge did: every row graded with its own output and vars agrees with promptfoo's recorded verdict
(test and assertion, pass and score) and the judge is sent what promptfoo sent (its renderedGradingPrompt); with
another judge the cells that change say they differ. Text, JSON (against the schema), JUnit (one testcase per row,
valid against junit-10.xsd), CSV, and the HTML grid opened in headless Chromium with every figure the JSON's.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re

import jsonschema
import pytest

from rubric_lsp.cli import main
from rubric_lsp.reporters.grade.html import figure, score_text
from tests.conftest import REPO, use_judge
from tests.judge_server import Reply
from tests.promptfoo_report_figures import _test_figures, _usage_figures, banner_figures
from tests.report_browser import available, load

HERE = REPO / "tests" / "data" / "promptfoo-recorded" / "results"
SCHEMA = json.loads((REPO / "schemas" / "rubric-grade-output.schema.json").read_text(encoding="utf-8"))
KEY = "sk-test-pfgrid-0123456789abcdefXYZ"


def recorded(case: str) -> dict:
    return json.loads((HERE / f"{case}.results.json").read_text(encoding="utf-8"))


@pytest.fixture
def replay(judge_server, tmp_path, monkeypatch, capfd):
    """``replay(case, *flags, judge=None)`` -> (exit code, stdout): the case's config and results file graded with
    ``--outputs``, the judge answering by the recording's rules (or by ``judge``, a handler)."""
    use_judge(monkeypatch, judge_server, KEY, tmp_path / "cache")
    monkeypatch.delenv("RUBRIC_JUDGE_MODEL")  # the config names its grader, as promptfoo graded it

    def run(case: str, *flags: str, judge=None) -> tuple[int, str]:
        script = json.loads((HERE / f"{case}.judge.json").read_text(encoding="utf-8"))
        judge_server.reset()
        for match, text in script["rules"]:
            judge_server.when(match, Reply.server_error() if text == "!500" else Reply.text(text))
        judge_server.default = Reply.text(script["default"])
        judge_server.handler = judge
        if judge is not None:
            judge_server.reset()
            judge_server.handler = judge
        config = (HERE / f"{case}.config.yaml").read_text(encoding="utf-8").replace("{API}", judge_server.base_url)
        (tmp_path / "promptfooconfig.yaml").write_text(config, encoding="utf-8")
        (tmp_path / "results.json").write_text((HERE / f"{case}.results.json").read_text("utf-8"), encoding="utf-8")
        argv = ["grade", str(tmp_path / "promptfooconfig.yaml"), "--outputs", str(tmp_path / "results.json")]
        code = main([*argv, "--no-cache", "--retries", "0", *flags])
        out, err = capfd.readouterr()
        assert KEY not in out + err
        return code, out

    run.dir = tmp_path  # type: ignore[attr-defined]
    return run


def test_every_row_agrees_with_promptfoos_recorded_verdicts(replay, judge_server):
    code, out = replay("grid", "--format", "json")
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA, cls=jsonschema.Draft202012Validator)
    rows = recorded("grid")["results"]["results"]
    assert code == 1  # some rows fail, as promptfoo recorded
    assert len(data["cells"]) == len(rows) == 24 and data["differences"] == 0
    assert data["recorded_by"] == "promptfoo 0.123.1"
    by_row = {(r["testIdx"] + 1, r["promptIdx"]): r for r in rows}
    for cell in data["cells"]:
        row = by_row[(cell["test"], cell["column"])]
        assert cell["passed"] is row["success"] and cell["score"] == pytest.approx(row["score"])
        assert cell["recorded"]["passed"] is row["success"] and cell["differs"] is False
        assert cell["output"] == row["response"]["output"]
        (test,) = cell["report"]["tests"]
        assert test["vars"] == row["vars"] and test["test"] == row["testIdx"] + 1  # promptfoo's numbering
        components = row["gradingResult"]["componentResults"]
        assert [a["recorded"]["passed"] for a in test["assertions"]] == [c["pass"] for c in components]
        for entry, component in zip(test["assertions"], components):
            ours = entry["set"] if "set" in entry else cell["report"]["verdicts"][entry["verdict"]]
            assert ours["passed"] is component["pass"] and ours["score"] == pytest.approx(component["score"])
            assert entry["recorded"]["differs"] is False
            sent = component.get("metadata", {}).get("renderedGradingPrompt")
            if sent is not None:  # what the judge was sent is what promptfoo sent, byte for byte
                (call,) = entry["sent"]
                assert call == json.loads(sent)
    # each column's pass rate is promptfoo's (its prompts[].metrics)
    for column, prompt in zip(data["columns"], recorded("grid")["results"]["prompts"]):
        metrics = prompt["metrics"]
        total = metrics["testPassCount"] + metrics["testFailCount"] + metrics["testErrorCount"]
        assert (column["passed"], column["cells"]) == (metrics["testPassCount"], total)
        assert column["recorded_passed"] == metrics["testPassCount"] and column["pass_rate"] == pytest.approx(
            metrics["testPassCount"] / total
        )
        assert column["label"] == f"[{prompt['provider']}] {prompt['label']}"
    assert len(judge_server.completions) == 24  # one llm-rubric per row


def test_another_judge_shows_where_it_would_have_decided_otherwise(replay):
    harsh = lambda request: Reply.json({"pass": False, "score": 0.0, "reason": "Harsh judge."})  # noqa: E731
    code, out = replay("grid", "--format", "json", judge=harsh)
    data = json.loads(out)
    differing = [c for c in data["cells"] if c["differs"]]
    assert code == 1 and differing and data["differences"] == len(differing)
    for cell in differing:
        assert cell["recorded"]["passed"] is True and cell["passed"] is False
        rubric = [a for a in cell["report"]["tests"][0]["assertions"] if a["type"] == "llm-rubric"]
        assert rubric and all(a["recorded"]["differs"] for a in rubric if a["recorded"]["passed"])
    assert sum(c["differences"] for c in data["columns"]) == len(differing)
    code, text = replay("grid", judge=harsh)
    lines = text.splitlines()
    assert f"differences from promptfoo 0.123.1's verdicts: {len(differing)}" in lines
    assert any("differs from promptfoo's recorded PASS" in line for line in lines)
    assert any(re.fullmatch(r"test 1: FAIL≠ \| FAIL≠ \| FAIL≠ \| FAIL≠", line) for line in lines)


def test_a_failed_judgment_leaves_its_row_undecided_never_promptfoos_fail(replay):
    code, out = replay("errors", "--format", "json")
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA, cls=jsonschema.Draft202012Validator)
    assert code == 2 and "a judge call failed" in data["incomplete"]
    first, second = data["cells"]
    # promptfoo records a failed grader call as a FAIL with score 0; here it is an error, and nothing differs
    assert first["recorded"]["result"] == "FAIL" and first["result"] == "ERROR" and first["differs"] is False
    assert first["passed"] is None and "a judge call failed (llm-rubric line" in first["reason"]
    # javascript: undecided where it is not run; where it is, promptfoo's PASS
    assert (second["result"], second["differs"]) in (("INCOMPLETE", False), ("PASS", False))


def test_junit_has_one_testcase_per_row_and_its_failures_are_the_failed_rows(replay):
    xmlschema = pytest.importorskip("xmlschema")
    code, out = replay("grid", "--format", "junit")
    schema = xmlschema.XMLSchema(str(REPO / "tests" / "data" / "junit-10.xsd"))
    schema.validate(out)
    root = schema.to_dict(out)
    suites = root["testsuite"]
    cases = [c for s in suites for c in s["testcase"]]
    data = json.loads(replay("grid", "--format", "json")[1])
    assert len(cases) == len(data["cells"]) and len(suites) == len(data["columns"])
    failed = sum(c["result"] in ("FAIL", "ERROR") for c in data["cells"])
    assert int(root["@failures"]) == failed == sum("failure" in c for c in cases) and code == 1
    assert [s["@name"] for s in suites] == [c["label"] for c in data["columns"]]
    rescued = next(
        c for c in cases if c["@name"] == "test 3: cities" and c["@classname"].endswith("Reply in {{lang}}: {{q}}")
    )
    assert "failure" not in rescued  # its assert-set failed; its threshold passes the test, as the exit code says
    out_text = rescued["system-out"]
    assert "contains: FAIL (fail)" in (out_text[0] if isinstance(out_text, list) else out_text)


def test_csv_names_each_rows_test_column_and_promptfoos_verdict(replay):
    code, out = replay("grid", "--format", "csv")
    assert code == 1
    table = list(csv.DictReader(io.StringIO(out)))
    data = json.loads(replay("grid", "--format", "json")[1])
    units = [(c, v) for c in data["cells"] for v in c["report"]["verdicts"]]
    assert len(table) == len(units)
    for row, (cell, verdict) in zip(table, units):
        assert (int(row["test"]), int(row["column"])) == (cell["test"], cell["column"] + 1)
        assert row["verdict"] == verdict["verdict"] and row["promptfoo"] == verdict["verdict"]


def test_a_results_file_of_another_config_or_no_results_file_is_refused(replay, capfd):
    folder = replay.dir
    replay("grid")  # writes the config and the results file
    config = folder / "promptfooconfig.yaml"
    (folder / "other.yaml").write_text("prompts: ['{{q}}']\nproviders: [echo]\ntests:\n  - vars: {q: a}\n")
    assert main(["grade", str(folder / "other.yaml"), "--outputs", str(folder / "results.json")]) == 2
    assert "results.json has test 2, but this config runs 1 test(s)" in capfd.readouterr().err
    for text, says in (
        ("", "is empty"),
        ("[1, 2]", "row 1 is 1, not a result row"),
        ('{"results": {"results": "x"}}', "must be the list of result rows"),
        ('{"evalId": 1}', "not a promptfoo results file"),
        ("not json\n", "line 1 is not JSON"),
    ):
        (folder / "bad.json").write_text(text, encoding="utf-8")
        assert main(["grade", str(config), "--outputs", str(folder / "bad.json")]) == 2
        assert says in capfd.readouterr().err, says
    assert main(["grade", str(config), "--outputs", str(folder / "nope.json")]) == 2
    assert "cannot read the results file" in capfd.readouterr().err


def test_jsonl_rows_are_graded_the_same(replay, capfd):
    """``-o results.jsonl`` (a large eval's) holds the same rows, one a line, and no columns list."""
    data = json.loads(replay("grid", "--format", "json")[1])
    rows = recorded("grid")["results"]["results"]
    (replay.dir / "results.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    argv = ["grade", str(replay.dir / "promptfooconfig.yaml"), "--outputs", str(replay.dir / "results.jsonl")]
    assert main([*argv, "--no-cache", "--retries", "0", "--format", "json"]) == 1
    lines = json.loads(capfd.readouterr().out)
    assert lines["columns"] == data["columns"] and lines["rows"] == data["rows"]
    assert [(c["test"], c["column"], c["result"], c["score"]) for c in lines["cells"]] == [
        (c["test"], c["column"], c["result"], c["score"]) for c in data["cells"]
    ]


def _grid_figures(data) -> dict[str, str]:
    """Every figure the grid page must show, computed here from the JSON."""
    wanted = {"kind": "grid", "grid_cells": str(len(data["cells"])), "grid_differences": str(data["differences"])}
    wanted |= _usage_figures(data["usage"], data["model"]) | banner_figures(data)
    for position, column in enumerate(data["columns"]):
        wanted |= {
            f"pass_rate:{position}": figure(column["pass_rate"]),
            f"passed:{position}": str(column["passed"]),
            f"total:{position}": str(column["cells"]),
            f"recorded_rate:{position}": figure(column["recorded_pass_rate"]),
            f"recorded_passed:{position}": str(column["recorded_passed"]),
        }
    for i, cell in enumerate(data["cells"]):
        wanted |= {
            f"cell_result:{i}": cell["result"],
            f"cell_score:{i}": score_text(cell["score"]),
            f"cell_recorded:{i}": cell["recorded"]["result"],
        }
        if cell["differs"]:
            wanted[f"cell_differs:{i}"] = "differs"
        # its drill-down: the test's section (one test: no summary of counts)
        wanted |= {k: v for k, v in _test_figures(cell["report"], f"c{i}:").items() if ":tests:" not in k}
    return wanted


PROBE = """<script>
window.addEventListener("load", function () {
  var visible = function () {
    return Array.prototype.filter.call(document.querySelectorAll("tr.grid-row"), function (r) {
      return r.offsetParent !== null;
    }).map(function (r) { return r.querySelector("th").textContent.trim().split(":")[0]; }).join(",");
  };
  var failures = document.getElementById("grid-failures"), differs = document.getElementById("grid-differences");
  var search = document.getElementById("grid-search"), body = document.body.dataset;
  body.all = visible();
  failures.click(); body.failures = visible(); failures.click();
  differs.click(); body.differs = visible(); differs.click();
  search.value = "oslo FAIL"; search.dispatchEvent(new Event("input")); body.found = visible();
  body.counter = document.getElementById("grid-shown").textContent;
  body.details = Array.prototype.filter.call(document.querySelectorAll("section.cell-detail"), function (s) {
    return s.offsetParent !== null;
  }).length;
});
</script></body>"""


@pytest.mark.skipif(not available(), reason="needs /usr/bin/chromium")
@pytest.mark.parametrize("judge", ["recorded", "harsh"])
def test_the_grid_page_in_chromium_shows_the_jsons_figures_and_filters(replay, judge):
    handler = None if judge == "recorded" else (lambda request: Reply.json({"pass": False, "score": 0, "reason": "no"}))
    page = replay.dir / "grid.html"
    code, out = replay("grid", "--format", "json", "--report", str(page), judge=handler)
    data = json.loads(out)
    assert code == 1
    html = page.read_text(encoding="utf-8")
    assert KEY not in html
    # docs/report-promptfoo-grid.png: refreshed with RUBRIC_REPORT_SCREENSHOTS=1 (before the probe's filtering)
    if os.environ.get("RUBRIC_REPORT_SCREENSHOTS") and judge == "harsh":
        load(page, screenshot=REPO / "docs" / "report-promptfoo-grid.png", width=1300, height=900)
    page.write_text(html.replace("</body>", PROBE), encoding="utf-8")
    loaded = load(page)
    assert loaded.console == [] and loaded.requests == []
    assert loaded.figures() == _grid_figures(data)
    body = dict(re.findall(r'data-(\w+)="([^"]*)"', re.search(r"<body([^>]*)>", loaded.dom).group(1)))
    tests = sorted({c["test"] for c in data["cells"]})
    assert body["all"] == ",".join(f"test {n}" for n in tests)
    failing = sorted({c["test"] for c in data["cells"] if c["result"] != "PASS"})
    assert body["failures"] == ",".join(f"test {n}" for n in failing)
    differing = sorted({c["test"] for c in data["cells"] if c["differs"]})
    assert body["differs"] == ",".join(f"test {n}" for n in differing)
    oslo = [r["test"] for r in data["rows"] if r["vars"].get("q") == "oslo"]
    assert body["found"] == ",".join(f"test {n}" for n in oslo)  # both oslo tests fail in some column
    assert body["counter"] == f"{len(oslo)} of {len(tests)} tests shown"
    assert int(body["details"]) == sum(c["test"] in oslo for c in data["cells"])  # their cells' drill-downs only
    for cell in data["cells"]:  # every cell links to its drill-down, which shows its output
        assert f'href="#cell-{data["cells"].index(cell)}"' in loaded.dom


def test_select_best_and_max_score_are_regraded_across_the_columns_as_promptfoo_does(replay, judge_server):
    """The compare recording: max-score sums every assertion (javascript, levenshtein, an assert-set's child; the
    set itself not), select-best's loser fails with score 0 and promptfoo's reason, a max-score threshold no
    output reaches fails both; each row's result, score and reason, and each comparison, are promptfoo's."""
    code, out = replay("compare", "--format", "json")
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA, cls=jsonschema.Draft202012Validator)
    rows = {(r["testIdx"] + 1, r["promptIdx"]): r for r in recorded("compare")["results"]["results"]}
    assert code == 1 and data["differences"] == 0 and len(data["cells"]) == 6
    for cell in data["cells"]:
        row = rows[(cell["test"], cell["column"])]
        grading = row["gradingResult"]
        assert (cell["passed"], cell["score"], cell["reason"]) == (
            row["success"],
            pytest.approx(row["score"]),
            grading["reason"],
        )
        selectors = ("select-best", "max-score")
        theirs = [c for c in grading["componentResults"] if c.get("assertion", {}).get("type") in selectors]
        ours = cell["comparisons"]
        assert [(c["type"], c["passed"], c["score"], c["reason"]) for c in ours] == [
            (c["assertion"]["type"], c["pass"], c["score"], c["reason"]) for c in theirs
        ]
        assert not any(c["differs"] for c in ours)
    # one select-best call per test that has one, beside one llm-rubric per row of test 1
    assert len(judge_server.completions) == 2 + 2


def test_a_row_that_loses_a_comparison_here_and_not_in_promptfoo_differs(replay):
    """Another judge picks the other output of test 2: both rows' results flip, and they are marked as differing."""

    def other(request):
        if "the most formal reply" in request.text:
            return Reply.text("0")
        if "the shortest reply" in request.text:
            return Reply.text("0")
        return Reply.json({"pass": True, "score": 0.6, "reason": "Good."})

    _, out = replay("compare", "--format", "json", judge=other)
    data = json.loads(out)
    cells = {(c["test"], c["column"]): c for c in data["cells"]}
    assert cells[(2, 0)]["result"] == "PASS" and cells[(2, 0)]["differs"] is True
    assert cells[(2, 1)]["result"] == "FAIL" and cells[(2, 1)]["differs"] is True
    assert cells[(2, 1)]["reason"] == "Output not selected: the most formal reply"
    assert [c["differs"] for c in cells[(2, 1)]["comparisons"]] == [True]
    assert data["differences"] == 2


def test_a_threshold_decided_row_reports_the_range_promptfoos_score_lies_in(replay):
    """is-xml is not run here: the test fails whatever it gives (at most 2/3 against 0.9); promptfoo ran it and
    scored 1/3, which lies in the range reported."""
    code, out = replay("decided", "--format", "json")
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA, cls=jsonschema.Draft202012Validator)
    [cell] = data["cells"]
    [row] = recorded("decided")["results"]["results"]
    low, high = cell["score_range"]
    assert cell["result"] == "FAIL" and cell["differs"] is False and cell["score"] is None and code == 1
    assert (low, high) == (pytest.approx(1 / 3), pytest.approx(2 / 3)) and low <= row["score"] <= high
    assert cell["report"]["tests"][0]["score_range"] == cell["score_range"]
