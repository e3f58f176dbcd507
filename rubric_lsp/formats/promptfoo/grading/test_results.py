"""A graded test's result as the JSON (``tests``) carries it, and the words every face shows for it.

A test ends one of four ways, said the same in the text output, the JSON (``result``), the HTML page,
JUnit and the editor: ``PASS`` / ``FAIL`` as promptfoo's aggregate decides it (``aggregate``); ``ERROR``
when it is undecided because a judge call (or a script) failed (re-running asks it again); ``INCOMPLETE`` when it rests
on an assertion not run here (``javascript``, ``python``, …; run promptfoo for it). A failed judgment is
counted as *unknown* by the aggregate (never a pass, never a fail): the test is decided only when the
other assertions decide it whatever it would have said.

An ``assert-set`` has a result of its own (its children's aggregate against its ``threshold``), joined to
the test's with the set's weight: it is an entry of the test's ``assertions`` with ``set`` (passed, score,
threshold, reason), so a report shows why a failed child did not fail the test, or why the test's reason
is the set's ("Aggregate score 0.00 < 0.5 threshold" is promptfoo's own reason for a failed set).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from rubric_lsp.document.nodes import to_plain
from rubric_lsp.engine.report import Verdict
from rubric_lsp.formats.promptfoo.grading.aggregate import Outcome
from rubric_lsp.formats.promptfoo.grading.assertions import assertion_weight
from rubric_lsp.formats.promptfoo.grading.prompts import js_number_text, render
from rubric_lsp.redaction import report_redactor

PASS, FAIL, ERROR, INCOMPLETE = "PASS", "FAIL", "ERROR", "INCOMPLETE"
NOT_RUN = "NOT_RUN"


def weight(assertion: Any) -> float:
    found = assertion_weight(assertion)
    return 1.0 if found is None else found


def metric(assertion: Any, test_vars: dict[str, Any]) -> str | None:
    """``renderMetricName``: the metric name rendered with the test vars."""
    name = to_plain(assertion.field("metric"))
    return render(name, test_vars) if isinstance(name, str) and name else None


def test_threshold(test: Any) -> Any:
    """``testCase.threshold ?? defaultTest.threshold``."""
    own = to_plain(test.threshold_node())
    if own is None and test.default is not None and test.default is not test:
        return to_plain(test.default.threshold_node())
    return own


def result_word(outcome: Outcome, verdicts: list[Verdict]) -> str:
    """PASS / FAIL as decided; undecided: ERROR when a judge call failed, else INCOMPLETE."""
    if outcome.passed is not None:
        return PASS if outcome.passed else FAIL
    return ERROR if any(v.failed for v in verdicts) else INCOMPLETE


def undecided_reason(word: str, verdicts: list[Verdict], default: str) -> str:
    """Why an undecided test is undecided, naming what it waits for."""
    if word == ERROR:
        failed = [v for v in verdicts if v.failed]
        scripts = [v for v in failed if (v.error or "").startswith("script:")]
        what = "a script" if len(scripts) == len(failed) else "a judge call" if not scripts else "a judgment"
        where = ", ".join(_where(v) for v in failed)
        return f"{what} failed ({where}); the other assertions do not decide the result"
    missing = ", ".join(_where(v) for v in verdicts if v.verdict == NOT_RUN)
    return f"the result rests on {missing}, not run here" if missing else default


def _where(verdict: Verdict) -> str:
    kind = verdict.name.split(": ", 1)[-1]
    return f"{kind} line {verdict.range['start']['line'] + 1}" if verdict.range else kind


def test_json(
    test: Any, outcome: Outcome, sets: dict[int, Outcome], record: dict[int, dict[str, Any]]
) -> dict[str, Any]:
    """Test ``test``'s result (``tests`` of the JSON) with what promptfoo's own results carry to explain it:
    its vars, the threshold applied, and each assertion that has a verdict (``assertions``; an assert-set
    with its own result, ``sets``). Their text is the config's and the response's, as a report may print
    it: keys masked (``redaction``)."""

    redact = report_redactor().report
    data: dict[str, Any] = {"test": test.number}
    description = test.info.get("description")
    if description is not None and isinstance(description.value, str):
        data["description"] = description.value
    verdicts = [test.verdicts[id(a)] for a in test.assertions if id(a) in test.verdicts]
    word = result_word(outcome, verdicts)
    reason = outcome.reason if outcome.passed is not None else undecided_reason(word, verdicts, outcome.reason)
    data.update(passed=outcome.passed, result=word, score=outcome.score, reason=reason)
    if outcome.score is None and outcome.bounds is not None:
        # The score rests on assertions not known here whose scores are bounded (0 or 1 each): the least and most
        # it can be; promptfoo, which runs them, reports one number in this range.
        data["score_range"] = list(outcome.bounds)
    named = outcome.named_scores()
    if named:
        data["named_scores"] = named
    if test.vars:
        data["vars"] = json_safe(test.vars, redact)
    threshold = test_threshold(test.info)
    if _number(threshold):  # the threshold the aggregate applies; JSON has no NaN or Infinity to write the others
        data["threshold"] = threshold
    own = {id(a) for a in test.info.own_assertions}
    entries = []
    for a in test.assertions:
        if a.type == "assert-set" and id(a) in sets:
            entry = _set_json(a, sets[id(a)], test.vars)
        elif id(a) in test.verdicts:
            entry = _assertion_json(a, test.verdicts[id(a)], test.vars, record.get(id(a), {}), redact)
        else:
            continue
        entries.append(entry | ({} if id(a) in own else {"from_default_test": True}))
    data["assertions"] = entries
    return data


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _set_json(assertion: Any, outcome: Outcome, test_vars: dict[str, Any]) -> dict[str, Any]:
    """An assert-set's own result: its children's aggregate against its threshold (``set``)."""
    own: dict[str, Any] = {"passed": outcome.passed, "score": outcome.score, "reason": outcome.reason}
    threshold = to_plain(assertion.field("threshold"))
    if _number(threshold):
        own["threshold"] = threshold
    data: dict[str, Any] = {"type": "assert-set", "weight": weight(assertion), "set": own}
    name = metric(assertion, test_vars)
    if name:
        data["metric"] = name
    return data


def _assertion_json(
    assertion: Any, verdict: Verdict, test_vars: dict[str, Any], judged: dict[str, Any], redact: Callable[[str], str]
) -> dict[str, Any]:
    """One assertion as written (type, value, the weight and metric the aggregate counts) and its verdict's index."""
    data: dict[str, Any] = {"verdict": verdict.index, "type": assertion.type, "weight": weight(assertion)}
    value = assertion.field("value")
    if value is not None:
        data["value"] = json_safe(to_plain(value), redact)
    if "rendered" in judged:
        data["rendered"] = redact(judged["rendered"])
    name = metric(assertion, test_vars)
    if name:
        data["metric"] = name
    if assertion.set_node is not None:
        data["in_assert_set"] = True
    if judged.get("sent"):
        data["sent"] = json_safe(judged["sent"], redact)
    return data


def json_safe(value: Any, redact: Callable[[str], str]) -> Any:
    """A plain value JSON can carry, its text through ``redact``: NaN and Infinity as JavaScript prints
    them, dates and the like as text."""
    if isinstance(value, dict):
        return {redact(str(k)): json_safe(v, redact) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v, redact) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return js_number_text(value)
    if isinstance(value, str):
        return redact(value)
    if value is None or isinstance(value, (int, float, bool)):
        return value
    return redact(str(value))
