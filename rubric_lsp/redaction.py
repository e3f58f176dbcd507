"""Keeping API keys out of everything rubric-lsp shows, logs or stores.

Two entry points, both stdlib-only (the lint path imports this):

- ``redact(text, secrets)``: every known secret value (and anything shaped like an OpenAI-style
  key or a bearer token) becomes ``***``. The grading engine applies it to every judge reply,
  once, before the reply is parsed, shown, logged or cached (``engine/judge.py``).
- ``redact_report(text)``: what a report may print. On top of ``redact`` with the keys found in
  the environment, the value of every secret-named entry (``apiKey: …``, ``"Authorization":
  "Bearer …"``) becomes ``***``: a fix may carry a key the user wrote into their own file, but a
  report (text, JSON, SARIF, GitHub annotations, the server's titles and logs) must not print it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import logging

MASK = "***"
MIN_SECRET_LENGTH = 8  # shorter values ("dummy", "none") are placeholders, and masking them would garble text

# Environment variables that hold credentials: OPENAI_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY,
# AWS_ACCESS_KEY_ID, AWS_BEARER_TOKEN_BEDROCK, ...
_SECRET_VARIABLE = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|KEY_ID|BEDROCK)$|_KEY_|_TOKEN_|SECRET", re.I)

_NOT_SECRET_NAMES = {"key", "keys"}  # "unknown key: foo" in a message names a mapping key, not a credential

_KEY_SHAPES = (
    # (a substring the text must hold, lower-cased; pattern; replacement)
    # OpenAI / Anthropic / OpenRouter style keys: keep the prefix so a person can tell which key it was.
    ("k-", re.compile(r"\b((?:sk|rk|pk)-[A-Za-z0-9]{0,4})[A-Za-z0-9_\-]{8,}"), r"\1" + MASK),
    ("bearer", re.compile(r"\b(Bearer\s+)[A-Za-z0-9._~+/=\-]{6,}", re.I), r"\1" + MASK),
)

# A secret-named entry is found from its separator: the name before it (``apiKey``, ``"x-api-key"``,
# ``Authorization``), the value after it (double-quoted with escapes, single-quoted, or bare to the end
# of the entry). Scanning separators with str.find is ~50x cheaper than one regex over every position.
_SECRET_SUFFIXES = ("key", "token", "secret", "password", "passwd", "authorization", "credential", "credentials")
_VALUE = re.compile(r"""[ \t]*("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s,{}\[\]\n#'"][^,}\]\n#]*)""")
_HINTS = ("key", "token", "secret", "passw", "authoriz", "credential", "bearer", "sk-", "rk-", "pk-")
_TEMPLATE = re.compile(r"^[\"']?\s*(\{\{.*\}\}|\$\{[^}]*\}|\*\*\*)\s*[\"']?$")  # {{env.X}}, ${X}, already masked


def environment_secrets(env: Mapping[str, str] | None = None) -> list[str]:
    """The credential values in ``env`` (default: the process environment)."""
    env = os.environ if env is None else env
    return [
        value
        for name, value in env.items()
        if _SECRET_VARIABLE.search(name) and isinstance(value, str) and len(value.strip()) >= MIN_SECRET_LENGTH
    ]


class Redactor:
    """``redact`` over a fixed set of secrets, compiled once (reports apply it to thousands of strings)."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        plain = {s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH}
        # A judge may quote a key encoded: its base64 (alone or inside a longer encoded text) and URL forms.
        encoded = {form for secret in plain for form in encoded_forms(secret)}
        values = sorted(plain | encoded, key=len, reverse=True)
        # Longest first, so a key that contains another is masked whole.
        self._known = re.compile("|".join(map(re.escape, values))) if values else None

    def __call__(self, text: str) -> str:
        if not text:
            return text
        if self._known is not None:
            text = self._known.sub(MASK, text)
        low = text.lower()
        for hint, pattern, replacement in _KEY_SHAPES:
            if hint in low:
                text = pattern.sub(replacement, text)
        return text

    def report(self, text: str) -> str:
        """What a report may print of ``text``: also every secret-named entry's value masked."""
        if not text:
            return text
        return self(_mask_entries(text) if _may_hold_key(text) else text)


def encoded_forms(secret: str) -> set[str]:
    """The base64 (standard and URL-safe, at each of the three byte alignments inside a longer encoded
    text) and URL-encoded forms of ``secret``: what a reply could carry instead of the key itself."""
    import base64  # here, as urllib below: only when there is a key to look for

    raw = secret.encode("utf-8")
    forms: set[str] = set()
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw).decode("ascii")
        # Only the characters that depend on the key's bytes alone: not those shared with a neighbour.
        start = -(-offset * 4 // 3)
        end = (offset + len(raw)) // 3 * 4
        core = encoded[start:end]
        if len(core) >= MIN_SECRET_LENGTH:
            forms |= {core, core.replace("+", "-").replace("/", "_")}
    whole = base64.b64encode(raw).decode("ascii")
    forms |= {whole, whole.rstrip("="), base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")}
    import urllib.parse  # here: a key is encoded only when a judge is called, never on the lint path

    forms |= {urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret)}
    forms.discard(secret)
    return {form for form in forms if len(form) >= MIN_SECRET_LENGTH}


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every value in ``secrets`` and every key-shaped string replaced by ``***``."""
    return Redactor(secrets)(text)


def _may_hold_key(text: str) -> bool:
    low = text.lower()
    return any(hint in low for hint in _HINTS)


def _name_before(text: str, sep: int) -> str:
    """The (lower-cased) word that ends just before ``sep``, past blanks and a closing quote."""
    end = sep
    while end > 0 and text[end - 1] in " \t":
        end -= 1
    if end > 0 and text[end - 1] in "\"'":
        end -= 1
    start = end
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_-"):
        start -= 1
    return text[start:end].lower()


def _mask_entries(text: str) -> str:
    """``text`` with the value of every secret-named ``name: value`` / ``name = value`` masked."""
    out: list[str] = []
    done = 0
    for sep in (m.start() for m in re.finditer("[:=]", text)):
        if sep < done:
            continue
        word = _name_before(text, sep)
        if not word.endswith(_SECRET_SUFFIXES) or word in _NOT_SECRET_NAMES:
            continue
        value = _VALUE.match(text, sep + 1)
        if value is None or _TEMPLATE.match(value.group(1).strip()):
            continue
        raw = value.group(1)
        quote = raw[0] if raw[0] in "\"'" else ""
        out.append(text[done : value.start(1)])
        out.append(f"{quote}{MASK}{quote}")
        done = value.end(1)
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)


def report_redactor(secrets: Iterable[str | None] = ()) -> Redactor:
    """A redactor for a report: the keys in the environment now, plus ``secrets``."""
    return Redactor([*environment_secrets(), *secrets])


def redact_report(text: str, secrets: Iterable[str | None] = ()) -> str:
    """What a report may print of ``text`` (a message, a fix title, a fix's new text, a log line)."""
    return report_redactor(secrets).report(text) if text else text


class RedactingFilter:
    """A log handler filter: every record's text as a report may print it (see ``redact_report``). Any object
    with a ``filter`` method is one (``logging.Filterer``): no subclass, so the lint path never imports logging."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:
            return True
        redacted = redact_report(message)
        if redacted != message:
            record.msg, record.args = redacted, ()
        if record.exc_info and not record.exc_text:
            import logging

            record.exc_text = redact_report(logging.Formatter().formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = redact_report(record.exc_text)
        return True
