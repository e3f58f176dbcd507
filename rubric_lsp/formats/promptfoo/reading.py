"""Reading a promptfoo config into its :class:`~rubric_lsp.formats.promptfoo.resolve.ConfigView`:
inline tests, tests from referenced files (read, never executed), defaultTest, scenarios, and the
number of outputs each test produces (prompts × providers after its filters)."""

from __future__ import annotations

import fnmatch
import weakref
from functools import partial
from pathlib import Path

from rubric_lsp.document import Document, Node, parse_document
from rubric_lsp.document.files import read_regular, read_regular_text
from rubric_lsp.document.js_yaml import read_as_js_yaml
from rubric_lsp.formats.promptfoo import paths, refs
from rubric_lsp.formats.promptfoo.cases import number_tests
from rubric_lsp.formats.promptfoo.resolve import (
    MAX_REFERENCED_BYTES,
    AssertionInfo,
    ConfigView,
    ScenarioInfo,
    Source,
    TestInfo,
)


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
                    doc = parse_document(read_regular(key, MAX_REFERENCED_BYTES), str(key))
                    read_as_js_yaml(doc)  # promptfoo reads test and vars files with js-yaml too
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
        targets = refs.expand(ref, refs.resolve_path(ref, self.base_dir))
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
    view = ConfigView(root, reader.config_source, reader.base_dir, numberer=number_tests)
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
                view.scenarios.append(ScenarioInfo(scenario, _scenario_entries(reader, scenario), view.tests[before:]))
            else:
                view.tests_complete = False
    _count_outputs(view)
    for test in view.tests:
        test.default = view.default_test
        test.output_count = _outputs_for(view, test)
        # messages name promptfoo's numbers (on first use); the view and the test are held weakly so that a
        # linted document frees by reference counting (the view holds the test, the test this: a cycle).
        test.numbers = partial(_numbers_of, weakref.ref(view), weakref.ref(test))
    view.referenced = reader.referenced
    return view


def _numbers_of(view: weakref.ReferenceType[ConfigView], test: weakref.ReferenceType[TestInfo]) -> list[int]:
    held, entry = view(), test()
    return held.numbers_of(entry) if held is not None and entry is not None else []


def _scenario_entries(reader: _Reader, scenario: Node) -> list[TestInfo] | None:
    """A scenario's ``config`` entries (their vars and assertions), each run with every test of the scenario;
    None when they are not a list of mappings read here."""
    config = scenario.get("config")
    if config is None or not config.is_seq or not all(entry.is_map for entry in config.value):
        return None
    return [reader.test(-1, entry, reader.config_source, "scenario") for entry in config.value]


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
        target = _prompt_file(text, reader_base)
        if isinstance(target, str):  # the text itself is the prompt
            count += 1
            continue
        if target is None or target.suffix.lower() not in (".txt", ".md", ".j2", ".nunjucks"):
            return None, None
        try:
            content = read_regular_text(target, MAX_REFERENCED_BYTES)  # a FIFO or /dev/zero is never read
        except (OSError, UnicodeDecodeError):
            return None, None
        count += max(1, len([part for part in content.split("\n---\n") if part.strip()]))
    return count, names


def _prompt_file(text: str, base: Path | None) -> Path | str | None:
    """The file prompt ``text`` names (with or without file://), the text itself when promptfoo uses
    it as the prompt, or None when that cannot be told statically."""
    if text.startswith(refs.PREFIX):
        ref = refs.parse_ref(text)
        return None if ref is None or ref.is_glob or base is None else refs.resolve_path(ref, base)
    return text if base is None else paths.bare_prompt(text, base)


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
