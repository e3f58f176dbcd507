"""Batch mode's files (engine/sources/batch.py): each request line of an input file; the status line of a
batch being followed; the output and error files streamed to a temporary file, and each result line
read as the response object ``transports.reply_content`` reads. A line the provider wrote wrong fails its own call (``response`` raises a
``JudgeFailure``; ``BatchMode._record`` turns any other error of one line into one too), never the run."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from types import SimpleNamespace
from typing import IO, Any, Protocol

from rubric_lsp.engine.failures import JudgeFailure
from rubric_lsp.engine.settings import JudgeSettings, provider_of
from rubric_lsp.engine.store.cache import VerdictCache
from rubric_lsp.engine.transports.via_litellm import OPENAI_API_HOSTS, loaded_litellm
from rubric_lsp.engine.usage import token_count

ENDPOINT = "/v1/chat/completions"
PROVIDERS = {"openai": "openai", "hosted_vllm": "openai", "azure": "azure"}  # litellm's, for the files API


class Judge(Protocol):
    """What batch mode reads of the judge whose calls it sends (``judge.Judge``; batch mode sits
    below it: the judge hands its calls here)."""

    model: str
    settings: JudgeSettings
    cache: VerdictCache | None

    @property
    def api_key(self) -> str | None: ...

    def redacted(self, content: str) -> str: ...


def status_line(batch_id: str, status: str, batch: Any, elapsed: float) -> str:
    counts = getattr(batch, "request_counts", None)
    done = getattr(counts, "completed", None) or 0
    failed = getattr(counts, "failed", None) or 0
    total = getattr(counts, "total", None) or 0
    minutes, seconds = divmod(int(elapsed), 60)
    return f"batch {batch_id}: {status}, {done}/{total} done, {failed} failed, {minutes}m{seconds:02d}s"


async def download(litellm: Any, file_id: str, provider: str, target: dict[str, Any], sink: IO[bytes]) -> None:
    """Append a result file to ``sink`` as it arrives, through litellm's streaming path (OpenAI and
    OpenAI-compatible servers); a provider it cannot stream from (Azure) gives the content whole."""
    content = await litellm.afile_content(file_id=file_id, custom_llm_provider=provider, stream=True, **target)
    stream = getattr(content, "stream_iterator", None)
    if stream is not None:
        try:
            async for chunk in stream:
                sink.write(chunk)
        finally:
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()  # releases the connection when the loop stopped early
    else:
        raw = content.content if hasattr(content, "content") else content
        sink.write(raw if isinstance(raw, bytes) else str(raw).encode("utf-8"))
    sink.write(b"\n")  # the next file's first line starts a line of its own


def lines(results: IO[bytes]) -> Iterator[dict[str, Any]]:
    """The result files' lines, read and parsed one at a time (50,000 parsed lines at once would be ~100 MB)."""
    for line in results:
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # an unreadable line leaves its call unanswered: it fails with the batch's message
        if isinstance(entry, dict):
            yield entry


_CUSTOM_ID = re.compile(rb'"custom_id"\s*:\s*"((?:[^"\\]|\\.)*)"')


def answered_twice(results: IO[bytes]) -> set[str]:
    """The custom_ids the result files answer more than once (the file is read again from its start after).

    A cheap scan of the raw lines (no JSON parse): a duplicate is rare, but a reply that cannot be told
    from another must never be taken silently."""
    seen: set[bytes] = set()
    twice: set[bytes] = set()
    results.seek(0)
    for line in results:
        match = _CUSTOM_ID.search(line)
        if match is not None:
            key = match.group(1)
            (twice if key in seen else seen).add(key)
    results.seek(0)
    return {json.loads(b'"' + key + b'"') for key in twice}


def response(line: dict[str, Any], judge: Judge) -> Any:
    """An output line as the object ``transports.reply_content`` reads (usage, choices[0].message, cost); a
    failed line raises the JudgeFailure it means."""
    response = mapping(line.get("response"))
    error = line.get("error")
    status = response.get("status_code")
    body = mapping(response.get("body"))
    if error or status != 200:
        detail = error if isinstance(error, dict) else (body.get("error") or {})
        message = detail.get("message") if isinstance(detail, dict) else None
        code = detail.get("code") if isinstance(detail, dict) else None
        if code == "batch_expired":
            message = "the batch expired before the provider ran it (24 h completion window)"
        what = f"HTTP {status}" if status else str(code or "an error")
        text = judge.redacted(str(message or "no message"))
        kind = (
            "rate_limit" if status == 429 else ("server" if isinstance(status, int) and status >= 500 else "batch_line")
        )
        raise JudgeFailure(
            "infrastructure", f"Judge model '{judge.model}' failed this call in a batch ({what}): {text}", kind
        )
    choices = [
        SimpleNamespace(message=SimpleNamespace(**choice["message"]))
        for choice in body.get("choices") or []
        if isinstance(choice, dict) and isinstance(choice.get("message"), dict)
    ]
    usage = mapping(body.get("usage"))
    cost = line_cost(judge.model, judge.settings.api_base, usage)
    return SimpleNamespace(usage=usage, choices=choices, _hidden_params={"response_cost": cost})


def mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def line_cost(model: str, api_base: str | None, usage: dict[str, Any]) -> float | None:
    litellm = loaded_litellm()
    name = model.split("/", 1)[-1]
    prices = (litellm.model_cost.get(model) or litellm.model_cost.get(name)) if litellm is not None else None
    if not prices:
        local = bool(api_base) and not any(host in (api_base or "") for host in OPENAI_API_HOSTS)
        return 0.0 if local else None
    prompt, completion = token_count(usage, "prompt_tokens"), token_count(usage, "completion_tokens")
    price_in = prices.get("input_cost_per_token_batches")
    price_out = prices.get("output_cost_per_token_batches")
    if price_in is None or price_out is None:
        live_in, live_out = prices.get("input_cost_per_token"), prices.get("output_cost_per_token")
        if live_in is None or live_out is None:
            return None
        price_in, price_out = live_in / 2, live_out / 2
    return prompt * float(price_in) + completion * float(price_out)


def body(model: str, fields: dict[str, Any]) -> dict[str, Any]:
    """A batch line's request body: the chat-completions request live grading sends, addressed to the
    provider's own model name (the deployment on Azure), its parameters mapped by litellm as for a live
    call (``max_completion_tokens`` and no ``temperature`` for OpenAI's reasoning models, unsupported
    ones dropped); never a credential."""
    name = model.split("/", 1)[1] if "/" in model else model
    given = {p: fields[p] for p in ("temperature", "max_tokens", "response_format") if p in fields}
    try:
        from litellm.utils import get_optional_params

        mapped = get_optional_params(
            model=name, custom_llm_provider=PROVIDERS.get(provider_of(model), "openai"), drop_params=True, **given
        )
        params = {p: v for p, v in mapped.items() if p not in ("stream", "extra_body") and v is not None}
    except Exception:  # a mapping litellm cannot make: send the parameters as given
        params = given
    return {"model": name, "messages": fields["messages"], **params}


def line(model: str, key: str, fields: dict[str, Any]) -> bytes:
    entry = {"custom_id": key, "method": "POST", "url": ENDPOINT, "body": body(model, fields)}
    return (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
