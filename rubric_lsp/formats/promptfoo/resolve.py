"""The resolved view of a promptfoo config: what promptfoo will actually run and grade with.

Shared by the rules, the language server's hover and the grading engine, so the
precedence logic lives here once. Every piece keeps its node (and the document it
came from), so callers can point at it.

API
---
``read_config(root, path=None, document=None) -> ConfigView``
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

``TestInfo``
    ``assertions`` = defaultTest's then the test's own (promptfoo concatenates them),
    flattened through assert-sets; ``top_assertions`` keeps sets as one entry;
    ``vars`` = var name → its key node, ``var_values`` = var name → value node (defaultTest's
    merged under the test's);
    ``vars_complete`` is False when some vars come from places not read statically
    (scripts, CSV, transformVars, scenarios); ``output_count`` = prompts × providers after
    the test's ``prompts``/``providers`` filters (None when unknown).

Grader precedence (semantics.md §2): ``assertion.provider`` > ``test.options.provider`` >
``defaultTest.options.provider`` (the only slot ``--grader`` replaces) >
``defaultTest.provider`` (the target grading itself) > promptfoo's credential-based default.
The options merge is shallow, so a level that names a provider replaces the lower level's
whole provider, config included.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rubric_lsp.document import Document, Node, parse_document
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.promptfoo import refs
from rubric_lsp.formats.promptfoo.model import grader_kind

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
    owner: TestInfo | None = None  # the test (or defaultTest) whose assert list holds it

    def __post_init__(self) -> None:
        node = self.node.get("type") if self.node.is_map else None
        self.type: str | None = (
            node.value if node is not None and node.is_scalar and isinstance(node.value, str) else None
        )

    def field(self, key: str) -> Node | None:
        return self.node.get(key) if self.node.is_map else None

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

    def get(self, key: str) -> Node | None:
        return self.node.get(key) if self.node is not None and self.node.is_map else None

    @property
    def label(self) -> str:
        if self.index < 0:
            return "defaultTest"
        description = self.get("description")
        text = f"test {self.index + 1}"
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
        options = self.get("options")
        return options.get(key) if options is not None and options.is_map else None

    def threshold_node(self) -> Node | None:
        return self.get("threshold")


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
        """Whether ``promptfoo eval --grader X`` would replace this grader."""
        return self.source in ("defaultTest.options.provider", "default")

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
        from rubric_lsp.formats.promptfoo.model import describe_assertion_type

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

    def test_number(self, number: int) -> TestInfo | None:
        return self.tests[number - 1] if 1 <= number <= len(self.tests) else None

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
        if text is None or not text.startswith(refs.PREFIX):
            return text
        ref = refs.parse_ref(text)
        if ref is None or ref.is_glob or self.base_dir is None or ref.suffix not in (".txt", ".md"):
            return None
        try:
            content = refs.resolve_path(ref, self.base_dir).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        parts = [part for part in content.split("\n---\n") if part.strip()]
        return parts[0] if parts else None

    def test_vars(self, number: int) -> dict[str, Any]:
        """Test ``number``'s vars as promptfoo renders values with: defaultTest's under the test's."""
        test = self.test_number(number)
        return self._grading_vars(test) if test is not None else {}

    def _grading_vars(self, test: TestInfo) -> dict[str, Any]:
        merged: dict[str, Node] = {}
        if test.default is not None and test.default is not test:
            merged.update(test.default.own_var_values)
        merged.update(_scenario_vars(test))
        merged.update(test.own_var_values)
        return {name: to_plain(node) for name, node in merged.items()}

    def grading_plan(self, number: int) -> list[GradingItem]:
        test = self.test_number(number)
        if test is None:
            return []
        items = []
        plain_vars = self._grading_vars(test)
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


def _scenario_vars(test: TestInfo) -> dict[str, Node]:
    """Vars a scenario's first ``config`` entry adds to each of its tests.

    promptfoo runs a scenario's tests once per ``config`` entry, merging
    defaultTest.vars < entry vars < test vars; grading a single response uses the first
    entry (``ConfigView.grading_plan`` documents this).
    """
    config = test.scenario.get("config") if test.scenario is not None else None
    entries = config.value if config is not None and config.is_seq else ([config] if config is not None else [])
    for entry in entries:
        if entry.is_map:
            found = entry.get("vars")
            if found is not None and found.is_map:
                return {key: value for key, _key_node, value in found.items() if isinstance(key, str)}
            return {}
    return {}


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


# -- reading ------------------------------------------------------------------------------


