"""Where js-yaml 5.4.1 (promptfoo's YAML reader) refuses text that libyaml accepts.

Documents are composed with libyaml. promptfoo 0.123.1 loads configs with js-yaml 5.4.1
(``loadYaml`` in its ``src/util/yamlLoad.ts``: ``yaml.loadAll`` with the core schema plus
merge/binary/timestamp/omap/pairs/set), whose hand-written recursive-descent parser tracks
indentation differently from libyaml's scanner: a flow collection or a quoted scalar whose
continuation line sits left of where js-yaml expects ("deficient indentation"), a tab used
as separation inside a flow collection, a block scalar's first line indented less than an
empty line above it, … libyaml accepts all of these; promptfoo stops with a YAMLException.

Which indentation js-yaml expects is decided by the whole recursive descent (a node's indent
is passed down from its parents through compact sequences, properties, explicit keys), so
no local rule reproduces it: this module and ``js_yaml_scan`` are a port of js-yaml's parser
(``src/parser/parser.ts``), function by function. The constructor (tags, merge keys,
duplicate keys) is not ported: the document layer already reports what it refuses there
(duplicate keys, invalid tagged values, a second document).

The port walks the text character by character, so it runs only when a cheap scan finds a
construct whose indentation js-yaml and libyaml can judge differently (``suspicious``).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rubric_lsp.document.js_yaml_nodes import parse_events
from rubric_lsp.document.js_yaml_scan import JsYamlError
from rubric_lsp.document.nodes import SCALAR, SEQ, Node

__all__ = ["JsYamlError", "JsYamlRefusal", "js_yaml_refusal", "parse_events"]


@dataclass(frozen=True)
class JsYamlRefusal:
    offset: int  # where js-yaml stopped (a code-point offset into the text)
    reason: str  # js-yaml's own message (YAMLException.reason)


# Above this size the port is not run: it reads ~1.4 MB/s, and promptfoo's largest configs
# (generated red-team files) stay below it (1.3 MB in the shared corpus).
MAX_PORT_CHARS = 2 << 20


def js_yaml_refusal(text: str) -> JsYamlRefusal | None:
    """What js-yaml 5.4.1's parser throws on ``text`` (as promptfoo loads a config), or None."""
    if len(text) > MAX_PORT_CHARS:
        return None
    try:
        parse_events(text)
    except JsYamlError as exc:
        return JsYamlRefusal(exc.position, exc.reason)
    except RecursionError:
        return None  # js-yaml stops at depth 100 first; deep nesting is the document layer's RL003
    return None


