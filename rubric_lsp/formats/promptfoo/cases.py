"""promptfoo's test numbering: the tests an eval runs, numbered as promptfoo 0.123.1 numbers them.

``rubric grade --test N``, a labels file's ``test`` column, a results file's ``testIdx`` (N − 1) and the
editor's lenses all name promptfoo's test N. Read from ``dist/src/evaluator-*.js``:

- ``buildTestsFromSuite``: the config's tests (inline and from files, in order), or one empty test ``{}``
  when it has none and no ``scenarios``; then, per scenario, per ``config`` entry, each of its ``tests``
  (none when it has none), merged as ``mergeScenarioTest``: vars ``{...defaultTest.vars, ...entry.vars,
  ...test.vars}``, assertions the entry's then the test's;
- ``prepareTestVariables``: every test's vars are ``{...defaultTest.vars, ...test.vars}`` (so a list in
  defaultTest's vars expands every test);
- ``appendRunEvalOptionsForTestCase``: each test runs ``repeat`` times (its ``options.repeat``, defaultTest's
  options merged under it, else ``evaluateOptions.repeat``; a positive safe integer, else 1), and each time
  once per combination of its vars (``generateVarCombinations``), unless ``options.disableVarExpansion`` or
  ``PROMPTFOO_DISABLE_VAR_EXPANSION``; every one is a test number, repeats outermost;
- ``generateVarCombinations``: over the vars' keys in JavaScript's order (integer-like keys first, ascending,
  then the others as written), the first key varying slowest: a list whose first element is a string is
  one value per element; any other list (empty, numbers, objects) is one value; a ``file://`` string is one
  value per file its glob matches (``file://`` + the path as matched).

Not known here, so numbered as if absent: tests from CSV, scripts or sheets (``ConfigView.tests_complete``
is then False), a ``transformVars`` that returns a list, ``--repeat`` given on promptfoo's command line.
A glob's files are numbered in the order glob 13 returns them on Node (``refs.walk_order``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.promptfoo import refs
from rubric_lsp.formats.promptfoo.resolve import ConfigView, TestInfo

# A test whose vars multiply to more than this is not numbered further (promptfoo would run them all):
# the cases after it are unknown here, and ``Numbering.refused`` says why.
MAX_CASES = 100_000
DISABLE_ENV = "PROMPTFOO_DISABLE_VAR_EXPANSION"
_TRUE = ("1", "true", "yes", "yup", "yeppers")  # promptfoo's getEnvBool


@dataclass(eq=False)
class Case:
    """promptfoo's test ``number`` (``testIdx + 1``).

    ``test`` is what it runs (a scenario test merged with its config entry); ``entry`` the config's test it
    comes from (a member of ``ConfigView.tests``: where the editor puts its lens); ``vars`` its plain values,
    one combination; ``expanded`` the names of the vars whose list (or glob) gave it its value."""

    number: int
    test: TestInfo
    entry: TestInfo | None
    vars: dict[str, Any]
    repeat: int = 0
    expanded: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """``test 3 (lang=fr, q=rome)``: its number, and the values that set it apart from its entry's others."""
        shown = ", ".join(f"{name}={_short(self.vars.get(name))}" for name in self.expanded)
        parts = [shown] if shown else []
        if self.repeat:
            parts.append(f"repeat {self.repeat + 1}")
        return f"test {self.number}" + (f" ({'; '.join(parts)})" if parts else "")


@dataclass
class Numbering:
    """Every numbered test, in order; ``refused``: why the numbering stops early (too many), or None."""

    cases: list[Case] = field(default_factory=list)
    refused: str | None = None

    def case(self, number: int) -> Case | None:
        return self.cases[number - 1] if 1 <= number <= len(self.cases) else None

    def of_entry(self, entry: TestInfo) -> list[Case]:
        return [c for c in self.cases if c.entry is entry]


def number_tests(view: ConfigView, environ: Mapping[str, str] | None = None) -> Numbering:
    """The tests of ``view`` as promptfoo numbers them (``environ``: the process's, by default)."""
    environ = os.environ if environ is None else environ
    numbering = Numbering()
    disabled = _env_bool(_config_env(view).get(DISABLE_ENV, environ.get(DISABLE_ENV)))
    default_repeat = _repeat(_plain(view.root.get("evaluateOptions")).get("repeat"), 1) if view.root.is_map else 1
    for test, entry, entry_vars in _tests(view):
        options = {**_plain(view.default_test.get("options") if view.default_test else None), **entry_vars[1]}
        repeat = _repeat(options.get("repeat"), default_repeat)
        merged = entry_vars[0]
        combos: list[tuple[dict[str, Any], tuple[str, ...]]] | None = (
            [(merged, ())] if disabled or options.get("disableVarExpansion") else None
        )
        if combos is None:
            count = _count(merged, view)
            if len(numbering.cases) + count * repeat > MAX_CASES:
                numbering.refused = (
                    f"test {len(numbering.cases) + 1} expands to {count * repeat} tests (its vars' lists multiplied"
                    f"{', times its repeat' if repeat > 1 else ''}); promptfoo would run them all, rubric grade numbers"
                    f" at most {MAX_CASES}"
                )
                return numbering
            combos = list(_combinations(merged, view))
        for repeat_index in range(repeat):
            for values, expanded in combos:
                number = len(numbering.cases) + 1
                numbering.cases.append(Case(number, test, entry, values, repeat_index, expanded))
    return numbering


