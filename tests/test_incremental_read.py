"""The incremental read (rubric_lsp/document/incremental.py): an edit it reads gives exactly what reading the
new text in full gives (nodes, values, tags, offsets, issues, plain scalars, lines), and the edits it is for,
typing inside a value, are read that way."""

from __future__ import annotations

import math
import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from rubric_lsp.document import Document, Node, parse_document
from rubric_lsp.document.incremental import read_edit
from rubric_lsp.document.js_yaml import read_as_js_yaml
from rubric_lsp.document.limits import DEFAULT_LIMITS, Limits
from rubric_lsp.document.nodes import MAP, SCALAR, walk
from rubric_lsp.lint import lint_text

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
from bench_lint import generated_config, generated_rubric  # noqa: E402  (bench/: seeded generators)

CONFIG = """\
description: Refund answers
prompts: [file://prompt.txt]
providers: [openai:gpt-4.1-mini]
defaultTest:
  options:
    provider: openai:gpt-4.1
tests:
  - description: first case
    vars:
      question: Where is my order?
      retries: 3
    assert:
      - type: llm-rubric
        value: "Says where the order is"
        threshold: 0.5
      - type: contains
        value: 'order'   # the word itself
  - vars: {question: inline flow, n: 1}
    assert:
      - type: llm-rubric
        value: |
          States the refund policy
          in one sentence
"""
PATH = "promptfooconfig.yaml"


def _value(value: Any) -> Any:
    """A scalar's value, told apart from equal values of other types (1, 1.0, True) and equal to itself (NaN)."""
    if isinstance(value, float) and math.isnan(value):
        return ("nan",)
    return (type(value).__name__, repr(value))


def _shape(node: Node) -> Any:
    head = (node.kind, node.start, node.end, node.tag)
    if node.kind == SCALAR:
        return (*head, _value(node.value), node.style, node.raw)
    if node.kind == MAP:
        return (*head, [(_shape(k), _shape(v)) for k, v in node.value])
    return (*head, [_shape(child) for child in node.value])


def shape(doc: Document) -> dict[str, Any]:
    """Everything a reading gives that a check, a face or a later reading can see."""
    plain = doc.plain_scalars
    return {
        "text": doc.text,
        "language": doc.language,
        "root": None if doc.root is None else _shape(doc.root),
        "issues": [
            (i.kind, i.message, i.span, i.related, [(e.span, e.new_text) for e in i.edits], i.fatal) for i in doc.issues
        ],
        "lines": doc.lines.line_starts,
        "plain": None
        if plain is None
        else (
            sorted((n.start, n.end) for n in plain.values),
            sorted((n.start, n.end) for n in plain.keys),
            plain.read_as_js,
        ),
        "flags": (doc.flow_lines, doc.complex_keys, doc.other_tags, doc.shared_nodes),
        "blocks": doc.block_scalars,
        "value": doc.value if doc.readable else None,
    }


def full(text: str, path: str, as_js: bool) -> Document:
    doc = parse_document(text, path)
    if as_js:
        read_as_js_yaml(doc)
    return doc


def read(previous: Document, text: str, path: str = PATH, limits: Limits = DEFAULT_LIMITS) -> Document | None:
    """The incremental reading, checked against the full one whenever it is given."""
    doc = read_edit(previous, text, path, limits)
    if doc is not None:
        as_js = previous.plain_scalars is not None and previous.plain_scalars.read_as_js
        assert shape(doc) == shape(full(text, path, as_js))
    return doc


