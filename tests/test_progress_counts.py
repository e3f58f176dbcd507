"""Progress says consistent numbers (issue 35 item 6): one total from the first report to the last.

Calibrating with a panel grades the panel's pass (every item once per judge) and then each judge alone;
each pass used to be counted as one judge's, so the total changed between passes ("Grading 24/72" then
"36/36"). A grader that counts its own total (promptfoo's) left the meter's total at 0 ("0/0 done").
"""

from __future__ import annotations

import asyncio
import json

from rubric_lsp.engine.calibrating import calibration_passes
from rubric_lsp.engine.meter import Meter
from rubric_lsp.engine.request import GradeRequest, RequestKind
from rubric_lsp.engine.runner import grade
from rubric_lsp.engine.settings import JudgeSettings
from tests.calibration import dataset, reply_for
from tests.judge_server import Reply

A, B = "openai/judge-a", "openai/judge-b"
PROMPTFOO = """\
prompts: ["Answer: {{q}}"]
providers: [echo]
tests:
  - vars: {q: capital}
    assert:
      - type: llm-rubric
        value: Names Paris
      - type: llm-rubric
        value: Is short
"""


def _settings(judge_server, tmp_path, *models: str) -> JudgeSettings:
    return JudgeSettings(
        model=models[0],
        models=list(models[1:]),
        api_base=judge_server.base_url,
        cache_dir=tmp_path / "cache",
        env={"OPENAI_API_KEY": "x"},
    )


class Seen(list):
    """The (done, total) pairs a progress callback was given."""

    def append_pair(self, done: int, total: int) -> None:
        self.append((done, total))


def _consistent(seen: list[tuple[int, int]]) -> None:
    totals = {total for _, total in seen}
    assert len(totals) == 1, sorted(totals)
    done = [d for d, _ in seen]
    assert done == sorted(done) and done[-1] == totals.pop(), seen


def test_a_panel_calibration_counts_every_pass_in_one_total(judge_server, tmp_path):
    judge_server.handler = lambda request: reply_for(request.text)
    request = GradeRequest(json.dumps(dataset(6, "maths")), str(tmp_path / "m.dataset.json"), RequestKind.DATASET)
    for models, repeats, expected in [((A, B), 1, 6 * 2 * 4), ((A,), 2, 6 * 2 * 2), ((A, B), 2, 6 * 2 * 8)]:
        seen = Seen()
        settings = _settings(judge_server, tmp_path, *models)
        asyncio.run(calibration_passes(request, settings, repeats=repeats, on_progress=seen.append_pair))
        _consistent(seen)  # a panel of two: its pass is two judges' work, then each judge's alone
        assert seen[-1] == (expected, expected), (models, repeats, seen[-1])


def test_a_grader_that_counts_its_own_total_gives_the_meter_that_total(judge_server, tmp_path):
    judge_server.default = Reply.json({"reason": "r", "pass": True, "score": 1})
    request = GradeRequest.for_response(PROMPTFOO, str(tmp_path / "promptfooconfig.yaml"), "Paris.")
    meter, seen = Meter(), []
    asyncio.run(
        grade(request, _settings(judge_server, tmp_path, A), on_progress=lambda d, t: seen.append((d, t)), meter=meter)
    )
    _consistent(seen)
    assert (meter.done, meter.total) == (2, 2)  # the CLI's "n/N done" reads the meter
