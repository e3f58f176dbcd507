"""``rubric grade --report report.html``: one self-contained HTML page for any grading result.

Built from ``result.to_json()`` (the shapes of schemas/rubric-grade-output.schema.json), so
every figure in the page is the JSON report's figure, and from the result's units
(``result.Result``): the format decided each unit's outcome, the page only colours it. jinja2 lays out the page
(templates/report.html.j2, autoescaped); pygal draws the charts as inline SVG with its
tooltip script left out, and the page's small sort/filter script is inlined: the file makes
no network request. Every string of the result passes through the report redactor first:
no API key reaches the page.
"""

from __future__ import annotations

import datetime
import statistics
from collections.abc import Callable
from enum import Enum
from typing import Any

from rubric_lsp.calibration.card import card_rows
from rubric_lsp.engine.result import Figures, Outcome, Unit, figures_of, grid_of
from rubric_lsp.redaction import report_redactor
from rubric_lsp.reporters.grade.html_grid import grid_view
from rubric_lsp.reporters.grade.html_tests import OUTCOME_CLASS, tests_view

# The optional fields of a verdict (schemas/rubric-grade-output.schema.json), so the template can test them.
_VERDICT_DEFAULTS = {
    "score": None,
    "weight": None,
    "error": None,
    "feedback": None,
    "cached": False,
    "ambiguous": False,
}


def figure(value: Any, digits: int = 3) -> str:
    """How the page prints a number (tests compare the page with the JSON through this)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return "n/a"  # None, or a field the result does not have


def score_text(value: Any) -> str:
    """A test's or an assertion's score: "not known" where the result rests on what is not known here."""
    return "not known" if value is None else figure(value)


def render(
    request: Any,
    result: Any,
    *,
    elapsed: float | None = None,
    card: dict[str, Any] | None = None,
    pass_rates: list[dict[str, Any]] | None = None,
    smells: dict[int, str] | None = None,
) -> str:
    """The page. ``card``: the judge card (``calibration.card``), shown as its label/value rows;
    ``pass_rates``: each unit's pass rate raw and corrected, for a grading of many items; ``smells``: a dataset's
    criteria's smells by their position in its agreement list, shown beside their figures."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    redact = report_redactor().report
    data = _redacted(result.to_json(), redact)
    units = result.units()  # their outcomes and figures; any text shown from them is redacted where it is used
    kind = result.kind
    env = Environment(
        loader=PackageLoader("rubric_lsp.reporters.grade", "templates"), autoescape=select_autoescape(["j2"])
    )
    env.filters["fig"] = figure
    env.filters["score_text"] = score_text
    env.filters["outcome_class"] = OUTCOME_CLASS.get
    context: dict[str, Any] = {
        "kind": kind,
        "path": redact(getattr(request, "path", None) or "-"),
        "generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "elapsed": elapsed,
        # What was graded (each output's text, shown collapsed): the request's, not the result's.
        "responses": [redact(r) for r in getattr(request, "responses", ()) if isinstance(r, str)],
        "card_rows": [] if card is None else [(redact(k), redact(v)) for k, v in card_rows(card)],
        "pass_rates": _redacted(pass_rates or [], redact),
        "smells": smells or {},
        # A grading that exits 2 says so first, with every failed judgment and why (never a bare score).
        "incomplete": redact(incomplete) if (incomplete := getattr(result, "incomplete", None)) else None,
        "failed_judgments": [
            (redact(u.group), redact(u.title), redact(u.error or u.reason)) for u in units if u.outcome is Outcome.ERROR
        ],
    }
    if kind == "dataset":  # the figures it measured are the format's, headed in its words
        context.update(_dataset(data, units, figures_of(result)))
    elif kind == "grid" and (grid := grid_of(result)) is not None:
        context.update(_redacted(grid_view(data, units, grid, _VERDICT_DEFAULTS), redact))
        context.update(usage=_usage(data["usage"]), model=data.get("model"), notes=data.get("notes", []))
    else:
        context.update(_SECTIONS[kind](data, units))
    for selection in context.get("selections") or []:
        selection["method"] = redact(selection["method"])
    for found in context.get("disagreements") or []:
        found.update({key: redact(found[key]) for key in ("criterion", "human", "judge", "reason")})
    if context.get("disagreements"):
        _add_submissions(context["disagreements"], getattr(request, "text", None), redact)
    return env.get_template("report.html.j2").render(**context)


