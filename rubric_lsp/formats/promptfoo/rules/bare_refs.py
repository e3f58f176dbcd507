"""Files named without ``file://`` that promptfoo reads anyway (RL010, PF120).

``prompts: [prompts.txt]``, ``tests: evals/cases.jsonl``, ``tests: [data/*.yaml]``,
``defaultTest: defaults.yaml``: promptfoo takes these strings as paths. Which strings it
takes, and what it does when nothing is there, is decided in
:mod:`rubric_lsp.formats.promptfoo.paths` exactly as promptfoo 0.123.1's code does (its
docstring cites the functions); this module only reports. A string promptfoo uses as the
prompt text itself is never reported.

A missing file is RL010, as for ``file://`` references: it is the same mistake. A prompt
promptfoo reads as a path and then finds nothing to load from — usually a one-line prompt
holding a ``/`` or ending in ``...`` — is PF120: there the fix is to the text, not the path.
"""

from __future__ import annotations

import os
from pathlib import Path

from rubric_lsp.document import Node
from rubric_lsp.formats.promptfoo import CONFIG, paths
from rubric_lsp.formats.promptfoo.rules.common import E
from rubric_lsp.formats.promptfoo.rules.file_refs import MISSING_FILE
from rubric_lsp.formats.registry import checker
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule

PROMPT_AS_PATH = rule(
    "PF120",
    "prompt-read-as-path",
    E,
    "A one-line prompt that promptfoo reads as a file path and loads nothing from.",
    "promptfoo 0.123.1 (`maybeFilePath`, `processPrompt`) takes a one-line prompt for a file path when it "
    "contains `/`, `\\` or `*`, or has a `.` three or four characters from its end; without a glob or a file "
    "extension it reads, the path must name an executable file, and otherwise `promptfoo eval` stops with "
    "'There are no prompts in \"…\"'. Text with a line break is never taken for a path.",
    bad="prompts:\n  - 'Answer yes/no: {{question}}'\nproviders: [echo]\n",
    good="prompts:\n  - |\n    Answer yes/no: {{question}}\nproviders: [echo]\n",
    formats=(CONFIG,),
)
_BLOCK_HINT = (
    "If it is the prompt text itself, write it as a `|` block: promptfoo never reads text with a line break as a path."
)


@checker(CONFIG)
def check_bare_references(ctx: CheckContext) -> None:
    root = ctx.document.root
    if root is None or not root.is_map or ctx.path is None:
        return
    base = Path(os.path.abspath(ctx.path)).parent  # promptfoo's basePath: the config's folder, links kept
    for node in paths.prompt_raw_nodes(root):
        if isinstance(node.value, str):
            _check_prompt(ctx, node, paths.prompt_use(node.value, base))
    tests = root.get("tests")
    if tests is not None and tests.is_scalar and isinstance(tests.value, str):
        _check_tests(ctx, tests, paths.tests_use(tests.value, base, in_list=False))
    elif tests is not None:
        _check_test_list(ctx, tests, base)
    scenarios = root.get("scenarios")
    for scenario in scenarios.value if scenarios is not None and scenarios.is_seq else []:
        scenario_tests = scenario.get("tests") if scenario.is_map else None
        if scenario_tests is not None and scenario_tests.is_seq:
            _check_test_list(ctx, scenario_tests, base)
    default = root.get("defaultTest")
    if default is not None and default.is_scalar and isinstance(default.value, str):
        use = paths.default_test_use(default.value, base)
        if use is not None and not _found(ctx, use):
            ctx.report(
                MISSING_FILE,
                default,
                f"'{use.text}' does not exist (looked in {use.path.parent}): promptfoo reads a defaultTest string as "
                "the path of a test file, with or without file://, and stops when it is missing. Fix the path (it "
                "is relative to this config's folder).",
            )


def _check_test_list(ctx: CheckContext, node: Node, base: Path) -> None:
    """``tests: {path: …}`` or a tests list: each string or ``{path: …}`` item."""
    for item in node.value if node.is_seq else [node]:
        if item.is_map:
            path = item.get("path")
            if path is not None and path.is_scalar and isinstance(path.value, str):
                _check_tests(ctx, path, paths.standalone_use(path.value, base))
        elif node.is_seq and item.is_scalar and isinstance(item.value, str):
            _check_tests(ctx, item, paths.tests_use(item.value, base, in_list=True))


def _check_tests(ctx: CheckContext, node: Node, use: paths.FileUse | None) -> None:
    if use is not None and use.text.startswith(paths.FILE):
        # file_refs checks a file:// path (as a glob when it has wildcards). promptfoo reads a tests file
        # it does not glob literally: only there can a path file_refs finds be missing to promptfoo.
        literal = not use.glob and paths.has_magic(use.text.removeprefix(paths.FILE))
        if not literal or os.path.exists(use.path) or not paths.matches(paths.FileUse(use.text, use.path, glob=True)):
            return
    if use is None or _found(ctx, use):
        return
    if use.glob:
        message = (
            f"'{use.text}' matches no file (looked in {use.path.parent}): promptfoo reads a tests entry like this "
            f"as a path or glob of test files, logs 'No test files found for path: {use.text}' and runs none of "
            "its tests."
        )
    else:
        one_file = " It reads this one as a single file: globs are not expanded." if paths.has_magic(use.text) else ""
        message = (
            f"'{use.text}' does not exist (looked in {use.path.parent}): promptfoo reads it as a tests file and "
            f"stops when it is missing.{one_file}"
        )
    ctx.report(MISSING_FILE, node, message + " Fix the path (it is relative to this config's folder).")


def _check_prompt(ctx: CheckContext, node: Node, use: paths.FileUse | None) -> None:
    if use is None:
        return
    if paths.loads_prompt(use):
        ctx.dependencies.add(str(use.path))
        return
    hint = f" {_BLOCK_HINT}" if any(char.isspace() for char in use.text) else ""
    if not use.executable:
        ctx.report(
            MISSING_FILE,
            node,
            f"'{use.text}' does not exist (looked in {use.path.parent}): promptfoo reads this prompt as a file "
            f"({use.why}) and stops when it is missing. Fix the path (it is relative to this config's folder).{hint}",
        )
        return
    if os.path.exists(use.path):
        found = "that file is not executable, and promptfoo loads a file with another extension only as a command"
        advice = "Give the file the extension of its format (.j2 for Jinja, .txt, .md, .json, .yaml …)."
    else:
        found = f"there is no file at {use.path}"
        advice = f"{_BLOCK_HINT} If it is a file, fix the path."
    ctx.report(
        PROMPT_AS_PATH,
        node,
        f"promptfoo reads the prompt '{use.text}' as a file path ({use.why}); {found}, so `promptfoo eval` stops: "
        f"'There are no prompts in \"{use.text}\"'. {advice}",
    )


def _found(ctx: CheckContext, use: paths.FileUse) -> bool:
    found = paths.matches(use)
    for path in found:
        ctx.dependencies.add(str(path))
    return bool(found)
