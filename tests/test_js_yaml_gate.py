"""The scan that decides when the js-yaml port reads a config (``js_yaml_refusals.suspicious``) looks for the
nine patterns of ``_GATED`` in one pass (``_GATED_ANY``). On seeded random text, that pass must find every place
the patterns one by one found (more is allowed: a false alarm only costs the port's time; fewer would let a
refusal through). The refusals themselves are checked against js-yaml in tests/test_js_yaml.py."""

from __future__ import annotations

import random
import re

import pytest

from rubric_lsp.document import js_yaml_refusals as scan

PIECES = [*"#|>?-]&!}:{[,'\" x0+.\t%", "\n", "\n  ", "\r\n", "\r", "- ", "&a", "!t", "|-", ">+2", " #c"]


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 40)))


def _blocks(rng: random.Random, size: int) -> list[tuple[int, int]]:
    """Sorted spans that do not overlap, as a document's block scalars are."""
    cuts = sorted(rng.sample(range(size + 1), k=min(size + 1, 2 * rng.randint(0, 2)) // 2 * 2))
    return list(zip(cuts[::2], cuts[1::2], strict=True))


def test_the_one_pass_finds_every_place_the_patterns_one_by_one_found():
    rng = random.Random(20261130)
    found = 0
    for _ in range(6000):
        text = _text(rng)
        blocks = _blocks(rng, len(text))
        one_by_one = any(
            scan._outside(hit.start(), blocks) for pattern in scan._GATED for hit in re.finditer(pattern, text)
        )
        found += one_by_one
        assert not one_by_one or scan._found(scan._GATED_ANY, text, blocks, None), (text, blocks)
    assert found > 1000, found  # the text exercises the patterns (this seed: 2,949 texts of 6,000)


def test_a_hit_inside_another_patterns_match_is_still_found():
    """`|` starts a block-header match that runs to the end of its line; the `]:` after the closing quote lies
    inside it. With the header in a block scalar's lines (skipped), only the `]:` counts, and it is found."""
    text = "a: 'x| #' ]:\n \n"
    header = text.index("|")
    assert scan._found(scan._GATED_ANY, text, [(header, header + 1)], None)
    assert not scan._found(scan._GATED_ANY, text, [(header, len(text))], None)


@pytest.mark.parametrize("dense", [1000, 1, 2])
def test_a_directive_line_is_found_wherever_a_line_starts_with_a_percent_sign(monkeypatch, dense):
    monkeypatch.setattr(scan, "_DENSE", dense)
    rng = random.Random(36)
    found = 0
    for _ in range(6000):
        text = _text(rng)
        expected = text.startswith("%") or "\n%" in text
        found += expected
        assert scan._directive_line(text) is expected, text
    assert found > 300, found  # (this seed: 385 of 6,000)


@pytest.mark.parametrize("dense", [1000, 2], ids=["one by one", "the engine taking over"])
def test_constructs_at_a_line_s_start_are_found_from_their_first_character(monkeypatch, dense):
    """``_first_on_line`` tries each pattern where its first character is (and past ``_DENSE`` places, lets the
    regex engine search on): it finds what the engine's pass over the text finds (each pattern does start with its
    character)."""
    monkeypatch.setattr(scan, "_DENSE", dense)

    def by_regex(text, patterns, before, blocks):
        for _first, pattern in patterns:
            for hit in pattern.finditer(text):
                line_start = text.rfind("\n", 0, hit.start()) + 1
                if before.fullmatch(text, line_start, hit.start()) is not None and scan._outside(hit.start(), blocks):
                    return True
        return False

    rng = random.Random(2026)
    cases = [(scan._HEADER, scan._SPACES), (scan._EXPLICIT, scan._ENTRIES), (scan._PROPERTIES, scan._ENTRIES)]
    for patterns, _before in cases:
        assert all(pattern.pattern.lstrip("\\").startswith(first) for first, pattern in patterns)
    found = 0
    for _ in range(6000):
        text = _text(rng)
        blocks = _blocks(rng, len(text))
        for patterns, before in cases:
            expected = by_regex(text, patterns, before, blocks)
            found += expected
            assert scan._first_on_line(text, patterns, before, blocks) is expected, (text, blocks)
    assert found > 300, found  # (this seed: 517 hits)


def test_the_places_of_a_pattern_are_every_offset_where_it_matches(monkeypatch):
    rng = random.Random(7)
    for dense in (0, 1, 3, 1000):
        monkeypatch.setattr(scan, "_DENSE", dense)
        for _ in range(2000):
            text = _text(rng)
            for first, pattern in (*scan._HEADER, *scan._EXPLICIT, *scan._PROPERTIES):
                expected = [at for at in range(len(text)) if pattern.match(text, at)]
                assert list(scan._places(text, first, pattern)) == expected, (dense, text, pattern.pattern)
