"""An edit inside one scalar value, read without reading the whole text again (the language server's edits).

Most of an editor's edits are typing inside a value. Reading promptfoo's 1.3 MB red-team config again costs
~0.4 s of an edit's ~0.7 s. When all that differs between the last text read and the new one lies inside one
single-line plain or quoted scalar value in block context, or inside a content line of a literal or folded
one, and the new text of that scalar reads alone as one scalar of the same extent, then every other node
keeps its kind, value and tag: the tree is copied with the offsets after the edit moved, and only that
scalar is converted (rust-analyzer's "reparse one token", for YAML). So is a value typed where there was
none, after ``key:`` or ``-`` and at least one space (typed or there), with nothing after it on the line but
spaces and a comment (the space and first keystroke of every new value, completion's probe after ``:``): the
collections that ended with the empty value end where the typed one does. A value deleted whole leaves an
empty one right after its indicator, read the same way. So is a key edited in place when it is a word before
and after (a string under every schema: no number, boolean or null; a rule's fix renaming a misspelt key):
its mapping's duplicate keys are then found again. Anything else returns None, and the caller reads the text
in full: another key, a flow collection, merge keys, a tag, anchor or alias on the scalar,
a line break typed, a block scalar's header or indentation, a scalar that reads as something else alone
(``a: b``, ``x #c``, a broken quote), text above the size cap or with a byte-order mark.

tests/test_incremental_read.py checks, on chains of random edits of generated, sample and real files, that
every result is what reading the new text in full gives, node for node and issue for issue.
"""

from __future__ import annotations

from collections.abc import Callable

import yaml

from rubric_lsp.document import _SURROGATE, Document, gc_paused, language_for
from rubric_lsp.document import issues as K
from rubric_lsp.document.duplicates import MAX_DUPLICATE_REPORTS, duplicate_issues, repeated_keys
from rubric_lsp.document.issues import ParseIssue, TextEdit
from rubric_lsp.document.js_yaml import PlainScalars, read_value_as_js_yaml, schema_dependent_key
from rubric_lsp.document.limits import Limits
from rubric_lsp.document.nodes import MAP, SCALAR, SEQ, Node
from rubric_lsp.document.positions import Span
from rubric_lsp.document.yaml_depth import LOADER
from rubric_lsp.document.yaml_reader import read_scalar

_T = "tag:yaml.org,2002:"
# The tags libyaml's resolver gives a plain or quoted scalar, other than merge (``<<``) and value (``=``).
_IMPLICIT_TAGS = frozenset(_T + name for name in ("str", "null", "bool", "int", "float", "timestamp"))
_QUOTES = ("'", '"')
_BLOCKS = ("|", ">")
_OF_A_VALUE = frozenset((K.YAML11_BOOLEAN, K.YAML11_NUMBER))  # what converting a plain or quoted scalar reports


def read_edit(previous: Document, text: str, path: str | None, limits: Limits) -> Document | None:
    """``text`` read as a Document, from ``previous`` (the same file's last reading) when the two differ
    inside one scalar value; None when they do not (then read ``text`` in full)."""
    with gc_paused():  # as parse_document: the collector's passes over the fresh copy cost more than copying
        return _read_edit(previous, text, path, limits)


