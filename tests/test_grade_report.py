"""``rubric grade --report``, ``--format junit`` and ``--format csv``, for every request kind.

Graded through litellm's real HTTP path against tests/judge_server.py; each HTML report is
loaded in headless Chromium (tests/report_browser.py): no console message, no network
request, and the figures the page shows are the JSON report's. With RUBRIC_REPORT_SCREENSHOTS=1 the
screenshots are written to docs/report-*.png (the README shows them).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import statistics
import subprocess
import sys
from html import escape as html_escape
from pathlib import Path

import pytest

from rubric_lsp.cli import main
from rubric_lsp.reporters.grade.html import figure
from tests.configs import SELECT_BEST
from tests.conftest import REPO, SAMPLES, use_judge
from tests.judge_server import Reply
from tests.report_browser import available, load

KEY = "sk-test-report-0123456789abcdefXYZ"
RUBRIC = str(SAMPLES / "autorubric" / "refund-reply.rubric.yaml")
DATASET = str(SAMPLES / "autorubric" / "refund-replies.dataset.json")
PROMPTFOO = str(SAMPLES / "promptfoo" / "promptfooconfig.yaml")


def judge(request) -> Reply:
    """Each format's prompt answered in its shape; binary criteria about the refund window are UNMET, and
    every reason quotes the API key back (the report must not show it)."""
    text = request.text
    if "<Candidate" in text or "Pick one:" in text:
        return Reply.json({"best": 1, "reason": "politer"})
    if "<options>" in text:
        return Reply.echo({"selected_option": 1, "explanation": "fits; key {token}"})(request)
    if "criterion_status" in text:
        status = "UNMET" if "30 days" in text or "window" in text else "MET"
        return Reply.echo({"criterion_status": status, "explanation": "judged with key {token}"})(request)
    return Reply.json({"pass": True, "score": 1, "reason": "ok"})


@pytest.fixture
def grade(judge_server, tmp_path, monkeypatch, capfd):
    use_judge(monkeypatch, judge_server, KEY, tmp_path / "cache")
    judge_server.handler = judge
    (tmp_path / "answer.txt").write_text("Your refund is on its way.")
    (tmp_path / "other.txt").write_text("Refund sent.")
    (tmp_path / "select-best.yaml").write_text(SELECT_BEST)

    def run(output_format: str, *argv: str, report: str | None = None) -> str:
        extra = ["--report", str(tmp_path / report)] if report else []
        code = main(["grade", *argv, "--format", output_format, "--no-cache", "--retries", "0", *extra])
        out, err = capfd.readouterr()
        assert code in (0, 1, 2), err
        run.code = code  # type: ignore[attr-defined]
        return out

    run.dir = tmp_path  # type: ignore[attr-defined]
    return run


def kinds(directory) -> dict[str, list[str]]:
    answer, other = str(directory / "answer.txt"), str(directory / "other.txt")
    return {
        "response": [RUBRIC, "--response", answer],
        "examples": [RUBRIC, "--examples"],
        "promptfoo-tests": [PROMPTFOO, "--response", answer],
        "outputs": [PROMPTFOO, "--test", "3", "--response", answer, "--response", other],
        "select-best": [str(directory / "select-best.yaml"), "--response", answer, "--response", other],
        "dataset": [DATASET],
        "rescore": [RUBRIC, "--verdicts", str(directory / "verdicts.json")],
    }


@pytest.fixture
def junit_schema():
    xmlschema = pytest.importorskip("xmlschema")
    return xmlschema.XMLSchema(str(REPO / "tests" / "data" / "junit-10.xsd"))


KINDS = ["response", "examples", "promptfoo-tests", "outputs", "select-best", "dataset", "rescore"]


def _verdicts(directory) -> None:
    (directory / "verdicts.json").write_text(json.dumps(["MET", "MET", "UNMET", "Rude", "No next step", "UNMET"]))


@pytest.mark.parametrize("kind", KINDS)
def test_junit_validates_and_carries_each_failure_with_its_reason(grade, junit_schema, kind):
    """One testcase per case (a response, a test, an example, a dataset item): its failures are the failed cases, so
    the file never says FAIL where the exit code says passed, nor passed where it says failed."""
    _verdicts(grade.dir)
    argv = kinds(grade.dir)[kind]
    out = grade("junit", *argv)
    code = grade.code
    junit_schema.validate(out)
    assert KEY not in out
    data = json.loads(grade("json", *argv))
    root = junit_schema.to_dict(out)
    cases = [case for suite in root["testsuite"] for case in suite["testcase"]]
    assert cases
    failures = [c for c in cases if "failure" in c]
    assert int(root["@failures"]) == len(failures)
    assert (code == 0) == (not failures and not any("skipped" in c for c in cases)), (code, out)
    if code == 1:
        assert failures
    text = out.replace("&quot;", '"')
    if kind == "response":
        # the response is the case; the UNMET refund window is in it with the judge's (redacted) reason
        assert len(cases) == 1
        unmet = [v for v in data["verdicts"] if v["verdict"] == "UNMET" and v.get("weight", 1) > 0]
        assert unmet and all(f"{v['name']}: UNMET (fail)" in text for v in unmet)
        assert "judged with key ***" in text
    if kind == "promptfoo-tests":
        assert [c["@name"].split(":")[0] for c in cases] == [f"test {t['test']}" for t in data["tests"]]
        assert len(failures) == sum(t["result"] in ("FAIL", "ERROR") for t in data["tests"])
    if kind == "dataset":
        assert len(cases) == len(data["items"])  # one testcase per item, each listing its labels
        assert not failures  # a disagreement with a label is a measurement (exit 0), not a failure


def test_a_judge_failure_is_a_junit_error_never_a_pass(grade, judge_server, junit_schema):
    judge_server.handler = lambda request: Reply.server_error()
    out = grade("junit", RUBRIC, "--response", str(grade.dir / "answer.txt"))
    junit_schema.validate(out)
    cases = [case for suite in junit_schema.to_dict(out)["testsuite"] for case in suite["testcase"]]
    failures = [case.get("failure") for case in cases]
    failures = [f[0] if isinstance(f, list) else f for f in failures]
    assert cases and all(f is not None and f["@type"] == "ERROR" for f in failures)


@pytest.mark.parametrize("kind", ["response", "outputs", "dataset"])
def test_csv_reads_back_with_the_csv_module(grade, kind):
    argv = kinds(grade.dir)[kind]
    rows = list(csv.DictReader(io.StringIO(grade("csv", *argv))))
    data = json.loads(grade("json", *argv))
    assert rows
    if kind == "response":
        assert [r["name"] for r in rows] == [v["name"] for v in data["verdicts"]]
        assert [r["verdict"] for r in rows] == [v["verdict"] for v in data["verdicts"]]
        assert all(KEY not in r["reason"] for r in rows)
    if kind == "dataset":
        truth = [label for item in data["items"] for label in item["ground_truth"]]
        assert [r["expected"] for r in rows] == truth
        assert {r["outcome"] for r in rows} <= {"pass", "fail", "error", "skipped"}


# -- the HTML report -----------------------------------------------------------------------------------

needs_chromium = pytest.mark.skipif(not available(), reason="needs /usr/bin/chromium")


def _expected_figures(kind: str, data) -> dict[str, str]:
    """What the page must show, computed here from the JSON report."""
    if kind in ("response", "promptfoo-tests"):
        wanted = {"score": figure(data["score"]), "raw_score": figure(data["raw_score"])}
        wanted |= {f"verdict:{i}": v["verdict"] for i, v in enumerate(data["verdicts"])}
        wanted |= {"calls": str(data["usage"]["calls"]), "total_tokens": str(data["usage"]["total_tokens"])}
        wanted |= {"fresh": str(data["usage"]["calls"]), "cached": str(data["usage"]["cached"])}
        return wanted
    if kind == "examples":
        return {f"example_score:{i}": figure(e["report"]["score"]) for i, e in enumerate(data)}
    if kind in ("outputs", "select-best"):
        wanted = {f"output_score:{i}": figure(o["score"]) for i, o in enumerate(data["outputs"])}
        for method in ("max_score", "select_best"):
            for s in data.get(method, []):
                if s.get("winner") is not None:
                    wanted[f"winner:{method.replace('_', '-')}:{s['test']}"] = ""
        return wanted
    if kind == "dataset":
        wanted = {}
        for c in data["agreement"]:
            i = c["index"]
            kappa = c.get("quadratic_weighted_kappa", c["cohen_kappa"])
            wanted |= {f"accuracy:{i}": figure(c["accuracy"]), f"kappa:{i}": figure(kappa)}
            wanted |= {f"compared:{i}": str(c["compared"]), f"failed:{i}": str(c["failed"])}
            a = c["abstained"]
            wanted[f"abstained:{i}"] = f"{a['both']} / {a['judge_only']} / {a['truth_only']}"
            for r, row in enumerate(c["confusion"]["matrix"]):
                wanted |= {f"confusion:{i}:{r}:{j}": str(n) for j, n in enumerate(row)}
        pairs = [(i["human_score"], i["score"]) for i in data["items"] if i["human_score"] is not None]
        try:
            wanted["correlation"] = figure(statistics.correlation(*zip(*pairs, strict=True)))
        except statistics.StatisticsError:
            wanted["correlation"] = "n/a"
        wanted["points"] = str(len(pairs))
        return wanted
    return {"score": figure(data["score"]), "raw_score": figure(data["raw_score"])}


@needs_chromium
@pytest.mark.parametrize("kind", KINDS)
def test_the_report_opens_in_chromium_with_the_json_figures(grade, kind):
    _verdicts(grade.dir)
    argv = kinds(grade.dir)[kind]
    grade("text", *argv, report="report.html")
    data = json.loads(grade("json", *argv))
    page = grade.dir / "report.html"
    html = page.read_text(encoding="utf-8")
    assert KEY not in html and KEY[:12] not in html
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//|url\(\s*["']?(?:https?:)?//|@import""", html)
    # The README's screenshots: refreshed with RUBRIC_REPORT_SCREENSHOTS=1, else taken to a scratch file.
    shots = REPO / "docs" if os.environ.get("RUBRIC_REPORT_SCREENSHOTS") else grade.dir
    loaded = load(page, screenshot=shots / f"report-{kind}.png")
    assert (shots / f"report-{kind}.png").read_bytes().startswith(b"\x89PNG")
    assert loaded.console == []
    assert loaded.requests == []
    shown = loaded.figures()
    if kind != "rescore":  # the page's script ran: it filled the criterion filter from the page
        assert loaded.dom.count("<option value=") > 1
    for name, value in _expected_figures(kind, data).items():
        assert shown.get(name) == value, (name, shown.get(name), value)
    if kind == "dataset":
        assert "<svg" in loaded.dom and "confusion-" in loaded.dom
        assert shown["disagreements"] != "0"  # the scripted judge disagrees with some labels


