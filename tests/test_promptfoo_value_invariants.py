"""Issue 24 item 9b, issue 34 item 6: PF111 knows every value promptfoo 0.123.1's assertion handlers
refuse, and PF100 every assertion type it runs.

The tables (``rubric_lsp/formats/promptfoo/value_invariants.py``, ``assertion_type_names.py``) are
generated from promptfoo itself by ``tools/gen_promptfoo_tables.py``: its handlers are run, through
promptfoo's exported ``assertions.runAssertion``, with one value of each kind, and its config schema's
assertion types are read. This re-derives both from the installed package and fails when one is
stale, and checks that a value written in a config is classed as the kind of value promptfoo was run
with, so PF111 fires exactly where promptfoo fails the assertion.
"""

from __future__ import annotations

import functools
import importlib.util
import shutil
from pathlib import Path

import pytest

from rubric_lsp.formats.promptfoo.value_invariants import KINDS, REFUSED
from rubric_lsp.lint import lint_text
from tests.conftest import REPO, require

# Each kind as a config writes it: the same value tools/promptfoo_value_invariants.mjs runs (KINDS there).
WRITTEN = {
    "missing": None,
    "null": "null",
    "empty string": '""',
    "numeric string": '"5"',
    "string": "hello",
    "zero": "0",
    "number": "5",
    "true": "true",
    "false": "false",
    "empty list": "[]",
    "strings": "[a, b]",
    "numbers": "[1, 2]",
    "empty object": "{}",
    "object": "{a: 1}",
    "min-max object": "{min: 1, max: 5}",
}


def _generator():
    spec = importlib.util.spec_from_file_location("gen_promptfoo_tables", REPO / "tools" / "gen_promptfoo_tables.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def _derive(node_modules: Path) -> dict:
    """One run of promptfoo's handlers for both tables (a run takes seconds)."""
    return _generator().derive(node_modules)


@pytest.fixture
def derived(promptfoo_modules: Path) -> dict:
    require(shutil.which("node") is not None, "node is not installed")
    return _derive(promptfoo_modules)


def test_the_table_is_what_promptfoo_does_today(derived: dict) -> None:
    gen = _generator()
    fresh = gen.tables(derived)
    assert fresh == gen.current(), "stale: run python tools/gen_promptfoo_tables.py NODE_MODULES"
    # The issues' cases, as promptfoo 0.123.1 runs them.
    for kind in ("regex", "starts-with", "contains-any", "icontains-all", "contains"):
        assert "missing" in fresh["REFUSED"][kind]
    assert "missing" not in fresh["REFUSED"]["llm-rubric"]  # falls back to rubricPrompt (PF103's)
    # Value checks outside an invariant in the handler: a plain throw (search-rubric), a helper
    # (skill-used's resolveSkillMatchers), a lazily imported chunk (meteor).
    assert fresh["REFUSED"]["search-rubric"]["missing"] == "search-rubric assertion type must have a string value"
    assert fresh["REFUSED"]["skill-used"]["missing"] == (
        "skill-used assertion must have a string, string array, or object value"
    )
    assert fresh["REFUSED"]["meteor"]["missing"] == (
        'Invariant failed: "meteor" assertion must have a string or array of strings value'
    )
    # What the stand-in grader causes is no refusal: agent-rubric needs an agent, search-rubric a web search.
    assert set(fresh["REFUSED"]["agent-rubric"]) == {"zero", "number", "true", "false"}
    assert "string" not in fresh["REFUSED"]["search-rubric"]


def test_the_assertion_types_are_what_promptfoo_runs_today(derived: dict) -> None:
    gen = _generator()
    fresh = gen.type_names(derived)
    assert fresh == gen.current_types(), "stale: run python tools/gen_promptfoo_tables.py NODE_MODULES"
    assert "agent-rubric" in fresh["BASE_TYPES"]  # new in 0.123.x (issue 34: PF100 called it unknown)


def _config(kind: str, value: str | None) -> str:
    line = "" if value is None else f"        value: {value}\n"
    return f"prompts: ['{{{{q}}}}']\nproviders: [echo]\ntests:\n  - vars: {{q: hi}}\n    assert:\n      - type: {kind}\n{line}"


def test_the_written_kinds_are_the_kinds_promptfoo_was_run_with() -> None:
    assert tuple(WRITTEN) == KINDS


@pytest.mark.parametrize("assertion_type", sorted(REFUSED))
def test_pf111_fires_exactly_where_promptfoo_refuses(assertion_type: str) -> None:
    for kind, written in WRITTEN.items():
        codes = [d.code for d in lint_text(_config(assertion_type, written), "promptfooconfig.yaml").diagnostics]
        assert ("PF111" in codes) == (kind in REFUSED[assertion_type]), (assertion_type, kind, codes)


def test_the_inverted_type_is_refused_as_its_base_and_the_message_is_promptfoos() -> None:
    [diag] = [d for d in lint_text(_config("not-regex", None), "promptfooconfig.yaml").diagnostics if d.code == "PF111"]
    assert diag.message == (
        "This not-regex has no value; promptfoo fails it every run with "
        """'Invariant failed: "regex" assertion type must have a string value'."""
    )


@pytest.mark.parametrize("value", ["'{{ pattern }}'", "file://pattern.txt", "'package:my-pkg:fn'"])
def test_values_known_only_at_run_time_are_not_judged(value: str) -> None:
    codes = [d.code for d in lint_text(_config("regex", value), "promptfooconfig.yaml").diagnostics]
    assert "PF111" not in codes
