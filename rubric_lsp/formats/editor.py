"""What a format tells the editor, as plain data: outline items, hover sections, completion values.

A format's editor module (``Format.editor``, e.g. ``rubric_lsp.formats.promptfoo.editor``)
defines any of these functions; the server converts what they return to LSP types:

- ``outline(ctx: EditorContext) -> list[OutlineItem]``: the document's outline;
- ``hover(ctx: EditorContext, offset: int) -> list[str]``: Markdown sections for the hover;
- ``completion_values(path: list, key: str) -> list``: values to offer for ``key`` at
  ``path`` beyond those the JSON Schema lists (e.g. known provider ids);
- ``gradable_units(ctx: EditorContext) -> list[GradableUnit]``: what the editor can grade in
  the file (a test, a grader, the rubric, its examples), each with the grading it means;
- ``examples_plan(ctx: EditorContext) -> GradePlan | None``: what *Grade Examples* grades
  (the file's examples, its labelled items, its tests), None when it holds nothing to grade;
- ``results_files(ctx: EditorContext) -> list[str]``: results files the file's own tool wrote near it (an
  eval's ``-o results.json``), each of which the editor offers to grade whole (a ``results`` request).

A format without one gets :func:`key_outline` and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from rubric_lsp.document import Document, Node
from rubric_lsp.document.positions import Span


@dataclass
class OutlineItem:
    """One outline entry. ``kind`` is an LSP SymbolKind name ("Property", "Array", …)."""

    name: str
    kind: str
    span: Span  # the whole entry
    selection_span: Span | None = None  # what to highlight (a key, a name); inside ``span``
    detail: str | None = None
    children: list[OutlineItem] = field(default_factory=list)


@dataclass
class EditorContext:
    """What an editor hook sees: the linted document and the view its checkers built."""

    document: Document
    view: Any
    options: Mapping[str, Any] = field(default_factory=dict)  # the format's grading options (Format.grade_options)
    judge: tuple[str, ...] = ()  # the judge models the editor's gradings are given (none: the format's own choice)

    @property
    def root(self) -> Node | None:
        return self.document.root


@dataclass(frozen=True)
class GradePlan:
    """What grading a unit of a file means, as the server's grading request.

    ``kind``: ``response`` (grade the last response used for the file; it needs one),
    ``examples`` (the file's own examples) or ``dataset`` (labelled items: agreement).
    ``test``: the 1-based test; ``units``: the names of the units to grade (empty: all);
    ``text``/``path``: what to grade instead of the file (a conversion).
    """

    kind: str
    test: int | None = None
    units: tuple[str, ...] = ()
    text: str | None = None
    path: str | None = None


@dataclass
class GradableUnit:
    """One thing in a file the editor can grade: its place, what it is called and what grading it means."""

    label: str  # as the user wrote it (a test's description, a grader's name)
    noun: str  # "test", "grader", "criterion", "rubric", "examples": "Grade this <noun>"
    span: Span
    plan: GradePlan
    target: bool = False  # a selected text can be graded against it (the targets list)
    lens: bool = True  # gets a "▶ Grade" code lens
    detail: str = ""
    named: bool = True  # the lens names it ("▶ Grade grader 'tone'"); False when the label is only a description

    @property
    def title(self) -> str:
        """The lens title: the noun, and the unit's name when it has one of its own."""
        shown = self.named and self.label and self.label != self.noun
        return f"▶ Grade {self.noun}" + (f" '{self.label}'" if shown else "")


def key_outline(ctx: EditorContext) -> list[OutlineItem]:
    """The default outline: the mapping keys, three levels deep."""
    return _keys(ctx.root, 0) if ctx.root is not None else []


def _keys(node: Node, depth: int) -> list[OutlineItem]:
    if depth > 2 or not node.is_map:
        return []
    out = []
    for key, value in node.pairs():
        if not key.is_scalar:
            continue
        kind = "Object" if value.is_map else "Array" if value.is_seq else "Field"
        out.append(
            OutlineItem(
                str(key.value),
                kind,
                key_and_value(key, value),
                key.span,
                children=_keys(value, depth + 1),
            )
        )
    return out


def key_and_value(key: Node, value: Node) -> Span:
    """The span of a mapping entry: its key through its value (an empty value ends at the key)."""
    return Span(key.start, max(key.end, value.end))


def short(text: Any, limit: int = 60) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _no_hover(ctx: EditorContext, offset: int) -> list[str]:
    return []


def _no_values(path: list, key: str) -> list:
    return []


def _no_units(ctx: EditorContext) -> list[GradableUnit]:
    return []


def _no_examples(ctx: EditorContext) -> GradePlan | None:
    return None


def _no_results(ctx: EditorContext) -> list[str]:
    return []


HOOKS = ("outline", "hover", "completion_values", "gradable_units", "examples_plan", "results_files")


@dataclass(frozen=True)
class EditorHooks:
    outline: Callable[[EditorContext], list[OutlineItem]] = key_outline
    hover: Callable[[EditorContext, int], list[str]] = _no_hover
    completion_values: Callable[[list, str], list] = _no_values
    gradable_units: Callable[[EditorContext], list[GradableUnit]] = _no_units
    examples_plan: Callable[[EditorContext], GradePlan | None] = _no_examples
    results_files: Callable[[EditorContext], list[str]] = _no_results

    @classmethod
    def of(cls, module: ModuleType | object | None) -> EditorHooks:
        """The hooks ``module`` (or any object) defines, defaults for the rest."""
        if module is None:
            return cls()
        found = {name: getattr(module, name, None) for name in HOOKS}
        return cls(**{name: hook for name, hook in found.items() if hook is not None})
