"""Rate limits: the run-wide limiter (rubric_lsp/engine/limits/rate_limit.py) and the progress meter.

The limiter's state machine is driven with a fake clock (no sleeps); the policies are then shown
end to end through litellm's real HTTP path against tests/judge_server.py, which scripts the
429s and records when each request arrived and how many were in flight at that moment.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
from collections.abc import Callable

import pytest

from rubric_lsp.commands.grade import _settings, build_parser
from rubric_lsp.engine.limits.rate_limit import RateLimiter
from rubric_lsp.engine.meter import Meter
from rubric_lsp.engine.request import GradeRequest
from rubric_lsp.engine.runner import grade
from rubric_lsp.engine.settings import JudgeSettings
from rubric_lsp.engine.store.run_file import describe_request
from rubric_lsp.engine.usage import Usage
from tests.conftest import use_judge
from tests.judge_server import RecordedRequest, Reply

SECRET = "sk-test-SECRET-rate-0123456789"
MET = {"criterion_status": "MET", "explanation": "ok"}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def admitted(limiter: RateLimiter, tokens: int = 0):
    """A slot admitted now, or None when the limiter says wait (the state machine, no awaiting)."""
    slot = limiter.slot(tokens)
    return slot if limiter._admit(slot) else None


def burst(limiter: RateLimiter, count: int, retry_after: float | None = None) -> None:
    """``count`` calls answered 429 one after the other."""
    for _ in range(count):
        slot = admitted(limiter)
        slot.rate_limited(retry_after)
        limiter._release(slot, False)


# -- the state machine ---------------------------------------------------------------------


def test_at_most_the_limit_in_flight_and_a_release_frees_one():
    limiter = RateLimiter(2, clock=Clock())
    first, second = admitted(limiter), admitted(limiter)
    assert first and second and admitted(limiter) is None and limiter.in_flight == 2
    limiter._release(first, True)
    assert admitted(limiter) is not None and limiter.in_flight == 2


def test_retry_after_pauses_every_new_send_until_it_has_passed():
    clock = Clock()
    limiter = RateLimiter(8, clock=clock)
    slot = admitted(limiter)
    slot.rate_limited(4)
    limiter._release(slot, False)
    assert limiter.limit == 8  # one 429 is no burst: the concurrency stays
    assert admitted(limiter) is None  # the whole run waits, not only that call
    assert limiter.status() == "backing off: 429s, resuming in 4 s"
    clock.now += 3.9
    assert admitted(limiter) is None
    clock.now += 0.1
    assert admitted(limiter) is not None and limiter.status() is None


def test_a_burst_halves_the_concurrency_once_and_never_below_one():
    clock = Clock()
    limiter = RateLimiter(64, clock=clock)
    in_flight = [admitted(limiter) for _ in range(10)]  # all sent under the limit of 64
    for slot in in_flight[:3]:
        slot.rate_limited(None)
    assert limiter.limit == 32 and limiter.cuts == [(64, 32)]
    for slot in in_flight[3:]:  # answers to calls sent before the cut: the same overload
        slot.rate_limited(None)
    assert limiter.limit == 32
    assert limiter.status() == "backing off: 429s, concurrency 64\u219232"
    for slot in in_flight:
        limiter._release(slot, False)
    for _ in range(10):
        burst(limiter, 3)
    assert limiter.limit == 1 and limiter.cuts[-1] == (2, 1)


def test_429s_spread_out_are_no_burst():
    clock = Clock()
    limiter = RateLimiter(16, clock=clock)
    for _ in range(5):
        burst(limiter, 1)
        clock.now += 11  # BURST_WINDOW_SECONDS is 10
    assert limiter.limit == 16 and limiter.cuts == []


def test_successes_ramp_the_concurrency_back_up_one_step_a_round():
    clock = Clock()
    limiter = RateLimiter(8, clock=clock)
    burst(limiter, 3)
    assert limiter.limit == 4
    steps = []
    for _ in range(40):
        slot = admitted(limiter)
        limiter._release(slot, True)
        steps.append(limiter.limit)
    # 4 successes at 4 → 5, 5 at 5 → 6, ... up to the configured 8, never beyond.
    assert steps.index(5) == 3 and steps.index(6) == 8 and steps.index(7) == 14 and steps.index(8) == 21
    assert steps[-1] == 8 and limiter.status() is None


def test_a_429_breaks_the_run_of_successes():
    clock = Clock()
    limiter = RateLimiter(8, clock=clock)
    burst(limiter, 3)
    for _ in range(3):
        limiter._release(admitted(limiter), True)
    burst(limiter, 1)
    limiter._release(admitted(limiter), True)
    assert limiter.limit == 4  # 3 + 1 successes, but not in a row


def test_the_rpm_bucket_spreads_requests_over_the_minute():
    clock = Clock()
    limiter = RateLimiter(100, rpm=120, clock=clock)  # 2 a second, a burst of one second's worth
    sent = []
    for _ in range(400):  # 10 s in 25 ms steps, sending whatever the bucket allows
        while (slot := admitted(limiter)) is not None:
            sent.append(clock.now)
            limiter._release(slot, True)
        clock.now += 0.025
    assert len(sent) == 2 + 2 * 10 - 1  # the full bucket, then 2 a second
    for i, start in enumerate(sent):
        in_a_second = [t for t in sent[i:] if t < start + 1.0]
        assert len(in_a_second) <= 2 + 2


def test_the_tpm_bucket_takes_the_estimate_and_the_reply_corrects_it():
    clock = Clock()
    limiter = RateLimiter(100, tpm=6000, clock=clock)  # 100 tokens a second
    assert limiter.counts_tokens and not RateLimiter(4).counts_tokens
    assert limiter.estimate([{"role": "user", "content": "x" * 400}]) == 100 + 256
    assert limiter.estimate([{"role": "user", "content": "x" * 400}], max_tokens=50) == 150
    big = admitted(limiter, 300)  # bigger than the bucket: goes when it is full, leaves it in debt
    assert big is not None and admitted(limiter, 50) is None
    big.settle(40, 10)  # the reply used 50: 250 come back
    limiter._release(big, True)
    assert admitted(limiter, 50) is not None
    clock.now += 10
    limiter.settle(limiter.slot(0), 0, 0)  # a reply without usage changes nothing
    assert limiter._completion_guess < 256  # and the completion guess learnt from the 10 tokens


async def test_waiters_go_in_order_and_a_cancelled_waiter_gives_its_turn_back():
    limiter = RateLimiter(1)
    order = []
    release = asyncio.Event()

    async def call(name: str) -> None:
        async with limiter.slot():
            order.append(name)
            await release.wait()

    first = asyncio.ensure_future(call("first"))
    await asyncio.sleep(0)
    waiting = [asyncio.ensure_future(call(name)) for name in ("second", "third")]
    await asyncio.sleep(0)
    waiting[0].cancel()
    release.set()
    await asyncio.gather(first, waiting[1], return_exceptions=True)
    assert order == ["first", "third"] and limiter.in_flight == 0


async def test_a_pause_wakes_its_waiters_when_it_ends():
    limiter = RateLimiter(4)
    slot = limiter.slot()
    async with slot:
        pass
    loop = asyncio.get_running_loop()
    slot.rate_limited(0.05)
    started = loop.time()
    async with limiter.slot():
        waited = loop.time() - started
    assert 0.04 <= waited < 1.0


def test_the_meter_figures():
    clock = Clock()
    meter = Meter(clock=clock)
    limiter = RateLimiter(8, clock=clock)
    meter.watch(limiter)
    meter.total = 100
    assert meter.snapshot().rate is None  # too early to say
    for second in range(1, 21):  # 2 items a second for 20 s
        clock.now += 1
        meter.done = 2 * second
        figures = meter.snapshot()
    assert figures.rate == pytest.approx(2.0) and figures.eta_seconds == pytest.approx(30.0)
    meter.add(Usage(prompt_tokens=1000, completion_tokens=234, cost_usd=0.25))
    meter.add(Usage(prompt_tokens=10, completion_tokens=2))
    admitted(limiter)
    burst(limiter, 2)
    burst(limiter, 1, retry_after=4)  # the third of a burst, asking for 4 s
    figures = meter.snapshot()
    assert (figures.tokens, figures.cost_usd, figures.in_flight) == (1246, 0.25, 1)
    assert figures.line() == (
        "1 in flight · 2.0/s · ETA 0:30 · 1.2k tokens · $0.2500 · backing off: 429s, concurrency 8\u21924, resuming in 4 s"
    )


# -- settings and flags --------------------------------------------------------------------


def test_rpm_and_tpm_flags_reach_the_settings_and_do_not_bind_a_resume(tmp_path):
    args = build_parser().parse_args(["r.yaml", "--rpm", "600", "--tpm", "90000", "--concurrency", "64"])
    settings = _settings(args)
    assert (settings.rpm, settings.tpm, settings.concurrency) == (600, 90000, 64)
    plain = _settings(build_parser().parse_args(["r.yaml"]))
    assert (plain.rpm, plain.tpm) == (None, None)
    # A resume may go faster or slower: the ceilings are not part of what the run is.
    assert describe_request("x", "dataset", settings, {}) == describe_request("x", "dataset", plain, {})
    with pytest.raises(SystemExit):
        build_parser().parse_args(["r.yaml", "--rpm", "0"])


# -- end to end, through litellm to the fake provider --------------------------------------


def rubric(n: int) -> str:
    return "".join(f"- name: c{i}\n  requirement: Requirement number {i}\n" for i in range(n))


async def grade_rubric(server, tmp_path, n: int, meter: Meter | None = None, model: str = "openai/judge", **settings):
    values = dict(
        model=model,
        api_base=server.base_url,
        cache_enabled=False,
        cache_dir=tmp_path / "cache",
        timeout_seconds=10.0,
        max_retries=4,
        env={"OPENAI_API_KEY": SECRET},
    )
    values.update(settings)
    request = GradeRequest.for_responses(rubric(n), "r.yaml", ["An answer."], query="A question?")
    return await grade(request, JudgeSettings(**values), meter=meter)


async def test_retry_after_pauses_the_whole_run(judge_server, tmp_path, monkeypatch):
    # The first request is answered 429 "Retry-After: 2" at once; the others take 300 ms. Without a
    # run-wide pause, the three calls finishing at 300 ms would send the next three right away.
    # Measured on the client's clock, where the pause is decided: when each request leaves, and when
    # the 429 arrived (a loaded machine delays both alike, never one past the other).
    from rubric_lsp.engine.limits.rate_limit import Slot

    sent: list[float] = []
    pauses: list[tuple[float, float]] = []  # (when the 429 arrived, the pause's end)
    sending, rate_limited = Slot.sending, RateLimiter.rate_limited

    async def recording_sending(self: Slot) -> None:
        await sending(self)
        sent.append(self._limiter.clock())

    def recording_rate_limited(self: RateLimiter, slot: Slot, retry_after: float | None, now: float) -> None:
        rate_limited(self, slot, retry_after, now)
        pauses.append((now, self.paused_until))

    monkeypatch.setattr(Slot, "sending", recording_sending)
    monkeypatch.setattr(RateLimiter, "rate_limited", recording_rate_limited)
    judge_server.default = Reply.json(MET, delay_ms=300)
    judge_server.burst(1, retry_after=2)
    result = await grade_rubric(judge_server, tmp_path, 12, concurrency=4)
    assert not any(v.error for v in result.verdicts)
    assert len(judge_server.completions) == len(sent) == 13  # 12 criteria and the retry
    ((arrived, resume),) = pauses
    assert resume == arrived + 2
    # Nothing leaves between the 429's arrival and the pause's end, and everything but the three
    # calls sent with the first (concurrency 4) leaves after it.
    assert [t for t in sent if arrived <= t < resume] == []
    assert sum(t >= resume for t in sent) >= 12 - 3


def recorded_admissions(monkeypatch) -> list[tuple[int, int, int]]:
    """(epoch, limit, in flight) right after each admission, in order: the limiter's own decisions."""
    admissions: list[tuple[int, int, int]] = []
    admit = RateLimiter._admit

    def recording(self: RateLimiter, slot) -> bool:
        if not admit(self, slot):
            return False
        admissions.append((self.epoch, self.limit, self.in_flight))
        return True

    monkeypatch.setattr(RateLimiter, "_admit", recording)
    return admissions


