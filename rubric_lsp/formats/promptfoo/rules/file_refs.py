"""promptfoo's ``file://`` references (RL010–RL012).

Every scalar of the form ``file://path`` is resolved relative to the referring file's
folder, as promptfoo does (``path.resolve(basePath, …)``: no ``~`` expansion, no boundary);
it must exist and a glob must match at least one file (RL010, wherever it points). One that
reaches outside both the workspace (``ctx.root_dir``: the editor's folder, or on the command
line the repository) and the repository holding the config is a warning (RL011): promptfoo
reads it, but the project then depends on a file others do not have. Referenced files are
recorded in ``ctx.dependencies`` so the server re-lints the config when they change. Nothing
referenced is executed: scripts are only checked for existence. Templated paths
(``file://{{ var }}.txt``) cannot be checked and are skipped.

Another format that gains ``file://`` references can call :func:`check_file_references`
from its own checker.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from rubric_lsp.diagnostics import Severity
from rubric_lsp.document import Node
from rubric_lsp.document.files import special_kind
from rubric_lsp.document.nodes import walk
from rubric_lsp.formats.promptfoo import CONFIG, refs
from rubric_lsp.formats.promptfoo.paths import prompt_raw_nodes
from rubric_lsp.formats.promptfoo.rules.common import config_view
from rubric_lsp.formats.registry import checker
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule
from rubric_lsp.workspace import repository_root, resolved

E, W = Severity.ERROR, Severity.WARNING

MISSING_FILE = rule(
    "RL010",
    "missing-file-reference",
    E,
    "A file the config names does not exist (or a glob matches nothing): a `file://` reference, or a path "
    "promptfoo reads without that prefix (`prompts: [prompts.txt]`, `tests: cases.csv`, `defaultTest: d.yaml`).",
    "promptfoo fails when it loads the file ('File does not exist', ENOENT), or for a tests glob logs 'No test "
    "files found' and runs none of its tests; a `file://` prompt glob that matches nothing is sent as the "
    "prompt text itself. Which strings promptfoo reads as paths is decided as its 0.123.1 code does.",
    bad="prompts:\n  - file://prompts/mian.txt   # a typo: the file is prompts/main.txt\n",
    formats=(CONFIG,),
    checked_against="promptfoo 0.123.1's src/util/file.ts (maybeLoadFromExternalFile: 'File does not exist') and src/util/testCaseReader.ts (loadTestsFromGlob)",
)
OUTSIDE_WORKSPACE = rule(
    "RL011",
    "reference-outside-workspace",
    W,
    "A `file://` reference points outside the workspace and the repository.",
    "promptfoo reads any path a config names (it resolves references from the config's folder with no "
    "boundary), so this is not an error. But a config that reaches outside its project works only on "
    "machines that happen to have that file, and can read files the author never meant to share (for "
    "example /etc/passwd). References elsewhere in the same repository (file://../shared/rubric.md) are "
    "fine: the boundary is the workspace folder the editor opened, or on the command line the repository "
    "holding the config (the nearest folder with .git), else the settings file's folder, else the current "
    "directory.",
    bad="prompts: ['Summarize: {{doc}}']\ntests:\n  - vars:\n      doc: file:///etc/passwd\n",
    good="prompts: ['Summarize: {{doc}}']\ntests:\n  - vars:\n      doc: file://data/doc.txt\n",
    formats=(CONFIG,),
)
UNREADABLE_REFERENCE = rule(
    "RL012",
    "unreadable-referenced-file",
    E,
    "A referenced file cannot be read: a YAML/JSON file that does not parse, or a FIFO, device or socket.",
    "The owner tool reads the referenced file when it runs and stops at its syntax error; a FIFO blocks it "
    "and a device such as /dev/zero never ends. rubric-lint reads only regular files, so such a reference "
    "is reported, never opened.",
    bad="prompts: ['Summarize: {{doc}}']\ntests: file://tests.yaml   # tests.yaml has a syntax error\n",
    formats=(CONFIG,),
)

# Keys whose file:// value names a file that is written, not read.
OUTPUT_KEYS = frozenset({"outputPath", "output"})


def iter_references(root: Node, skip_keys: Iterable[str] = OUTPUT_KEYS) -> Iterable[tuple[Node, refs.FileRef]]:
    """Every checkable ``file://`` scalar under ``root`` (values, not keys), once each."""
    skip = set(skip_keys)
    for node in walk(root, keys=False, skip=lambda key: key.is_scalar and key.value in skip):
        if node.is_scalar:
            value = node.value
            if isinstance(value, str) and value.startswith(refs.PREFIX):
                ref = refs.parse_ref(value)
                if ref is not None:
                    yield node, ref


