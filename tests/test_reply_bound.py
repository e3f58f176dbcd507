"""A judge reply over the limit is one failed call, never kept or printed whole (a 30 MB reply was)."""

from __future__ import annotations

import json

import pytest

from rubric_lsp.cli import main
from rubric_lsp.engine.failures import MAX_REPLY_CHARS
from tests.conftest import SAMPLES, use_judge
from tests.judge_server import Reply

RUBRIC = str(SAMPLES / "autorubric" / "refund-reply.rubric.yaml")


@pytest.mark.parametrize("transport", ["litellm", "direct"])
def test_an_oversized_reply_is_a_failed_call(judge_server, tmp_path, monkeypatch, capfd, transport):
    use_judge(monkeypatch, judge_server, "sk-test-bound-0123456789", tmp_path / "cache")
    monkeypatch.setenv("RUBRIC_JUDGE_TRANSPORT", transport)
    filler = "x" * (MAX_REPLY_CHARS + 10)
    judge_server.default = Reply.text('{"criterion_status": "MET", "explanation": "' + filler + '"}')
    (tmp_path / "answer.txt").write_text("Your refund is on its way.", encoding="utf-8")
    code = main(["grade", RUBRIC, "--response", str(tmp_path / "answer.txt"), "--format", "json", "--retries", "0"])
    out, err = capfd.readouterr()
    assert code != 0, err
    assert len(out) < 200_000, "the oversized reply was printed"
    data = json.loads(out)
    errors = [v.get("error") or "" for v in data["verdicts"]]
    assert errors and all("limit" in e for e in errors), errors
    assert all(v["verdict"] not in ("MET", "UNMET") for v in data["verdicts"])