# Below this many items a figure (Pearson r, the format's agreement figure) is shown with a note that it means little.
FEW_ITEMS = 10


def _add_submissions(disagreements: list[dict[str, Any]], text: Any, redact: Callable[[str], str]) -> None:
    """Each disagreement gets its item's submission (what was judged), read from the dataset's text."""
    import json

    try:
        items = json.loads(text).get("items") if isinstance(text, str) else None
    except (ValueError, AttributeError):
        return
    if not isinstance(items, list):
        return
    for found in disagreements:
        index = found["item"].get("index")
        item = items[index] if isinstance(index, int) and 0 <= index < len(items) else None
        submission = item.get("submission") if isinstance(item, dict) else None
        if isinstance(submission, str):
            found["submission"] = redact(submission)


def _verdict_units(units: list[Unit], prefix: tuple[Any, ...]) -> list[Unit]:
    """The units of the report at ``prefix`` in the JSON: its verdicts, in order."""
    at = len(prefix)
    return [u for u in units if u.path[:at] == prefix and u.path[at : at + 1] == ("verdicts",)]


def _at(data: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        data = data[key]
    return data


def _redacted(value: Any, redact: Callable[[str], str]) -> Any:
    if isinstance(value, Enum):  # an outcome: the page's colours, no text of the result's
        return value
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_redacted(v, redact) for v in value)
    if isinstance(value, dict):
        return {k: _redacted(v, redact) for k, v in value.items()}
    return value


# -- a graded response -----------------------------------------------------------------------


def _response(data: dict[str, Any], units: list[Unit]) -> dict[str, Any]:
    view = _report_view(data, _verdict_units(units, ()))
    return {"report": view, "usage": _usage(data["usage"]), "model": data.get("model")}


def _report_view(report: dict[str, Any], units: list[Unit]) -> dict[str, Any]:
    """A report's verdicts with each one's share of the score: what it added, or took away as a penalty."""
    positive = sum(v["weight"] for v in report["verdicts"] if (v.get("weight") or 0) > 0)
    score, raw = report.get("score"), report.get("raw_score")
    if isinstance(score, float) and isinstance(raw, (int, float)) and score > 0 and raw != score:
        # What the score was divided by (abstentions and N/A options left out): shares then add up to it.
        positive = raw / score
    # Numbered tests: each test's score is its own weighted mean and the report's is the mean
    # of the tests', so a verdict's share of it is no figure the result has; the tests' sections say it.
    tests = tests_view(report, _VERDICT_DEFAULTS, units)
    rows = [
        {**_VERDICT_DEFAULTS, **v, "outcome": unit.outcome, "share": _share(unit, positive) if tests is None else None}
        for v, unit in zip(report["verdicts"], units, strict=True)
    ]
    chart = _share_chart(rows) if any(r["share"] is not None for r in rows) else None
    columns = {"weight": any(r["weight"] is not None for r in rows), "share": any(r["share"] is not None for r in rows)}
    return {**report, "rows": rows, "chart": chart, "tests_view": tests, "columns": columns}


def _share(unit: Unit, positive: float) -> float | None:
    """Share of the best possible score this unit earned (negative: a penalty that applied)."""
    if unit.weight is None or not positive or unit.credit is None:
        return None
    return unit.weight * float(unit.credit) / positive


def _usage(usage: dict[str, Any]) -> dict[str, Any]:
    # `calls` counts the judge calls made; verdicts answered from the cache are `cached`, apart.
    return {**usage, "fresh": usage["calls"]}


def _share_chart(rows: list[dict[str, Any]]) -> str:
    import pygal

    chart = _chart(pygal.HorizontalBar, title="Share of the score, per criterion (losses below 0)")
    chart.x_labels = [r["name"][:60] for r in rows]
    chart.add("share", [r["share"] if r["share"] is not None else None for r in rows])
    return _svg(chart)


# -- several outputs, examples ---------------------------------------------------------------