def _read_edit(previous: Document, text: str, path: str | None, limits: Limits) -> Document | None:
    if not _may_edit(previous, text, path, limits):
        return None
    old = previous.text
    start, old_end = _difference(old, text)
    assert previous.root is not None  # _may_edit
    delta = len(text) - len(old)
    typed, replaced = text[start : old_end + delta], old[start:old_end]
    if any(brk in piece for piece in (typed, replaced) for brk in ("\n", "\r")):
        return None  # a line break typed or deleted: lines (and so indentation) change
    scalar = _scalar_holding(previous.root, old, start, old_end)
    spaces_only = False
    if scalar is None and (held := _key_holding(previous.root, old, start, old_end)) is not None:
        return _read_key(previous, text, *held, delta, old_end)
    if scalar is not None:  # typing inside a value: it keeps its start, its end moves
        at, region, reach = scalar.end, (scalar.start, scalar.end + delta), (scalar.start, scalar.end)
        if region[0] == region[1]:  # the value deleted whole: an empty one, right after its indicator
            return _read_emptied(previous, text, scalar, delta, old_end)
    else:  # typing a value where there was none (``key: `` or ``- ``): it starts after the spaces typed
        lead = len(typed) - len(typed.lstrip(" "))
        scalar = _empty_value_before(previous.root, old, start, old_end, lead)
        if scalar is None:
            return None
        # (reach: an issue touching the indicator's spaces, or the empty value, is not moved but read again)
        at, region, reach = start, (start + lead, start + delta), (scalar.start - 1, start + 1)
        spaces_only = lead == delta
    plain = previous.plain_scalars
    if spaces_only:  # only spaces typed after an empty value: it stays, empty, right after its indicator
        at = max(at, scalar.start + 1)
        node = Node(SCALAR, scalar.start, scalar.end, scalar.value, scalar.tag, scalar.style, scalar.raw)
        new_issues: list[ParseIssue] = []
        schema_dependent = plain is not None and any(n is scalar for n in plain.values)
    else:
        new = _read_alone(text, *region, scalar.style)
        if new is None:
            return None
        node, new_issues, schema_dependent = new
        if schema_dependent and plain is not None and plain.read_as_js:
            read_value_as_js_yaml(node)
    return _with_value(previous, text, scalar, node, new_issues, schema_dependent, at, reach, delta, old_end)


def _read_key(previous: Document, text: str, mapping: Node, key: Node, delta: int, old_end: int) -> Document | None:
    """``text``: ``previous`` with a plain word ``key`` of ``mapping`` edited. Read alone when the new key is a plain
    word too (a string under every schema, no finding of its own); the mapping's duplicate keys are then found
    again, the other mappings' carried over. None otherwise."""
    new = _read_alone(text, key.start, key.end + delta, key.style)
    if new is None or new[1] or new[2] or not _plain_word(new[0]):
        return None
    node = new[0]
    old_pairs = repeated_keys(mapping)
    repeated = {pair[0].span for pair in old_pairs}
    listed = [issue for issue in previous.issues if issue.kind == K.DUPLICATE_KEY]
    if len(listed) >= MAX_DUPLICATE_REPORTS:
        return None  # the list may stop short (the rest counted in its last finding's words)
    others = [issue for issue in previous.issues if issue.kind != K.DUPLICATE_KEY or issue.span not in repeated]
    reach = (key.start, key.end)
    doc = _with_value(previous, text, key, node, [], False, key.end, reach, delta, old_end, others)
    if doc is None or doc.root is None:
        return None
    found = _key_holding(doc.root, text, node.start, node.start)
    assert found is not None and found[1] is node  # the copy holds the new key where the old one was
    pairs = repeated_keys(found[0])
    if len(listed) - len(old_pairs) + len(pairs) > MAX_DUPLICATE_REPORTS:
        return None
    doc.issues = sorted(doc.issues + duplicate_issues(pairs, doc.lines), key=lambda issue: issue.span.start)
    return doc


def _plain_word(key: Node) -> bool:
    """A key that reads as the same string under every schema and as written: no number, boolean or null."""
    value = key.value
    return (
        key.tag == _T + "str"
        and isinstance(value, str)
        and bool(value)
        and (key.style is not None or not schema_dependent_key(key))
    )