def test_an_unwritable_report_is_an_error_not_a_crash(grade, capfd):
    code = main(["grade", RUBRIC, "--verdicts", "/nonexistent/v.json", "--report", "/nonexistent/dir/r.html"])
    assert code == 2


@pytest.mark.parametrize(
    ("make", "outcome", "row"),
    [
        (lambda: binary("MET", 2.0), "pass", "pass"),
        (lambda: binary("UNMET", 2.0), "fail", "fail"),
        (lambda: binary("MET", -3.0), "loss", "fail"),  # a penalty that applies is a loss
        (lambda: binary("UNMET", -3.0), "pass", "pass"),  # a penalty avoided
        (lambda: binary("CANNOT_ASSESS", 1.0), "abstain", "skipped"),
        (lambda: option(0.0, 1.0), "fail", "fail"),  # an option worth nothing earned nothing
        (lambda: option(None, 1.0), "abstain", "skipped"),  # an NA option
        (lambda: _subject().failure("r", "infrastructure: down", "CANNOT_ASSESS"), "error", "error"),
        (lambda: _subject().judged("PASS", "r", passed=True), "pass", "pass"),
        (lambda: _subject().judged("FAIL", "r", passed=False), "fail", "fail"),
        (lambda: _subject().failure("r", "parse: no JSON", "FAIL", passed=True), "error", "error"),  # never a pass
        (lambda: _subject().skipped("needs a query"), "not-run", "skipped"),
    ],
)
def test_each_verdict_reads_as_its_format_says_and_rows_follow(make, outcome, row):
    from rubric_lsp.reporters.grade.rows import row as row_of

    unit = make().unit("response", ())
    assert unit.outcome.value == outcome
    assert row_of(unit).outcome == row


