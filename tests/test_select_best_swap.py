"""``rubric grade --swap``: each select-best asked again with the outputs reversed; how often the winner
changes (position consistency), against scripted judges on tests/judge_server.py."""

from __future__ import annotations

import json

import pytest
from statsmodels.stats.proportion import proportion_confint

from tests.judge_server import Reply
from tests.select_best_helpers import SECRET, comparing, run_cli

# Three tests, each with a select-best (the judge is asked 3 times per order).
CONFIG = """\
prompts: [a]
providers: [echo]
defaultTest:
  options: {provider: openai:judge}
tests:
"""
CONFIG += "".join(f"  - assert:\n      - type: select-best\n        value: Best answer {n}\n" for n in range(3))
OUTPUTS = ["a plain answer", "the GOOD answer", "another plain answer"]


def first_position(_request):
    return Reply.text('{"best": 0, "reason": "the first one"}')


def by_content(request):
    """Picks the output that says GOOD, wherever it stands in the prompt (outputs are listed in order)."""
    text = request.text
    at = {text.index(o): i for i, o in enumerate(OUTPUTS) if o in text}
    order = [at[k] for k in sorted(at)]  # the outputs' positions in this prompt
    return Reply.text(json.dumps({"best": order.index(1), "reason": "it is good"}))


def graded(judge_server, tmp_path, capfd, monkeypatch, judge, *extra):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    judge_server.when(comparing, judge)
    code = run_cli(tmp_path, judge_server, CONFIG, OUTPUTS, "--swap", *extra)
    return code, capfd.readouterr().out


def test_a_judge_that_always_picks_the_first_position_changes_every_winner(judge_server, tmp_path, capfd, monkeypatch):
    code, out = graded(judge_server, tmp_path, capfd, monkeypatch, first_position, "--format", "json")
    swap = json.loads(out)["swap"]
    assert code == 0 and judge_server.call_count == 6  # 3 comparisons, each asked in both orders
    # Reversed, "output 1" is the last of the given order.
    assert [(t["winner"], t["winner_reversed"], t["changed"]) for t in swap["tests"]] == [(0, 2, True)] * 3
    low, high = proportion_confint(3, 3, method="wilson")
    assert swap["changed"]["value"] == 1.0 and swap["changed"]["n"] == 3
    assert swap["changed"]["interval"] == pytest.approx([low, high])


def test_a_judge_that_reads_the_outputs_keeps_every_winner(judge_server, tmp_path, capfd, monkeypatch):
    code, out = graded(judge_server, tmp_path, capfd, monkeypatch, by_content)
    assert code == 0
    assert "test 1 select-best swapped: output 2 → output 2 (same winner)" in out
    assert "position consistency: the winner changed in 0 of 3 comparison(s) (0%, 95 % [0%, 56%])" in out


def test_without_swap_nothing_is_asked_again(judge_server, tmp_path, capfd, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    judge_server.when(comparing, first_position)
    code = run_cli(tmp_path, judge_server, CONFIG, OUTPUTS, "--format", "json")
    assert code == 0 and "swap" not in json.loads(capfd.readouterr().out) and judge_server.call_count == 3


def test_swap_with_one_output_is_refused(judge_server, tmp_path, capfd, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    code = run_cli(tmp_path, judge_server, CONFIG, OUTPUTS[:1], "--swap")
    assert code == 2 and "--swap reverses the outputs select-best compares: give at least 2" in capfd.readouterr().err
    assert judge_server.call_count == 0
