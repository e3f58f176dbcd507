"""How YAML text is handed to libyaml, and the nesting cap that must decide before libyaml does.

libyaml's compose recurses on the C stack: the libyaml 0.2.5 bundled in PyYAML ≤ 6.0.3 wheels
crashes near 50,000 levels of nesting, so depth must be known before composing. The libyaml
0.2.6 in PyYAML 6.0.4 wheels refuses more than 1,000 levels itself (libyaml PR #287), with a
syntax error ("exceeded maximum nesting depth") raised while *scanning* — up to 1,024
characters ahead of the last event the parser returned, because a flow collection on one
line may still turn out to be a mapping key. A file nested deeper than ``Limits.max_depth``
(200) must get the same finding, at the same place, whichever PyYAML is installed: our cap,
far below libyaml's, always decides first (:func:`too_deep_before`).
"""

from __future__ import annotations

import re
from functools import lru_cache

import yaml

from rubric_lsp.document import issues as K
from rubric_lsp.document.issues import ParseIssue
from rubric_lsp.document.limits import Limits
from rubric_lsp.document.positions import LineIndex

LOADER: type[yaml.CSafeLoader] | type[yaml.SafeLoader]
try:  # libyaml is ~10x faster; the pure-Python loader gives the same nodes.
    _C_SAFE_LOADER = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    LOADER = yaml.SafeLoader
else:
    # The tags SafeLoader's resolver gives a plain scalar by its first character (BaseResolver.resolve's
    # lookup, its wildcard entries appended), built once instead of per scalar.
    _WILDCARD = tuple(_C_SAFE_LOADER.yaml_implicit_resolvers.get(None, []))
    _IMPLICIT = {
        first: (*resolvers, *_WILDCARD)
        for first, resolvers in _C_SAFE_LOADER.yaml_implicit_resolvers.items()
        if first is not None
    }
    _STR_TAG, _SEQ_TAG, _MAP_TAG = (
        _C_SAFE_LOADER.DEFAULT_SCALAR_TAG,
        _C_SAFE_LOADER.DEFAULT_SEQUENCE_TAG,
        _C_SAFE_LOADER.DEFAULT_MAPPING_TAG,
    )

    class _SafeLoader(_C_SAFE_LOADER):
        """libyaml's safe loader, its resolver's per-node work cut to what SafeLoader's tables hold: libyaml's
        composer asks it of every node (three Python calls per node, a third of composing a config)."""

        # No path resolvers are registered (checked below): the composer's calls into the resolver's path
        # stack do nothing. C callables of the same arity, so that no Python frame is entered per node.
        descend_resolver = staticmethod(slice)  # type: ignore[assignment]  # (parent, index) -> ignored
        ascend_resolver = staticmethod(tuple)  # type: ignore[assignment]  # () -> ignored

        def resolve(self, kind: type[yaml.Node], value: str | None, implicit: tuple[bool, bool]) -> str:
            """BaseResolver.resolve, for the SafeLoader's tables (no path resolvers)."""
            if kind is yaml.ScalarNode:
                if implicit[0]:
                    assert value is not None
                    for tag, regexp in _IMPLICIT.get(value[:1], _WILDCARD):
                        if regexp.match(value):
                            return str(tag)
                return _STR_TAG
            return _SEQ_TAG if kind is yaml.SequenceNode else _MAP_TAG

    LOADER = _C_SAFE_LOADER if _C_SAFE_LOADER.yaml_path_resolvers else _SafeLoader

# Block nesting is bounded by the indentation and "- " markers that open a line.
_BLOCK_PREFIX_CHARS = "[ \t?:-]"
# Measured fine at 20,000 levels, a crash near 50,000 (libyaml 0.2.5). Below this bound the
# depth check on the composed nodes is enough, and the event pre-scan (which costs about as
# much as composing) is skipped.
_COMPOSE_SAFE_DEPTH = 10_000
_OPENING = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSING = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def loader_input(text: str) -> str:
    """The text to give libyaml so that its marks are offsets into ``text``.

    libyaml drops a leading U+FEFF without counting it, yet counts one that follows
    (PyYAML's pure loader counts both). Text that starts with U+FEFF (an editor sending
    the byte-order mark, or a file saved with two) would put every position one character
    early; one more leading U+FEFF for libyaml to drop keeps them exact.
    """
    if text.startswith("\ufeff") and LOADER is not yaml.SafeLoader:
        return "\ufeff" + text
    return text


