"""A "did you mean" never seems to suggest the word it names (issue 35 item 6).

AR022 said "Unknown key 'expect' … Did you mean 'expect'?": the key held a character that does not show
(a no-break space after it, a zero-width space, a Cyrillic 'е' for the Latin 'e'), so the message read as
nonsense. ``rules.suggest.did_you_mean`` names what makes the key another word, and ``closest`` never
suggests a word for itself. Checked over each format's unknown-key rules with keys of the samples made
look-alike, and on the suggester itself.
"""

from __future__ import annotations

import json
import re

import pytest

from rubric_lsp.rules.suggest import closest, did_you_mean, looks_alike, suggest
from tests.conftest import SAMPLES
from tests.helpers import lint

# Ways a key reads as itself and is not: a no-break space after it, a zero-width space in it, a Cyrillic е.
SPOILERS = {
    "no-break space (U+00A0)": lambda key: key + "\u00a0",
    "zero width space (U+200B)": lambda key: key[:2] + "\u200b" + key[2:],
    "cyrillic small letter ie (U+0435)": lambda key: key.replace("e", "\u0435", 1),
}
SAID = re.compile(r"[Kk]ey '([^']*)'.*?Did you mean '([^']*)'\?")


def test_a_known_word_is_never_suggested_for_itself():
    assert closest("expect", ["expect", "name"]) is None
    assert suggest("expect", ["expect", "name"]) is None
    assert closest("Expect", ["expect", "name"]) == "expect"  # another spelling of it is suggested


@pytest.mark.parametrize("spoiled", sorted(SPOILERS))
def test_a_look_alike_is_told_apart(spoiled: str):
    word = SPOILERS[spoiled]("expect")
    assert looks_alike(word, "expect") and not looks_alike("expecs", "expect") and not looks_alike("expect", "expect")
    said = did_you_mean(word, "expect")
    assert said == f" It reads as 'expect' but is not: it holds {spoiled}. Did you mean 'expect'?"
    assert did_you_mean("expecs", "expect") == " Did you mean 'expect'?"


EXAMPLE = "criteria:\n  - name: c1\n    requirement: Cites a source\nexamples:\n  - name: a\n    response: b\n"


def _cases() -> list[tuple[str, str, str, str]]:
    """(path, text, key, code): documents with one key spoiled, for each format's unknown-key rule."""
    rubric = (SAMPLES / "autorubric" / "refund-reply.rubric.yaml").read_text(encoding="utf-8")
    config = (SAMPLES / "promptfoo" / "promptfooconfig.yaml").read_text(encoding="utf-8")
    request = (SAMPLES / "northstar" / "eval_run_request.json").read_text(encoding="utf-8")
    grader_key = next(k for k in json.loads(request)["graders"][0] if "e" in k and len(k) > 3)
    return [
        ("r.rubric.yaml", EXAMPLE + "    expect:\n      min_score: 1\n", "expect", "AR022"),
        ("r.rubric.yaml", rubric, "requirement", "AR001"),
        ("promptfooconfig.yaml", config, "description", "PF001"),
        ("eval_run_request.json", request, f'"{grader_key}"', "NS"),
    ]


@pytest.mark.parametrize("spoiled", sorted(SPOILERS))
@pytest.mark.parametrize(("path", "text", "key", "code"), _cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_an_unknown_key_that_reads_as_a_known_one_says_what_it_holds(path, text, key, code, spoiled):
    bare = key.strip('"')
    bad = SPOILERS[spoiled](bare)
    assert text.count(f"{key}:") >= 1, (path, key)
    spoiled_text = text.replace(f"{key}:", f'"{bad}":', 1)  # quoted: YAML and JSON keep the odd character
    found = [d for d in lint(spoiled_text, path).diagnostics if d.code.startswith(code) and "Did you mean" in d.message]
    assert found, [d.message for d in lint(spoiled_text, path).diagnostics]
    for diagnostic in found:
        named, suggested = SAID.search(diagnostic.message).groups()
        assert named != suggested  # never the key itself
        assert f"It reads as '{bare}' but is not: it holds {spoiled}." in diagnostic.message, diagnostic.message
        assert diagnostic.fix is not None and [e.new_text.strip('"') for e in diagnostic.fix.edits] == [bare]