def burst_of_one_round(criteria: range) -> Callable[[RecordedRequest], Reply]:
    """A judge whose first answer to each of ``criteria`` is a 429, given once all of them are in
    flight (a round's worth of 429s, whatever the machine's speed); every other call is MET."""
    together = threading.Barrier(len(criteria), timeout=60)  # a bound that catches a hang, never a wait
    seen: set[int] = set()
    lock = threading.Lock()

    def answer(request: RecordedRequest) -> Reply:
        number = int(re.search(r"Requirement number (\d+)\b", request.text).group(1))
        with lock:
            first = number in criteria and number not in seen
            seen.add(number)
        if not first:
            return Reply.json(MET)
        with contextlib.suppress(threading.BrokenBarrierError):  # the assertions below say what went wrong
            together.wait()
        return Reply.rate_limited(None)

    return answer


async def test_a_burst_of_429s_cuts_the_concurrency_and_successes_ramp_it_back(judge_server, tmp_path, monkeypatch):
    admissions = recorded_admissions(monkeypatch)
    judge_server.default = burst_of_one_round(range(24, 32))  # the 4th round of 8: all 429s
    meter = Meter()
    result = await grade_rubric(judge_server, tmp_path, 64, meter, concurrency=8)
    assert not any(v.error for v in result.verdicts)
    assert judge_server.call_count == 64 + 8  # each 429 retried once
    (limiter,) = meter.limiters
    # One cut for the round: the other five 429s answer calls sent before it (the same overload).
    assert limiter.cuts == [(8, 4)] and limiter.limit == 8  # halved on the burst, then back up
    assert all(in_flight <= limit for _epoch, limit, in_flight in admissions)
    assert max(in_flight for epoch, _limit, in_flight in admissions if epoch == 0) == 8
    assert judge_server.max_in_flight == 8  # the server saw the round of 8 at once, and never more
    # After the cut a step up takes as many successes as the limit (4 + 5 + 6 + 7 = 22 to be back
    # at 8); the calls admitted before a step are those successes and at most a limit's worth more.
    after = [(limit, in_flight) for epoch, limit, in_flight in admissions if epoch == 1]
    assert [limit for limit, _ in after] == sorted(limit for limit, _ in after) and after[0][0] == 4
    first_at = {limit: next(i for i, (at, _) in enumerate(after) if at == limit) for limit in (5, 6, 7, 8)}
    assert 4 <= first_at[5] <= 4 + 4 and 9 <= first_at[6] <= 9 + 5 and 15 <= first_at[7] <= 15 + 6
    assert 22 <= first_at[8] <= 22 + 7
    assert max(in_flight for limit, in_flight in after if limit == 4) == 4
    # That 8 are then in flight at once is not asserted: it needs 8 calls still waiting when the limit is back,
    # which depends on how fast the server answered the last ones (it failed under load: 7 == 8). The limit
    # itself is back at 8 (first_at[8], limiter.limit above) and never exceeded (admissions above).


