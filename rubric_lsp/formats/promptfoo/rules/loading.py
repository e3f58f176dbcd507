"""What promptfoo's YAML reader refuses that our reader (libyaml) accepts (issue 24, item 6).

Not checked here: an explicit core tag js-yaml's resolver rejects (`!!bool yes`); duplicate
keys are RL002's.

promptfoo 0.123.1 reads a config with ``loadYaml`` (``src/util/yamlLoad.ts``: js-yaml 5.4.1's
``loadAll``); where js-yaml's parser throws, ``promptfoo eval`` and ``promptfoo validate`` stop
before reading anything. ``rubric_lsp.document.js_yaml`` ports that parser; it runs only when
a cheap scan finds a construct the two readers can judge differently.
"""

from __future__ import annotations

import re

from rubric_lsp.document import Document, Span
from rubric_lsp.document import issues as K
from rubric_lsp.document.nodes import MAP, SCALAR, SEQ, walk
from rubric_lsp.formats.promptfoo import CONFIG
from rubric_lsp.formats.promptfoo.rules.common import E, F, Reporter, config_view
from rubric_lsp.formats.registry import checker
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule

JS_YAML_REFUSES = rule(
    "PF116",
    "js-yaml-refuses",
    E,
    "promptfoo's YAML reader (js-yaml 5.4.1) refuses the file, though editors and libyaml-based tools read it.",
    "promptfoo 0.123.1 loads configs with js-yaml 5.4.1, whose parser tracks indentation differently "
    "from libyaml (editors, PyYAML, most linters). Text they accept can stop js-yaml: a continuation line "
    "of a flow collection (`[...]`, `{...}`) or of a quoted string left of where js-yaml expects it "
    '("deficient indentation": at least one column right of the key that holds the value), a tab inside '
    "a flow collection on a line indented less than that, a comment glued to a closing quote "
    "(`'text'#note`), a whitespace-only line after an empty block scalar; and its constructor refuses a tag "
    "outside promptfoo's schema (`!include`, `!env`, `!!python/tuple`; the core tags, `!!binary`, "
    "`!!timestamp`, `!!set`, `!!omap`, `!!pairs` and `<<` merges are known) or a collection used as a "
    "mapping key (`[a, b]: c`). `promptfoo eval` and "
    "`promptfoo validate` then stop with a YAMLException (js-yaml's message and line:column, quoted in "
    "the finding) before reading anything; the same holds for a YAML test file the config names "
    "(`tests: file://tests.yaml`), reported at the reference. Indent the continuation lines further, or write the value on "
    "one line or as a block scalar (`|`). Checked against js-yaml 5.4.1's parser, the one promptfoo "
    "0.123.1 pins.",
    bad="""
        prompts:
          - 'Classify: {{ticket}}'
        providers:
          - openai:gpt-4.1-mini
        tests:
          - vars:
              ticket: Refund not received
              topics: [billing,
              refunds]
    """,
    good="""
        prompts:
          - 'Classify: {{ticket}}'
        providers:
          - openai:gpt-4.1-mini
        tests:
          - vars:
              ticket: Refund not received
              topics: [billing,
                refunds]
    """,
    formats=F,
    checked_against="js-yaml 5.4.1 (the release promptfoo 0.123.1 pins), through promptfoo's own loadYaml schema "
    "(src/util/yamlLoad.ts) run on each case",
)


@checker(CONFIG)
def check_js_yaml(ctx: CheckContext) -> None:
    """The config, and the YAML test files it names (promptfoo's readTestFiles reads them with loadYaml too)."""
    if not ctx.enabled(JS_YAML_REFUSES) or ctx.document.root is None:
        return
    found = _refusal(ctx.document)
    if found is not None:
        ctx.report(JS_YAML_REFUSES, *found)
    view = config_view(ctx)
    if view is None:
        return
    report = Reporter(ctx)
    for source in view.referenced:
        found = _refusal(source.document) if source.document is not None else None
        if found is not None:
            report(JS_YAML_REFUSES, source, *found)


def _refusal(doc: Document) -> tuple[Span, str] | None:
    if doc.language != "yaml" or doc.root is None or any(issue.kind == K.SYNTAX_ERROR for issue in doc.issues):
        return None  # not read, or already an error (RL001: a second document, which promptfoo refuses)
    from rubric_lsp.document.js_yaml_refusals import js_yaml_refusal, suspicious

    flagged = suspicious(doc.text, doc.flow_lines, doc.block_scalars, doc.root)
    refusal = js_yaml_refusal(doc.text) if flagged else None
    if refusal is not None:
        offset = min(refusal.offset, len(doc.text))
        return _span(doc, offset), _message(doc, offset, refusal.reason)
    # The constructor's refusals, the first in the order js-yaml meets them.
    found = [f for f in (_unknown_tag(doc), _complex_key(doc)) if f is not None]
    if not found:
        return None
    _order, where, offset, reason = min(found)
    return where, _message(doc, offset, reason)