@pytest.mark.parametrize("as_js", [False, True], ids=["as PyYAML reads", "as js-yaml reads"])
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("question: Where is my order?", "question: Where is my parcel?"),  # typing inside a plain value
        ("question: Where is my order?", "question: Where is my order?!"),  # at its end
        ("question: Where is my order?", "question: Dear team, where is my order?"),  # at its start
        ("retries: 3", "retries: 30"),  # a number stays one
        ("retries: 3", "retries: three"),  # an int becomes a string
        ("retries: 3", "retries: yes"),  # a YAML 1.1 boolean: a finding appears
        ("retries: 3", "retries: 1e3"),  # a YAML 1.2 number PyYAML reads as a string: a finding
        ("retries: 3", "retries: 0o17"),
        ("retries: 3", "retries: 010"),  # octal to PyYAML, 10 to js-yaml
        ("retries: 3", "retries: 2024-01-31"),  # a timestamp
        ("retries: 3", "retries: ~"),  # null
        ('value: "Says where the order is"', 'value: "Says where the \\u00e9 order is"'),  # an escape
        ('value: "Says where the order is"', "value: \"Says where the 'order' is\""),
        ("value: 'order'", "value: 'orders'"),  # before a comment
        ("- description: first case", "- description: first test case"),
        ("threshold: 0.5", "threshold: 0.75"),
        ("threshold: 0.5", "threshold: .5"),
        ("States the refund policy", "States our refund policy"),  # inside a literal block's line
        ("in one sentence", "in one short sentence"),  # its last line
        ("in one sentence", "in one sentence   "),  # trailing spaces are text there
        ("in one sentence", "in one sentence # not a comment"),
    ],
)
def test_typing_inside_a_value_is_read_alone_and_as_in_full(old, new, as_js):
    assert old in CONFIG
    previous = full(CONFIG, PATH, as_js)
    assert read(previous, CONFIG.replace(old, new, 1)) is not None


@pytest.mark.parametrize("as_js", [False, True], ids=["as PyYAML reads", "as js-yaml reads"])
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("retries: 3", "retries: x"),  # the empty value, typed into
        ("retries: 3", "retries: 10"),
        ("retries: 3", "retries: yes"),  # a YAML 1.1 boolean: a finding appears
        ("retries: 3", 'retries: ""'),  # an editor's closed quotes
        ("retries: 3", "retries: x  # why"),  # a comment after it
        ("- description: first case", "- description: s"),  # the last of its mapping: the mapping ends later
        ("      - type: contains", "      - type: c"),
    ],
)
def test_typing_a_value_after_its_key_is_read_alone_and_as_in_full(old, new, as_js):
    """`key: ` (or `- `) with nothing after it, then a value typed: the first keystroke of every new value."""
    head, _, _ = new.partition(": ")
    before = CONFIG.replace(old, head + (":   # why" if "#" in new else ": "), 1)
    after = CONFIG.replace(old, new, 1) if "#" not in new else before.replace(head + ":   # why", new, 1)
    previous = full(before, PATH, as_js)
    assert read(previous, after) is not None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("a: 1\nb:\nc: 2\n", "a: 1\nb: \nc: 2\n"),  # the space after the colon: still empty, where it was
        ("a: 1\nb: \nc: 2\n", "a: 1\nb:  \nc: 2\n"),
        ("a:\n  b:\n", "a:\n  b: \n"),  # the last value of its mapping: the mapping still ends after the colon
        ("b:", "b: "),
        ("a:\n  b:\n", "a:\n  b: __rubric_complete__\n"),  # completion's probe, typed after ':'
        ("x:\n  -\n  - y\n", "x:\n  - z\n  - y\n"),
        ("b:", "b: v"),  # at the end of the text
        ("a: 1\nb: x\n", "a: 1\nb: \n"),  # a value deleted whole: empty now, right after its indicator
        ("a: 1\nb: xy\nc: 1\n", "a: 1\nb: \nc: 1\n"),
        ("a:\n  b:   'q'  # c\n", "a:\n  b:     # c\n"),
        ("x:\n  - 3\n", "x:\n  - \n"),  # the last entry: its sequence now ends after the dash
    ],
)
def test_spaces_a_value_typed_after_an_indicator_and_a_value_deleted_are_read_alone(old, new):
    for as_js in (False, True):
        assert read(full(old, PATH, as_js), new) is not None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("a:\n  b: \n", "a:\n  b: #\n"),  # a comment, not a value
        ("a:\n  b: \n", "a:\n  b: - x\n"),  # a sequence entry
        ("a:\n  b: \n", "a:\n  b: [\n"),  # a flow collection opens
        ("a:\n  b: \n", "a:\n  b: x: y\n"),  # a mapping
        ("a:\n  b:\n", "a:\n  b:x\n"),  # no space after the colon: the key itself changes
        ("a:\n  b:\n    c: 1\n", "a:\n  b: x\n    c: 1\n"),  # not empty: a mapping on the lines below
        ("b: # c\n", "b: x# c\n"),  # typed right before a comment: it would join the value
        ("k: &a\n", "k: &a x\n"),  # an anchor before it
        ("k: [a, ]\n", "k: [a, x]\n"),  # inside a flow collection
    ],
)
def test_typing_where_no_value_was_that_may_change_more_is_read_in_full(old, new):
    assert read(full(old, PATH, False), new) is None