def _read_emptied(previous: Document, text: str, scalar: Node, delta: int, old_end: int) -> Document | None:
    """``text``: ``previous`` with the single-line value ``scalar`` deleted whole (``delta``: minus its length).
    What is left is an empty value right after the value's indicator (``key:`` or ``-``, then spaces) when the
    rest of its line is spaces or a comment; None otherwise."""
    old = previous.text
    indicator = _after_indicator(old, scalar.start)
    after = _rest_of_line(old, scalar.end).lstrip(" \t")
    if indicator is None or indicator == scalar.start or (after and after[0] != "#"):
        return None
    # As the reader converts libyaml's empty plain scalar (``tag:yaml.org,2002:null``, no text).
    node, new_issues, schema_dependent = read_scalar(
        text, yaml.ScalarNode(_T + "null", "", style=None), indicator, indicator
    )
    plain = previous.plain_scalars
    if schema_dependent and plain is not None and plain.read_as_js:
        read_value_as_js_yaml(node)
    reach = (indicator - 1, scalar.end + 1)  # an issue touching the value or its spaces is read again
    return _with_value(previous, text, scalar, node, new_issues, schema_dependent, scalar.end, reach, delta, old_end)


def _with_value(
    previous: Document,
    text: str,
    scalar: Node,
    node: Node,
    new_issues: list[ParseIssue],
    schema_dependent: bool,
    at: int,
    reach: tuple[int, int],
    delta: int,
    old_end: int,
    old_issues: list[ParseIssue] | None = None,
) -> Document | None:
    """``previous``'s tree with ``scalar`` replaced by ``node`` (read from ``text``) and the offsets from ``at`` on
    moved by ``delta``, as a Document of ``text`` with ``old_issues`` (``previous``'s by default) moved and
    ``new_issues``; None when an issue or a plain scalar cannot follow."""
    plain = previous.plain_scalars
    issues = _moved_issues(previous.issues if old_issues is None else old_issues, scalar, at, reach, delta)
    if issues is None:
        return None
    copier = _Copier(scalar, node, at, delta, shared=previous.shared_nodes, plain=plain)
    assert previous.root is not None
    root = copier.copy(previous.root)
    if not copier.copied_every_plain_scalar():
        return None
    return Document(
        previous.path,
        text,
        "yaml",
        root,
        sorted(issues + new_issues, key=lambda issue: issue.span.start),
        previous.lines.moved(text, old_end, delta),
        previous.flow_lines,
        plain_scalars=copier.plain_scalars(node if schema_dependent else None),
        block_scalars=[(_moved(a, at, delta), _moved(b, at, delta)) for a, b in previous.block_scalars],
        complex_keys=previous.complex_keys,
        other_tags=previous.other_tags,
        shared_nodes=previous.shared_nodes,
    )


def _may_edit(previous: Document, text: str, path: str | None, limits: Limits) -> bool:
    """Whether ``text`` may be read from ``previous`` at all (the same YAML file, both read as they stand)."""
    old = previous.text
    return (
        previous.language == "yaml"
        and previous.root is not None
        and previous.readable
        and previous.path == path
        and language_for(path, text) == "yaml"
        and len(text) <= limits.max_bytes
        and not text.startswith("\ufeff")
        and not old.startswith("\ufeff")
        and "<<" not in text  # merge keys: pairs converted apart from the tree
        and "<<" not in old
        and (text.isascii() or _SURROGATE.search(text) is None)
        and text != old
    )


def _difference(old: str, new: str) -> tuple[int, int]:
    """(start, end in ``old``) of the one stretch where the texts differ: the longest common
    prefix and then the longest common suffix of the rest, each found by halving (C-speed comparisons)."""
    shortest = min(len(old), len(new))
    low, high = 0, shortest  # old[:low] == new[:low]; the prefix is shorter than high + 1
    while low < high:
        middle = (low + high + 1) // 2
        if old[low:middle] == new[low:middle]:
            low = middle
        else:
            high = middle - 1
    start = low
    low, high = 0, shortest - start
    while low < high:
        middle = (low + high + 1) // 2
        if old[len(old) - middle : len(old) - low] == new[len(new) - middle : len(new) - low]:
            low = middle
        else:
            high = middle - 1
    return start, len(old) - low