def _tests(view: ConfigView) -> Iterator[tuple[TestInfo, TestInfo | None, tuple[dict[str, Any], dict[str, Any]]]]:
    """(what runs, its config entry, (merged plain vars, its own plain options)) of every test, unexpanded."""
    default_vars = _var_values(view.default_test)
    scenario_tests = {id(t) for s in view.scenarios for t in s.tests}
    plain = [t for t in view.tests if id(t) not in scenario_tests]
    entries = {id(t) for t in view.tests}
    if not plain and view.tests_complete and not view.root.has("scenarios"):
        plain = [_empty_test(view)]  # promptfoo runs one test with defaultTest's assertions
    for test in plain:
        own = _plain(test.get("options"))
        yield test, (test if id(test) in entries else None), ({**default_vars, **_var_values(test)}, own)
    for scenario in view.scenarios:
        for entry_info in scenario.entries or []:
            for test in scenario.tests:  # a scenario without tests runs nothing (recorded with 0.123.1)
                merged = _merged(test, entry_info)
                values = {**default_vars, **_var_values(entry_info), **_var_values(test)}
                own = {**_plain(entry_info.get("options")), **_plain(test.get("options"))}
                yield merged, (test if id(test) in entries else None), (values, own)


def _merged(test: TestInfo, entry: TestInfo) -> TestInfo:
    """A scenario's test as ``mergeScenarioTest`` runs it with one config entry: the entry's assertions first, its
    other keys (options key by key, threshold, description, …) under the test's own."""
    return replace(
        test,
        own_assertions=entry.own_assertions + test.own_assertions,
        own_top=entry.own_top + test.own_top,
        own_vars={**entry.own_vars, **test.own_vars},
        own_var_values={**entry.own_var_values, **test.own_var_values},
        entry=entry,
    )


def _empty_test(view: ConfigView) -> TestInfo:
    return TestInfo(0, None, view.source, default=view.default_test)


def _var_values(test: TestInfo | None) -> dict[str, Any]:
    return {} if test is None else {name: to_plain(node) for name, node in test.own_var_values.items()}


def _plain(node: Any) -> dict[str, Any]:
    value = to_plain(node) if node is not None else None
    return value if isinstance(value, dict) else {}


def _config_env(view: ConfigView) -> dict[str, Any]:
    # promptfoo reads its switches from the config's ``env`` first (getEnvOverrides), then the process's.
    return _plain(view.root.get("env")) if view.root.is_map else {}


def _env_bool(value: Any) -> bool:
    return (isinstance(value, bool) and value) or str(value or "").lower() in _TRUE


def _repeat(value: Any, fallback: int) -> int:
    """``normalizeRepeatCount``: a positive safe integer, else the fallback."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return fallback
    return int(value) if value == int(value) and 0 < value <= 2**53 - 1 else fallback


def _keys(values: dict[str, Any]) -> list[str]:
    """``Object.keys`` order: integer-like keys (canonical, below 2³² − 1) ascending first, then the rest."""

    def index(key: str) -> int | None:
        return int(key) if key.isdigit() and str(int(key)) == key and int(key) < 2**32 - 1 else None

    numbered = sorted((k for k in values if index(k) is not None), key=lambda k: index(k) or 0)
    return numbered + [k for k in values if index(k) is None]


def _values(value: Any, view: ConfigView) -> tuple[list[Any], bool]:
    """The values one var takes (and whether it was expanded), as ``generateVarCombinations`` makes them."""
    if isinstance(value, str) and value.startswith("file://"):
        found = _glob(value[len("file://") :], view)
        return (found, True) if len(found) > 1 or (found and found[0] != value) else ([value], False)
    if isinstance(value, list) and value and isinstance(value[0], str):
        return list(value), True
    return [value], False


def _glob(pattern: str, view: ConfigView) -> list[str]:
    """``globSync(pattern, {cwd: basePath})`` as ``file://`` values, in promptfoo's glob's order (``refs.glob_files``);
    [] when none match (promptfoo throws then: the value is kept as written here). A pattern without glob
    characters is not looked up: glob returns it as written when the file exists."""
    if view.base_dir is None or not refs.GLOB_CHARS.search(pattern):
        return [f"file://{pattern}"]
    try:
        found = refs.glob_files(pattern, view.base_dir)
    except (OSError, ValueError):
        return [f"file://{pattern}"]
    return [f"file://{path}" for path in found]


def _count(merged: dict[str, Any], view: ConfigView) -> int:
    count = 1
    for key in merged:
        count *= max(1, len(_values(merged[key], view)[0]))
        if count > MAX_CASES:
            return count
    return count


def _combinations(merged: dict[str, Any], view: ConfigView) -> Iterator[tuple[dict[str, Any], tuple[str, ...]]]:
    keys = _keys(merged)
    choices = [_values(merged[key], view) for key in keys]
    expanded = tuple(key for key, (_, was) in zip(keys, choices) if was)
    combos: list[dict[str, Any]] = [{}]
    for key, (values, _) in zip(keys, choices):
        combos = [{**combo, key: value} for combo in combos for value in values]
    for combo in combos:
        yield combo, expanded


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 30 else text[:29] + "…"