@pytest.mark.parametrize("as_js", [False, True], ids=["as PyYAML reads", "as js-yaml reads"])
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("question: Where", "questions: Where"),  # a key's typo, fixed in place (a rule's fix renames keys so)
        ("    vars:\n      question", "    varz:\n      question"),  # a key holding a mapping
        ("retries: 3", "retry: 3"),
        ("retries: 3", "question: 3"),  # now the same as a sibling: a duplicate key appears
        ("retries: 3", "'retries': 3"),  # quoted
        ("threshold: 0.5", "threshold_2: 0.5"),
    ],
)
def test_a_key_edited_in_place_is_read_alone_and_as_in_full(old, new, as_js):
    assert old in CONFIG
    previous = full(CONFIG, PATH, as_js)
    doc = read(previous, CONFIG.replace(old, new, 1))
    assert doc is not None
    if new == "question: 3":
        assert [i.kind for i in doc.issues] == ["duplicate-key"]


def test_a_duplicate_key_renamed_away_is_no_longer_reported():
    text = CONFIG.replace("retries: 3", "question: 3")
    previous = full(text, PATH, False)
    assert [i.kind for i in previous.issues] == ["duplicate-key"]
    doc = read(previous, CONFIG)
    assert doc is not None and doc.issues == []


def test_a_finding_on_the_edited_value_goes_with_the_value():
    previous = full(CONFIG.replace("retries: 3", "retries: yes"), PATH, False)
    assert any(issue.kind == "yaml11-boolean" for issue in previous.issues)
    fixed = read(previous, CONFIG.replace("retries: 3", "retries: true"))
    assert fixed is not None
    assert not any(issue.kind == "yaml11-boolean" for issue in fixed.issues)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("question: Where", "1: Where"),  # a key that reads as a number
        ("question: Where", "yes: Where"),  # as a boolean (and a YAML 1.1 finding)
        ("question: Where", "ques: tion: Where"),  # a mapping
        ("question: Where", "&a question: Where"),  # an anchor
        ("question: Where is my order?", "question: Where: is my order?"),  # becomes a mapping
        ("question: Where is my order?", "question: Where is my order? #"),  # a comment after it
        ("question: Where is my order?", "question: Where is\n my order?"),  # a line break
        ("question: Where is my order?", "question: &a Where is my order?"),  # an anchor
        ("question: Where is my order?", "question: !!str Where is my order?"),  # a tag
        ("question: Where is my order?", "question: [Where is my order?"),  # a flow collection opens
        ("question: Where is my order?", "question: Where is my order? "),  # trailing space
        ('value: "Says where the order is"', 'value: "Says where" the order is"'),  # a quote breaks
        ("{question: inline flow, n: 1}", "{question: inline flows, n: 1}"),  # inside a flow collection
        ("value: |", "value: |-"),  # a block scalar's header
        ("          States the", "            States the"),  # a block line's indentation
        ("          States the", "         States the"),
        ("          in one sentence", "          in one sentence\n          more"),  # a line break typed
        ("# the word itself", "# the words themselves"),  # a comment
        ("retries: 3", "retries: |"),  # a block scalar header
    ],
)
def test_an_edit_that_may_change_more_than_one_value_is_read_in_full(old, new):
    assert old in CONFIG
    assert read(full(CONFIG, PATH, False), CONFIG.replace(old, new, 1)) is None


@pytest.mark.parametrize(
    ("block", "old", "new"),
    [
        (">\n  folded one\n\n    more indented\n  back\n", "back", "backs"),  # folded, with a kept line
        ("|-\n  stripped\n\n", "stripped", "strip"),  # strip chomping, trailing blank lines
        ("|\n  last line without a break", "break", "breaks"),  # at the end of the text
    ],
)
def test_typing_inside_literal_and_folded_lines_is_read_alone(block, old, new):
    text = f"a: 1\nb: {block}"
    previous = full(text, PATH, False)
    assert read(previous, text.replace(old, new)) is not None


@pytest.mark.parametrize(
    ("block", "old", "new"),
    [
        ("|+\n  kept\n\n", "kept", "keep"),  # keep chomping: its trailing lines
        ("|2\n    two\n", "two", "three"),  # an explicit indentation: relative to the parent's
        ("|\n  one\n   \n  two\n", "\n   \n", "\n   x\n"),  # typing into a blank line
        ("|\r\n  one\r\n", "one", "once"),  # CR line breaks
    ],
)
def test_block_scalars_it_reads_in_full(block, old, new):
    text = f"a: 1\nb: {block}"
    assert read(full(text, PATH, False), text.replace(old, new)) is None


