"""The format plugin interface: all that the linter, the server, the exports and the grader know of a kind of file.

A format is one :class:`Format` value. A package makes its formats known through the entry-point
group ``rubric_lsp.formats`` (the built-ins too: see ``formats/discovery.py``); a test may also
call ``rubric_lsp.formats.registry.register``. Everything heavy is named, not imported: checker modules, the view reader, the editor hooks
and the grader are loaded the first time a file of this format needs them, so start-up only
pays for the detectors.

Lazy references are ``"package.module"`` (a module) or ``"package.module:attribute"``
(an attribute of one), or a plain callable.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rubric_lsp.calibration.hook import CalibrationHook
from rubric_lsp.document import Document
from rubric_lsp.formats.options import GradeOption

if TYPE_CHECKING:  # imported when a hook is first needed: the lint path never loads it
    from rubric_lsp.formats.editor import EditorHooks

Lazy = str | Callable[..., Any]  # "pkg.mod:attr", or the thing itself


def load(ref: Lazy) -> Any:
    """The object a lazy reference names (a callable is its own referent)."""
    if not isinstance(ref, str):
        return ref
    module, _, attribute = ref.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attribute) if attribute else loaded


@dataclass
class Conversion:
    """What a converter (``Format.converters``) makes of a view: the new file's text, or None and why."""

    text: str | None
    notes: list[str] = field(default_factory=list)  # what could not be carried over
    summary: str = "the file"  # what was written, for "wrote …"


@dataclass
class Format:
    # -- identity and recognition (cheap: used on every file) ----------------------------------
    name: str  # stable id, used by --kind, in settings and in rule docs
    title: str
    languages: tuple[str, ...]  # which document languages it can be written in
    schema_names: tuple[str, ...] = ()  # $schema/modeline endings that select it
    file_patterns: tuple[str, ...] = ()  # fnmatch patterns on the file name (also the editor's)
    detect: Callable[[Document], int] = lambda doc: 0  # content score, 0 = not mine
    # How the owner tool reads the file, which decides what the any-file rules mean for it:
    # "pyyaml" (YAML 1.1, and Python's json: duplicate keys keep the last value), "js-yaml"
    # (YAML 1.2 core schema: `yes` is a string; duplicate keys are refused), None = unknown.
    loader: str | None = None
    # The owner tool (the name `versions = {…}` in the settings uses) and the releases of it whose
    # behaviour rubric-lsp tracks, oldest first.
    owner: str | None = None
    releases: tuple[str, ...] = ()
    # -- the JSON Schema (exported to schemas/, hover and completion read it) ------------------
    schema_file: str | None = None  # exported JSON Schema file name in schemas/
    json_schema: Callable[[], dict[str, Any]] | None = None  # builds the exported JSON Schema (lazily)
    # -- checking ------------------------------------------------------------------------------
    # Modules holding this format's rules and checkers, imported the first time a file of
    # this format is checked (or the rule list is needed): the pydantic models behind one
    # format's checks are not built to lint another's file.
    checker_modules: tuple[str, ...] = ()
    # The view: what the checkers read instead of raw nodes. ``read_view(doc)`` builds it;
    # checkers cache it in ``CheckContext.view(view_key, …)``, and the lint result keeps it
    # so the editor hooks and the grader reuse it instead of building it again.
    view_key: str | None = None
    read_view: Lazy | None = None  # (Document) -> view
    # -- faces ---------------------------------------------------------------------------------
    editor: Lazy | None = None  # module (or object) with the editor hooks (see rubric_lsp.formats.editor)
    # The format's grader, loaded on the first grading: ``"package.module:GRADER"`` naming a
    # ``grading.runner.Grader`` (the engine's protocol: the module annotates ``GRADER: Grader =
    # grade`` and mypy checks it), a module holding ``grade``, or the grader itself.
    grader: Lazy | None = None
    # The options its grader reads beyond the engine's settings (formats/options.py): `rubric
    # grade` makes a flag of each and the language server a setting; the values reach the grader
    # untouched in GradeRequest.options.
    grade_options: tuple[GradeOption, ...] = ()
    # Whether its grader takes a panel: several judge models (``JudgeSettings.models``) whose verdicts
    # it combines. A grader that takes one is never handed more: the runner grades with the first
    # (engine/runner.py: as_graded), and the faces say once which went unused (panel_note).
    judge_panel: bool = False
    # How the owner tool names judge models: "(id) -> litellm model id", ids it does not know
    # returned as given. A judge model given to any grading (--model, RUBRIC_JUDGE_MODEL, the
    # editor's setting) may be written in any format's spelling (engine/runner.py: model_spellings).
    model_ids: Lazy | None = None
    # How its files take part in calibration (docs/calibration.md): ``"package.module:CALIBRATION"``
    # naming a ``calibration.hook.CalibrationHook`` (the units a judge grades, for the lint rule RL020,
    # the hover, ``rubric grade --require-calibrated`` and the judge card); None: it takes no part.
    calibration: Lazy | None = None
    # Its criterion texts for the smell rules (docs/smells.md): ``"package.module:function"`` naming a
    # ``rules.smells.criteria.CriteriaHook``, ``(Document, view) -> [RubricTexts]``; None: no smell is read.
    criteria: Lazy | None = None
    converters: Mapping[str, Lazy] = field(default_factory=dict)  # target format → (view) -> Conversion
    rule_prefix: str | None = None  # the code prefix of this format's rules (e.g. "PF")
    rule_title: str | None = None  # heading of that prefix's rules in docs/rules.md

    def build_view(self, doc: Document) -> Any:
        """This format's view of ``doc`` (None when it has none, or the document has no root)."""
        if self.read_view is None or doc.root is None:
            return None
        return load(self.read_view)(doc)

    def calibration_hook(self) -> CalibrationHook | None:
        """The calibration hook (None when the format has none), checked against the protocol when loaded."""
        if self.calibration is None:
            return None
        cached = self.__dict__.get("_calibration")
        if cached is None:
            cached = load(self.calibration)
            if not isinstance(cached, CalibrationHook):
                raise TypeError(
                    f"format {self.name!r}: calibration={self.calibration!r} is no CalibrationHook "
                    "(document_units, current_units, judge_card: rubric_lsp/calibration/hook.py)"
                )
            self.__dict__["_calibration"] = cached
        return cached

    def criteria_of(self, doc: Document, view: Any) -> list[Any]:
        """Its criterion texts (``rules.smells.criteria.RubricTexts``) in ``doc``, for the smell rules."""
        if self.criteria is None or doc.root is None:
            return []
        return list(load(self.criteria)(doc, view))

    def editor_hooks(self) -> EditorHooks:
        """The outline / hover / completion hooks (defaults when the format has no editor module)."""
        cached = self.__dict__.get("_hooks")
        if cached is None:
            from rubric_lsp.formats.editor import EditorHooks

            cached = self.__dict__["_hooks"] = EditorHooks.of(load(self.editor) if self.editor else None)
        return cached