# What a file needs for js-yaml's parser to refuse it where libyaml composes it, apart from
# a flow construct spanning lines (``Document.flow_lines``, noted while composing). A tab; a byte-order
# mark past the start; a lone CR (these three also inside a block scalar: they change how
# its lines are read); and, outside the literal and folded block scalars libyaml read (text
# to both readers, whose extent both take from its indentation): a comment glued to a
# closing quote or bracket (libyaml reads `'b'#c` as a comment, js-yaml refuses it); a block
# scalar header with a glued comment, or alone at a line's start; an anchor or tag ending its
# line (js-yaml can give it the entries that follow), or both opening a line; an explicit key or
# a directive at a line's start; a document marker with content after it, or indented; a root indented.
# The patterns of _GATED are also looked for outside the quoted scalars libyaml read (text to both readers,
# whose extent both take from the quotes), given the document's nodes (``suspicious``'s ``root``).
# tests/test_js_yaml.py checks on generated documents that every refusal passes this gate.
_ANYWHERE = (
    ("\t", None),
    ("\ufeff", None),
    ("\r", re.compile(r"\r(?!\n)")),
)
_GATED = (
    r"#(?<=['\"\]}|>0-9+-]#)",
    r"\|[-+0-9]* *(?:#[^\r\n]*)?\r?\n(?: *\r?\n)*? +\r?\n",
    r">[-+0-9]* *(?:#[^\r\n]*)?\r?\n(?: *\r?\n)*? +\r?\n",
    r"\?[,\[\]{}]",
    r"-[,\[\]{}]",
    r"\]:",
    r"&(?<=\s&)[^ \r\n]* *(?:#[^\r\n]*)?(?:\r|\n|$)",
    r"!(?<=\s!)[^ \r\n]* *(?:#[^\r\n]*)?(?:\r|\n|$)",
    r"\}(?<!\}\})[ \t]*:",
)
# The patterns of _GATED as one, looked for in one pass over the text: ~2.6 ms on the 1.3 MB red-team config
# where the nine passes took ~6 ms, on every keystroke in the editor. ``_found`` takes every place where one of
# them matches, each search starting one character after the last hit, so that no hit of one pattern hides
# inside another's match.
_GATED_ANY = re.compile("|".join(f"(?:{pattern})" for pattern in _GATED))
# Constructs at a line's start, each a pattern and the character it starts with; what precedes a hit on its
# line is checked after: only spaces (or "- " entries for an explicit key). Each character is rare in a config:
# its places are found by a one-character search (memchr's speed), the pattern tried at each (``_places``): on
# the 1.3 MB config the five take ~1.3 ms so, ~3.6 ms as the regex engine's passes (themselves faster than one
# pass for a pattern that starts with either of two characters: 1.6 against 4.0 ms for the block headers).
_HEADER = (
    ("|", re.compile(r"\|[-+0-9]* *(?:#[^\r\n]*)?(?:\r|\n|$)")),
    (">", re.compile(r">[-+0-9]* *(?:#[^\r\n]*)?(?:\r|\n|$)")),
)
_EXPLICIT = (("?", re.compile(r"\?(?: |\r|\n|$)")),)
# An anchor and a tag both on a node that opens its line: as an indented mapping's key, js-yaml
# misplaces the mapping's indentation and refuses its next entry ("bad indentation").
_PROPERTIES = (("&", re.compile(r"&[^ \r\n]* +!")), ("!", re.compile(r"![^ \r\n]* +&")))
_MARKERS = (re.compile(r"---(?: |\r|\n|$)"), re.compile(r"\.\.\.(?: |\r|\n|$)"))
_MARKER_END = re.compile(r" *(?:#|\r|\n|$)")
_SPACES = re.compile(" *")
_ENTRIES = re.compile("[ -]*")
# The first content line indented: js-yaml takes that column as the root's, libyaml need not.
_INDENTED_ROOT = re.compile(r"(?:(?:---)?[ \t]*(?:#[^\r\n]*)?\r?\n)*[ \t]+[^ \t\r\n#]")


def _outside(offset: int, blocks: Sequence[tuple[int, int]]) -> bool:
    """Whether ``offset`` lies outside every block scalar of ``blocks`` (sorted (start, end) spans)."""
    at = bisect_right(blocks, (offset, _AFTER)) - 1
    return at < 0 or offset >= blocks[at][1]


_AFTER = 1 << 62  # sorts after any end offset: bisect finds the last block starting at or before an offset


def _found(pattern: re.Pattern[str], text: str, blocks: Sequence[tuple[int, int]], root: Node | None) -> bool:
    """Whether ``pattern`` matches ``text`` outside its block scalars and, given the document's ``root``, outside
    the quoted scalars libyaml read (text to both readers, whose extent both take from the quotes)."""
    if not blocks and root is None:
        return pattern.search(text) is not None
    walked = 0  # hits looked up in the nodes
    at = -1
    while (hit := pattern.search(text, at + 1)) is not None:
        at = hit.start()
        if not _outside(at, blocks):
            continue
        if root is None or walked == _MAX_WALKS:
            return True  # (each walk is a descent of the nodes: past this, the port reads the file for less)
        walked += 1
        if not _in_quoted(root, at):
            return True
    return False


