"""The rule registry: every check's code, severity and documentation in one place, and the
checkers that report them.

Rules are metadata (``rule()``); the logic that finds them lives in checkers (``@checker``,
one per format or concern) that report through :class:`rubric_lsp.rules.context.CheckContext`.
Both are registered here, below the formats: a format's rules module imports them, and the
format registry (``formats/registry.py``) imports each format's checkers the first time they
are needed. Docs for the CLI, the README table and the server's hover are all generated from
the rules of every format (``formats.registry.all_rules``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from textwrap import dedent
from typing import Any

from rubric_lsp.diagnostics import Severity

DOCS_BASE = "https://github.com/rubric-lsp/rubric-lsp/blob/main/docs/rules.md"

Checker = Callable[[Any], None]  # (CheckContext) -> None

_RULES: dict[str, Rule] = {}
_CHECKERS: dict[str, list[Checker]] = {}  # format name ("*": every file read) -> its checkers


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    summary: str
    rationale: str
    bad: str = ""
    good: str = ""
    fix: str | None = None  # what the fix does; None when no single edit repairs it
    formats: tuple[str, ...] = ("*",)
    # Why the fix is safe (applied by --fix) or unsafe (offered, applied with --unsafe-fixes).
    fix_safety: str = ""
    # The owner's release and source files a claim about its behaviour ("promptfoo refuses …")
    # was read in, e.g. "promptfoo 0.123.1's src/util/config/load.ts"; docs print it under the rationale.
    checked_against: str = ""
    # Off unless its code is selected by name (``select``/``extend-select``): a rule whose findings are
    # too often wrong to show by default (docs/smells.md says which and why).
    opt_in: bool = False
    # Codes that say the same and more: a finding of this rule is dropped where one of theirs overlaps it
    # (AR019 defers to RL301, which names the two parts and offers the split, when the smell rules run).
    defers_to: tuple[str, ...] = ()

    @property
    def docs_url(self) -> str:
        return f"{DOCS_BASE}#{self.code.lower()}"

    @property
    def fixable(self) -> bool:
        return self.fix is not None

    def markdown(self) -> str:
        parts = [
            f"## {self.code} `{self.name}` ({self.severity.label})",
            "",
            self.summary,
            "",
            "**Why:** " + self.rationale,
        ]
        if self.checked_against:
            parts += ["", f"**Checked against:** {self.checked_against}."]
        if self.bad:
            parts += ["", "Trips it:", "```", self.bad.rstrip(), "```"]
        if self.good:
            parts += ["", "Does not:", "```", self.good.rstrip(), "```"]
        parts += ["", f"**Fix:** {self.fix}" if self.fix else "**Fix:** none automatic."]
        if self.defers_to:
            parts += ["", f"Not reported where {' or '.join(self.defers_to)} reports the same words."]
        if self.fix_safety:
            parts += ["", "**Fix safety:** " + self.fix_safety]
        if self.formats != ("*",):
            parts += ["", "Applies to: " + ", ".join(self.formats)]
        if self.opt_in:
            parts += ["", f"**Off by default:** runs only when `{self.code}` is selected by its code."]
        return "\n".join(parts)


def rule(
    code: str,
    name: str,
    severity: Severity,
    summary: str,
    rationale: str,
    *,
    bad: str = "",
    good: str = "",
    fix: str | None = None,
    formats: tuple[str, ...] = ("*",),
    fix_safety: str = "",
    checked_against: str = "",
    opt_in: bool = False,
    defers_to: tuple[str, ...] = (),
) -> Rule:
    """Define and register a rule (codes are unique and stable: never reuse one)."""
    if code in _RULES:
        raise ValueError(f"rule {code} defined twice")
    defined = Rule(
        code,
        name,
        severity,
        dedent(summary).strip(),
        dedent(rationale).strip(),
        dedent(bad).strip("\n"),
        dedent(good).strip("\n"),
        fix,
        formats,
        " ".join(dedent(fix_safety).split()),
        checked_against.strip().rstrip("."),
        opt_in,
        defers_to,
    )
    _RULES[code] = defined
    return defined


def registered_rules() -> list[Rule]:
    """The rules registered so far, by code (``formats.registry.all_rules``: every format's)."""
    return sorted(_RULES.values(), key=lambda r: r.code)


def registered_rule(code: str) -> Rule | None:
    """A rule already registered, without importing every format (for reporters: the
    rules of the findings they print are registered by the checks that reported them)."""
    return _RULES.get(code.upper())


def checker(format_names: str | Iterable[str]) -> Callable[[Checker], Checker]:
    """Decorator: run this checker on documents of the given format(s) ("*" = all read)."""
    names = [format_names] if isinstance(format_names, str) else list(format_names)

    def wrap(fn: Checker) -> Checker:
        for name in names:
            _CHECKERS.setdefault(name, []).append(fn)
        return fn

    return wrap


def registered_checkers(format_name: str) -> list[Checker]:
    """The checkers registered so far for ``format_name`` (``formats.registry.checkers_for``
    imports a format's checker modules first)."""
    return list(_CHECKERS.get(format_name, ()))


def forget_checkers(format_name: str) -> None:
    """Drop the checkers registered for a format (it was unregistered)."""
    _CHECKERS.pop(format_name, None)
