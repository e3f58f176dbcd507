"""promptfoo's ``file://`` references (RL010–RL019).

Every scalar of the form ``file://path`` is resolved relative to the referring file's
folder; globs must match at least one file; nothing may point outside the workspace
(``ctx.root_dir``). Referenced files are recorded in ``ctx.dependencies`` so the server
re-lints the config when they change. Nothing referenced is executed: scripts are only
checked for existence. Templated paths (``file://{{ var }}.txt``) cannot be checked and
are skipped.

Another format that gains ``file://`` references can call :func:`check_file_references`
from its own checker.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from rubric_lsp.diagnostics import Severity
from rubric_lsp.document import Node
from rubric_lsp.document.nodes import walk
from rubric_lsp.formats.promptfoo import CONFIG, refs
from rubric_lsp.formats.promptfoo.rules.common import config_view
from rubric_lsp.formats.registry import checker
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule

E = Severity.ERROR

MISSING_FILE = rule(
    "RL010",
    "missing-file-reference",
    E,
    "A `file://` reference names a file that does not exist (or a glob that matches nothing).",
    "The owner tool fails when it loads the reference (promptfoo: 'File does not exist' / no tests "
    "found), usually only after the eval has started.",
    bad="prompts:\n  - file://prompts/mian.txt   # a typo: the file is prompts/main.txt\n",
    formats=(CONFIG,),
    checked_against="promptfoo 0.123.1's src/util/file.ts (maybeLoadFromExternalFile: 'File does not exist') and src/util/testCaseReader.ts (loadTestsFromGlob)",
)
OUTSIDE_WORKSPACE = rule(
    "RL011",
    "reference-outside-workspace",
    E,
    "A `file://` reference points outside the workspace.",
    "Configs that reach outside their project break for everyone else who checks the project out, "
    "and can read files the author never meant to share (for example ~/.ssh).",
    bad="prompts: ['Summarize: {{doc}}']\ntests:\n  - vars:\n      doc: file://../../secrets.txt\n",
    good="prompts: ['Summarize: {{doc}}']\ntests:\n  - vars:\n      doc: file://data/doc.txt\n",
    formats=(CONFIG,),
)
UNREADABLE_REFERENCE = rule(
    "RL012",
    "unreadable-referenced-file",
    E,
    "A referenced YAML/JSON file does not parse.",
    "The owner tool reads the referenced file when it runs and stops at its syntax error.",
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
    base = Path(ctx.path).resolve().parent
    workspace = ctx.root_dir.resolve() if ctx.root_dir is not None else None
    for node, ref in iter_references(root, skip_keys):
        target = refs.resolve_path(ref, base)
        if workspace is not None and refs.escapes(target if not ref.is_glob else target.parent, workspace):
            ctx.report(
                OUTSIDE_WORKSPACE,
                node,
                f"'{ref.text}' resolves to {target}, outside the workspace {workspace}; keep referenced files "
                "inside the project (copy the file in, or open the parent folder as the workspace).",
            )
            continue
        found = refs.expand(ref, base)
        if not found:
            what = "matches no file" if ref.is_glob else "does not exist"
            ctx.report(
                MISSING_FILE,
                node,
                f"'{ref.path}' {what} (looked in {target.parent}); the eval fails when it loads this reference. "
                "Fix the path (it is relative to this config's folder).",
            )
            continue
        for path in found:
            ctx.dependencies.add(str(path))


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