def check_file_references(ctx: CheckContext, root: Node | None = None, skip_keys: Iterable[str] = OUTPUT_KEYS) -> None:
    root = root if root is not None else ctx.document.root
    if root is None or ctx.path is None or refs.PREFIX not in ctx.document.text:
        return
    config = Path(ctx.path)  # its folder resolved once per run (its siblings share it), itself when a link
    base = config.resolve().parent if os.path.islink(config) else resolved(config.parent)
    bounds = boundaries(ctx)
    prompt_nodes = {id(node) for node in prompt_raw_nodes(root)}
    for node, ref in iter_references(root, skip_keys):
        target = refs.resolve_path(ref, base)
        found = refs.expand(ref, target)
        if not found:
            ctx.report(MISSING_FILE, node, _missing(ref, target, id(node) in prompt_nodes))
        for path in found:
            ctx.dependencies.add(str(path))
            special = special_kind(path)
            if special is not None:
                ctx.report(UNREADABLE_REFERENCE, node, f"'{ref.text}' names {special}, not a file: not read.")
        reached = found or [refs.static_prefix(target) if ref.is_glob else target]
        outside = next((p for p in reached if bounds and refs.escapes(p, bounds)), None)
        if outside is not None:
            ctx.report(
                OUTSIDE_WORKSPACE,
                node,
                f"'{ref.text}' resolves to {outside.resolve()}, outside {_describe(bounds)}: promptfoo reads it, "
                "but the config then works only where that file exists. Keep referenced files inside the project "
                "(copy the file in, or open the folder holding both as the workspace).",
            )


def boundaries(ctx: CheckContext) -> list[Path]:
    """The folders a reference may reach without RL011: the workspace and the config's repository."""
    found = [ctx.root_dir, repository_root(ctx.path)]
    out: list[Path] = []
    for folder in found:
        if folder is not None and (real := resolved(folder)) not in out:
            out.append(real)
    return out


def _describe(bounds: list[Path]) -> str:
    return "the workspace " + " and the repository ".join(str(b) for b in bounds[:2])


def _missing(ref: refs.FileRef, target: Path, is_prompt: bool) -> str:
    if ref.is_glob and is_prompt:
        return (
            f"'{ref.path}' matches no file (looked in {refs.static_prefix(target)}): promptfoo then sends the text "
            f"'{ref.text}' itself as the prompt. Fix the path (it is relative to this config's folder)."
        )
    what = "matches no file" if ref.is_glob else "does not exist"
    return (
        f"'{ref.path}' {what} (looked in {target.parent}); promptfoo fails or loads nothing when it reads this "
        "reference. Fix the path (it is relative to this config's folder)."
    )


@checker(CONFIG)
def check_promptfoo_references(ctx: CheckContext) -> None:
    check_file_references(ctx)
    # Referenced test/defaultTest/vars files are read by the config view: report the ones
    # that do not parse at the reference.
    view = config_view(ctx)
    if view is None:
        return
    reported: set[int] = set()
    for source in view.referenced:
        doc = source.document
        if doc is None or source.reference is None:
            continue
        ctx.dependencies.add(str(source.path))
        broken = [issue for issue in doc.issues if issue.fatal or issue.kind == "syntax-error"]
        if broken and id(source.reference) not in reported:
            reported.add(id(source.reference))
            issue = broken[0]
            line = doc.lines.position(issue.span.start).line + 1
            ctx.report(
                UNREADABLE_REFERENCE,
                source.reference,
                f"{source.path.name if source.path else 'The referenced file'} line {line}: {issue.message}",
            )
