"""The direct route: a judge call to a local OpenAI-compatible server, without litellm, over ``http1.py``.

Why: litellm's Python path costs about 2.9 ms of CPU per call on its cheapest route
(``hosted_vllm``, measured), all of it serialised on the event loop; at concurrency 64 and a
judge that answers in 50 ms, 64 × 2.9 ms = 186 ms of CPU per round, so a run can never get
near the floor ⌈N/c⌉·latency. A bare aiohttp client sends the same request for ≈ 0.2 ms, ``http1.py`` for ≈ 0.07.

Where: only where litellm would send the request unchanged anyway — ``openai/<name>`` at a
plain-http ``api_base`` (vLLM, Ollama's /v1, llama.cpp, a gateway on the LAN), ``<name>``
not in litellm's model map under any of ``<name>``, ``openai/<name>``, ``hosted_vllm/<name>``.
That is ``transports.via_litellm_route``'s ``hosted_vllm`` case restricted to models litellm has no
price for, so litellm's price for them is the zero that ``transports.register_local_model``
registers, and ours is 0 too. Everything else (OpenAI's own names with their parameter
rewrites, priced models, https with its certificate settings, a URL with credentials, a server a
proxy variable covers, every other provider) stays on litellm. ``RUBRIC_JUDGE_TRANSPORT=litellm`` turns
the route off.

Same request: the JSON body litellm's ``hosted_vllm`` route sends (the model name without its
``openai/`` prefix, the messages and the request fields, same key order and separators) to
``<api_base>/chat/completions`` with ``Authorization: Bearer <key>``; tests compare both.
Same failures: an HTTP error becomes the ``JudgeFailure`` that ``failures.classify`` makes of
litellm's exception for the same answer (kind, message, retry, Retry-After), raised as a
``failures.ClassifiedError`` so the judge's retry loop treats both routes alike (tests run
one table of scripted answers through both routes). One deliberate difference: a JSON body
that is not a chat completion (``choices[0]`` without a ``message``, a non-text ``content``)
is a ``server`` failure here, retried like a 5xx (so not where the format made a 5xx final:
``retry_server_errors``); litellm reports it as a connection failure quoting its own traceback.

Not gated: ``send_gate`` exists because litellm builds each request in a worker thread with
suspensions in between; this route builds and writes the request without suspending (only a
new connection waits), so there is nothing to interleave.

Measured with bench/bench_scale.py (`rubric grade` end to end, verdict cache and run file on;
2 cores shared with other jobs): CPU per judge call 5.1 ms before this route and the dataset-path
changes that came with it (litellm's hosted_vllm route, 2,000 items × 5 criteria; 5.07 ms on this
route's branch with RUBRIC_JUDGE_TRANSPORT=litellm), 0.8-0.93 ms after (10,000 × 5, start-up
included), 0.74-0.81 ms once the run file and the verdict cache wrote from threads (py-spy: about
half of what is left is aiohttp and asyncio, a fifth the judge call's own work: cache key, request
body, reply parsing). Not importing litellm keeps the process at ~150 MB peak for 10,000 items
(litellm's import alone is 170 MB).

Against the bare aiohttp client replaying the same requests (bench_scale's reference leg; 1,000 items,
pairs in turn on 2 shared cores at load 4-10, medians of 5): 1.99x its CPU per call before the
verdict cache's lingering commits, pydantic off the start-up and the exit without a last collection,
1.90x after (1.51 -> 1.38 ms; the client 0.71 ms). On a quiet machine (issue 36, medians of 3 pairs):
1.99x (0.480 ms against 0.242) -> 1.76x (0.425 ms) once the run file's replies lingered 50 ms before
a commit (its writer thread had taken ~0.3 s of CPU per 5,000 calls, a commit per loop turn). With the
HTTP call replaced by an in-process stand-in, the engine alone costs ~0.85 s per 5,000 calls: ~0.11 s
of start-up (the interpreter and the grading's imports), ~0.03 s of calibration, ~0.02 s of JSON output
and ~0.65 s in the loop, ~0.13 ms a call spread thin over the judge call (cache key and request JSON,
run-file and cache look-ups, the rate limiter, two tasks a call, the verdict's parsing, the figures'
fold); the HTTP calls themselves cost ~0.25 ms a call, the client's ~0.22.

`bench_scale.py --items 1000 --rounds 7` measures it in one command (the next session, same 2 cores): 1.62x
(0.370 ms against 0.229) at load 0.6-0.9, 1.85x (0.430 against 0.232) at load 0.9-1.4, the base within 1 %
each time; the per-call figures move ±10 % between rounds. The model map's names now come from the user's
cache (~25 ms of every start) and a dataset is parsed once. Measured apart: the engine with the stand-in,
0.52-0.58 s per 5,000 calls (~0.07 s fixed, ~0.09 ms a call, ~730 Python function calls a call, none above
5 % of them); aiohttp's share of a call equals the bare client's whether calls are tasks or 64 workers
(0.19-0.28 ms both, measured). Reaching 1.5x needs the engine at ~half its per-call work, or a transport
cheaper than aiohttp: not a matter of one hot spot.

The transport, then (``http1.py``: asyncio's transports and httptools' parser instead of aiohttp's client, whose
Python layers were ~0.19 ms of a call's ~0.22). `bench_scale.py --items 1000 --rounds 5 --base-repo` (the
last landing), load 0.3-0.4: 0.284 ms a call = 1.25x the bare client (0.226), the base 0.400 ms = 1.77x
(this / base 0.71x).
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rubric_lsp.engine.failures import (
    MAX_REPLY_CHARS,
    UNDECODABLE_BODY,
    ClassifiedError,
    JudgeFailure,
    connection_failure_said,
    readable_detail,
    said_by_message,
    table_failure,
)
from rubric_lsp.engine.settings import MissingCredentials, api_key_for
from rubric_lsp.runtime import start_cache

if TYPE_CHECKING:
    from rubric_lsp.engine.settings import JudgeSettings

TRANSPORT_VARIABLE = "RUBRIC_JUDGE_TRANSPORT"
USER_AGENT = "rubric-lsp"
# What a reply's body may hold (its message is bounded by MAX_REPLY_CHARS; JSON escapes can grow text
# six-fold): a 30 MB "reply" was once accepted, kept and printed whole.
MAX_REPLY_BYTES = 6 * MAX_REPLY_CHARS + 65536
# litellm's exception class for a 5xx status, which its error text (and so ours) starts with.
_SERVER_ERROR_NAMES = {500: "InternalServerError", 502: "BadGatewayError", 503: "ServiceUnavailableError"}


def direct_model(model: str, api_base: str | None, api_key: str | None) -> str | None:
    """The model name to send on the direct route, or None when the call goes through litellm."""
    if os.environ.get(TRANSPORT_VARIABLE, "").strip().lower() == "litellm":
        return None
    if not api_base or api_key is None or not model.startswith("openai/"):
        return None
    if not api_base.lower().startswith("http://") or _beyond_http1(api_base):
        return None
    name = model.split("/", 1)[1]
    priced = priced_models()
    if not name or priced is None or {name, model, f"hosted_vllm/{name}"} & priced:
        return None
    return name


def _beyond_http1(api_base: str) -> bool:
    """Whether calls to ``api_base`` need more than ``http1.py`` does: credentials in the URL, or a proxy the
    environment names for it (HTTP_PROXY, ALL_PROXY and NO_PROXY, as litellm's httpx client honours them)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(api_base)
        if parts.username is not None or parts.password is not None or not parts.hostname or parts.port == 0:
            return True
    except ValueError:  # no valid URL (a bad port, an open bracket): litellm says what is wrong with it
        return True
    if not any(name.lower() in ("http_proxy", "all_proxy") for name in os.environ):
        return False
    import urllib.request  # (only when a proxy variable is set: it imports http.client and email)

    proxies = urllib.request.getproxies_environment()
    if not (proxies.get("http") or proxies.get("all")):
        return False
    return not urllib.request.proxy_bypass_environment(parts.hostname, proxies)  # type: ignore[attr-defined]


def needs_litellm(settings: JudgeSettings) -> bool:
    """Whether a grading with these settings calls a judge through litellm, so that importing it ahead (the
    language server's warm-up) pays off.

    False when each takes the direct route (a local server litellm has no price for: ``direct.py``) or
    lacks its key (that grading fails before any call: ``api_key_for``): litellm's import is seconds of CPU and ~170 MB
    that a server grading only against a local judge never needs. A file that names a judge of its own
    may still need it; ``Judge`` then imports it at that judge's first call, on a worker thread. Each judge
    is decided as ``Judge._direct_name`` decides it."""
    try:
        resolved = settings.resolved()
        env = resolved.environ()
        keys = {model: api_key_for(model, resolved.api_base, env) for model in resolved.judge_models()}
    except MissingCredentials:  # no judge, or no key: nothing to call yet
        return False
    return any(direct_model(model, resolved.api_base, key) is None for model, key in keys.items())


_priced: frozenset[str] | None = None
_map_read = False


def priced_models() -> frozenset[str] | None:
    """The names in litellm's bundled model map (the map litellm itself reads: ``transports.load_litellm``
    sets LITELLM_LOCAL_MODEL_COST_MAP), read from its JSON without importing litellm (24 ms, once).
    None when the map cannot be found (nothing is known to be unpriced) or httptools is missing: then
    calls stay on litellm."""
    global _priced, _map_read
    if not _map_read:
        _map_read = True
        import importlib.util

        try:
            if importlib.util.find_spec("httptools") is None:  # the [grade] extra brings it; a broken install may not
                return None
            spec = importlib.util.find_spec("litellm")
            for folder in (spec.submodule_search_locations or []) if spec else []:
                path = os.path.join(folder, "model_prices_and_context_window_backup.json")
                if os.path.isfile(path):
                    _priced = _names_in(path) or None
                    break
        except (ImportError, ValueError, OSError):
            _priced = None
    return _priced


_NAMES_HEADER = b"rubric-lsp litellm model names 1\n"


def _names_in(path: str) -> frozenset[str]:
    """The names in the model map at ``path``, kept in the user's cache while the file stays the same (its size
    and modification time): reading its 3.5 MB of JSON was ~25 ms of every grading's start, the cached names
    ~1 ms. One entry: another litellm's map replaces it."""
    stat = os.stat(path)
    key = (path, stat.st_size, stat.st_mtime_ns)
    cache = start_cache.cache_file("litellm-model-names")
    held = start_cache.read(cache, _NAMES_HEADER).get(key)
    if isinstance(held, frozenset):
        return held
    with open(path, encoding="utf-8") as handle:
        names = frozenset(json.load(handle))
    start_cache.write(cache, _NAMES_HEADER, {key: names})
    return names


# -- what the judge's ``_content`` reads from a reply (litellm's ModelResponse shape) --------------


@dataclass
class Message:
    content: Any


@dataclass
class Choice:
    message: Message


@dataclass
class Response:
    usage: dict[str, int]
    choices: list[Choice]
    _hidden_params: dict[str, Any] = field(default_factory=lambda: {"response_cost": 0.0})


# -- one call --------------------------------------------------------------------------------------


async def complete(
    api_base: str,
    name: str,
    fields: Mapping[str, Any],
    api_key: str,
    timeout: float,
    model: str,
    redact: Callable[[str], str],
) -> Response:
    """POST one chat completion; the reply in the shape ``transports.reply_content`` reads.

    Raises ``ClassifiedError`` for every failure (HTTP status, unreadable body, timeout, no
    connection), with the failure litellm's route would have given."""
    # (httptools is the [grade] extra's: never imported without it, when priced_models keeps calls on litellm)
    from rubric_lsp.engine.transports import http1

    body = {key: value for key, value in fields.items() if key != "api_base"}
    body["model"] = name
    data = json.dumps(body).encode("utf-8")
    headers = _credentials(api_key, model)
    try:
        endpoint = http1.endpoint(api_base.rstrip("/") + "/chat/completions", USER_AGENT)
        reply = await http1.post(endpoint, headers, data, timeout, MAX_REPLY_BYTES)
    except asyncio.TimeoutError:
        raise ClassifiedError(table_failure("timeout", model), True) from None
    except http1.HttpFailure as exc:
        text = str(exc)
        where = connection_failure_said(text)
        # As classify words litellm's connection errors: the short form ends a sentence, a quote does not.
        said = f"{where}." if where is not None else readable_detail(redact(f"APIConnectionError: {text}"))
        failure = JudgeFailure("infrastructure", f"Judge model '{model}' could not be reached: {said}", "connection")
        raise ClassifiedError(failure, True) from None
    raw = reply.body
    if len(raw) > MAX_REPLY_BYTES:
        failure = JudgeFailure(
            "parse", f"The judge's reply is over the {MAX_REPLY_BYTES:,}-byte limit of a reply: not read.", "bad_reply"
        )
        raise ClassifiedError(failure, False)
    if reply.status >= 400:
        raise http_failure(reply.status, raw, reply.headers, model, redact)
    return reply_of(raw, model, redact)


@functools.lru_cache(maxsize=16)
def _credentials(api_key: str, model: str) -> bytes:
    """The headers that carry the key; a key no header can carry (a line break, a character outside Latin-1)
    is refused unsent, as aiohttp and httpx refuse it."""
    line = f"Authorization: Bearer {api_key}\r\nContent-Type: application/json\r\n"
    if not api_key.isprintable():  # (line breaks included)
        raise _unsendable(model)
    try:
        return line.encode("latin-1")
    except UnicodeEncodeError:
        raise _unsendable(model) from None


def _unsendable(model: str) -> ClassifiedError:
    failure = JudgeFailure(
        "infrastructure",
        f"Judge model '{model}': its API key holds a line break or a character an HTTP header cannot carry; not sent.",
        "auth",
    )
    return ClassifiedError(failure, False)


def http_failure(
    status: int, raw: bytes, headers: Mapping[str, str], model: str, redact: Callable[[str], str]
) -> ClassifiedError:
    """What litellm's route (and ``failures.classify``) makes of an HTTP error answer."""
    text = raw.decode("utf-8", errors="replace")
    name = _SERVER_ERROR_NAMES.get(status, "APIError") if status >= 500 else None
    detail = readable_detail(redact(f"{name}: {text}" if name else text))
    if status == 429:
        return ClassifiedError(table_failure("rate_limit", model), True, _retry_after(headers))
    by_status = {401: "auth", 403: "denied", 404: "not_found", 504: "timeout"}.get(status)
    if by_status is not None:
        return ClassifiedError(table_failure(by_status, model), by_status == "timeout")
    said = said_by_message(detail, model)
    if said is not None:
        return ClassifiedError(*said)
    if status >= 500:
        failure = JudgeFailure(
            "infrastructure", f"Judge model '{model}' failed with a server error: {detail}", "server"
        )
        return ClassifiedError(failure, True)
    failure = JudgeFailure("infrastructure", f"Judge model '{model}' rejected the request: {detail}", "bad_request")
    return ClassifiedError(failure, False)


def reply_of(raw: bytes, model: str, redact: Callable[[str], str]) -> Response:
    """A 2xx answer's chat completion; ClassifiedError (retried, as a 5xx) when it is not one."""
    try:
        data = json.loads(raw)
    except ValueError as exc:  # UnicodeDecodeError included
        said = f"APIError: {UNDECODABLE_BODY} - {exc}, Original Response: {raw.decode('utf-8', errors='replace')}"
        failure = JudgeFailure(
            "infrastructure",
            f"Judge model '{model}' sent a reply that is not JSON: {readable_detail(redact(said))}",
            "server",
        )
        raise ClassifiedError(failure, True) from None
    choices = data.get("choices") if isinstance(data, dict) else None
    if isinstance(data, dict) and choices is None:
        choices = []
    shaped = isinstance(choices, list) and all(
        isinstance(c, dict)
        and isinstance(c.get("message"), dict)
        and isinstance(c["message"].get("content"), (str, type(None)))
        for c in choices
    )
    if not shaped:
        snippet = readable_detail(redact(raw.decode("utf-8", errors="replace")))[:200]
        failure = JudgeFailure(
            "infrastructure", f"Judge model '{model}' sent a reply that is not a chat completion: {snippet}", "server"
        )
        raise ClassifiedError(failure, True)
    assert isinstance(data, dict) and isinstance(choices, list)
    return Response(_usage(data.get("usage")), [Choice(Message(c["message"].get("content"))) for c in choices])


def _usage(reported: Any) -> dict[str, int]:
    """Token counts as litellm's Usage model reads them (numbers and numeric strings; anything else 0)."""
    if not isinstance(reported, dict):
        return {}
    counts = {}
    for name in ("prompt_tokens", "completion_tokens"):
        value = reported.get(name)
        try:
            counts[name] = int(value) if value is not None and not isinstance(value, bool) else 0
        except (TypeError, ValueError):
            counts[name] = 0
    return counts


def _retry_after(headers: Mapping[str, str]) -> float | None:
    value = headers.get("retry-after") or headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else None
    except (TypeError, ValueError):
        return None
