"""The rule registry: well-formed rules, docs/rules.md and the README table kept current."""

from __future__ import annotations

import re

import pytest

from rubric_lsp.cli import main
from rubric_lsp.commands.rules import (
    README_END,
    README_START,
    readme_table_block,
    rule_table,
    rules_document,
    sync_readme,
)
from rubric_lsp.diagnostics import Severity
from rubric_lsp.formats.registry import all_rules, get_rule
from rubric_lsp.rules.registry import rule
from tests.conftest import REPO

RULES = all_rules()
CODE_RANGES = {
    "RL": range(1, 1000),
    "AR": range(1, 300),
    "PF": range(1, 1000),
    "NS": range(1, 1000),
    "RT": range(1, 1000),
}


@pytest.mark.parametrize("found", RULES, ids=[r.code for r in RULES])
def test_rule_is_well_formed(found):
    m = re.fullmatch(r"(RL|AR|PF|NS|RT)(\d{3})", found.code)
    assert m, f"{found.code}: codes are a known prefix and three digits"
    assert int(m.group(2)) in CODE_RANGES[m.group(1)]
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", found.name), f"{found.code}: names are kebab-case"
    assert isinstance(found.severity, Severity)
    assert found.summary and found.summary[-1] in ".?!)", f"{found.code}: the summary is a sentence"
    assert len(found.rationale) > 20, f"{found.code}: the rationale explains why"
    assert found.docs_url.endswith("#" + found.code.lower())
    if found.fix is not None:
        assert found.fix.strip(), f"{found.code}: a fixable rule says what its fix does"


# A rule that says the owner tool refuses, rejects or fails something makes a claim about that tool's
# code; it names the release (and files) the claim was read in (issue 24).
OWNER_CLAIM = re.compile(r"\b(?:refus\w*|reject\w*|fail(?:s|ed|ing)?)\b", re.IGNORECASE)
OUR_OWN_REFUSAL = {"RL003", "RL900"}  # our reader's limits, our own checks' crash
RELEASE = re.compile(r"\b\d+\.\d+(?:\.\d+)?\b|public head|js-yaml|Python's json")


@pytest.mark.parametrize("found", RULES, ids=[r.code for r in RULES])
def test_claims_about_the_owner_say_what_they_were_checked_against(found):
    claims = OWNER_CLAIM.search(f"{found.summary} {found.rationale}")
    if claims is None or found.code in OUR_OWN_REFUSAL:
        return
    assert found.checked_against, (
        f"{found.code} says '{claims.group(0)}': add checked_against='<tool> <release>'s <file>'"
    )
    assert RELEASE.search(found.checked_against), f"{found.code}: checked_against names a release"
    assert f"**Checked against:** {found.checked_against}." in found.markdown()


def test_names_are_unique_within_a_prefix():
    # Two formats may both have e.g. "invalid-dataset-shape"; codes tell them apart.
    seen = {}
    for found in RULES:
        key = (found.code[:2], found.name)
        assert key not in seen, f"{found.code} and {seen.get(key)} share the name {found.name!r}"
        seen[key] = found.code


def test_codes_cannot_be_defined_twice():
    with pytest.raises(ValueError, match="defined twice"):
        rule("RL001", "again", Severity.ERROR, "Again.", "A second definition of an existing code.")


def test_lookup_is_case_insensitive():
    assert get_rule("rl001") is get_rule("RL001") is not None
    assert get_rule("RL999") is None


def test_any_file_rules_exist_with_their_severities():
    expected = {
        "RL001": "error",
        "RL002": "error",
        "RL003": "error",
        "RL004": "error",
        "RL005": "warning",
        "RL006": "error",
    }
    assert {code: get_rule(code).severity.label for code in expected} == expected
    assert get_rule("RL005").fixable and get_rule("RL006").fixable


def test_docs_rules_md_is_current():
    path = REPO / "docs" / "rules.md"
    assert path.is_file(), "docs/rules.md missing: run `rubric rule --all > docs/rules.md`"
    assert path.read_text(encoding="utf-8") == rules_document(), (
        "docs/rules.md is stale: run `rubric rule --all > docs/rules.md`"
    )


def test_docs_have_an_anchor_for_every_rule():
    text = rules_document()
    for found in RULES:
        assert f'<a id="{found.code.lower()}"></a>' in text
        assert f"## {found.code} `{found.name}`" in text


def test_rule_all_prints_the_docs_file(capsys):
    assert main(["rule", "--all"]) == 0
    assert capsys.readouterr().out == rules_document()


def test_table_escapes_pipes_in_summaries():
    for row in rule_table().splitlines()[2:]:
        cells = re.split(r"(?<!\\)\|", row)
        assert len(cells) == 7, row  # five cells between the outer pipes


def test_readme_rule_table_is_current():
    readme = REPO / "README.md"
    text = readme.read_text(encoding="utf-8")
    block = readme_table_block(text)
    if block is None:  # the README links the rule docs instead of carrying the table
        assert "](docs/rules.md)" in text, "README.md neither carries the rule table nor links docs/rules.md"
        return
    assert text[block[0] : block[1]].strip() == rule_table(), (
        "the rule table in README.md is stale: run `rubric rule --readme README.md`"
    )


def test_readme_helper_rewrites_only_the_block(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\n## Rules\n\n{README_START}\nold\n{README_END}\n\nafter\n")
    assert main(["rule", "--readme", str(readme), "--check"]) == 1
    assert "stale" in capsys.readouterr().err
    assert main(["rule", "--readme", str(readme)]) == 0
    text = readme.read_text()
    assert text.startswith("# Title\n\n## Rules\n\n" + README_START + "\n| Code |")
    assert text.endswith(f"|\n{README_END}\n\nafter\n")
    assert sync_readme(readme, write=False) is True
    assert main(["rule", "--readme", str(readme), "--check"]) == 0
    readme.write_text("no markers\n")
    assert main(["rule", "--readme", str(readme)]) == 2


@pytest.mark.parametrize(
    "code, path", [("RL001", "x.yaml"), ("RL002", "x.yaml"), ("RL005", "x.yaml"), ("RL006", "x.json")]
)
def test_any_file_rule_examples_trip_and_do_not(code, path):
    from tests.helpers import codes, lint

    found = get_rule(code)
    assert found.bad and found.good
    assert code in codes(lint(found.bad, path, kind="autorubric-rubric"))
    assert code not in codes(lint(found.good, path, kind="autorubric-rubric"))