def _subject(weight: float | None = None):
    from rubric_lsp.engine.report import Subject

    return Subject("c", 0, None, weight)


def binary(verdict: str, weight: float):
    from rubric_lsp.formats.autorubric.grading.reading import CREDIT, binary_reading

    return _subject(weight).judged(verdict, "", score=CREDIT.get(verdict), outcome=binary_reading(verdict, weight))


def option(value: float | None, weight: float):
    from rubric_lsp.formats.autorubric.grading.reading import option_reading

    return _subject(weight).judged("Label", "", score=value, outcome=option_reading(value, weight))


def test_a_verdict_without_an_outcome_is_refused():
    with pytest.raises(ValueError, match="no outcome"):
        _subject().judged("MAYBE", "")


def test_shares_of_a_response_add_up_to_its_score():
    from rubric_lsp.engine.report import GradeReport
    from rubric_lsp.reporters.grade.html import _report_view

    report = GradeReport(
        "x", [binary("MET", 6.0), binary("CANNOT_ASSESS", 4.0), binary("MET", 4.0), binary("MET", -2.0)]
    )
    report.score, report.raw_score = 0.8, 8.0
    # skip: b leaves the denominator, 6 + 4 − 2 of 10
    view = _report_view({**report.to_json(), "usage": {}}, report.units())
    shares = [row["share"] for row in view["rows"]]
    assert shares[1] is None and shares[3] == pytest.approx(-0.2)
    assert sum(s for s in shares if s is not None) == pytest.approx(0.8)