async def test_the_rpm_ceiling_holds_at_the_server(judge_server, tmp_path):
    result = await grade_rubric(judge_server, tmp_path, 10, concurrency=10, rpm=240)  # 4 a second
    assert not any(v.error for v in result.verdicts)
    times = [r.received_at for r in judge_server.completions]
    assert len(times) == 10
    for i, start in enumerate(times):
        # a token bucket of one second's worth: at most 4 + 4·T requests in any T seconds
        assert sum(start <= t < start + 0.5 for t in times[i:]) <= 4 + 2
    assert times[-1] - times[0] >= 1.2  # 10 requests: 4 at once, then one every 0.25 s


async def test_the_meter_counts_tokens_and_cost_of_scripted_replies(judge_server, tmp_path):
    import litellm

    judge_server.default = Reply.json(MET, usage={"prompt_tokens": 111, "completion_tokens": 22, "total_tokens": 133})
    meter = Meter()
    # A model litellm knows the price of (its openai route, at our api_base): the cost is real arithmetic.
    result = await grade_rubric(judge_server, tmp_path, 6, meter, model="openai/gpt-4o-mini", concurrency=3)
    price = litellm.model_cost["gpt-4o-mini"]
    expected = 6 * (111 * price["input_cost_per_token"] + 22 * price["output_cost_per_token"])
    figures = meter.snapshot()
    assert (figures.done, figures.total, figures.in_flight, figures.tokens) == (6, 6, 0, 6 * 133)
    assert figures.cost_usd == pytest.approx(expected) and expected > 0
    usage = result.usage
    assert usage.prompt_tokens + usage.completion_tokens == figures.tokens
    assert usage.cost_usd == pytest.approx(figures.cost_usd)


def test_piped_stderr_gets_a_short_line_now_and_then(judge_server, tmp_path, monkeypatch, capsys):
    from rubric_lsp.commands import grade_progress
    from rubric_lsp.commands.grade import main as grade_main

    monkeypatch.setattr(grade_progress, "PLAIN_PROGRESS_EVERY_SECONDS", 0.3)  # 10 s in real use
    use_judge(monkeypatch, judge_server, SECRET)
    judge_server.latency_ms = 250
    (tmp_path / "r.yaml").write_text(rubric(4))
    (tmp_path / "answer.txt").write_text("An answer.")
    argv = [str(tmp_path / "r.yaml"), "--response", str(tmp_path / "answer.txt"), "--concurrency", "1", "--no-cache"]
    assert grade_main(argv) == 0
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines and all(line.startswith("rubric grade: ") and " done · " in line for line in lines), err
    assert "in flight" in lines[-1] and "tokens" in lines[-1] and SECRET not in err
