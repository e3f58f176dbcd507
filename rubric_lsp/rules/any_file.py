"""Rules for any file we read: syntax, duplicates, YAML 1.1 pitfalls, hostile input."""

from __future__ import annotations

from rubric_lsp.diagnostics import Fix, Severity
from rubric_lsp.document import issues as K
from rubric_lsp.document.issues import TextEdit
from rubric_lsp.document.positions import Span
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import checker, rule

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

SYNTAX_ERROR = rule(
    "RL001",
    "syntax-error",
    E,
    "The file is not valid YAML/JSON.",
    "Nothing in a file that does not parse is used: the tool that reads it stops at the first error.",
    bad='criteria:\n  - requirement: "Cites sources\n    weight: 10',
    good='criteria:\n  - requirement: "Cites sources"\n    weight: 10',
)
DUPLICATE_KEY = rule(
    "RL002",
    "duplicate-key",
    E,
    "A mapping has the same key twice: an error where the owner refuses the file (promptfoo), a warning where it keeps the last value (autorubric, NorthStar).",
    "The severity follows the owner tool's loader. promptfoo's js-yaml refuses the whole file: an "
    "error. PyYAML and json.load (autorubric, NorthStar) keep the last value without a word, so "
    "the first one (often the one you edited) is silently dropped: a warning.",
    bad="- requirement: Cites sources\n  weight: 5\n  weight: 10",
    good="- requirement: Cites sources\n  weight: 10",
    checked_against="js-yaml 5.4.1 (promptfoo 0.123.1's parser: 'duplicated mapping key'); PyYAML and Python's json (autorubric 1.6.1, NorthStar) keep the last value",
)
HOSTILE_INPUT = rule(
    "RL003",
    "refused-input",
    E,
    "The file was refused before reading: too large, nested too deep, or an alias bomb.",
    "Alias expansion ('billion laughs'), extreme nesting and huge files make YAML tools hang or "
    "crash; the file is refused with one clear message instead.",
    bad=(
        "a: &a [x, x, x, x, x, x, x, x, x]\n"
        "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
        "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
        "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
        "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
    ),
)
INVALID_UTF8 = rule(
    "RL004",
    "invalid-utf8",
    E,
    "The file contains bytes that are not UTF-8.",
    "Rubric tools read files as UTF-8 and stop at the first invalid byte.",
    bad="requirement: caf\\xe9 (Latin-1 bytes)",
)
YAML11_VALUE = rule(
    "RL005",
    "yaml11-value",
    W,
    "An unquoted value means different things in YAML 1.1 and YAML 1.2 (yes/no/on/off, 010, 1:30, 1e3, 0o17).",
    "PyYAML (YAML 1.1, used by autorubric and NorthStar) reads `yes` as true, `010` as 8, `1:30` as 90 and "
    "`1e3` as the string '1e3'; YAML 1.2 tools (editors, other scripts) read them as the "
    "string 'yes', the numbers 10 and 1000.0 and the string '1:30'. The same file then means "
    "different things to different tools. Quoting makes it text for every tool; write `true`, "
    "`8` or `1000.0` when you mean the value. Not reported on promptfoo configs: promptfoo's "
    "js-yaml reads YAML 1.2, so the value means what a YAML 1.2 reader sees.",
    bad="label: yes\nvalue: 010\nweight: 1e3",
    good='label: "yes"\nvalue: 10\nweight: 1000.0',
    fix="quote the value",
    fix_safety="Safe by choice: the text is kept exactly as written and every tool then reads it as that text. Where you meant the YAML 1.1 boolean or number, write `true`/`false` or the number instead (the message says which); the quoting fix never guesses that for you.",
)
TRAILING_COMMA = rule(
    "RL006",
    "trailing-comma",
    E,
    "A JSON file has a comma before a closing bracket.",
    "JSON forbids trailing commas; json.load and every tool built on it reject the whole file.",
    bad='{"value": "no_issues",}',
    good='{"value": "no_issues"}',
    fix="remove the trailing commas",
    fix_safety="Safe: JSON readers refuse the file as written; removing the commas changes nothing else.",
    checked_against="Python's json module (json.load, as autorubric 1.6.1's Rubric.from_file and NorthStar's Dataset.from_json call it)",
)
UTF8_BOM = rule(
    "RL007",
    "utf8-bom",
    E,
    "A JSON file starts with a UTF-8 byte-order mark.",
    "autorubric and NorthStar read JSON with Python's json, which refuses a BOM (\"Unexpected UTF-8 BOM "
    '(decode using utf-8-sig)"): the file does not load at all. Some Windows editors add one when saving '
    'as "UTF-8 with BOM". Not reported on promptfoo configs, whose js-yaml skips it.',
    bad='\ufeff{"rubric": [{"requirement": "Cites sources"}]}',
    good='{"rubric": [{"requirement": "Cites sources"}]}',
    fix="delete the byte-order mark",
    fix_safety="Safe: the owner refuses the file as written; the mark carries no content.",
    checked_against="Python's json module (autorubric 1.6.1's Rubric.from_file, NorthStar's Dataset.from_json) and js-yaml 5.4.1 (promptfoo 0.123.1)",
)
UNREADABLE_FILE = rule(
    "RL008",
    "unreadable-file",
    E,
    "A file to lint cannot be read: a symlink loop or a dangling link, not a regular file (a FIFO, a device), or no permission.",
    "A folder run reports it and lints the rest; nothing that is not a regular file is ever opened, so a "
    "FIFO or a link to /dev/zero in a repository can neither hang nor exhaust the linter.",
)
INTERNAL_ERROR = rule(
    "RL900",
    "internal-error",
    E,
    "A check failed with an internal error.",
    "This is a bug in rubric-lint, reported so that it is never silent; the other checks still ran.",
)