def test_without_jinja2_the_report_is_refused_in_one_line(tmp_path):
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text('import sys\nsys.modules["jinja2"] = None\n', encoding="utf-8")
    verdicts = tmp_path / "v.json"
    verdicts.write_text(json.dumps(["MET", "MET", "UNMET", "Rude", "No next step", "UNMET"]))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hide), str(REPO)])}
    argv = [sys.executable, "-m", "rubric_lsp", "grade", RUBRIC, "--verdicts", str(verdicts)]
    done = subprocess.run([*argv, "--report", str(tmp_path / "r.html")], capture_output=True, text=True, env=env)
    assert done.returncode == 2 and not (tmp_path / "r.html").exists()
    (line,) = done.stderr.splitlines()
    assert line.startswith("rubric grade: the HTML report needs jinja2, not installed: run ")
    assert "-m pip install 'jinja2>=" in line  # a command that works however rubric-lsp was installed


def test_the_confusion_matrix_shows_the_options_the_judge_never_picks(grade):
    data = json.loads(grade("json", DATASET))
    politeness = next(c for c in data["agreement"] if c["kind"] == "ordinal")
    confusion = politeness["confusion"]
    assert len(confusion["labels"]) > 2  # the whole scale, not only the labels that occurred
    never = [j for j in range(len(confusion["labels"])) if not any(row[j] for row in confusion["matrix"])]
    assert never, confusion  # the scripted judge always picks the same option
    assert sum(map(sum, confusion["matrix"])) == politeness["compared"]


@needs_chromium
def test_tables_sort_on_a_click_and_the_filter_hides_other_criteria(grade):
    grade("text", DATASET, report="report.html")
    page = grade.dir / "report.html"
    # Drive the page as a reader would: click the accuracy header twice, then pick one criterion.
    probe = """<script>
    window.addEventListener("load", function () {
      var table = document.querySelector("table.sortable"), header = table.querySelectorAll("th")[2];
      var order = function () {
        return Array.prototype.map.call(table.tBodies[0].rows, function (r) { return r.cells[2].dataset.sort; }).join(",");
      };
      header.click(); document.body.dataset.ascending = order();
      header.click(); document.body.dataset.descending = order();
      var select = document.getElementById("criterion-filter");
      select.value = select.options[1].value; select.dispatchEvent(new Event("change"));
      document.body.dataset.shown = String(document.querySelectorAll("tr[data-criterion]:not(.hidden)").length);
      document.body.dataset.wanted = String(document.querySelectorAll('tr[data-criterion="' + select.value + '"]').length);
    });
    </script></body>"""
    page.write_text(page.read_text(encoding="utf-8").replace("</body>", probe), encoding="utf-8")
    loaded = load(page)
    assert loaded.console == []
    body = re.search(r"<body([^>]*)>", loaded.dom).group(1)
    attrs = dict(re.findall(r'data-(\w+)="([^"]*)"', body))
    numbers = lambda text: [float(x) if x else float("inf") for x in text.split(",")]  # noqa: E731
    ascending, descending = numbers(attrs["ascending"]), numbers(attrs["descending"])
    finite = [x for x in ascending if x != float("inf")]
    assert finite == sorted(finite) and len(set(finite)) > 1
    assert [x for x in descending if x != float("inf")] == sorted(finite, reverse=True)
    assert int(attrs["shown"]) == int(attrs["wanted"]) > 0


