"""The resolved view of a promptfoo config: what promptfoo will actually run and grade with.

Shared by the rules, the language server's hover and the grading engine, so the
precedence logic lives here once. Every piece keeps its node (and the document it
came from), so callers can point at it.

API
---
``read_config(root, path=None, document=None) -> ConfigView`` (in :mod:`.reading`)
    ``root`` is the config's root node; ``path`` its file (relative ``file://`` references
    are resolved from its folder). YAML/JSON files referenced by ``tests``,
    ``defaultTest``, test ``vars`` and scenario tests are read (never executed) and their
    tests take part, each :class:`Source` naming the referenced document and the
    ``file://`` node that brought it in (``Source.reference``; None = the config itself).

``ConfigView``
    ``tests: list[TestInfo]`` (inline tests, tests from referenced files, scenario tests,
    in promptfoo's order), ``default_test: TestInfo | None``, ``prompt_count`` /
    ``provider_count`` (None when unknown statically), ``assertions()`` (every assertion
    once, wherever defined), ``grader(assertion, test) -> GraderChoice`` (the effective
    grader and where it comes from), ``tests_using(assertion)``, ``assertion_at(offset)``
    (for hover), ``grading_plan(number) -> list[GradingItem]`` (1-based test number: the
    model-graded assertions of that test with value, threshold, rubricPrompt, grader id +
    config and the test's vars as plain values, for ``rubric grade CONFIG --test N``),
    ``first_prompt()`` (the first prompt's template text when readable statically).
    Test numbers are promptfoo's (``numbering``, ``cases.py``): a vars list is one test per value,
    a scenario's tests run once per config entry, a repeat is a test of its own, so ``tests``
    (the entries as written, what the rules check) and ``test_number(n)`` differ.

``TestInfo``
    ``assertions`` = defaultTest's then the test's own (promptfoo concatenates them),
    flattened through assert-sets; ``top_assertions`` keeps sets as one entry;
    ``vars`` = var name → its key node, ``var_values`` = var name → value node (defaultTest's
    merged under the test's);
    ``vars_complete`` is False when some vars come from places not read statically
    (scripts, CSV, transformVars, scenarios); ``output_count`` = prompts × providers after
    the test's ``prompts``/``providers`` filters (None when unknown).

Grader precedence (semantics.md §2): ``assertion.provider`` > ``test.options.provider`` >
``defaultTest.options.provider`` (the only slot ``--grader`` writes) >
``defaultTest.provider`` (the target grading itself) > promptfoo's credential-based default. Filled by
``--grader``, defaultTest's ``options.provider`` reaches every test's options, so the two slots below it
grade nothing then either.
The options merge is shallow, so a level that names a provider replaces the lower level's
whole provider, config included.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import Any

from rubric_lsp.document import Document, Node
from rubric_lsp.document.files import read_regular_text
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.promptfoo import paths, refs
from rubric_lsp.formats.promptfoo.assertion_types import describe_assertion_type, grader_kind

MAX_REFERENCED_BYTES = 5 * 1024 * 1024


@dataclass(eq=False)
class Source:
    """A document the view read from."""

    document: Document | None
    reference: Node | None = None  # the file:// scalar in the config that brought it in
    path: Path | None = None

    @property
    def is_config(self) -> bool:
        return self.reference is None


@dataclass(eq=False)
class AssertionInfo:
    node: Node  # the assertion mapping ($ref already followed)
    source: Source
    origin: str  # "test" | "defaultTest" | "scenario"
    set_node: Node | None = None  # the enclosing assert-set, if any
    ref_node: Node | None = None  # the {$ref: ...} mapping it was reached through
    test: InitVar[TestInfo | None] = None  # the test (or defaultTest) whose assert list holds it: ``owner``

    def __post_init__(self, test: TestInfo | None) -> None:
        # Held weakly: the test holds its assertions, and a cycle would leave every document read to
        # the cyclic collector (a pass over each file's nodes) instead of freeing it when dropped.
        self._owner = None if test is None else weakref.ref(test)
        node = self.node.get("type") if self.node.is_map else None
        self.type: str | None = (
            node.value if node is not None and node.is_scalar and isinstance(node.value, str) else None
        )

    def field(self, key: str) -> Node | None:
        return self.node.get(key)  # (None unless a mapping)

    @property
    def owner(self) -> TestInfo | None:
        """The test (or defaultTest) whose assert list holds this assertion (while its view lives)."""
        return None if self._owner is None else self._owner()

    @property
    def value(self) -> Any:
        return to_plain(self.field("value"))

    @property
    def threshold(self) -> float | None:
        return _number(self.field("threshold"))

    @property
    def grader_kind(self) -> str | None:
        return grader_kind(self.type) if self.type else None


@dataclass(eq=False)
class TestInfo:
    index: int  # 0-based position among the view's tests (-1 for defaultTest)
    node: Node | None  # the test mapping (None when it could not be read)
    source: Source
    default: TestInfo | None = None
    own_assertions: list[AssertionInfo] = field(default_factory=list)  # flattened
    own_top: list[AssertionInfo] = field(default_factory=list)  # sets as one entry
    own_vars: dict[str, Node] = field(default_factory=dict)  # name -> its key node
    own_var_values: dict[str, Node] = field(default_factory=dict)  # name -> its value node
    own_var_sources: dict[str, Source] = field(
        default_factory=dict
    )  # name -> the file defining it, if not the test's own
    own_vars_complete: bool = True
    output_count: int | None = None
    scenario: Node | None = None
    # A scenario's test run with one of its ``config`` entries (``cases._merged``): what the entry gives it that
    # the test does not write itself (``mergeScenarioTest``: ``{...entry, ...test}``, options merged key by key).
    entry: TestInfo | None = None
    # promptfoo's numbers of the tests this entry runs (``ConfigView.numbers_of``), set once the view is read.
    numbers: Any = field(default=None, repr=False, compare=False)

    def get(self, key: str) -> Node | None:
        own = self.node.get(key) if self.node is not None else None  # (None unless a mapping)
        if own is None and self.entry is not None and key not in ("vars", "assert"):  # merged apart (own_*)
            return self.entry.get(key)
        return own

    @property
    def label(self) -> str:
        """How a message names the test: promptfoo's number(s) of the tests it runs (``--test N``, the editor's
        lenses), with its description: ``test 3 (refunds)``, ``tests 3–5`` for an entry promptfoo expands."""
        if self.index < 0:
            return "defaultTest"
        description = self.get("description")
        text = numbers_text(self.numbers() if self.numbers is not None else [], self.index)
        if description is not None and isinstance(description.value, str):
            text += f" ({description.value[:40]})"
        return text

    @property
    def assertions(self) -> list[AssertionInfo]:
        inherited = self.default.own_assertions if self.default is not None and self.default is not self else []
        return inherited + self.own_assertions

    @property
    def top_assertions(self) -> list[AssertionInfo]:
        inherited = self.default.own_top if self.default is not None and self.default is not self else []
        return inherited + self.own_top

    @property
    def vars(self) -> dict[str, Node]:
        merged = dict(self.default.own_vars) if self.default is not None and self.default is not self else {}
        merged.update(self.own_vars)
        return merged

    def var_source(self, name: str) -> Source:
        """The document that defines var ``name`` for this test (for pointing at it)."""
        if name in self.own_vars:
            return self.own_var_sources.get(name, self.source)
        if self.default is not None and name in self.default.own_vars:
            return self.default.own_var_sources.get(name, self.default.source)
        return self.source

    @property
    def var_values(self) -> dict[str, Node]:
        merged = dict(self.default.own_var_values) if self.default is not None and self.default is not self else {}
        merged.update(self.own_var_values)
        return merged

    @property
    def vars_complete(self) -> bool:
        default_ok = self.default is None or self.default is self or self.default.own_vars_complete
        return self.own_vars_complete and default_ok and self.scenario is None

    def options_field(self, key: str) -> Node | None:
        own = self.node.get("options") if self.node is not None and self.node.is_map else None
        found = own.get(key) if own is not None and own.is_map else None
        if found is None and self.entry is not None:
            return self.entry.options_field(key)
        return found

    def threshold_node(self) -> Node | None:
        return self.get("threshold")


def numbers_text(numbers: list[int], index: int) -> str:
    """``test 3``, ``tests 3–5``, ``tests 2, 4 and 6`` (at most four named): promptfoo's numbers of one entry's
    tests; an entry promptfoo numbers no test of (a scenario without config entries, a numbering cut short) is
    named by its place as written."""
    if not numbers:
        return f"the tests entry {index + 1} (promptfoo runs no test of it)"
    if len(numbers) == 1:
        return f"test {numbers[0]}"
    if numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"tests {numbers[0]}–{numbers[-1]}"
    shown = [str(n) for n in numbers[:4]]
    more = f" and {len(numbers) - 4} more" if len(numbers) > 4 else ""
    return f"tests {', '.join(shown[:-1])} and {shown[-1]}" if not more else f"tests {', '.join(shown)}{more}"


@dataclass(eq=False)
class ScenarioInfo:
    """A scenario: its ``config`` entries (None when not read here), each run with each of its ``tests``."""

    node: Node
    entries: list[TestInfo] | None
    tests: list[TestInfo]


@dataclass
class GraderChoice:
    """The grader promptfoo will use for one model-graded assertion in one test."""

    kind: str  # text | embedding | classification | moderation
    source: str  # see SOURCES
    node: Node | None  # the provider node (None: promptfoo's default)
    origin: Source | None
    provider_id: str | None
    config: dict[str, Any] | None
    problem: str | None = None  # why promptfoo would throw for this provider shape
    key: Node | None = None  # the 'provider' key the node is the value of

    @property
    def cli_grader_applies(self) -> bool:
        """Whether ``promptfoo eval --grader X`` would replace this grader: it writes defaultTest's
        ``options.provider`` (dist/src/main.js), which every test's ``options`` inherit (``prepareTestCaseForEval``:
        ``{...defaultTest.options, ...testCase.options}``), so ``getFinalTest`` hands it to the grading before the
        ``defaultTest.provider`` fallback of ``getGradingProvider`` (dist/src/graders-*.js) is ever read."""
        return self.source in ("defaultTest.options.provider", "defaultTest.provider", "default")

    def grades(self, given: bool) -> bool:
        """Whether this grader's provider, not the grading's judge, grades the assertion: it names one, and no judge ``given`` to the grading replaces it (promptfoo's ``--grader``, ``--model`` here)."""
        return bool(self.provider_id) and not (given and self.cli_grader_applies)

    @property
    def grades_itself(self) -> bool:
        return self.source == "defaultTest.provider"

    def describe(self) -> str:
        who = self.provider_id or "promptfoo's default grader (chosen from available API keys)"
        text = f"Effective {self.kind} grader: {who}"
        if self.config:
            text += f" with config {masked(self.config)}"
        text += f" — from {self.source}."
        if self.grades_itself:
            text += " The target provider grades its own output."
        text += " --grader replaces it." if self.cli_grader_applies else " --grader does not reach it."
        return text


_SECRET_NAME = re.compile(r"(key|token|secret|password|authorization)$", re.IGNORECASE)


def masked(value: Any) -> Any:
    """``value`` with every secret-looking entry (apiKey, accessToken, Authorization, ...) shown
    as ``***``: a grader's config is quoted in hovers and diagnostics, and a key written into
    a config file must not travel further than the file itself."""
    if isinstance(value, dict):
        return {
            k: "***" if isinstance(k, str) and _SECRET_NAME.search(k) and v not in (None, "") else masked(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [masked(v) for v in value]
    return value


SOURCES = (
    "assertion.provider",
    "test.options.provider",
    "defaultTest.options.provider",
    "defaultTest.provider",
    "default",
)


@dataclass
class GradingItem:
    assertion: AssertionInfo
    type: str
    value: Any
    threshold: float | None
    rubric_prompt: Any
    grader: GraderChoice
    vars: dict[str, Any]


@dataclass
class ConfigView:
    root: Node
    source: Source
    base_dir: Path | None
    tests: list[TestInfo] = field(default_factory=list)
    default_test: TestInfo | None = None
    tests_complete: bool = True  # False when some tests come from files not read statically
    prompt_count: int | None = None
    provider_count: int | None = None
    prompt_names: list[str] | None = None
    provider_names: list[list[str]] | None = None  # per provider: its id and label
    referenced: list[Source] = field(default_factory=list)
    scenarios: list[ScenarioInfo] = field(default_factory=list)
    # promptfoo's numbered tests (``cases.Numbering``): made on first use by ``numberer`` (``reading`` sets it)
    numberer: Any = field(default=None, repr=False, compare=False)
    _numbered: Any = field(default=None, repr=False, compare=False)

    # -- queries ------------------------------------------------------------------
    def assertions(self) -> list[AssertionInfo]:
        seen: set[int] = set()
        out = []
        groups = [self.default_test] if self.default_test is not None else []
        for test in groups + self.tests:
            for assertion in test.own_assertions:
                if id(assertion.node) not in seen:
                    seen.add(id(assertion.node))
                    out.append(assertion)
        return out

    def tests_using(self, assertion: AssertionInfo) -> list[TestInfo]:
        if assertion.origin == "defaultTest":
            return list(self.tests)
        return [assertion.owner] if assertion.owner is not None and assertion.owner.index >= 0 else []

    def assertion_at(self, offset: int) -> AssertionInfo | None:
        """The innermost assertion of the config document whose mapping contains ``offset``."""
        best = None
        for assertion in self.assertions():
            node = assertion.ref_node or assertion.node
            if (
                assertion.source.is_config
                and node.start <= offset <= node.end
                and (best is None or node.start >= (best.ref_node or best.node).start)
            ):
                best = assertion
        return best

    def grader(self, assertion: AssertionInfo, test: TestInfo | None) -> GraderChoice:
        kind = assertion.grader_kind or "text"
        default = self.default_test
        levels: list[tuple[str, Node | None, Source | None]] = [
            ("assertion.provider", assertion.node if assertion.node.is_map else None, assertion.source),
        ]
        if test is not None and test is not default:
            levels.append(("test.options.provider", test.get("options"), test.source))
            if test.entry is not None:  # a scenario's config entry's options, merged under the test's
                levels.append(("test.options.provider", test.entry.get("options"), test.entry.source))
        if default is not None:
            levels.append(("defaultTest.options.provider", default.get("options"), default.source))
            levels.append(
                (
                    "defaultTest.provider",
                    default.node if default.node is not None and default.node.is_map else None,
                    default.source,
                )
            )
        for name, container, origin in levels:
            if container is None or not container.is_map:
                continue
            node = container.get("provider")
            if node is None or (node.is_scalar and node.value in (None, "")):
                continue
            provider_id, config, problem = provider_parts(node, kind)
            return GraderChoice(kind, name, node, origin, provider_id, config, problem, container.key_node("provider"))
        return GraderChoice(kind, "default", None, None, None, None)

    def hover(self, offset: int) -> str | None:
        """Markdown for the assertion at ``offset``: what the type does and its effective grader per test."""
        assertion = self.assertion_at(offset)
        if assertion is None or assertion.type is None:
            return None

        lines = [f"**{assertion.type}** — {describe_assertion_type(assertion.type) or 'unknown assertion type'}"]
        if assertion.grader_kind is not None:
            tests: list[TestInfo] | list[None] = self.tests_using(assertion) or [None]  # None: defaultTest
            seen: dict[str, list[str]] = {}
            for test in tests:
                text = self.grader(assertion, test).describe()
                seen.setdefault(text, []).append(test.label if test is not None else "defaultTest")
            for text, labels in seen.items():
                where = "" if len(seen) == 1 else f" ({', '.join(labels[:3])}{' …' if len(labels) > 3 else ''})"
                lines.append(text + where)
        return "\n\n".join(lines)

    # -- promptfoo's numbered tests (``cases``): a vars list, a scenario's config entries, a repeat ----------
    @property
    def numbering(self) -> Any:
        """The tests promptfoo runs, numbered as it numbers them (``cases.Numbering``)."""
        if self._numbered is None:
            if self.numberer is None:
                raise RuntimeError("a ConfigView numbers its tests once read_config made it")
            self._numbered = self.numberer(self)
        return self._numbered

    @property
    def test_count(self) -> int:
        return len(self.numbering.cases)

    def numbers_of(self, entry: TestInfo) -> list[int]:
        """promptfoo's numbers of the tests a config entry runs (its vars' expansions, repeats, scenario entries)."""
        return [case.number for case in self.numbering.of_entry(entry)]

    def test_number(self, number: int) -> TestInfo | None:
        """What promptfoo's test ``number`` (from 1) runs: its entry's assertions, options and threshold."""
        case = self.numbering.case(number)
        return case.test if case is not None else None

    def first_prompt(self) -> str | None:
        """The template text of the config's first prompt (``prompt(0)``)."""
        return self.prompt(0)

    def _prompt_items(self) -> list[Any]:
        node = self.root.get("prompts") if self.root.is_map else None
        return (
            node.value if node is not None and node.is_seq else ([node] if node is not None and node.is_scalar else [])
        )

    def prompt(self, index: int) -> str | None:
        """The template text of the config's prompt ``index``, when it can be read statically: an
        inline string, a ``{raw: ...}`` entry, or the first ``---``-separated part of a file:// text file."""
        items = self._prompt_items()
        if not 0 <= index < len(items):
            return None
        first = items[index]
        raw = first.get("raw") if first.is_map else first
        text = raw.value if raw is not None and raw.is_scalar and isinstance(raw.value, str) else None
        if text is None or self.base_dir is None:
            return text
        if text.startswith(refs.PREFIX):
            ref = refs.parse_ref(text)
            target = None if ref is None or ref.is_glob else refs.resolve_path(ref, self.base_dir)
        else:  # a path promptfoo reads without file:// (prompts.txt), or the text itself
            found = paths.bare_prompt(text, self.base_dir)
            if not isinstance(found, Path):
                return found
            target = found
        if target is None or target.suffix.lower() not in (".txt", ".md"):
            return None
        try:
            content = read_regular_text(target, MAX_REFERENCED_BYTES)  # a FIFO or /dev/zero is never read
        except (OSError, UnicodeDecodeError):
            return None
        parts = [part for part in content.split("\n---\n") if part.strip()]
        return parts[0] if parts else None

    def test_vars(self, number: int) -> dict[str, Any]:
        """Test ``number``'s vars as promptfoo renders values with: defaultTest's under the test's (a scenario's
        config entry's between), a list var's value for this test."""
        case = self.numbering.case(number)
        return dict(case.vars) if case is not None else {}

    def grading_plan(self, number: int, test_vars: dict[str, Any] | None = None) -> list[GradingItem]:
        """Test ``number``'s model-graded assertions; ``test_vars``: the vars it ran with, when not the config's
        (a results file's row)."""
        test = self.test_number(number)
        if test is None:
            return []
        items = []
        plain_vars = self.test_vars(number) if test_vars is None else test_vars
        for assertion in test.assertions:
            if assertion.type is None or assertion.grader_kind is None:
                continue
            rubric_prompt = assertion.field("rubricPrompt") or test.options_field("rubricPrompt")
            if rubric_prompt is None and test.default is not None:
                rubric_prompt = test.default.options_field("rubricPrompt")
            items.append(
                GradingItem(
                    assertion,
                    assertion.type,
                    assertion.value,
                    assertion.threshold,
                    to_plain(rubric_prompt),
                    self.grader(assertion, test),
                    plain_vars,
                )
            )
        return items


def provider_parts(node: Node, kind: str) -> tuple[str | None, dict | None, str | None]:
    """(id, config, problem) of a grader provider node as promptfoo's getGradingProvider reads it."""
    if node.is_scalar:
        if isinstance(node.value, str):
            return node.value, None, None
        return None, None, f"a grader provider must be an id string or a mapping, not {node.value!r}"
    if node.is_seq:
        return (
            None,
            None,
            "a grader provider given as a list is rejected at run time ('Provider must be an object or string')",
        )
    typed = node.get(kind)
    if typed is not None:
        if typed.is_map:
            inner_id, inner_config, problem = provider_parts(typed, kind)
            return inner_id, inner_config, problem
        if typed.is_scalar and isinstance(typed.value, str):
            return typed.value, None, None
    ident = node.get("id")
    if ident is not None and ident.is_scalar and isinstance(ident.value, str) and ident.value:
        config = node.get("config")
        return ident.value, to_plain(config) if config is not None and config.is_map else None, None
    keys = [k for k in node.keys() if isinstance(k, str)]
    if len(keys) == 1 and ":" in keys[0]:
        return (
            None,
            None,
            (
                f"the map form {{'{keys[0]}': ...}} is only for the providers list; as a grader it has no "
                f"'id' and promptfoo throws 'Invalid provider definition'"
            ),
        )
    missing = f"neither 'id' nor '{kind}'"
    return (
        None,
        None,
        f"this provider object has {missing}, so promptfoo throws 'Invalid provider definition' for a {kind} grader",
    )


def _number(node: Node | None) -> float | None:
    if node is None or not node.is_scalar:
        return None
    value = node.value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)
