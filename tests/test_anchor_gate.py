"""The reader looks nodes up by identity (to share what an alias shares, and count it for the expansion check)
only in a text that may hold an anchor (``yaml_reader.may_hold_anchor``): the gate must hit wherever either composer
(libyaml's, PyYAML's pure one) reads an anchor, and should miss prose such as "Q & A" or "a && b"."""

from __future__ import annotations

import random

import pytest
import yaml

from rubric_lsp.document import parse_document
from rubric_lsp.document.yaml_reader import may_hold_anchor

PLACES = [
    "&{a} x\n",
    "k: &{a} x\nr: *{a}\n",
    "- &{a} x\n- *{a}\n",
    "[&{a} x, *{a}]\n",
    "[x,&{a} y, *{a}]\n",
    "{{&{a} k: v}}\n",
    '{{"k":&{a} v, r: *{a}}}\n',
    "? &{a} k\n: v\n",
    "k: !!str &{a} x\n",
    "k:\n\t&{a} x\n",
    "--- &{a}\nk: v\n",
    "\ufeff&{a} x\n",
    "base: &{a}\n  k: v\nother:\n  <<: *{a}\n",
]
NAMES = ["a", "ref_0", "x-1", "_", "9", "é", "a.b", "a:b"]
# Values holding an '&' that is no anchor, which the gate misses; and some it hits (it is a superset).
PROSE = ["Q & A", "a && b", "x &&y", "AT&T", "!t&x v"]
NOISE = [*PROSE, "x &amp; y", "x # &c", "'Q &A'", '"&b"', "x\n  &c"]


def _anchored(text: str, loader: type) -> bool | None:
    """Whether the composer reads an anchor in ``text`` (None: it refuses the text)."""
    try:
        return any(getattr(event, "anchor", None) for event in yaml.parse(text, Loader=loader))
    except yaml.YAMLError:
        return None


def test_the_gate_hits_wherever_a_composer_reads_an_anchor():
    rng = random.Random(36)
    loaders = [yaml.SafeLoader, *([yaml.CSafeLoader] if hasattr(yaml, "CSafeLoader") else [])]
    anchored = 0
    for _ in range(3000):
        parts = [rng.choice(PLACES).format(a=rng.choice(NAMES)) for _ in range(rng.randint(1, 2))]
        parts += [f"p{n}: {rng.choice(NOISE)}\n" for n in range(rng.randint(0, 2))]
        rng.shuffle(parts)
        text = "".join(parts)
        for loader in loaders:
            if _anchored(text, loader):
                anchored += 1
                assert may_hold_anchor(text), (loader.__name__, text)
    assert anchored > 1000  # (the cases are read, not all refused)


@pytest.mark.parametrize("prose", PROSE)
def test_prose_with_an_ampersand_takes_the_reader_s_path_without_lookups(prose):
    text = f"k: {prose}\nl: [a, b]\n"
    assert _anchored(text, yaml.SafeLoader) is False
    assert not may_hold_anchor(text)


def test_an_alias_is_still_one_shared_node_and_counted():
    doc = parse_document("base: &b {k: v}\nother: *b\nq: Q & A\n", "x.yaml")
    assert doc.root.get("base") is doc.root.get("other")
    assert doc.shared_nodes


def test_the_gate_hits_exactly_the_promptfoo_examples_that_hold_an_anchor(corpus):
    examples = corpus / "promptfoo" / "examples"
    files = sorted([*examples.rglob("*.yaml"), *examples.rglob("*.yml")])
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    wrong = []
    for path in files:
        text = path.read_text(encoding="utf-8-sig")
        if may_hold_anchor(text) != bool(_anchored(text, loader)):
            wrong.append(path.name)
    assert wrong == []