def _outputs(data: dict[str, Any], units: list[Unit]) -> dict[str, Any]:
    outputs = [_report_view(o, _verdict_units(units, ("outputs", i))) for i, o in enumerate(data["outputs"])]
    keyed = [_keyed(o["rows"]) for o in outputs]
    keys: list[tuple[str, int]] = []
    for rows in keyed:
        keys += [key for key in rows if key not in keys]
    grid = [{"name": key[0], "cells": [rows.get(key) for rows in keyed]} for key in keys]
    # A unit outside every output's report compares the outputs (its JSON entry holds the test number).
    selections = [
        {**_at(data, u.path), "method": u.title, "scores": list(u.scores), "winner": u.choice}
        for u in units
        if u.path[:1] != ("outputs",)
    ]
    spent = [data[key] for key in data if key.endswith("_usage") and isinstance(data[key], dict)]
    total = _usage_sum([o["usage"] for o in data["outputs"]] + spent)
    return {"outputs": outputs, "grid": grid, "selections": selections, "usage": total, "model": _model(outputs)}


def _examples(data: list[dict[str, Any]], units: list[Unit]) -> dict[str, Any]:
    examples = []
    keys: list[tuple[str, int]] = []
    for i, example in enumerate(data):
        view = _report_view(example["report"], _verdict_units(units, (i, "report"))) if example["report"] else None
        rows = _keyed(view["rows"]) if view else {}
        keys += [key for key in rows if key not in keys]
        examples.append({**example, "view": view, "rows": rows})
    for example in examples:
        example["cells"] = [example["rows"].get(key) for key in keys]
    names = [key[0] for key in keys]
    reports = [e["report"] for e in data if e["report"]]
    usage = _usage_sum([r["usage"] for r in reports])
    return {"examples": examples, "criteria": names, "usage": usage, "model": _model(reports)}


def _keyed(rows: list[dict[str, Any]]) -> dict[tuple[str, int], dict[str, Any]]:
    """Rows by (name, how many rows of that name came before): two assertions may share a name."""
    seen: dict[str, int] = {}
    keyed = {}
    for row in rows:
        seen[row["name"]] = seen.get(row["name"], -1) + 1
        keyed[(row["name"], seen[row["name"]])] = row
    return keyed