def event_start(event: yaml.Event | None) -> int:
    """Offset at which a parsed event starts: the parsers always give one that has a mark."""
    assert event is not None and event.start_mark is not None
    return event.start_mark.index


def too_deep_message(limits: Limits) -> str:
    return (
        f"Nesting deeper than {limits.max_depth} levels; refusing to read this file "
        "(no rubric or config nests this deep)."
    )


def too_deep(offset: int, lines: LineIndex, limits: Limits) -> ParseIssue:
    return ParseIssue(K.TOO_DEEP, too_deep_message(limits), lines.single_line_span(offset), fatal=True)


def prescan(text: str, lines: LineIndex, limits: Limits) -> ParseIssue | None:
    """Walk the event stream to cap nesting depth before composing.

    Skipped when a cheap bound already proves compose safe: block nesting needs
    indentation or "- " markers, flow nesting needs brackets. The cap itself (and alias
    expansion) is applied on the composed nodes, which is cheaper.
    """
    if _depth_within(text, max(limits.max_depth, _COMPOSE_SAFE_DEPTH)):
        return None
    return _first_too_deep(text, lines, limits)


def too_deep_before(exc: yaml.MarkedYAMLError, text: str, lines: LineIndex, limits: Limits) -> ParseIssue | None:
    """The depth finding when the cap is passed before the point where the parser gave up.

    libyaml ≥ 0.2.6 gives up at its 1,001st level with a syntax error; older ones read on
    to the next real syntax error, or to the end (then the composed nodes are capped). The
    text before that point holds the same levels under every version, without reaching
    libyaml's limit: its events say where our cap was passed. Any other syntax error is
    treated alike, so that "nested too deep, then broken" gets one answer everywhere.
    """
    mark = exc.problem_mark
    if mark is None:
        return None
    before = text[: mark.index]
    if _depth_within(before, limits.max_depth):
        return None
    return _first_too_deep(before, lines, limits, cut=True)


def _depth_within(text: str, cap: int) -> bool:
    """Whether a cheap upper bound on the nesting depth of ``text`` is within ``cap``: one level, one per
    bracket, and the longest run of indentation and "- " markers opening a line (searched for one longer than
    what the cap leaves, not measured line by line)."""
    left = cap - 1 - text.count("[") - text.count("{")  # what the longest line prefix may be
    if left < 0:
        return False
    # Each line's prefix after its line break (a pattern that starts with a literal is searched for at C
    # speed; "^" under re.M is tried at every offset), the first line's as if after one.
    longer = _longer_prefix(left)
    return longer.match("\n" + text[: left + 1]) is None and longer.search(text) is None


@lru_cache(maxsize=8)
def _longer_prefix(length: int) -> re.Pattern[str]:
    """A line break, then a line prefix longer than ``length``."""
    return re.compile(f"\n{_BLOCK_PREFIX_CHARS}{{{length + 1}}}")


def _first_too_deep(text: str, lines: LineIndex, limits: Limits, *, cut: bool = False) -> ParseIssue | None:
    """RL003 at the first collection that starts deeper than the cap, walking parser events."""
    depth = 0
    try:
        for event in yaml.parse(loader_input(text), Loader=LOADER):
            if isinstance(event, _OPENING):
                depth += 1
                if depth > limits.max_depth:
                    return too_deep(event_start(event), lines, limits)
            elif isinstance(event, _CLOSING):
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        # The events libyaml held back while looking ahead (a flow collection may be a
        # key) come out when the text is cut there. Text already ``cut`` ends inside
        # collections: the error at its end is expected, and compose reports any other.
        if not cut:
            return too_deep_before(exc, text, lines, limits)
    except yaml.YAMLError:
        pass
    return None
