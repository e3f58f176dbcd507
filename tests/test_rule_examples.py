"""Every rule's documented examples: ``bad`` is a whole document that trips exactly that rule,
``good`` is one that does not trip it (issue 12 item 5).

The examples are what ``rubric rule CODE``, docs/rules.md and the editor's hover show, so a
wrong example misleads every reader. ``FRAGMENTS`` lists the rules whose examples are still
excerpts (``options: [...]``, one assertion without its test); each is a strict xfail, so
rewriting an example as a whole document makes its case pass and forces it off the list.
"""

from __future__ import annotations

import pytest

from rubric_lsp.formats.registry import all_rules, get_format
from rubric_lsp.lint import lint_text
from rubric_lsp.rules.registry import Rule
from rubric_lsp.settings import SMELLS, Settings

# Rules whose bad example cannot be one document that trips them alone, each with the reason.
FRAGMENTS = frozenset(
    [
        "AR110",  # a dataset written in YAML: an example of the dataset format is linted as JSON, its only language
        "NS006",  # fires only for a saved request with eval-case files beside it (one document cannot show it)
        "RL004",  # invalid UTF-8: an example is text, and a lone surrogate would break the docs it prints into
        "RL008",  # a file that cannot be read (a link loop, a FIFO) has no text to show
        "RL012",  # a referenced file that does not parse: needs a second file
        "RL020",  # needs a calibration record beside the file or `calibration = { required = true }` in the settings
        "RL900",  # an internal error has no bad example
    ]
)


# Codes a rule's bad example cannot help tripping as well (a misspelt key also leaves the right one
# missing). Findings of other formats' schemas do not count for any-file (RL) rules.
ALSO_TRIPS = {
    "PF101": {"PF103"},  # 'rubric:' instead of 'value:' leaves the rubric empty
    "AR100": {"AR021"},  # a criterion written as a mapping is an unknown key of 'rubric'
}


# Examples show one problem, not a runnable config: a promptfoo example with assertions but no
# `providers:` also trips PF108 (`promptfoo eval` refuses it), which only PF108's own example is about.
CONTEXT = {"PF108"}


def example_codes(found: Rule, text: str) -> set[str]:
    """The codes ``text`` trips when linted as a file of the rule's (first) format."""
    kind = next((f for f in found.formats if f != "*"), "autorubric-rubric")
    fmt = get_format(kind)
    assert fmt is not None, kind
    languages = fmt.languages
    looks_json = text.lstrip().lstrip("\ufeff").startswith(("{", "["))
    if looks_json and "json" in languages:
        ext = "json"
    elif looks_json and "jsonl" in languages:
        ext = "jsonl"
    else:
        ext = "yaml" if "yaml" in languages else languages[0]
    text = text if text.endswith("\n") else text + "\n"
    # The smell rules run only when selected (docs/smells.md): each example selects its own rule.
    settings = Settings(select=(found.code,)) if found.code.startswith(SMELLS) else None
    return {d.code for d in lint_text(text, f"example.{ext}", kind=kind, settings=settings).diagnostics}


def _cases() -> list[object]:
    cases: list[object] = []
    for found in all_rules():
        marks = [pytest.mark.xfail(strict=True, reason="example is a fragment")] if found.code in FRAGMENTS else []
        cases.append(pytest.param(found, id=found.code, marks=marks))
    return cases


@pytest.mark.parametrize("found", _cases())
def test_bad_example_trips_exactly_its_rule_and_good_does_not(found: Rule):
    assert found.bad, "document a bad example"
    tripped = example_codes(found, found.bad)
    if found.formats == ("*",):
        tripped = {code for code in tripped if code.startswith("RL")}
    tripped -= CONTEXT - {found.code}
    assert tripped - ALSO_TRIPS.get(found.code, set()) == {found.code}
    if found.good:
        assert found.code not in example_codes(found, found.good)


def test_fragment_list_names_real_rules():
    known = {r.code for r in all_rules()}
    assert known >= FRAGMENTS


def _without_comments(example: str) -> list[str]:
    return [line for line in example.strip().splitlines() if not line.lstrip().startswith("#")]


def test_no_rule_shows_the_same_document_as_its_bad_and_good_example():
    """RL020's "Trips it" and "Does not" were one document (the difference was in a comment): a reader
    saw nothing to change (issue 35). A rule whose finding depends on something beside the file still
    shows the document changing."""
    same = [r.code for r in all_rules() if r.bad and r.good and _without_comments(r.bad) == _without_comments(r.good)]
    assert same == []