_MAX_WALKS = 64


def _in_quoted(root: Node, offset: int) -> bool:
    """Whether ``offset`` lies between the quotes of a single- or double-quoted scalar of the tree."""
    node: Node | None = root
    while node is not None and node.kind != SCALAR:
        children = node.value if node.kind == SEQ else [part for pair in node.value for part in pair]
        node = next((child for child in children if child.start <= offset < child.end), None)
    if node is None:
        return False
    return (node.style == '"' or node.style == "'") and node.start < offset < node.end - 1


def _first_on_line(
    text: str,
    patterns: tuple[tuple[str, re.Pattern[str]], ...],
    before: re.Pattern[str],
    blocks: Sequence[tuple[int, int]] = (),
) -> bool:
    """Whether a pattern of ``patterns`` (each with the character it starts with) matches after only what
    ``before`` matches on its line, outside ``blocks``."""
    for first, pattern in patterns:
        for at in _places(text, first, pattern):
            line_start = text.rfind("\n", 0, at) + 1
            if before.fullmatch(text, line_start, at) is not None and _outside(at, blocks):
                return True
    return False


# Places of a pattern's first character tried one by one before the regex engine takes over the scan: in a text
# dense with the character (a markdown table's '|' in a prompt), a try per place would cost far more than a pass.
_DENSE = 1000


def _places(text: str, first: str, pattern: re.Pattern[str]) -> Iterator[int]:
    """Every offset where ``pattern``, which starts with the character ``first``, matches ``text``, in order."""
    at = text.find(first)
    tried = 0
    while at != -1:
        if tried == _DENSE:
            while (hit := pattern.search(text, at)) is not None:
                yield hit.start()
                at = hit.start() + 1
            return
        tried += 1
        if pattern.match(text, at) is not None:
            yield at
        at = text.find(first, at + 1)


def _marker_oddity(text: str) -> bool:
    """A document marker with content after it, or indented (a plain `---` line is neither)."""
    for pattern in _MARKERS:
        for hit in pattern.finditer(text):
            line_start = text.rfind("\n", 0, hit.start()) + 1
            if _SPACES.fullmatch(text, line_start, hit.start()) is None:
                continue
            if hit.start() > line_start or _MARKER_END.match(text, hit.end()) is None:
                return True
    return False


# A '%' that starts a line: a directive to js-yaml.
_DIRECTIVE = re.compile(r"%(?<![^\n]%)")


def _directive_line(text: str) -> bool:
    """Whether a line starts with '%', found from each '%' (``_places``): ``"\\n%" in text`` scanned the 1.3 MB
    red-team config in 1.1 ms, on every keystroke."""
    return next(_places(text, "%", _DIRECTIVE), None) is not None


def suspicious(
    text: str, flow_lines: bool, block_scalars: Sequence[tuple[int, int]] = (), root: Node | None = None
) -> bool:
    """Whether js-yaml's parser may refuse ``text``, which libyaml composed (false positives only cost time).

    ``flow_lines``: the document's flow collections or flow scalars span lines (``Document.flow_lines``);
    ``block_scalars``: where its literal and folded scalars are (``Document.block_scalars``); ``root``: its
    nodes (``Document.root``), to look past what its quoted scalars hold.
    """
    if flow_lines or any(
        mark in text and (pattern is None or pattern.search(text) is not None) for mark, pattern in _ANYWHERE
    ):
        return True
    if _found(_GATED_ANY, text, block_scalars, root):
        return True
    if _INDENTED_ROOT.match(text) is not None or _directive_line(text):
        return True
    if _first_on_line(text, _HEADER, _SPACES, block_scalars) or _marker_oddity(text):
        return True
    if "&" in text and "!" in text and _first_on_line(text, _PROPERTIES, _ENTRIES, block_scalars):
        return True
    return "?" in text and _first_on_line(text, _EXPLICIT, _ENTRIES, block_scalars)