class _Reader:
    def __init__(self, root: Node, path: Path | None, document: Document | None):
        self.root = root
        self.base_dir = path.parent if path is not None else None
        self.config_source = Source(document, None, path)
        self.loaded: dict[Path, Document | None] = {}
        self.referenced: list[Source] = []

    def load(self, target: Path) -> Document | None:
        key = target.resolve()
        if key not in self.loaded:
            doc = None
            try:
                if key.is_file() and key.stat().st_size <= MAX_REFERENCED_BYTES:
                    doc = parse_document(key.read_bytes(), str(key))
            except OSError:
                doc = None
            self.loaded[key] = doc
        return self.loaded[key]

    def referenced_docs(self, node: Node) -> list[tuple[Source, Node]] | None:
        """(source, root) of the YAML/JSON files a file:// scalar names; None if not statically readable."""
        ref = refs.parse_ref(node.value) if node.is_scalar else None
        if ref is None or self.base_dir is None or not (ref.is_data or ref.is_glob):
            return None
        out = []
        targets = refs.expand(ref, self.base_dir)
        if not targets or any(t.suffix.lower() not in refs.DATA_SUFFIXES for t in targets):
            return None  # CSV, scripts, sheets: not read statically
        for target in targets:
            doc = self.load(target)
            if doc is None:
                continue
            source = Source(doc, node, target)
            self.referenced.append(source)
            if doc.root is not None:
                out.append((source, doc.root))
        return out

    # -- $ref -------------------------------------------------------------------------
    def follow_ref(self, node: Node, depth: int = 0) -> Node:
        if not node.is_map or depth > 10:
            return node
        target = node.get("$ref")
        if target is None or not isinstance(target.value, str) or not target.value.startswith("#/"):
            return node
        current: Node | None = self.root
        for step in target.value[2:].split("/"):
            step = step.replace("~1", "/").replace("~0", "~")
            if current is None:
                break
            if current.is_map:
                current = current.get(step)
            elif current.is_seq and step.isdigit() and int(step) < len(current.value):
                current = current.value[int(step)]
            else:
                current = None
        return self.follow_ref(current, depth + 1) if current is not None else node

    # -- tests ------------------------------------------------------------------------
    def assertions(self, test: TestInfo, node: Node | None, source: Source, origin: str) -> None:
        if node is None or not node.is_seq:
            return
        for item in node.value:
            resolved = self.follow_ref(item) if source.is_config else item
            ref_node = item if resolved is not item else None
            info = AssertionInfo(resolved, source, origin, None, ref_node, test)
            test.own_top.append(info)
            test.own_assertions.append(info)
            if info.type == "assert-set":
                inner = resolved.get("assert")
                for child in inner.value if inner is not None and inner.is_seq else []:
                    child_resolved = self.follow_ref(child) if source.is_config else child
                    test.own_assertions.append(
                        AssertionInfo(
                            child_resolved,
                            source,
                            origin,
                            resolved,
                            child if child_resolved is not child else None,
                            test,
                        )
                    )

    def vars(self, test: TestInfo, node: Node | None) -> None:
        if node is None:
            return
        if node.is_map:
            for key, key_node, value in node.items():
                if isinstance(key, str):
                    test.own_vars[key] = key_node
                    test.own_var_values[key] = value
                    test.own_var_sources.pop(key, None)
            return
        items = node.value if node.is_seq else [node]
        for item in items:
            if item.is_map:
                self.vars(test, item)
                continue
            loaded = self.referenced_docs(item) if item.is_scalar else None
            if not loaded:
                test.own_vars_complete = False
                continue
            for source, root in loaded:
                if root.is_map:
                    for key, key_node, value in root.items():
                        if isinstance(key, str):
                            test.own_vars[key] = key_node
                            test.own_var_values[key] = value
                            test.own_var_sources[key] = source
                else:
                    test.own_vars_complete = False

    def test(self, index: int, node: Node, source: Source, origin: str = "test") -> TestInfo:
        test = TestInfo(index, node, source)
        if node.is_map:
            self.assertions(test, node.get("assert"), source, origin)
            self.vars(test, node.get("vars"))
            if node.has("options"):
                options = node.get("options")
                if options is not None and options.is_map and options.has("transformVars"):
                    test.own_vars_complete = False
        return test


def read_config(root: Node, path: str | Path | None = None, document: Document | None = None) -> ConfigView:
    path = Path(path) if path is not None else None
    reader = _Reader(root, path, document)
    view = ConfigView(root, reader.config_source, reader.base_dir)
    if not root.is_map:
        return view
    _read_default(reader, view)
    _read_tests(reader, view, root.get("tests"), reader.config_source)
    scenarios = root.get("scenarios")
    if scenarios is not None:
        for scenario in scenarios.value if scenarios.is_seq else [scenarios]:
            if scenario.is_map:
                before = len(view.tests)
                _read_tests(reader, view, scenario.get("tests"), reader.config_source)
                for test in view.tests[before:]:
                    test.scenario = scenario
            else:
                view.tests_complete = False
    _count_outputs(view)
    for test in view.tests:
        test.default = view.default_test
        test.output_count = _outputs_for(view, test)
    view.referenced = reader.referenced
    return view


