"""select-best's position consistency (``rubric grade --swap``): each comparison asked again with the
outputs in reverse order, and how often the winner changes.

A judge that prefers a position over a content picks "output 1" both times, which after the reversal
is the other output: the winner changes. A judge that reads the outputs picks the same output both times.
Only the comparison is asked again (the outputs' own assertions do not depend on the order); the reversed
prompt is another prompt, so the verdict cache answers it apart.
"""

from __future__ import annotations

from typing import Any

from rubric_lsp.calibration.stats import proportion
from rubric_lsp.formats.promptfoo.grading.select_best import grade_select_best


async def swapped(
    doc: Any, view: Any, numbers: list[int], responses: list[str], first: list[dict[str, Any]], settings: Any
) -> dict[str, Any]:
    """``{"tests": [...], "changed": proportion}``: per select-best test, the winner in the given order and
    in the reversed one (as an index into the given order), and the share of tests whose winner changed
    (tests where either ask failed are left out of the share)."""
    last = len(responses) - 1
    again, usage = await grade_select_best(doc, view, numbers, list(reversed(responses)), settings)
    tests = []
    for given, reversed_entry in zip(first, again, strict=True):
        winner, other = given.get("winner"), reversed_entry.get("winner")
        row: dict[str, Any] = {
            "test": given["test"],
            "winner": winner,
            "winner_reversed": None if other is None else last - other,
        }
        if "error" in given or "error" in reversed_entry:
            row["error"] = given.get("error") or reversed_entry.get("error")
        else:
            row["changed"] = row["winner"] != row["winner_reversed"]
        tests.append(row)
    compared = [row for row in tests if "changed" in row]
    return {
        "tests": tests,
        "changed": proportion(sum(row["changed"] for row in compared), len(compared)),
        "usage": usage.to_json(),
    }


def swap_lines(data: dict[str, Any]) -> list[str]:
    """The text output's lines for ``swapped``'s data."""
    lines = []
    for row in data["tests"]:
        if "error" in row:
            lines.append(f"test {row['test']} select-best swapped: not compared — {row['error']}")
            continue
        first, second = (f"output {w + 1}" for w in (row["winner"], row["winner_reversed"]))
        verdict = "winner changed" if row["changed"] else "same winner"
        lines.append(f"test {row['test']} select-best swapped: {first} → {second} ({verdict})")
    changed = data["changed"]
    if changed["n"]:
        low, high = changed["interval"]
        lines.append(
            f"position consistency: the winner changed in {changed['successes']} of {changed['n']} "
            f"comparison(s) ({changed['value']:.0%}, 95 % [{low:.0%}, {high:.0%}])"
        )
    else:
        lines.append("position consistency: no select-best comparison to swap")
    return lines
