"""Why a judge call produced no verdict: litellm's exceptions as categorised failures.

Every failure becomes a ``JudgeFailure`` (category infrastructure | parse | unknown, with a
finer ``kind``) whose message names the judge model and quotes what the server said,
never an API key; ``classify`` also says whether to retry and how long the server asked
to wait.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from rubric_lsp.engine.settings import PROVIDER_KEYS, provider_of
from rubric_lsp.redaction import environment_secrets
from rubric_lsp.redaction import redact as _redact

# The longest judge reply read (its message text): a verdict and its reason fit in far less.
MAX_REPLY_CHARS = 1_000_000


class JudgeFailure(Exception):
    """A judge call that produced no verdict.

    ``category``: ``infrastructure`` (transport/API), ``parse`` (unusable reply) or
    ``unknown``; ``kind`` is finer (rate_limit, timeout, auth, ...) for messages.
    """

    def __init__(self, category: str, message: str, kind: str = "other"):
        super().__init__(message)
        self.category = category
        self.kind = kind
        self.message = message

    @property
    def error(self) -> str:
        return f"{self.category}: {self.message}"


class GradingStopped(Exception):
    """A fault of the grading itself, not of one judge call (its run file cannot be written): it stops
    the whole grading at once. Never a judge failure, a verdict or a reason to retry; the message is
    one line saying what failed and what to do."""


class ClassifiedError(Exception):
    """A transport's failure it has already classified (the direct route, ``direct.py``): ``classify``
    passes its failure, retryability and Retry-After through unchanged."""

    def __init__(self, failure: JudgeFailure, retryable: bool, retry_after: float | None = None):
        super().__init__(failure.message)
        self.failure = failure
        self.retryable = retryable
        self.retry_after = retry_after


def secret_values(env: Mapping[str, str]) -> list[str]:
    values = []
    for variables in PROVIDER_KEYS.values():
        for variable in variables:
            value = env.get(variable)
            if value and len(value) >= 6:
                values.append(value)
    return values


def redact(text: str, env: Mapping[str, str]) -> str:
    return _redact(text, [*secret_values(env), *environment_secrets(env)])


def retry_after(exc: Exception) -> float | None:
    headers = None
    response = getattr(exc, "response", None)
    if response is not None:
        headers = getattr(response, "headers", None)
    headers = headers or getattr(exc, "litellm_response_headers", None) or {}
    try:
        value = headers.get("retry-after") or headers.get("Retry-After")
    except AttributeError:
        return None
    try:
        return max(0.0, float(value)) if value is not None else None
    except (TypeError, ValueError):
        return None


UNDECODABLE_BODY = "Unable to get json response"


_CONNECT_FAILURES = (
    "Cannot connect to host",
    "Connect call failed",
    "Connection error",
    "Connection refused",
    "Name or service not known",
    "nodename nor servname",
    "Temporary failure in name resolution",
)


def connection_failure_said(text: str) -> str | None:
    """What a connection failure says, shortly (``cannot connect to 127.0.0.1:9``), or None."""
    if not any(marker in text for marker in _CONNECT_FAILURES):
        return None
    host = re.search(r"Cannot connect to host (\S+)", text)
    if host:
        return f"cannot connect to {host.group(1)}"
    if "name resolution" in text or "not known" in text or "servname" in text:
        return "its host name does not resolve"
    return "the connection failed"


def readable_detail(text: str) -> str:
    """litellm's exception text without its prefixes; a JSON error body reduced to its message.

    ``litellm.InternalServerError: InternalServerError: Hosted_vllmException - {"error":
    {"message": "..."}}`` becomes ``InternalServerError: ...``: which of litellm's routes
    carried the call is not the user's business, the server's own words are.
    """
    text = re.sub(r"^litellm\.\w+:\s*", "", text.strip())
    text = re.sub(r"\b\w+Exception - ", "", text, count=1)
    text = re.sub(r"\s*ssl:(<[^>]*>|default)", "", text)
    match = re.match(r"^(\w+: )?(\{.*\})\s*$", text, re.S)
    if match:
        try:
            parsed = json.loads(match.group(2))
        except ValueError:
            parsed = None
        error = parsed.get("error") if isinstance(parsed, dict) else None
        message = error.get("message") if isinstance(error, dict) else error
        if isinstance(message, str) and message.strip():
            text = (match.group(1) or "") + message.strip()
    return text[:500]


# The error table: what a judge call that failed this way is called (a format's owner's wording,
# kept word for word: docs/grading.md says whose).
_TABLE = {
    "rate_limit": "is rate-limited.",
    "context_window": "exceeded its context window.",
    "timeout": "timed out.",
    "denied": "denied the request.",
    "not_found": "was not found.",
}


def table_failure(kind: str, model: str) -> JudgeFailure:
    """The error-table failure of ``kind`` (auth names the variable that authenticates the provider)."""
    if kind == "auth":
        variables = PROVIDER_KEYS.get(provider_of(model), ())
        hint = f" Set {' or '.join(variables)}." if variables else ""
        return JudgeFailure("infrastructure", f"Judge model '{model}' is not authenticated.{hint}", kind)
    return JudgeFailure("infrastructure", f"Judge model '{model}' {_TABLE[kind]}", kind)


# What a provider's error text says when its status code or litellm's exception type does not
# (a 400 for an over-long prompt, a connection error that is a timeout): the owner whose error
# table this is reads the text too, so its messages come out for these.
_MESSAGE_KINDS: tuple[tuple[str, re.Pattern[str], bool], ...] = (
    ("auth", re.compile(r"invalid api key|incorrect api key|missing authentication", re.I), False),
    ("rate_limit", re.compile(r"rate.?limit", re.I), True),
    ("context_window", re.compile(r"context.length|context_length|context window", re.I), False),
    ("timeout", re.compile(r"timed out|\btimeout\b", re.I), True),
    ("not_found", re.compile(r"model not found|unknown model|model .{0,80} does not exist", re.I), False),
)


def _is_api_error(exc: Exception, errors: Any) -> bool:
    """An error a provider or the transport raised (litellm's exceptions derive from openai's)."""
    try:
        import openai

        if isinstance(exc, openai.APIError):
            return True
    except ImportError:  # pragma: no cover
        pass
    return errors is not None and isinstance(exc, (errors.APIError, errors.APIConnectionError))


def said_by_message(text: str, model: str) -> tuple[JudgeFailure, bool, float | None] | None:
    for kind, pattern, retryable in _MESSAGE_KINDS:
        if pattern.search(text):
            return table_failure(kind, model), retryable, None
    return None


def _said_by_kind(
    exc: Exception, errors: Any, status: Any, model: str
) -> tuple[JudgeFailure, bool, float | None] | None:
    """The failures litellm names by exception class or HTTP status, each with its table message."""
    if isinstance(exc, errors.ContextWindowExceededError):
        return table_failure("context_window", model), False, None
    if isinstance(exc, errors.RateLimitError) or status == 429:
        return table_failure("rate_limit", model), True, retry_after(exc)
    if isinstance(exc, errors.Timeout):
        return table_failure("timeout", model), True, None
    if isinstance(exc, errors.AuthenticationError) or status == 401:
        return table_failure("auth", model), False, None
    if isinstance(exc, errors.PermissionDeniedError) or status == 403:
        return table_failure("denied", model), False, None
    if isinstance(exc, errors.NotFoundError) or status == 404:
        return table_failure("not_found", model), False, None
    return None


def classify(
    exc: Exception, model: str, env: Mapping[str, str], litellm: Any
) -> tuple[JudgeFailure, bool, float | None]:
    """(failure, retryable, retry_after) for an exception from ``litellm`` (the module, or None)."""
    if isinstance(exc, ClassifiedError):
        return exc.failure, exc.retryable, exc.retry_after
    errors = litellm.exceptions if litellm is not None else None
    name = type(exc).__name__
    detail = readable_detail(redact(str(exc), env))
    status = getattr(exc, "status_code", None)

    def failure(kind: str, message: str) -> JudgeFailure:
        return JudgeFailure("infrastructure", message, kind)

    unreachable = connection_failure_said(str(exc))
    if unreachable is not None:
        # litellm reports a refused or failed connection as an internal server error on some
        # routes; the user needs to hear that nothing answered, and where.
        return failure("connection", f"Judge model '{model}' could not be reached: {unreachable}."), True, None
    if errors is not None:
        known = _said_by_kind(exc, errors, status, model)
        if known is not None:
            return known
        if _is_api_error(exc, errors):
            said = said_by_message(detail, model)
            if said is not None:
                return said
        if isinstance(exc, errors.APIError) and UNDECODABLE_BODY in str(exc):
            # An HTTP body that is not JSON (a proxy's error page, a truncated answer): transient like a 5xx.
            return failure("server", f"Judge model '{model}' sent a reply that is not JSON: {detail}"), True, None
        if isinstance(exc, errors.APIConnectionError):
            # litellm wraps undecodable bodies as connection/internal errors too; both retry.
            return failure("connection", f"Judge model '{model}' could not be reached: {detail}"), True, None
        if isinstance(exc, (errors.InternalServerError, errors.ServiceUnavailableError, errors.BadGatewayError)) or (
            isinstance(status, int) and status >= 500
        ):
            return failure("server", f"Judge model '{model}' failed with a server error: {detail}"), True, None
        if isinstance(exc, (errors.BadRequestError, errors.UnprocessableEntityError, errors.UnsupportedParamsError)):
            return failure("bad_request", f"Judge model '{model}' rejected the request: {detail}"), False, None
        if isinstance(exc, errors.APIError):
            return failure("api", f"Judge model '{model}' failed: {detail}"), False, None
    if _is_api_error(exc, errors):
        return failure("api", f"Judge model '{model}' failed: {detail}"), False, None
    if isinstance(exc, (ValueError, json.JSONDecodeError)):
        return JudgeFailure("parse", f"The judge's reply could not be read: {detail}", "bad_reply"), False, None
    return JudgeFailure("unknown", f"{name}: {detail}", "other"), False, None