def _read_default(reader: _Reader, view: ConfigView) -> None:
    node = view.root.get("defaultTest")
    if node is None:
        return
    if node.is_map:
        view.default_test = reader.test(-1, node, reader.config_source, "defaultTest")
    elif node.is_scalar:
        loaded = reader.referenced_docs(node)
        if loaded and loaded[0][1].is_map:
            source, inner = loaded[0]
            view.default_test = reader.test(-1, inner, source, "defaultTest")
        else:
            empty = TestInfo(-1, None, reader.config_source)
            empty.own_vars_complete = False
            view.default_test = empty
            view.tests_complete = view.tests_complete  # unknown defaults do not hide tests


def _read_tests(reader: _Reader, view: ConfigView, node: Node | None, source: Source) -> None:
    if node is None:
        return
    items = node.value if node.is_seq else [node]
    for item in items:
        if item.is_map and not item.has("path"):
            view.tests.append(reader.test(len(view.tests), item, source))
            continue
        target = item.get("path") if item.is_map else item
        loaded = (
            reader.referenced_docs(target) if target is not None and target.is_scalar and source.is_config else None
        )
        if not loaded:
            view.tests_complete = False
            continue
        for inner_source, root in loaded:
            inner_items = root.value if root.is_seq else [root]
            for inner in inner_items:
                if inner.is_map:
                    view.tests.append(reader.test(len(view.tests), inner, inner_source))


def _count_prompts(node: Node | None, reader_base: Path | None) -> tuple[int | None, list[str] | None]:
    if node is None:
        return None, None
    if node.is_map:  # {path: label}
        return len(node.value), [str(v.value) for _k, v in node.value]
    items = node.value if node.is_seq else [node]
    count, names = 0, []
    for item in items:
        text = None
        if item.is_scalar and isinstance(item.value, str):
            text = item.value
            names.append(text)
        elif item.is_map:
            ident, label = item.get("id"), item.get("label")
            text = ident.value if ident is not None and isinstance(ident.value, str) else None
            names += [n.value for n in (ident, label) if n is not None and isinstance(n.value, str)]
            if text is None or not text.startswith(refs.PREFIX):
                count += 1
                continue
        else:
            return None, None
        ref = refs.parse_ref(text)
        if ref is None:
            if text.startswith(refs.PREFIX):
                return None, None
            count += 1
            continue
        if reader_base is None or ref.is_glob or ref.suffix not in (".txt", ".md", ".j2", ".nunjucks"):
            return None, None
        target = refs.resolve_path(ref, reader_base)
        try:
            content = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None, None
        count += max(1, len([part for part in content.split("\n---\n") if part.strip()]))
    return count, names


def _count_outputs(view: ConfigView) -> None:
    root = view.root
    view.prompt_count, view.prompt_names = _count_prompts(root.get("prompts"), view.base_dir)
    providers = root.get("providers")
    if providers is None:
        providers = root.get("targets")
    if providers is None:
        return
    items = providers.value if providers.is_seq else [providers]
    names: list[list[str]] = []
    for item in items:
        if item.is_scalar and isinstance(item.value, str):
            if item.value.startswith(refs.PREFIX):
                return
            names.append([item.value])
        elif item.is_map:
            ident, label = item.get("id"), item.get("label")
            if ident is None and len(item.value) == 1:  # {provider-id: options}
                key, value = item.value[0]
                label = value.get("label") if value.is_map else None
                ident = key
            if ident is not None and isinstance(ident.value, str) and ident.value.startswith(refs.PREFIX):
                return
            if item.has("prompts"):
                return  # per-provider prompt lists: not counted statically
            names.append([n.value for n in (ident, label) if n is not None and isinstance(n.value, str)])
        else:
            return
    view.provider_count = len(names)
    view.provider_names = names


def _filter_count(filters: Node | None, names: list[list[str]] | list[str] | None, total: int | None) -> int | None:
    if filters is None:
        return total
    if total is None or names is None or not filters.is_seq:
        return None
    patterns = [f.value for f in filters.value if f.is_scalar and isinstance(f.value, str)]
    count = 0
    for entry in names:
        labels = entry if isinstance(entry, list) else [entry]
        if any(fnmatch.fnmatchcase(label, pattern) or label == pattern for label in labels for pattern in patterns):
            count += 1
    return count if len(names) == total else None


def _outputs_for(view: ConfigView, test: TestInfo) -> int | None:
    prompts = (
        _filter_count(
            test.get("prompts"),
            view.prompt_names if view.prompt_names and len(view.prompt_names) == view.prompt_count else None,
            view.prompt_count,
        )
        if test.get("prompts") is not None
        else view.prompt_count
    )
    providers = _filter_count(test.get("providers"), view.provider_names, view.provider_count)
    if prompts is None or providers is None:
        return None
    return prompts * providers
