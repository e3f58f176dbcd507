"""A ``regex`` value JavaScript's RegExp refuses (PF125).

promptfoo 0.123.1's ``handleRegex`` (src/assertions/regex.ts) compiles the rendered value with
``new RegExp(renderedValue)``; when V8 refuses it, the assertion fails with "Invalid regex pattern:
Invalid regular expression: /…/: …" on every output, and ``not-regex`` fails too (the refusal is
not inverted). Python's syntax is the usual cause: ``(?P<name>…)``, inline flags ``(?i)``,
possessive ``a++``. What V8 refuses is decided by ``js_regex`` without running JavaScript (the lint
path never loads the grading's engine; tests/test_promptfoo_js_regex.py proves both).
"""

from __future__ import annotations

from rubric_lsp.formats.promptfoo import CONFIG
from rubric_lsp.formats.promptfoo.assertion_types import base_type
from rubric_lsp.formats.promptfoo.js_regex import refusal
from rubric_lsp.formats.promptfoo.rules.common import E, Reporter, config_view
from rubric_lsp.formats.registry import checker
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule

JS_REFUSES_REGEX = rule(
    "PF125",
    "regex-javascript-refuses",
    E,
    "A regex (or not-regex) pattern JavaScript's RegExp refuses: the assertion fails on every output.",
    "promptfoo 0.123.1 tests a regex assertion with `new RegExp(value).test(output)`, in Node. A pattern V8 "
    "refuses ('Invalid regular expression: /(?P<n>\\d+)/: Invalid group') fails the assertion every run, and "
    "not-regex fails too. Python's regex syntax is the usual cause: JavaScript names a group `(?<n>…)`, not "
    "`(?P<n>…)`, has no inline flags `(?i)` (write `[Pp]aris`, or use icontains), and no possessive `a++`. "
    "Checked against V8 itself on generated patterns.",
    bad="prompts: ['Say {{x}}']\nproviders: [echo]\ntests:\n  - assert:\n      - type: regex\n        value: '(?P<n>\\d+)'",
    good="prompts: ['Say {{x}}']\nproviders: [echo]\ntests:\n  - assert:\n      - type: regex\n        value: '(?<n>\\d+)'",
    formats=(CONFIG,),
    checked_against="promptfoo 0.123.1's src/assertions/regex.ts (new RegExp(renderedValue)) and V8's RegExp parser",
)

# What Python's re has and JavaScript writes otherwise (a hint, when the pattern holds it).
_PYTHON_HINTS = (
    ("(?P<", "JavaScript names a group (?<name>…), not (?P<name>…)"),
    ("(?P=", "JavaScript refers to a named group with \\k<name>, not (?P=name)"),
    ("(?#", "JavaScript has no (?#…) comments"),
    ("(?i)", "JavaScript has no inline flags: spell both cases ([Pp]aris) or use icontains"),
    ("++", "JavaScript has no possessive quantifiers: drop the second +"),
    ("*+", "JavaScript has no possessive quantifiers: drop the +"),
)


@checker(CONFIG)
def check_regex_values(ctx: CheckContext) -> None:
    root = ctx.document.root
    if root is None or not root.is_map:
        return
    view = config_view(ctx)
    if view is None:
        return
    report = Reporter(ctx)
    for a in view.assertions():
        if a.type is None or base_type(a.type) != "regex" or not a.node.is_map:
            continue
        value = a.field("value")
        pattern = value.value if value is not None and value.is_scalar else None
        # A templated value is rendered with each test's vars first; a file's is read at run time.
        if not isinstance(pattern, str) or not pattern or "{{" in pattern or "{%" in pattern:
            continue
        if pattern.startswith(("file://", "package:")):
            continue
        refused = refusal(pattern)
        if refused is None:
            continue
        assert value is not None
        hint = next((f" {text}." for marker, text in _PYTHON_HINTS if marker in pattern), "")
        report(
            JS_REFUSES_REGEX,
            a.source,
            value,
            f"JavaScript's RegExp refuses this pattern ('Invalid regular expression: /{pattern}/: {refused}'), "
            f"so this {a.type} fails on every output.{hint}",
        )
