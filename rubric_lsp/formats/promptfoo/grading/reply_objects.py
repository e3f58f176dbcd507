"""The objects in a judge's reply as promptfoo 0.123.1 finds them (``extractJsonObjects``).

promptfoo scans for ``{``, counts braces (quotes not considered) up to a balanced ``}`` or the
end of the text (closing what is still open), turns ``//`` comments into ``#`` comments and
parses the candidate with js-yaml in JSON mode. So YAML flow mappings count as objects:
unquoted keys (``{pass: true, score: 0.7}``), single-quoted Python-ish dicts
(``{'pass': True}``), ``//`` comments and trailing commas are all read; a truncated string is
not. We parse with PyYAML's safe loader, which differs from js-yaml's JSON mode in YAML 1.1
scalars only (``yes``/``no``/``on``/``off`` are booleans there, strings in js-yaml; promptfoo
reads ``pass: "yes"`` as true anyway).
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_OBJECT_LENGTH = 100_000
_LETTER = re.compile(r"[a-zA-Z]")


def _escaped(line: str, index: int) -> bool:
    backslashes = 0
    position = index - 1
    while position >= 0 and line[position] == "\\":
        backslashes += 1
        position -= 1
    return backslashes % 2 == 1


def slash_comments_to_hash(text: str) -> str:
    """promptfoo's ``convertSlashCommentsToHash``: ``// x`` outside quotes becomes ``# x``
    (a ``://`` inside a URL-like token is left alone)."""
    lines = []
    for line in text.split("\n"):
        state = "normal"
        result = ""
        i = 0
        while i < len(line):
            char = line[i]
            next_char = line[i + 1] if i + 1 < len(line) else ""
            prev_char = line[i - 1] if i > 0 else ""
            if state == "normal":
                if char == "'" and not _LETTER.match(prev_char or " "):
                    state = "single"
                    result += char
                elif char == '"':
                    state = "double"
                    result += char
                elif char == "/" and next_char == "/":
                    token_start = 0
                    for j in range(i - 1, -1, -1):
                        if line[j].isspace():
                            token_start = j + 1
                            break
                    if "://" in line[token_start : i + 2]:
                        result += char
                        i += 1
                        continue
                    count = 2
                    while i + count < len(line) and line[i + count] == "/":
                        count += 1
                    result = result + "#" * (count // 2) + line[i + count :]
                    break
                else:
                    result += char
            elif state == "single":
                result += char
                if char == "'" and not _escaped(line, i) and not _LETTER.match(next_char or " "):
                    state = "normal"
            else:
                result += char
                if char == '"' and not _escaped(line, i):
                    state = "normal"
            i += 1
        lines.append(result)
    return "\n".join(lines)


def _load(candidate: str) -> Any:
    try:
        return json.loads(candidate)  # the common case, and exact
    except ValueError:
        pass
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(slash_comments_to_hash(candidate), Loader=loader)


def reply_objects(text: str) -> list[dict[str, Any]]:
    """Every object promptfoo's ``extractJsonObjects`` finds in ``text``, in order."""
    found: list[dict[str, Any]] = []
    i = 0
    length = len(text)
    while i < length:
        if text[i] != "{":
            i += 1
            continue
        opened, closed = 1, 0
        j = i + 1
        limit = min(i + MAX_OBJECT_LENGTH, length)
        next_start = i + 1
        while j < limit and opened > closed:
            if text[j] == "{":
                opened += 1
            elif text[j] == "}":
                closed += 1
            j += 1
            if opened == closed or j == length or j == i + MAX_OBJECT_LENGTH:
                candidate = text[i:j] + "}" * max(0, opened - closed)
                try:
                    value = _load(candidate)
                except Exception:
                    value = None
                    if opened == closed:
                        break
                    continue
                if isinstance(value, dict):
                    found.append(value)
                    next_start = j
                    break
                if opened == closed:
                    break
        i = next_start
    return found