def _usage_sum(usages: list[dict[str, Any] | None]) -> dict[str, Any]:
    total: dict[str, Any] = {"calls": 0, "cached": 0, "prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    costs = [u["cost_usd"] for u in usages if u and u["cost_usd"] is not None]
    for usage in usages:
        for key in total:
            total[key] += usage[key] if usage else 0
    total["cost_usd"] = sum(costs) if costs else None
    return _usage(total)


def _model(reports: list[dict[str, Any]]) -> str | None:
    return next((r.get("model") for r in reports if r.get("model")), None)


# -- a labelled dataset ----------------------------------------------------------------------


def _dataset(data: dict[str, Any], units: list[Unit], figures: Figures) -> dict[str, Any]:
    criteria = []
    for position, c in enumerate(data["agreement"]):
        confusion = c.get("confusion") or {"labels": [], "matrix": []}
        biggest = max([n for row in confusion["matrix"] for n in row] + [1])
        ranked = figures.ranked[position] if position < len(figures.ranked) else None
        value = ranked.value if ranked is not None else None
        interval = ranked.interval if ranked is not None else None
        criteria.append({**c, "figure": value, "interval": interval, "heat": biggest, "confusion": confusion})
    # Worst first: the lowest ranked figure (then accuracy) on top; criteria without one after them.
    worst_first = sorted(
        criteria, key=lambda c: (c["figure"] is None, c["figure"] or 0.0, c["accuracy"] or 0.0, c["index"])
    )
    items = data["items"]
    points = [(i["human_score"], i["score"]) for i in items if _is_num(i.get("human_score")) and _is_num(i["score"])]
    return {
        "criteria": worst_first,
        "items": items,
        "disagreements": _disagreements(data, units),
        "figures": figures,
        "figure_chart": _figure_chart(worst_first, figures) if criteria and figures.ranked else None,
        "scatter": _scatter(points) if points else None,
        "correlation": _correlation(points),
        "points": len(points),
        "few": FEW_ITEMS,
    }


def _is_num(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _correlation(points: list[tuple[float, float]]) -> float | None:
    """Pearson's r of (human score, judge score); None when either side does not vary."""
    if len(points) < 2:
        return None
    try:
        return statistics.correlation([p[0] for p in points], [p[1] for p in points])
    except statistics.StatisticsError:
        return None


def _disagreements(data: dict[str, Any], units: list[Unit]) -> list[dict[str, Any]]:
    """The labelled units the judge failed: it gave another label than the human (abstentions are apart)."""
    return [
        {
            "item": _at(data, u.path[:2]),
            "criterion": u.title,
            "human": u.expected,
            "judge": u.verdict,
            "reason": u.reason,
        }
        for u in units
        if u.outcome is Outcome.FAIL and len(u.path) > 2
    ]


def _figure_chart(criteria: list[dict[str, Any]], figures: Figures) -> str:
    import pygal

    chart = _chart(pygal.HorizontalBar, title=figures.chart, range=(-1, 1))
    chart.x_labels = [(c["name"] or f"criterion {c['index'] + 1}")[:60] for c in criteria]
    values = []
    for c in criteria:
        interval = c["interval"]
        value: Any = c["figure"]
        if value is not None and interval:
            value = {"value": value, "ci": {"low": interval[0], "high": interval[1]}}
        values.append(value)
    chart.add(figures.label, values)
    return _svg(chart)


def _scatter(points: list[tuple[float, float]]) -> str:
    import pygal

    chart = _chart(pygal.XY, title="Judge score against human score, per item", stroke=False)
    chart.x_title, chart.y_title = "human score", "judge score"
    chart.add("items", points, dots_size=2)
    chart.add("agreement", [(0, 0), (1, 1)], stroke=True, show_dots=False)
    return _svg(chart)


# -- rescored verdicts -----------------------------------------------------------------------


def _rescore(data: dict[str, Any], units: list[Unit]) -> dict[str, Any]:
    return {"rescore": data}


def _chart(kind: Any, **config: Any) -> Any:
    from pygal.style import Style

    style = Style(
        background="white",
        plot_background="#f6f8fa",
        colors=("#0969da", "#8c959f"),
        font_family="system-ui, sans-serif",
        title_font_size=15,
        label_font_size=12,
    )
    # js=[]: pygal's default tooltip script comes from a CDN; the page must make no request.
    return kind(
        js=[],
        style=style,
        disable_xml_declaration=True,
        show_legend=False,
        width=900,
        height=360,
        explicit_size=False,
        print_values=False,
        **config,
    )


def _svg(chart: Any) -> str:
    from markupsafe import Markup

    return Markup(chart.render(is_unicode=True))  # pygal's own SVG, built from escaped values


def _review(data: dict[str, Any], units: list[Unit]) -> dict[str, Any]:
    """A review: each smell found and each criterion the judge failed on, where it is written."""
    rows = []
    for criterion in data["criteria"]:
        where = criterion.get("range")
        line = where["start"]["line"] + 1 if where else None
        if criterion.get("error"):
            rows.append(_review_row(criterion["name"], line, "—", "", criterion["error"], Outcome.ERROR))
        for answer in criterion["answers"]:
            if answer["present"]:
                at = answer.get("range") or where
                found_line = at["start"]["line"] + 1 if at else None
                rows.append(
                    _review_row(
                        criterion["name"], found_line, answer["smell"], answer["words"], answer["reason"], Outcome.FAIL
                    )
                )
    summary = {"findings": data["findings"], "criteria": len(data["criteria"]), "errors": data["errors"], "rows": rows}
    return {"review": summary, "usage": _usage(data["usage"]), "model": data.get("model")}


def _review_row(criterion: str, line: int | None, smell: str, words: str, reason: str, outcome: Outcome) -> Any:
    return {"criterion": criterion, "line": line, "smell": smell, "words": words, "reason": reason, "outcome": outcome}


_SECTIONS: dict[str, Callable[[Any, list[Unit]], dict[str, Any]]] = {
    "review": _review,
    "response": _response,
    "outputs": _outputs,
    "examples": _examples,
    "rescore": _rescore,
}
