"""What PyYAML's pure-Python ``SafeLoader`` refuses that libyaml's composition accepts.

Documents are composed with libyaml (``yaml_reader``: ~10x faster, exact marks). autorubric
loads rubrics with ``yaml.safe_load`` — the pure-Python loader — and the two disagree on a
few constructs: ``?`` or a tab inside a flow collection (its scanner refuses them), unknown
tags (``!needs-review``), a tag that does not fit its value (``!!int abc``), the scalar ``=``
(tagged ``tag:yaml.org,2002:value``, which ``SafeConstructor`` cannot build), odd merge keys
(``<<: null``, ``name: <<``), a flow collection as a key (unhashable), an impossible date.

Running the pure loader on every file would cost several times the whole lint, so a cheap
scan first looks for the characters those constructs need; only a file that has one is
loaded (``bench/bench_lint.py`` measures both). A format whose owner reads with
``SafeLoader`` asks for the check; the document layer only says what the loader said.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

# Above this size the pure loader is not run (it takes seconds there); owners' rubrics are far smaller.
MAX_PURE_LOAD_CHARS = 1 << 20

# Constructs the pure loader can refuse, found without parsing, each behind a substring test
# (a C-speed ``in``) so that a file without the character pays no regex: a tag ("!"), a
# directive ("%"), a complex key ("? "), a lone "=", "<<" (a merge key or value), a flow
# collection used as a key ("]:" / "}:"), a date-like scalar (an impossible date raises),
# "0x_" / "0b_" (no digits: int() raises), a control character.
_GATED = (
    ("!", re.compile(r"(?:^|[\s\[{,:])!", re.MULTILINE)),
    ("%", re.compile(r"^%", re.MULTILINE)),
    ("?", re.compile(r"^[ \t-]*\?(?:[ \t]|$)", re.MULTILINE)),
    ("=", re.compile(r"(?:^|[\s:,\[{-])=(?=[ \t]*(?:$|[,\]}#]))", re.MULTILINE)),
    ("<<", None),
    ("0x_", None),
    ("0b_", None),
)
# Each starts with a literal character, which the regex engine finds at C speed.
_FLOW_KEYS = (re.compile(r"\][ \t]*:(?:\s|$)"), re.compile(r"\}[ \t]*:(?:\s|$)"))
_DATE_TAIL = re.compile(r"-[0-9][0-9]?-[0-9]")  # of YYYY-M-D; the year is checked on each (rare) hit
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f]")
_FLOW_TOKENS = re.compile(r"[\[\]{}?\t]")


@dataclass(frozen=True)
class Refusal:
    offset: int  # where the loader stopped (a code-point offset into the text)
    problem: str  # what it said, one line


def _flow_question_or_tab(text: str) -> bool:
    """A '?' or a tab that may sit inside a flow collection (brackets counted, quotes ignored)."""
    if ("?" not in text and "\t" not in text) or ("[" not in text and "{" not in text):
        return False
    depth = 0
    for token in _FLOW_TOKENS.finditer(text):
        char = token.group()
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth = max(0, depth - 1)
        elif depth:
            return True
    return False


def suspicious(text: str) -> bool:
    """Whether ``text`` holds anything the pure loader might refuse (false positives only cost time)."""
    if _flow_question_or_tab(text) or _CONTROL.search(text) is not None:
        return True
    if any(pattern.search(text) is not None for pattern in _FLOW_KEYS):
        return True
    if any(text[max(0, m.start() - 4) : m.start()].isdigit() for m in _DATE_TAIL.finditer(text)):
        return True
    return any(mark in text and (pattern is None or pattern.search(text) is not None) for mark, pattern in _GATED)


def pure_loader_refusal(text: str) -> Refusal | None:
    """What ``yaml.safe_load(text)`` (PyYAML's pure-Python loader) raises on, or None if it loads.

    Cheap when the scan finds nothing suspicious. Never raises.
    """
    if len(text) > MAX_PURE_LOAD_CHARS or not suspicious(text):
        return None
    try:
        yaml.load(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        parts = [p for p in (exc.context, exc.problem) if p]
        return Refusal(mark.index if mark is not None else 0, "; ".join(parts) or str(exc))
    except yaml.YAMLError as exc:
        return Refusal(0, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    except RecursionError:
        return None  # the document layer refuses deep nesting itself (RL003)
    except Exception as exc:  # a constructor crash (an impossible date, `!!bool maybe`): autorubric raises it too
        return Refusal(_failing_scalar(text), f"{type(exc).__name__}: {exc}")
    return None


def _failing_scalar(text: str) -> int:
    """Where a constructor crash without a mark came from: the first scalar that cannot be built."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except Exception:
        return 0
    constructor = yaml.SafeLoader("")
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.ScalarNode):
            try:
                constructor.construct_object(node)
            except Exception:
                return node.start_mark.index
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(reversed(node.value))
        elif isinstance(node, yaml.MappingNode):
            for key, value in reversed(node.value):
                stack.extend((value, key))
    return 0