# The tags of promptfoo's schema (YAML_LOAD_SCHEMA in src/util/yamlLoad.ts: js-yaml's
# CORE_SCHEMA with merge, binary, timestamp, omap, pairs and set). js-yaml's constructor
# refuses any other explicit tag ("unknown scalar tag !<!include>"); libyaml keeps it.
_YAML_TAG = "tag:yaml.org,2002:"
_TAGS = {
    SCALAR: {_YAML_TAG + name for name in ("str", "null", "bool", "int", "float", "merge", "binary", "timestamp")},
    SEQ: {_YAML_TAG + name for name in ("seq", "omap", "pairs")},
    MAP: {_YAML_TAG + name for name in ("map", "set")},
}
_KIND_NAME = {SCALAR: "scalar", SEQ: "sequence", MAP: "mapping"}
# A tag where a node can start (after a space, a flow indicator or at a line's start).
_TAG_IN_TEXT = re.compile(r"!(?<=[\s\[{,]!)[!<]?[\w.\-/:%>]+(?=[\s,\]}]|$)")
# A node's span starts at its properties: the tag is its first token, or the one after an anchor.
_TAG_AT = re.compile(r"(?:&\S+\s+)?(!\S*)")


def _unknown_tag(doc: Document) -> tuple[int, Span, int, str] | None:
    """The first explicit tag promptfoo's schema does not know, where js-yaml's constructor throws."""
    text = doc.text
    if doc.root is None or not doc.other_tags or "!" not in text:
        return None
    if text[:1] != "!" and _TAG_IN_TEXT.search(text) is None:
        return None
    for node in walk(doc.root):
        token = _TAG_AT.match(text, node.start)
        if token is None or token.group(1) == "!":  # no tag, or the non-specific one (a string)
            continue
        if node.tag in _TAGS[node.kind]:
            continue
        if node.kind == SCALAR and node.tag in _TAGS[SEQ] | _TAGS[MAP]:
            if node.value in ("", None):  # an empty scalar under a collection tag: an empty collection
                continue
            reason = f"cannot resolve a node with !<{node.tag}> explicit tag"
        else:
            reason = f"unknown {_KIND_NAME[node.kind]} tag !<{node.tag}>"
        offset = token.start(1)
        return node.start, _span(doc, offset), offset, reason
    return None


# A collection used as a mapping key: `[a, b]: c`, `? [a]`, or an alias of a collection.
# Each pattern starts with a literal the regex engine finds at C speed (`}}:` is a template).
_KEY_IN_TEXT = (
    re.compile(r"\][ \t]*:"),
    re.compile(r"\}(?<!\}\})[ \t]*:"),
    re.compile(r"\*(?<=[\s\[{,]\*)[^\s,\[\]{}*]+[ \t]*:"),
)


_QUESTION = re.compile(r"\?(?:[ \t\r\n]|$)")
_BEFORE_EXPLICIT_KEY = re.compile(r"[ -]*|.*[\[{,][ \t]*")


def _explicit_key(text: str) -> bool:
    """A `?` key indicator: first on its line (after "- " entries) or after a flow indicator."""
    for hit in _QUESTION.finditer(text):
        line_start = text.rfind("\n", 0, hit.start()) + 1
        if _BEFORE_EXPLICIT_KEY.fullmatch(text, line_start, hit.start()) is not None:
            return True
    return False


def _complex_key(doc: Document) -> tuple[int, Span, int, str] | None:
    """js-yaml's object-based map refuses a key that is not a scalar (``!!set`` allows one).

    js-yaml throws when the pair is added, after the value, and places it at the key's
    event: an alias's name, or for a collection written in place its closing event, which
    has no position (offset 0, "1:1"). The finding marks the key itself.
    """
    text = doc.text
    if doc.root is None or not doc.complex_keys:
        return None
    if not (any(pattern.search(text) for pattern in _KEY_IN_TEXT) or _explicit_key(text)):
        return None
    for node in walk(doc.root):
        if node.kind != MAP or node.tag == _YAML_TAG + "set":
            continue
        for key, value in node.pairs():
            if key.kind == SCALAR:
                continue
            aliased = key.start < node.start  # the anchored collection sits earlier in the text
            offset = doc.text.rfind("*", node.start, value.start) + 1 if aliased else 0
            where = _span(doc, offset if aliased else key.start)
            return value.end, where, offset, "object-based map does not support complex keys"
    return None


def _span(doc: Document, offset: int) -> Span:
    line = doc.lines.position(offset).line
    end = min(doc.lines.line_end(line), offset + 40)
    return Span(offset, end) if end > offset else doc.lines.single_line_span(offset)


def _message(doc: Document, offset: int, reason: str) -> str:
    """js-yaml's own wording: ``reason (line:column)``, its column counted in UTF-16 units."""
    line = doc.lines.position(offset).line
    before = doc.text[doc.lines.line_starts[line] : offset]
    column = len(before) + sum(1 for char in before if ord(char) > 0xFFFF)
    return (
        f'promptfoo cannot load this file: its YAML reader, js-yaml 5.4.1, stops here with "{reason} '
        f'({line + 1}:{column + 1})". Editors and libyaml-based tools read it; `promptfoo eval` fails '
        "with a YAMLException."
    )
