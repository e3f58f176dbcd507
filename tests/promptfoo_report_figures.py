"""What a promptfoo grading's HTML page must show, computed from its ``--format json`` result.

Shared by the report tests of one response (tests/test_promptfoo_report.py) and of a results file's
grid (tests/test_promptfoo_results_grid.py): a test module never imports another.
"""

from __future__ import annotations

from rubric_lsp.reporters.grade.html import figure, score_text


def _label(test, verdicts) -> str:
    """How the test ended, from its verdicts; the JSON's own word (``result``) must say the same."""
    assert test["result"] == _derived(test, verdicts)
    return test["result"]


def _derived(test, verdicts) -> str:
    if test["passed"] is not None:
        return "PASS" if test["passed"] else "FAIL"
    errored = any(verdicts[a["verdict"]]["verdict"] == "ERROR" for a in test["assertions"] if "verdict" in a)
    return "ERROR" if errored else "INCOMPLETE"


def _usage_figures(usage, model) -> dict[str, str]:
    return {
        "model": model,
        "calls": str(usage["calls"]),
        "fresh": str(usage["calls"]),
        "cached": str(usage["cached"]),
        "total_tokens": str(usage["total_tokens"]),
        "cost_usd": f"${usage['cost_usd']:.4f}",
    }


def expected_figures(data) -> dict[str, str]:
    """Every figure a response's page must show, each computed here from the JSON result."""
    wanted = {
        "kind": "response",
        "score": figure(data["score"]),
        "raw_score": figure(data["raw_score"]),
        "passed": {True: "PASS", False: "FAIL"}.get(data["passed"], "INCOMPLETE"),
    }
    return wanted | _usage_figures(data["usage"], data["model"]) | _test_figures(data, "") | banner_figures(data)


def banner_figures(data) -> dict[str, str]:
    """An incomplete grading's banner: INCOMPLETE, why, and every failed judgment's error, in order."""
    if "incomplete" not in data:
        return {}
    wanted = {"incomplete": "INCOMPLETE", "incomplete_reason": data["incomplete"]}
    if "verdicts" in data:
        reports = [data]
    elif "outputs" in data:
        reports = data["outputs"]
    else:
        reports = [c["report"] for c in data.get("cells", []) if "report" in c]
    errors = [v["error"] for r in reports for v in r["verdicts"] if "error" in v]
    errors += [s["error"] for key in ("max_score", "select_best") for s in data.get(key, []) if "error" in s]
    return wanted | {f"failed_judgment:{i}": error for i, error in enumerate(errors)}


def _rate_figures(rates) -> dict[str, str]:
    """The pass-rate table's figures: each model-graded assertion's rate over the outputs (no record here,
    so nothing corrected)."""
    wanted = {}
    for rate in rates:
        unit = rate["unit"]
        wanted[f"raw-rate:{unit}"] = figure(rate["value"])
        wanted[f"corrected-rate:{unit}"] = figure(rate.get("corrected"))
        interval = rate.get("corrected_interval")
        wanted[f"corrected-interval:{unit}"] = (
            "n/a" if not interval else f"{figure(interval[0])} – {figure(interval[1])}"
        )
    return wanted


def _test_figures(report, p: str) -> dict[str, str]:
    """The figures of ``report``'s tests' sections (``p``: the page's prefix for them)."""
    labels = [_label(t, report["verdicts"]) for t in report["tests"]]
    wanted = {f"{p}tests:{label}": str(labels.count(label)) for label in ("PASS", "FAIL", "ERROR", "INCOMPLETE")}
    wanted[f"{p}tests:total"] = str(len(report["tests"]))
    for test, label in zip(report["tests"], labels):
        n = test["test"]
        wanted |= {
            f"{p}test:{n}": str(n),
            f"{p}test_result:{n}": label,
            f"{p}test_score:{n}": score_text(test["score"]),
        }
        if "threshold" in test:
            wanted[f"{p}test_threshold:{n}"] = figure(test["threshold"])
        wanted |= {f"{p}named:{n}:{name}": figure(v) for name, v in (test.get("named_scores") or {}).items()}
        wanted |= _assertion_figures(report, test, p)
    return wanted


def _assertion_figures(report, test, p: str) -> dict[str, str]:
    """The figures of one test's assertions: each verdict's, each assert-set's own result, each recorded result."""
    n, wanted = test["test"], {}
    own = [entry["set"] if "set" in entry else report["verdicts"][entry["verdict"]] for entry in test["assertions"]]
    scored = any(o.get("score") is not None for o in own)
    for position, (entry, verdict) in enumerate(zip(test["assertions"], own)):
        key = f"set:{position}" if "set" in entry else str(entry["verdict"])
        suffix = f":{n}" if "set" in entry else ""
        if "set" in entry:
            word = {True: "PASS", False: "FAIL"}.get(verdict["passed"], "INCOMPLETE")
            if "threshold" in verdict:
                wanted[f"{p}set_threshold:{n}:{position}"] = figure(verdict["threshold"])
        else:
            word = "not run" if verdict["verdict"] == "NOT_RUN" else verdict["verdict"]
        wanted[f"{p}verdict:{key}{suffix}"] = word
        wanted[f"{p}weight:{key}{suffix}"] = figure(entry["weight"])
        if scored:
            wanted[f"{p}assertion_score:{key}{suffix}"] = score_text(verdict.get("score"))
        recorded = entry.get("recorded")
        if recorded is not None:
            wanted[f"{p}recorded:{key}{suffix}"] = {True: "PASS", False: "FAIL"}.get(recorded["passed"], "—")
            if recorded["differs"]:
                wanted[f"{p}differs:{key}{suffix}"] = "differs"
    return wanted
