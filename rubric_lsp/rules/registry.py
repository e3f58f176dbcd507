"""The rule registry: every check's code, severity and documentation in one place.

Rules are metadata; the logic that finds them lives in checkers (one per format or
concern) that report through :class:`rubric_lsp.rules.context.CheckContext`. Docs for
the CLI, the README table and the server's hover are all generated from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from textwrap import dedent

from rubric_lsp.diagnostics import Severity

DOCS_BASE = "https://github.com/rubric-lsp/rubric-lsp/blob/main/docs/rules.md"

_RULES: dict[str, Rule] = {}


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
        if self.fix_safety:
            parts += ["", "**Fix safety:** " + self.fix_safety]
        if self.formats != ("*",):
            parts += ["", "Applies to: " + ", ".join(self.formats)]
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
    )
    _RULES[code] = defined
    return defined


def all_rules() -> list[Rule]:
    _load_all()
    return sorted(_RULES.values(), key=lambda r: r.code)


def get_rule(code: str) -> Rule | None:
    _load_all()
    return _RULES.get(code.upper())


def registered_rule(code: str) -> Rule | None:
    """A rule already registered, without importing every format (for reporters: the
    rules of the findings they print are registered by the checks that reported them)."""
    return _RULES.get(code.upper())


def _load_all() -> None:
    # Importing the checkers registers their rules.
    from rubric_lsp.formats import registry

    registry.load_all_checkers()