def _scalar_holding(root: Node, text: str, start: int, end: int) -> Node | None:
    """The scalar value whose span holds ``start``–``end`` (ends included: typing at a value's end), when it is
    one this module may read alone; None otherwise (the stretch touches a key, lies between nodes, …)."""
    found = _scalar_at(root, text, start, end)
    if found is None:
        return None
    node, depth = found
    if depth == 0 or node.start >= node.end or node.tag not in _IMPLICIT_TAGS or text[node.start] in "&!*":
        return None  # the root, an empty value, or properties before the scalar
    if node.style in _BLOCKS:
        return node if _inside_a_content_line(text, node, start) else None
    if node.style not in (None, *_QUOTES):
        return None
    return node if _on_one_line(text, node) else None


def _empty_value_before(root: Node, text: str, start: int, end: int, lead: int) -> Node | None:
    """The empty value (``key:`` or ``-`` with nothing after it but spaces and a comment) that text typed at
    ``start`` (``lead`` spaces, then the value) becomes, at least one space after the indicator; None otherwise.
    The value typed must then read alone as one plain or quoted scalar (``_read_alone``), and what follows it on
    the line cannot join it: spaces, then a comment or the line's end."""
    if start != end:  # typed, nothing replaced
        return None
    indicator = _after_indicator(text, start)
    rest = _rest_of_line(text, start)
    after = rest.lstrip(" \t")
    if indicator is None or (indicator == start and not lead):
        return None
    if after and after[0] != "#":
        return None
    if after and rest == after:
        return None  # a comment right at the typing: the typed text would run into it
    found = _scalar_at(root, text, indicator, indicator)
    if found is None:
        return None
    node, depth = found
    empty = node.start == node.end == indicator and node.style is None and node.value is None
    return node if depth and empty and node.tag == _T + "null" else None


def _scalar_at(root: Node, text: str, start: int, end: int) -> tuple[Node, int] | None:
    """The scalar whose span holds ``start``–``end`` (ends included) and its depth (0: the root), descending through
    values only; None when the stretch touches a key, lies between nodes or in a flow collection."""
    node = root
    depth = 0
    while node.kind != SCALAR:
        if text[node.end - 1 : node.end] in ("]", "}"):
            return None  # a flow collection (or a block one ending in one): , [ ] { } read otherwise inside
        inner = _child_holding(node, start, end)
        if inner is None:
            return None
        node, depth = inner, depth + 1
    return node, depth


def _after_indicator(text: str, at: int) -> int | None:
    """Where the ``:`` or ``-`` before ``at`` ends, with only spaces between (``at`` itself when none); None when
    something else precedes those spaces."""
    indicator = at
    while indicator > 0 and text[indicator - 1] == " ":
        indicator -= 1
    return indicator if indicator > 0 and text[indicator - 1] in ":-" else None


def _on_one_line(text: str, node: Node) -> bool:
    """Whether ``node``'s text holds no line break."""
    line = text[node.start : node.end]
    return "\n" not in line and "\r" not in line


def _rest_of_line(text: str, start: int) -> str:
    """``text`` from ``start`` to its line's end (a line feed or carriage return, or the text's end)."""
    ends = [at for at in (text.find("\n", start), text.find("\r", start)) if at != -1]
    return text[start : min(ends, default=len(text))]


def _inside_a_content_line(text: str, block: Node, start: int) -> bool:
    """Whether ``start`` lies in a content line of the literal or folded ``block``, after a character of that line
    that is not indentation. Then (the stretch holding no line break) no line's indentation and no line's
    emptiness change, and with them neither where the block ends nor how its lines fold. Not with an explicit
    indentation (relative to the parent's) or "keep" chomping (trailing lines): those read otherwise alone."""
    header_end = text.find("\n", block.start, block.end)
    if header_end == -1 or start <= header_end or "\r" in text[block.start : block.end]:
        return False
    header = text[block.start : header_end]
    if "+" in header or any(character.isdigit() for character in header):
        return False
    line_start = text.rfind("\n", 0, start) + 1
    return bool(text[line_start:start].strip(" \t"))