_RULE_FOR_KIND = {
    K.SYNTAX_ERROR: SYNTAX_ERROR,
    K.DUPLICATE_KEY: DUPLICATE_KEY,
    K.TOO_LARGE: HOSTILE_INPUT,
    K.TOO_DEEP: HOSTILE_INPUT,
    K.ALIAS_BOMB: HOSTILE_INPUT,
    K.INVALID_UTF8: INVALID_UTF8,
    K.YAML11_BOOLEAN: YAML11_VALUE,
    K.YAML11_NUMBER: YAML11_VALUE,
    K.TRAILING_COMMA: TRAILING_COMMA,
    K.UTF8_BOM: UTF8_BOM,
}


# What a duplicate key or a YAML 1.1 value means depends on the owner's loader (Format.loader).
_LAST_VALUE_WINS = ("pyyaml",)  # duplicate keys load (last value kept): a warning, not a refusal
_YAML12_LOADERS = ("js-yaml",)  # YAML 1.2 core schema: RL005's YAML 1.1 readings do not apply


@checker("*")
def report_parse_issues(ctx: CheckContext) -> None:
    loader = ctx.loader
    for issue in ctx.document.issues:
        found = _RULE_FOR_KIND.get(issue.kind)
        if found is None:
            continue
        if found in (YAML11_VALUE, UTF8_BOM) and loader in _YAML12_LOADERS:
            continue
        severity = W if found is DUPLICATE_KEY and loader in _LAST_VALUE_WINS else None
        fix = None
        edits = list(issue.edits)
        if found is YAML11_VALUE:
            edits = [_value_only(ctx.document.text, edit) for edit in edits]
        if edits and found.fix:
            fix = Fix(found.fix[0].upper() + found.fix[1:], edits)
        message = issue.message
        if found is DUPLICATE_KEY and loader in _YAML12_LOADERS:
            message = message.split(":", 1)[0] + ": js-yaml refuses the whole file (duplicated mapping key)."
        ctx.report(found, issue.span, message, fix=fix, related=list(issue.related), severity=severity)


def _value_only(text: str, edit: TextEdit) -> TextEdit:
    """Quote only the scalar itself, never its node properties.

    A node's span starts at its anchor or tag (``&a on``, ``!!str on``); replacing all of it
    with the quoted value would drop the anchor, and a later ``*a`` would stop resolving.
    The quoted value is the raw scalar, and a plain scalar ends the span, so it is the tail.
    """
    raw = edit.new_text[1:-1]
    start, end = edit.span.start, edit.span.end
    if text[start:end] == raw or not raw or not text[start:end].endswith(raw):
        return edit
    return TextEdit(Span(end - len(raw), end), edit.new_text)


report_parse_issues.needs_nodes = False  # type: ignore[attr-defined]