def test_texts_it_does_not_read_from_a_previous_one():
    previous = full(CONFIG, PATH, False)
    edited = CONFIG.replace("my order", "my parcel")
    assert read(previous, "\ufeff" + edited) is None  # a byte-order mark
    assert read(previous, edited, path="other.yaml") is None  # another file
    assert read(previous, edited, limits=Limits(max_bytes=100)) is None  # over the size cap
    assert read(previous, edited + "base: &b {a: 1}\nx:\n  <<: *b\n") is None  # merge keys (and more than one edit)
    assert read(full("key: [unclosed\n", PATH, False), "key: [unclosed2\n") is None  # unreadable before
    assert read(full(edited, PATH, False), edited) is None  # no edit


def test_anchored_nodes_stay_shared_through_an_edit_elsewhere():
    text = "base: &b\n  model: gpt-4\n  note: plain words\none: *b\ntwo: *b\n"
    previous = full(text, PATH, False)
    doc = read(previous, text.replace("plain words", "plainer words"))
    assert doc is not None and doc.root is not None
    one, two = doc.root.get("one"), doc.root.get("two")
    assert one is two is doc.root.get("base")  # aliases share the node, as in a full reading


def test_the_previous_reading_is_left_as_it_was():
    previous = full(CONFIG, PATH, True)
    before = shape(previous)
    assert read(previous, CONFIG.replace("my order", "my parcel")) is not None
    assert shape(previous) == before


def _nodes(doc: Document) -> list[Node]:
    assert doc.root is not None
    return list(walk(doc.root))


def test_what_ends_before_the_edited_value_is_kept_not_copied():
    """The nodes that end before the edited value are the previous reading's own (a 1.3 MB config's edit near its
    end copies almost nothing); the value, what holds it and what follows are new."""
    previous = full(CONFIG, PATH, True)
    doc = read(previous, CONFIG.replace("first case", "first test case"))
    assert doc is not None
    edited = next(n for n in _nodes(doc) if n.value == "first test case")
    kept = {id(n) for n in _nodes(previous)}
    for node in _nodes(doc):
        assert (id(node) in kept) == (node.end < edited.start), (node, node.value)
    assert sum(id(node) in kept for node in _nodes(doc)) > 10


def test_nothing_is_kept_while_the_previous_reading_awaits_js_yaml():
    """js-yaml's re-reading changes schema-dependent scalars in place (``retries: 010`` becomes 10): a reading that
    has not had it yet shares no node with the next one, so that re-reading the next leaves it as it was."""
    previous = full(CONFIG.replace("retries: 3", "retries: 010"), PATH, False)
    before = shape(previous)
    doc = read(previous, previous.text.replace("my order", "my parcel"))
    assert doc is not None
    assert not {id(n) for n in _nodes(previous)} & {id(n) for n in _nodes(doc)}
    read_as_js_yaml(doc)
    assert shape(previous) == before


def test_lint_with_the_previous_reading_gives_the_findings_of_a_lint_without_it():
    first = lint_text(CONFIG.replace("retries: 3", "retries: on"), PATH, explicit=False)
    edited = CONFIG.replace("retries: 3", "retries: off").replace("llm-rubric", "llm-rubrik", 1)
    again = lint_text(edited, PATH, explicit=False, previous=first.document)
    fresh = lint_text(edited, PATH, explicit=False)
    assert _findings(again) == _findings(fresh)
    typed = CONFIG.replace("retries: 3", "retries: offf")
    assert read_edit(first.document, typed, PATH, DEFAULT_LIMITS) is not None  # one value: read alone
    assert _findings(lint_text(typed, PATH, explicit=False, previous=first.document)) == _findings(
        lint_text(typed, PATH, explicit=False)
    )


def _findings(result) -> list[Any]:
    assert result.diagnostics  # the edits above are found
    return result.diagnostics  # dataclasses: compared field by field


# Characters that change how YAML reads a line, and ordinary ones.
_ALPHABET = list(":#-?,[]{}&*!|>'\"%@`\\ \t\n\r.+0123456789eExyzYNo~é😀")


