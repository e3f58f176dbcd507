"""Helpers the promptfoo grading tests share: judge settings with a canary key, a judge verdict."""

from __future__ import annotations

from rubric_lsp.engine import JudgeSettings
from tests.judge_server import Reply

SECRET = "sk-test-SECRET-pf-0123456789"


def settings(server, tmp_path, **kw):
    values = dict(
        api_base=server.base_url,
        cache_dir=tmp_path / "c",
        timeout_seconds=5.0,
        max_retries=0,
        env={"OPENAI_API_KEY": SECRET},
    )
    values.update(kw)
    return JudgeSettings(**values)


def verdict(passed, score, reason="r"):
    return Reply.json({"reason": reason, "pass": passed, "score": score})
