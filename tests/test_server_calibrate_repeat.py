"""``rubric.calibration.repeat`` (initializationOptions or workspace configuration): the editor's Calibrate
asks the judge that many times per item, as ``rubric calibrate --repeat`` does, and the record holds the
judge's agreement with itself, ambiguous below ``rubric.calibration.agreementThreshold``
(``--agreement-threshold``)."""

from __future__ import annotations

import asyncio
import json

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from rubric_lsp.server.settings import ServerSettings
from tests.calibration import dataset, status_for
from tests.judge_server import JudgeServer, Reply
from tests.server_helpers import judge_lifetime, session_fixture

JUDGE = JudgeServer().start()
REPEATS = 3
THRESHOLD = 0.95  # above the default 0.8: 11 unanimous items of 12 (0.92) is ambiguous here
client = session_fixture(
    init_options={
        "rubric": {
            "judge": {"model": "openai/judge", "apiBase": JUDGE.base_url, "concurrency": 8, "timeoutSeconds": 20},
            "calibration": {"repeat": REPEATS, "agreementThreshold": THRESHOLD},
        }
    },
    env={"RUBRIC_CACHE_DIR": "__CACHE__"},
    profiles=[("neovim@v0.11", "pull", "utf-8")],
    ids=["neovim-pull"],
)


_judge_lifetime = judge_lifetime(JUDGE)


def flipping(request) -> Reply:
    """The judge of tests/calibration.py, except that it answers the opposite on every other ask of one
    submission about `shows_work`: a judge that disagrees with itself there."""
    status = status_for(request.text)
    if "Shows the working" in request.text and "answer 1:" in request.text:
        asked = sum(1 for r in JUDGE.completions if "Shows the working" in r.text and "answer 1:" in r.text)
        status = status if asked % 2 else ("UNMET" if status == "MET" else "MET")
    return Reply.json({"criterion_status": status, "explanation": status.lower()})


@pytest.mark.slow
@pytest.mark.asyncio(loop_scope="module")
async def test_calibrate_asks_the_judge_the_set_number_of_times(client: LanguageClient):
    s = client.rubric_session
    JUDGE.handler = flipping
    text = json.dumps(dataset(12, "maths repeated"), indent=2)
    uri = s.open("maths.dataset.json", text, language="json")
    answer = await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="rubric-lsp.calibrate", arguments=[{"uri": uri}])
        ),
        120,
    )
    assert JUDGE.call_count == 12 * 2 * REPEATS  # every item, every criterion, every ask
    record = json.loads((s.root / "maths.dataset.json.calibration.json").read_text())
    agreement = {unit["id"]: unit["self_agreement"] for unit in record["units"]}
    assert {unit: figures["repeats"] for unit, figures in agreement.items()} == {"correct": 3, "shows_work": 3}
    assert agreement["correct"]["unanimous"]["value"] == 1.0
    assert agreement["shows_work"]["unanimous"]["successes"] == 11  # answer 1 flipped on its second ask
    assert {unit: (figures["threshold"], figures["ambiguous"]) for unit, figures in agreement.items()} == {
        "correct": (THRESHOLD, False),
        "shows_work": (THRESHOLD, True),
    }
    assert any("self-agreement" in line for line in answer["units"])


@pytest.mark.parametrize("given", [3, "3", 1, 20])
def test_the_repeat_setting_takes_1_to_20_asks(given):
    settings = ServerSettings().merged({"calibration": {"repeat": given}})
    assert (settings.calibration_repeat, settings.problems) == (int(given), ())


@pytest.mark.parametrize("given", [0, 0.5, 1, "0.7"])
def test_the_agreement_threshold_setting_takes_a_share(given):
    settings = ServerSettings().merged({"calibration": {"agreementThreshold": given}})
    assert (settings.calibration_agreement_threshold, settings.problems) == (float(given), ())


@pytest.mark.parametrize("given", [-0.1, 1.5, True, "most"])
def test_another_agreement_threshold_is_ignored_with_a_reason(given):
    settings = ServerSettings().merged({"calibration.agreementThreshold": given})
    assert settings.calibration_agreement_threshold == 0.8
    assert settings.problems == (
        f"setting rubric.calibration.agreementThreshold = {given!r} is ignored: it must be a number from 0 to 1",
    )


@pytest.mark.parametrize("given", [0, 21, 2.5, True, "many"])
def test_another_repeat_setting_is_ignored_with_a_reason(given):
    settings = ServerSettings().merged({"calibration.repeat": given})
    assert settings.calibration_repeat == 1
    assert settings.problems == (
        f"setting rubric.calibration.repeat = {given!r} is ignored: it must be a whole number from 1 to 20",
    )