def _edits(doc: Document, rng: random.Random, count: int) -> list[tuple[int, int, str]]:
    """(start, end, new text): mostly inside or at the ends of a scalar value, some anywhere."""
    assert doc.root is not None
    scalars = [n for n in walk(doc.root) if n.kind == SCALAR and n.end > n.start]
    empties = [n for n in walk(doc.root) if n.kind == SCALAR and n.end == n.start]  # `key:`, `-`: a value typed
    edits = []
    for _ in range(count):
        if scalars and rng.random() < 0.05:  # a value replaced whole, or deleted
            node = rng.choice(scalars)
            edits.append((node.start, node.end, rng.choice(["", " ", "x", '""'])))
            continue
        if empties and rng.random() < 0.2:
            start = min(len(doc.text), rng.choice(empties).start + rng.choice([0, 1, 1, 2, 3]))
        elif scalars and rng.random() < 0.85:
            node = rng.choice(scalars)
            start = rng.randint(node.start, node.end)
        else:
            start = rng.randint(0, len(doc.text))
        end = min(len(doc.text), start + rng.choice([0, 0, 1, 2]))
        typed = "".join(rng.choice(_ALPHABET) for _ in range(rng.choice([0, 1, 1, 2, 3])))
        if rng.random() < 0.5:
            typed = "".join(rng.choice("abcdefghij ") for _ in range(rng.randint(1, 4)))
        edits.append((start, end, typed))
    return edits


def _fuzz(texts: list[tuple[str, str]], seed: int, edits_per_text: int) -> tuple[int, int]:
    """Chains of random edits on each text; each reading checked against the full one (``read``).
    (edits read alone, edits tried)."""
    rng = random.Random(seed)
    alone = tried = 0
    for path, text in texts:
        as_js = rng.random() < 0.5
        doc = full(text, path, as_js)
        if doc.root is None:
            continue
        for start, end, typed in _edits(doc, rng, edits_per_text):
            new = doc.text[:start] + typed + doc.text[end:]
            if new == doc.text:
                continue
            tried += 1
            got = read(doc, new, path)
            if got is None:
                got = full(new, path, as_js)
                if got.root is None:
                    got = doc  # keep editing the last readable text
            else:
                alone += 1
            doc = got
    return alone, tried


def _emptied(text: str, rng: random.Random) -> str:
    """``text`` with about a third of its one-line values after ``key: `` or ``- `` taken out (some with the
    space kept, some with a comment after): where a value gets typed."""

    def blank(match: re.Match[str]) -> str:
        if rng.random() > 0.35:
            return match.group(0)
        return match.group(1) + rng.choice(["", " ", "  ", "  # later"])

    return re.sub(r"^([ \t]*(?:- |[\w.-]+:))[ ]+[^\s#][^\n#]*$", blank, text, flags=re.MULTILINE)


def test_random_edits_of_generated_configs_and_rubrics_read_as_in_full():
    texts = [(f"c{i}.yaml", generated_config(random.Random(i), 12)) for i in range(6)]
    texts += [(f"e{i}.yaml", _emptied(generated_config(random.Random(i), 12), random.Random(i))) for i in range(4)]
    texts += [(f"r{i}.rubric.yaml", generated_rubric(random.Random(i), 12)) for i in range(6)]
    texts += [(PATH, CONFIG)]
    texts += [(str(p), p.read_text(encoding="utf-8")) for p in sorted((REPO / "samples").rglob("*.y*ml"))]
    alone, tried = _fuzz(texts, seed=36, edits_per_text=40)
    assert tried > 400
    assert alone > tried // 10, (alone, tried)  # the path is taken, not always refused


def test_random_edits_of_real_configs_and_rubrics_read_as_in_full(corpus):
    paths = sorted((corpus / "promptfoo" / "examples").rglob("*.yaml"))
    paths = [p for p in paths if p.stat().st_size < 50_000]
    rng = random.Random(7)
    chosen = rng.sample(paths, min(60, len(paths))) + sorted((corpus / "autorubric").rglob("*.yaml"))[:20]
    texts = [(str(p), p.read_text(encoding="utf-8-sig")) for p in chosen]
    alone, tried = _fuzz(texts, seed=36, edits_per_text=12)
    assert tried > 500
    assert alone > tried // 10, (alone, tried)