def _key_holding(root: Node, text: str, start: int, end: int) -> tuple[Node, Node] | None:
    """(its mapping, the key) for the plain word key on one line whose span holds ``start``–``end`` (ends included:
    typing at its end) in a block mapping; None otherwise."""
    node = root
    while node.kind != SCALAR:
        if text[node.end - 1 : node.end] in ("]", "}"):
            return None  # a flow collection: read otherwise inside
        if node.kind == MAP:
            key = next((k for k, _ in node.value if k.start <= end and start <= k.end), None)
            if key is not None:
                inside = key.kind == SCALAR and key.start <= start and end <= key.end
                plain = inside and key.style in (None, *_QUOTES) and _plain_word(key)
                return (node, key) if plain and _on_one_line(text, key) else None
        inner = _child_holding(node, start, end)
        if inner is None:
            return None
        node = inner
    return None


def _child_holding(node: Node, start: int, end: int) -> Node | None:
    if node.kind == SEQ:
        children: list[Node] = node.value
        for child in children:
            if child.start <= start and end <= child.end:
                return child
        return None
    assert node.kind == MAP
    pairs: list[tuple[Node, Node]] = node.value
    for key, value in pairs:
        if key.start <= end and start <= key.end:
            return None  # the stretch touches a key
        if value.start <= start and end <= value.end:
            return value
    return None


def _read_alone(text: str, start: int, end: int, style: str | None) -> tuple[Node, list[ParseIssue], bool] | None:
    """The scalar at ``start``–``end`` of ``text``, composed alone and converted there; None unless it is one
    scalar over exactly that stretch: plain or quoted on one line, or a literal or folded one (``style``) again."""
    piece = text[start:end]
    block = style in _BLOCKS
    if not piece or "\r" in piece or piece[0] in "&!*" or (not block and "\n" in piece):
        return None
    loader = LOADER(piece)
    try:
        ynode = loader.get_single_node()
    except (yaml.YAMLError, RecursionError):
        return None
    finally:
        loader.dispose()
    if (
        type(ynode) is not yaml.ScalarNode
        or ynode.start_mark.index != 0
        or ynode.end_mark.index != len(piece)
        or ((ynode.style or None) != style if block else (ynode.style or None) not in (None, *_QUOTES))
        or ynode.tag not in _IMPLICIT_TAGS
    ):
        return None
    return read_scalar(text, ynode, start, end)


def _moved(offset: int, at: int, delta: int) -> int:
    """An offset of the old text in the new one: from ``at`` on, ``delta`` later."""
    return offset + delta if offset >= at else offset


def _moved_span(span: Span, at: int, delta: int) -> Span:
    return Span(_moved(span.start, at, delta), _moved(span.end, at, delta))


def _moved_issues(
    issues: list[ParseIssue], scalar: Node, at: int, reach: tuple[int, int], delta: int
) -> list[ParseIssue] | None:
    """The reading's issues in the new text (offsets from ``at`` on moved by ``delta``), without those about the
    edited scalar (converting it again gives its own); None when an issue reaches into ``reach`` otherwise
    (then the whole text is read again)."""
    low, high = reach
    moved: list[ParseIssue] = []
    for issue in issues:
        spans = [issue.span, *(span for span, _ in issue.related), *(edit.span for edit in issue.edits)]
        if issue.kind in _OF_A_VALUE and issue.span == Span(scalar.start, scalar.end):
            continue  # a finding on the scalar's value: converting it again finds it again
        if any(span.start < high and low < span.end for span in spans):
            return None
        moved.append(
            ParseIssue(
                issue.kind,
                issue.message,
                _moved_span(issue.span, at, delta),
                [(_moved_span(span, at, delta), said) for span, said in issue.related],
                [TextEdit(_moved_span(edit.span, at, delta), edit.new_text) for edit in issue.edits],
                issue.fatal,
            )
        )
    return moved


