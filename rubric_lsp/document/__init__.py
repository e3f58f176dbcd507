"""The document model: text → nodes with exact ranges, plus what went wrong reading it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from rubric_lsp.document import issues as K
from rubric_lsp.document.duplicates import duplicate_issues, duplicate_keys
from rubric_lsp.document.issues import ParseIssue, TextEdit
from rubric_lsp.document.js_yaml import PlainScalars
from rubric_lsp.document.limits import DEFAULT_LIMITS, Limits
from rubric_lsp.document.nodes import SCALAR, Node, PlainDict, PlainList, to_plain, walk
from rubric_lsp.document.positions import LineIndex, Position, Range, Span
from rubric_lsp.runtime import gc as collector

__all__ = [
    "Document",
    "Limits",
    "LineIndex",
    "Node",
    "ParseIssue",
    "PlainDict",
    "PlainList",
    "Position",
    "Range",
    "Span",
    "TextEdit",
    "decode",
    "encode_like",
    "gc_paused",
    "language_for",
    "parse_document",
]

# The cyclic collector is paused while a document is read (nested and concurrent pauses: the server
# reads documents on threads). Reading allocates one node per value and no reference cycles; with the
# collector running, its repeated passes over the young nodes made composing and converting a large
# file about 4x slower (measured, bench/bench_lint.py).
gc_paused = collector.paused


@dataclass
class Document:
    path: str | None
    text: str
    language: str  # "yaml" | "json" | "jsonl"
    root: Node | None
    issues: list[ParseIssue]
    lines: LineIndex
    # A flow collection or a quoted/plain scalar spans lines (or nesting is deep): where
    # js-yaml's indentation rules may refuse what libyaml read (rubric_lsp.document.js_yaml_refusals).
    # Not for a quoted scalar entry of a block collection whose lines js-yaml reads as libyaml does
    # (yaml_reader.quoted_lines_indented).
    flow_lines: bool = False
    _plain: Any = field(default=None, repr=False)
    _plain_built: bool = field(default=False, repr=False)
    # YAML: the plain scalars whose value depends on the schema (js_yaml.read_as_js_yaml).
    plain_scalars: PlainScalars | None = field(default=None, repr=False)
    # YAML: (start, end) of each literal or folded block scalar's lines after its header, in text order:
    # text both readers take as it is, where js_yaml_refusals.suspicious ignores constructs it looks for.
    block_scalars: list[tuple[int, int]] = field(default_factory=list, repr=False)
    # YAML: False when no mapping key is a collection / no node has a tag outside the YAML types
    # (str, int, …, seq, map, set, omap): what a rule looking for those need not walk the nodes for.
    complex_keys: bool = True
    other_tags: bool = True
    # YAML: False when no node sits in two places of the tree (no alias or merge key was used).
    shared_nodes: bool = True

    def forget_values(self) -> None:
        """Drop the cached plain values (after nodes were re-read in place)."""
        self._plain, self._plain_built = None, False

    @property
    def readable(self) -> bool:
        """False when the text could not be read into nodes at all."""
        return not any(issue.fatal for issue in self.issues)

    @property
    def value(self) -> Any:
        """Plain Python values (dicts/lists remember their node via ``.node``)."""
        if not self._plain_built:
            self._plain = to_plain(self.root)
            self._plain_built = True
        return self._plain

    def range(self, span: Span | Node) -> Range:
        if isinstance(span, Node):
            span = span.span
        return self.lines.range(span)

    def comments(self) -> list[tuple[int, str]]:
        """(line, text after '#') for YAML comment lines and trailing comments.

        A '#' inside a scalar (a quoted string, a block scalar) is not a comment: when
        the document was read, scalar spans decide; otherwise a quote-aware scan of the
        line does.
        """
        if self.language != "yaml":
            return []
        inside = _scalar_spans(self.root) if self.root is not None else None
        found = []
        for number, line in enumerate(self.text.split("\n")):
            if "#" not in line:
                continue
            if inside is None:
                index = _comment_start(line)
            else:
                base = self.lines.line_starts[number]
                index = _comment_outside(line, base, inside)
            if index != -1:
                found.append((number, line[index + 1 :].strip()))
        return found

    def comment_is_trailing(self, line: int) -> bool:
        """True when ``line`` has content before its comment (``a: 1  # ...``)."""
        text = self.lines.line_text(line)
        return not text.lstrip().startswith("#")


def _scalar_spans(root: Node) -> list[tuple[int, int]]:
    spans = [(n.start, n.end) for n in walk(root) if n.kind == SCALAR and n.end > n.start]
    spans.sort()
    return spans


def _comment_outside(line: str, base: int, spans: list[tuple[int, int]]) -> int:
    """Index of the first '#' on ``line`` that starts a comment (outside every scalar)."""
    from bisect import bisect_right

    index = line.find("#")
    while index != -1:
        offset = base + index
        if index == 0 or line[index - 1] in " \t":
            at = bisect_right(spans, (offset, float("inf"))) - 1
            if at < 0 or not (spans[at][0] <= offset < spans[at][1]):
                return index
        index = line.find("#", index + 1)
    return -1


def _comment_start(line: str) -> int:
    """Index of a YAML comment's '#', ignoring '#' inside quotes or words."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"" and (i == 0 or line[i - 1] in " \t:[{,-"):
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return i
    return -1


def language_for(path: str | None, text: str = "") -> str:
    suffix = PurePath(path).suffix.lower() if path else ""
    if suffix == ".jsonl" or suffix == ".ndjson":
        return "jsonl"
    if suffix == ".json":
        return "json"
    if suffix in (".yaml", ".yml"):
        return "yaml"
    stripped = text.lstrip()
    return "json" if stripped[:1] in ("{", "[") else "yaml"


BOM = b"\xef\xbb\xbf"


def encode_like(original: bytes, text: str, path: str | None) -> bytes:
    """The bytes to write for ``text`` (``original`` fixed): the BOM decode() dropped from a YAML
    file is put back; a JSON file's BOM stays in its text, so it is written only while still there."""
    dropped = original.startswith(BOM) and language_for(path, text) not in ("json", "jsonl")
    return (BOM if dropped else b"") + text.encode("utf-8")


def decode(data: bytes, limits: Limits = DEFAULT_LIMITS) -> tuple[str, ParseIssue | None]:
    """Bytes → text, refusing files above the size cap and bytes that are not UTF-8."""
    if len(data) > limits.max_bytes:  # len(): an oversize placeholder holds no bytes
        return "", ParseIssue(
            K.TOO_LARGE,
            f"File is {len(data) / 1048576:.1f} MiB; files above {limits.max_bytes / 1048576:.0f} MiB "
            "are not read (raise max-file-size in [tool.rubric-lint] if this is intended).",
            Span(0, 0),
            fatal=True,
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode("utf-8", errors="replace")
        text = data.decode("utf-8", errors="replace")
        offset = len(good)
        return text, ParseIssue(
            K.INVALID_UTF8,
            f"Byte 0x{data[exc.start]:02x} at byte offset {exc.start} is not valid UTF-8; "
            "rubric files must be UTF-8 text (re-save the file as UTF-8).",
            Span(offset, offset + 1),
            fatal=True,
        )
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, None


_SURROGATE = re.compile("[\ud800-\udfff]")


def _replace_surrogates(text: str) -> tuple[str, ParseIssue | None]:
    """Text from an editor may hold half of a UTF-16 surrogate pair (JSON-RPC escapes it as
    ``\\ud83d``); no UTF-8 codec takes it, so it becomes U+FFFD. That is one code point and
    one UTF-16 unit, as the half was, so every range stays where the editor has it."""
    found = _SURROGATE.search(text)
    if found is None:
        return text, None
    count = len(_SURROGATE.findall(text))
    text = _SURROGATE.sub("\ufffd", text)
    more = f" ({count - 1} more below)" if count > 1 else ""
    return text, ParseIssue(
        K.INVALID_UTF8,
        f"Character U+{ord(found.group()):04X} is half of a UTF-16 surrogate pair (a broken emoji?){more}; "
        "it cannot be saved as UTF-8 and is read as U+FFFD. Delete it, or type the whole character again.",
        Span(found.start(), found.end()),
    )


def parse_document(
    source: str | bytes,
    path: str | None = None,
    language: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Document:
    """Read ``source`` into a :class:`Document`; never raises on bad input."""
    with gc_paused():
        return _parse_document(source, path, language, limits)


def _parse_document(source: str | bytes, path: str | None, language: str | None, limits: Limits) -> Document:
    issues: list[ParseIssue] = []
    if isinstance(source, bytes):
        text, problem = decode(source, limits)
    else:
        text, problem = source, None
        if len(text) > limits.max_bytes:  # characters ≤ bytes, so this is a lower bound
            text, problem = "", decode(b"\0" * (len(text) + 1), limits)[1]
        elif not text.isascii():
            text, problem = _replace_surrogates(text)
    lang = language or language_for(path, text)
    if lang in ("json", "jsonl") and isinstance(source, bytes) and source.startswith(BOM) and problem is None:
        # Python's json (autorubric, NorthStar) refuses a BOM; keep it in the text, where it is
        # a finding whose fix deletes it. A YAML reader skips it, so decode() dropped it.
        text = "\ufeff" + text
    lines = LineIndex(text)
    if problem is not None and problem.fatal:
        return Document(path, text, lang, None, [problem], lines)
    plain = None
    flow_lines = False
    duplicates: list[tuple[Node, Node]] | None = None  # found while reading (None: walk the nodes for them)
    shapes: dict[str, bool] = {}
    block_scalars: list[tuple[int, int]] = []
    if lang == "yaml":
        from rubric_lsp.document.yaml_reader import read_yaml

        read = read_yaml(text, lines, limits)
        root, issues, plain, flow_lines = read.root, read.issues, read.plain, read.flow_lines
        duplicates, block_scalars = read.duplicates, read.block_scalars
        shapes = {"complex_keys": read.complex_keys, "other_tags": read.other_tags, "shared_nodes": read.shared_nodes}
    elif lang == "jsonl":
        from rubric_lsp.document.json_reader import read_jsonl

        root, issues = read_jsonl(text, lines, limits)
    else:
        from rubric_lsp.document.json_reader import read_json

        root, issues = read_json(text, lines, limits)
    if problem is not None:
        issues.append(problem)
    if lang in ("json", "jsonl") and text.startswith("\ufeff"):
        issues.append(
            ParseIssue(
                K.UTF8_BOM,
                "The file starts with a UTF-8 byte-order mark; Python's json refuses it "
                '("Unexpected UTF-8 BOM"), so autorubric and NorthStar cannot load the file.',
                Span(0, 1),
                edits=[TextEdit(Span(0, 1), "")],
            )
        )
    if root is not None:
        issues.extend(duplicate_keys(root, lines) if duplicates is None else duplicate_issues(duplicates, lines))
        issues.sort(key=lambda issue: issue.span.start)
    return Document(
        path, text, lang, root, issues, lines, flow_lines, plain_scalars=plain, block_scalars=block_scalars, **shapes
    )