def test_the_edits_the_server_bench_makes_on_the_largest_config_are_read_alone(corpus):
    """bench_server --compare's edits (typing in a value, a value deleted whole, a new value's first letter, a key
    renamed): each read from the reading before, as the full reading; the figures are of what they name."""
    from bench_server import edit_chain

    path = corpus / "promptfoo" / "examples" / "redteam-medical-agent" / "redteam.yaml"
    text = path.read_text(encoding="utf-8")
    previous = full(text, str(path), True)
    for edited in edit_chain(text, 1):
        doc = read(previous, edited, str(path))
        assert doc is not None
        previous = doc


def test_a_value_s_completion_probe_is_read_from_the_last_reading(monkeypatch):
    """Completion reads the text with the word typed so far replaced (a probe): from the last lint's reading
    when that word is a value, with the items a full reading gives (the server's completion on a 1.3 MB
    config: ~0.1 s instead of ~0.4 s on the event loop)."""
    from rubric_lsp.server import completion

    result = lint_text(CONFIG, PATH, explicit=False)
    at = CONFIG.index("type: contains") + len("type: cont")
    want = completion.completions(result.format, CONFIG, at, "yaml")
    assert {"contains", "contains-any"} <= {item.label for item in want[0]}

    def full_reading(*args, **kwargs):
        raise AssertionError("read in full")

    monkeypatch.setattr(completion, "parse_document", full_reading)
    got = completion.completions(result.format, CONFIG, at, "yaml", previous=result.document)
    assert [item.label for item in got[0]] == [item.label for item in want[0]] and got[1] == want[1]


def test_values_typed_where_none_was_read_as_in_full():
    """Each empty value of generated configs and rubrics (``key:``, ``key: ``, ``- ``, with a comment or not),
    typed into with words and YAML's punctuation, some after spaces, some spaces alone: every reading alone is
    the full reading, and the words are read alone."""
    rng = random.Random(37)
    texts = [(f"e{i}.yaml", _emptied(generated_config(random.Random(i), 10), random.Random(i))) for i in range(4)]
    texts += [
        (f"e{i}.rubric.yaml", _emptied(generated_rubric(random.Random(i), 10), random.Random(i))) for i in range(4)
    ]
    alone = tried = 0
    for path, text in texts:
        for as_js in (False, True):
            doc = full(text, path, as_js)
            assert doc.root is not None
            for node in [n for n in walk(doc.root) if n.kind == SCALAR and n.start == n.end]:
                at = node.start + rng.choice([0, 1, 1, 1, 2])
                word = rng.random() < 0.6
                typed = (
                    "".join(rng.choice("abcxyz019 ") for _ in range(rng.randint(1, 5))).strip() or "a"
                    if word
                    else "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 3)))
                )
                typed = rng.choice(["", "", " ", "  "]) + typed if rng.random() < 0.8 else " " * rng.randint(1, 2)
                tried += 1
                got = read(doc, doc.text[:at] + typed + doc.text[at:], path)
                alone += got is not None
    assert tried > 100
    assert alone > tried // 4, (alone, tried)


def test_lint_of_a_value_typed_after_its_key_from_the_previous_reading_gives_the_fresh_findings():
    """The editor's first keystroke of a new value, and its last backspace: linted from the last reading, the
    findings are a fresh lint's (a threshold out of range, then none, then an empty one)."""
    empty = CONFIG.replace("threshold: 0.5", "threshold: ")
    first = lint_text(empty, PATH, explicit=False)
    for typed in ("threshold: 7", "threshold: 0.7", "threshold: "):
        text = CONFIG.replace("threshold: 0.5", typed)
        assert read_edit(first.document, text, PATH, DEFAULT_LIMITS) is not None
        again = lint_text(text, PATH, explicit=False, previous=first.document)
        assert again.diagnostics == lint_text(text, PATH, explicit=False).diagnostics
        first = again


def test_a_key_edited_where_duplicate_keys_are_past_the_listed_number_is_read_in_full():
    """Past MAX_DUPLICATE_REPORTS the list stops short (the rest counted in its last finding): read in full."""
    text = "".join(f"k{i % 3}: {i}\n" for i in range(250)) + "other: 1\n"
    previous = full(text, PATH, False)
    assert read(previous, text.replace("other: 1", "others: 1")) is None
    small = "".join(f"k{i % 3}: {i}\n" for i in range(20)) + "other: 1\n"
    assert read(full(small, PATH, False), small.replace("other: 1", "k1: 1")) is not None  # (checked as in full)