def test_csv_neutralises_formulas_from_rubrics_and_judges(judge_server, tmp_path, monkeypatch, capfd):
    """OWASP's CSV injection: a criterion named `=1+1` or a judge reply `=HYPERLINK(…)` would run as a
    formula in a spreadsheet; each text cell that starts like one is prefixed with a quote."""
    use_judge(monkeypatch, judge_server, KEY, tmp_path / "cache")
    judge_server.default = Reply.json({"criterion_status": "MET", "explanation": '=HYPERLINK("http://x.test","y")'})
    rubric = tmp_path / "r.rubric.yaml"
    rubric.write_text(
        "rubric:\n  - name: '=1+1'\n    requirement: '@SUM(A1)'\n    weight: 2\n"
        "  - name: '-2+3'\n    requirement: Is polite\n    weight: -1\n",
        encoding="utf-8",
    )
    (tmp_path / "answer.txt").write_text("Hello", encoding="utf-8")
    code = main(["grade", str(rubric), "--response", str(tmp_path / "answer.txt"), "--format", "csv", "--no-cache"])
    out, err = capfd.readouterr()
    assert code in (0, 1), err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["name"] for r in rows] == ["'=1+1", "'-2+3"]
    assert all(r["reason"].startswith("'=HYPERLINK(") for r in rows)
    assert any(r["weight"].startswith("-") for r in rows)  # numbers stay numbers
    assert not [cell for r in rows for cell in r.values() if cell[:1] in ("=", "+", "@") and cell != r["weight"]]


def test_a_fully_cached_grading_reports_no_negative_count(judge_server, tmp_path, monkeypatch, capfd):
    """Judge calls made and verdicts from the cache are counted apart: a second, fully cached grading
    read "fresh / cached −6 / 6". Every figure on the page is a count the result holds."""
    use_judge(monkeypatch, judge_server, KEY, tmp_path / "cache")
    judge_server.handler = judge
    (tmp_path / "answer.txt").write_text("Your refund is on its way.")
    argv = ["grade", RUBRIC, "--response", str(tmp_path / "answer.txt")]
    for _ in range(2):
        assert main([*argv, "--report", str(tmp_path / "r.html"), "--format", "json"]) in (0, 1)
        data = json.loads(capfd.readouterr().out)
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    figures = dict(re.findall(r'data-figure="([^"]+)">([^<]*)<', html))
    assert data["usage"]["calls"] == 0 and data["usage"]["cached"] > 0
    assert (figures["fresh"], figures["cached"]) == ("0", str(data["usage"]["cached"]))
    assert not [v for v in figures.values() if v.startswith(("-", "−"))]


def test_dataset_disagreements_show_the_submission_and_small_samples_say_so(grade):
    """A disagreement shows what was judged; a figure resting on fewer than FEW_ITEMS items says so."""
    from rubric_lsp.reporters.grade.html import FEW_ITEMS

    grade("text", DATASET, report="d.html")
    data = json.loads(grade("json", DATASET))
    html = (grade.dir / "d.html").read_text(encoding="utf-8")
    dataset = json.loads(Path(DATASET).read_text(encoding="utf-8"))
    disagreeing = {i for c in data["agreement"] for i in c.get("disagreeing") or []}
    assert disagreeing, "the scripted judge disagrees with some labels"
    for index in disagreeing:
        submission = dataset["items"][index]["submission"]
        assert html_escape(submission) in html, index
    points = sum(1 for i in data["items"] if i["human_score"] is not None)
    assert (points < FEW_ITEMS) == ('data-figure="few-points"' in html)
    for c in data["agreement"]:
        assert (c["compared"] < FEW_ITEMS) == (f'data-figure="few:{c["index"]}"' in html)


def test_a_response_without_a_pass_mark_shows_no_pass_or_fail(judge_server, tmp_path, monkeypatch, capfd):
    """An autorubric response has no pass/fail unless a pass mark is given: a perfect score once showed a red
    FAIL badge (the template read a missing `passed` as present). A badge shows exactly when the JSON has one."""
    use_judge(monkeypatch, judge_server, KEY, tmp_path / "cache")
    judge_server.handler = lambda request: (
        Reply.json({"selected_option": 1, "explanation": "fits"})
        if "<options>" in request.text
        else Reply.json({"criterion_status": "MET", "explanation": "ok"})
    )
    (tmp_path / "answer.txt").write_text("Your refund is on its way.")
    for rubric in (RUBRIC, PROMPTFOO):
        report = tmp_path / "r.html"
        code = main(
            ["grade", rubric, "--response", str(tmp_path / "answer.txt"), "--report", str(report), "--format", "json"]
        )
        out, err = capfd.readouterr()
        data = json.loads(out)
        html = report.read_text(encoding="utf-8")
        shown = re.findall(r'data-figure="passed">(PASS|FAIL)<', html)
        expected = [] if data.get("passed") is None else ["PASS" if data["passed"] else "FAIL"]
        assert shown == expected, (rubric, code, data.get("passed"), shown, err)
        if rubric == RUBRIC:
            assert "passed" not in data  # no pass mark: no pass/fail at all