class _Copier:
    """The previous tree with ``old`` replaced by ``new`` and every offset from ``at`` on moved by ``delta``. The
    previous document is left as it is (its result may still be read); what ends before ``old`` is both trees' own,
    as nothing changes a node once read but js-yaml's re-reading, once per document: while the previous document
    awaits it, everything is copied."""

    def __init__(self, old: Node, new: Node, at: int, delta: int, *, shared: bool, plain: PlainScalars | None):
        self.old = old
        self.plain = plain
        wanted = [] if plain is None else [*plain.values, *plain.keys]
        before = old.start if plain is None or plain.read_as_js or not wanted else -1  # nodes ending before it kept
        # The plain scalars' copies: those ending before ``before`` are the previous reading's own.
        self.copies: dict[int, Node | None] = {id(n): (n if n.end < before else None) for n in wanted}
        # With anchors, a node may sit in several places: copied once, as reading shares it.
        self.copy = _copier(old, new, at, delta, before, {} if shared else None, self.copies)

    def copied_every_plain_scalar(self) -> bool:
        """Whether every schema-dependent scalar but the edited one was met in the tree (always, without merges)."""
        return all(copied is not None for ident, copied in self.copies.items() if ident != id(self.old))

    def plain_scalars(self, new: Node | None) -> PlainScalars | None:
        """The previous PlainScalars, of the copies, with the edited scalar's place taken by ``new`` (None: the
        new scalar's reading does not depend on the schema)."""
        plain = self.plain
        if plain is None:
            return None
        values = [self._copied(node) for node in plain.values if node is not self.old]
        if new is not None:
            at = next((i for i, node in enumerate(values) if node.start > new.start), len(values))
            values.insert(at, new)
        return PlainScalars(values, [self._copied(node) for node in plain.keys], plain.read_as_js)

    def _copied(self, node: Node) -> Node:
        copied = self.copies.get(id(node))
        assert copied is not None  # copied_every_plain_scalar
        return copied


def _copier(
    old: Node,
    new: Node,
    at: int,
    delta: int,
    before: int,
    memo: dict[int, Node] | None,
    copies: dict[int, Node | None],
) -> Callable[[Node], Node]:
    """The copying function, for one use (a closure: one call per node of a large file, its names all local).
    A node ending before ``before`` (with all it holds: no offset of it moves) is kept, not copied."""

    def copy(node: Node) -> Node:
        if node.end < before:
            return node
        if memo is not None:
            done = memo.get(id(node))
            if done is not None:
                return done
        start, end, kind = node.start, node.end, node.kind
        if start >= at:
            start += delta
        if end == old.end:  # (a block collection ending with the value, typed into, emptied or filled, ends with it)
            end = new.end
        elif end >= at:
            end += delta
        if kind == SCALAR:
            copied = new if node is old else Node(SCALAR, start, end, node.value, node.tag, node.style, node.raw)
            if copies and id(node) in copies:
                copies[id(node)] = copied
        elif kind == SEQ:
            copied = Node(SEQ, start, end, [copy(child) for child in node.value], node.tag)
        else:
            copied = Node(MAP, start, end, [(copy(k), copy(v)) for k, v in node.value], node.tag)
        if memo is not None:
            memo[id(node)] = copied
        return copied

    def copy_tree(root: Node) -> Node:
        nonlocal copy
        try:
            return copy(root)
        finally:
            # ``copy`` calls itself through its closure's cell: a cycle that would keep the copy's memo (the
            # new tree) for the cyclic collector. Emptied, everything here frees by reference counting.
            copy = None  # type: ignore[assignment]

    return copy_tree
