"""Config shape: unknown top-level and test keys (PF001) and values promptfoo cannot use (PF107)."""

from __future__ import annotations

import itertools
from dataclasses import replace

from rubric_lsp.document import Node
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.errors import describe_type, place_errors
from rubric_lsp.formats.promptfoo.fields import TEST_KEYS, TOLERATED_TOP_LEVEL, TOP_LEVEL_KEYS, validate
from rubric_lsp.formats.promptfoo.resolve import ConfigView, Source, TestInfo
from rubric_lsp.formats.promptfoo.rules.common import E, F, W, js_truthy
from rubric_lsp.formats.promptfoo.rules.prompts import default_prompt_note
from rubric_lsp.rules.registry import Rule, rule
from rubric_lsp.rules.suggest import did_you_mean
from rubric_lsp.rules.unknown_keys import RENAME_SAFETY, unknown_key

UNKNOWN_KEY = rule(
    "PF001",
    "unknown-config-key",
    W,
    "A top-level or test key promptfoo does not know; it is ignored.",
    "promptfoo ignores unknown top-level and test keys without a word (its config schema drops them, and "
    "readConfig warns only about values it rejects), so a typo such as `outputs:` for `outputPath:` or "
    "`options:` at the top level silently does nothing. Not reported: a top-level key that only holds a "
    "block shared through YAML anchors (`x-common: &defaults …` aliased elsewhere, `$defs`), and the keys "
    'the settings\' `extra-keys` name (e.g. `extra-keys = {test = ["tags"]}` for data your own scripts '
    "read; promptfoo's place for such data is a test's `metadata:`).",
    bad="prompts: ['Summarize {{text}}']\noutputs:\n  - type: csv",
    good="prompts: ['Summarize {{text}}']\noutputPath: results.csv",
    fix="rename the key to the nearest known one",
    fix_safety=RENAME_SAFETY
    + " The renames promptfoo users often mean (`outputs` → `outputPath`, `options` → `evaluateOptions`) take another shape or meaning, so they are unsafe too."
    + " A misspelt `prompts` (`promts:`, `prompt:`) is renamed safely only when the config is certainly broken "
    "without it: promptfoo then runs its default prompt '{{prompt}}' and no test sets a `prompt` var.",
    formats=F,
    checked_against="promptfoo 0.123.1's src/util/config/load.ts (readConfig) and src/types/index.ts "
    "(TestSuiteConfigSchema, TestCaseSchema: zod objects that strip unknown keys)",
)

INVALID_FIELD = rule(
    "PF107",
    "invalid-config-value",
    E,
    "A config value promptfoo cannot use (wrong type, or an assertion without a type).",
    "promptfoo fails at eval time on these (for example a non-numeric threshold, `assert` that is not a list, an assertion without `type`).",
    bad="tests:\n  - assert:\n      - value: Is polite",
    good="tests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite",
    formats=F,
    checked_against="promptfoo 0.123.1's src/types/index.ts (TestCaseSchema, AssertionSchema), "
    "src/util/testCaseReader.ts (readTest) and src/assertions/index.ts",
)

NUMBER = "number"

_TEST_KINDS = {
    "description": "str",
    "vars": "any",
    "provider": "any",
    "providers": "seq",
    "prompts": "seq",
    "providerOutput": "any",
    "assert": "any",
    "assertScoringFunction": "str",
    "options": "any",
    "threshold": NUMBER,
    "metadata": "map",
}


def looks_valid(node: Node, kinds: dict[str, str]) -> bool:
    """A cheap pre-check: True when every known field obviously has the right shape.

    Validating thousands of generated red-team tests through pydantic costs more than
    the didChange budget allows; pydantic runs only on the mappings that fail this.
    (``validate`` then vouches for what plainly fits the model without importing pydantic.)
    """
    for key, value in node.pairs():
        if not isinstance(key.value, str):  # `? [a]`: unhashable; pydantic judges it
            return False
        kind = kinds.get(key.value)
        if kind is None or kind == "any":
            continue
        if value.is_scalar and value.value is None:
            continue
        if kind == "str":
            ok = value.is_scalar and isinstance(value.value, str)
        elif kind == NUMBER:
            ok = value.is_scalar and isinstance(value.value, (int, float)) and not isinstance(value.value, bool)
        elif kind == "map":
            ok = value.is_map
        else:
            ok = value.is_seq and all(item.is_scalar and isinstance(item.value, str) for item in value.value)
        if not ok:
            return False
    return True


def report_pydantic(ctx, report, source: Source, node: Node, errors: list[dict], what: str, skip: tuple = ()) -> None:
    for error in place_errors(errors, node):
        if error.type == "extra_forbidden" or (error.path and error.path[0] in skip):
            continue
        if error.type == "missing":
            where = error.key_node or (
                error.node
                if error.node.end - error.node.start < 200
                else ctx.line_span(error.node)
                if source.is_config
                else error.node
            )
            report(INVALID_FIELD, source, where, f"This {what} has no '{error.missing_key}'; promptfoo cannot run it.")
            continue
        field = ".".join(str(p) for p in error.path) or what
        target = (
            error.node if error.node.end - error.node.start < 500 or not source.is_config else ctx.line_span(error.node)
        )
        report(
            INVALID_FIELD,
            source,
            target,
            f"'{field}' is {describe_type(error.input)}; promptfoo expects {_expected(error.type, error.message)}.",
        )


def _expected(kind: str, message: str) -> str:
    table = {
        "float_parsing": "a number",
        "float_type": "a number",
        "int_parsing": "an integer",
        "int_type": "an integer",
        "string_type": "a string",
        "list_type": "a list",
        "dict_type": "a mapping",
        "bool_type": "true or false",
        "bool_parsing": "true or false",
        "model_type": "a mapping",
        "model_attributes_type": "a mapping",
    }
    return table.get(kind, message[0].lower() + message[1:] if message else "another value")


def check_unknown(
    ctx,
    report,
    source: Source,
    mapping: Node,
    known,
    rule_: Rule,
    what: str,
    consequence: str,
    tolerated=(),
    notes: dict[str, tuple[str, bool]] | None = None,
) -> None:
    """``notes``: per suggested key, what promptfoo does without it and whether the rename is safe
    (only when the file is certainly broken as written)."""
    if not ctx.enabled(rule_):
        return
    for key_node, _value in mapping.pairs():
        key = key_node.value
        if not isinstance(key, str) or key in known or key in tolerated:
            continue
        message = f"Unknown {what} key '{key}': {consequence}"
        fix = None
        hint, replacement = _KEY_HINTS.get((what, key), (None, None))
        if hint is not None:
            message += " " + hint
            if replacement in known and replacement not in mapping.keys() and source.is_config:
                # A known mistake, but the right key takes another shape or another meaning
                # (outputs: [...] → outputPath: "file"): the rename is a guess, so unsafe.
                fix = ctx.rename(key_node, replacement, f"Rename '{key}' to '{replacement}'", safe=False)
        else:
            found = unknown_key(ctx, mapping, key_node, known)
            if found.suggestion is None and what in ("test", "defaultTest"):
                message += " " + OWN_DATA_HINT.format(where=what, key=key)
            note = (notes or {}).get(found.suggestion or "")
            if found.fix is not None:
                message += (f" {note[0]}" if note else "") + did_you_mean(key, found.suggestion or "")
                fix = found.fix if source.is_config else None
                if fix is not None and note is not None and not note[1]:
                    fix = replace(fix, safe=False)
        report(rule_, source, key_node, message, fix)


# Data a test carries for the user's own scripts: promptfoo's place for it is `metadata`
# (src/types: TestCaseSchema.metadata; `--filter-metadata` selects tests on it).
OWN_DATA_HINT = (
    "If your own scripts read it, put it under 'metadata:' (promptfoo keeps it with the test and "
    '`--filter-metadata` selects on it), or list it in the settings\' `extra-keys = {{{where} = ["{key}"]}}`.'
)

# (where, key) -> (hint, replacement key or None)
_KEY_HINTS = {
    ("assertion", "rubric"): ("The rubric goes in 'value'.", "value"),
    ("assertion", "criteria"): ("The rubric goes in 'value'.", "value"),
    ("top-level", "outputs"): ("To write results to a file, use 'outputPath: results.csv'.", "outputPath"),
    ("top-level", "options"): (
        "Eval settings such as maxConcurrency and cache go under 'evaluateOptions'.",
        "evaluateOptions",
    ),
    ("test", "tests"): ("Tests do not nest; move these tests into the top-level 'tests' list.", None),
    ("test", "name"): ("promptfoo names a test by its 'description' (shown in results).", "description"),
}


def check_top_level(ctx, report, view: ConfigView, claimed: set[str] | frozenset[str] = frozenset()) -> None:
    """``claimed``: misspelt keys PF108 reports (promptfoo refuses the config without them)."""
    root = view.root
    unknown = [k.value for k, _v in root.pairs() if isinstance(k.value, str) and k.value not in TOP_LEVEL_KEYS]
    note = default_prompt_note(view) if unknown else None
    check_unknown(
        ctx,
        report,
        view.source,
        root,
        TOP_LEVEL_KEYS,
        UNKNOWN_KEY,
        "top-level",
        "promptfoo ignores it.",
        (*TOLERATED_TOP_LEVEL, *claimed, *anchor_blocks(root, unknown), *extra_keys(ctx, "top-level")),
        {"prompts": note} if note is not None else None,
    )
    if ctx.enabled(INVALID_FIELD):
        plain = {
            key: to_plain(value) for key, _kn, value in root.items() if key not in ("tests", "defaultTest", "scenarios")
        }
        report_pydantic(ctx, report, view.source, root, validate("PromptfooConfig", plain), "config")
        tests = root.get("tests")
        if tests is not None and not (
            tests.is_seq or (tests.is_scalar and isinstance(tests.value, str)) or tests.is_map
        ):
            report(INVALID_FIELD, view.source, tests, "'tests' must be a list of tests or a file:// reference.")
        default = root.get("defaultTest")
        if default is not None and not (default.is_map or (default.is_scalar and isinstance(default.value, str))):
            report(INVALID_FIELD, view.source, default, "'defaultTest' must be a mapping or a file:// reference.")


def extra_keys(ctx, place: str) -> tuple[str, ...]:
    """The keys the settings' ``extra-keys`` declare at ``place`` (the user's own scripts read them)."""
    return tuple(getattr(ctx, "extra_keys", {}).get(place, ()))


def anchor_blocks(root: Node, candidates: list[str]) -> list[str]:
    """The ``candidates`` (top-level keys) whose value defines a node aliased elsewhere in the document:
    a block kept only to be aliased (`x-common: &defaults …`, then `<<: *defaults`). promptfoo
    ignores the key and reads the aliased copies, so nothing is lost. A key that only *uses* an
    alias (`vars: *defaults` at the top level) is still unknown: what it says is lost."""
    if not candidates:
        return []
    subtrees = {key: _nodes(value) for key, _kn, value in root.items()}
    # Where each top-level value is written: from its key to the next key (an alias node keeps
    # the position of its anchor, so a node written here was anchored here).
    everywhere = set().union(*(nodes.keys() for nodes in subtrees.values()))
    # (keys merged into the top level with `<<: *x` are written where x is, inside another value)
    keys = sorted((kn for kn, _v in root.pairs() if id(kn) not in everywhere), key=lambda kn: kn.start)
    written = {kn.value: (kn.end, after.start) for kn, after in itertools.pairwise(keys)}
    if keys:
        written[keys[-1].value] = (keys[-1].end, root.end)
    blocks = []
    for key in candidates:
        if key == "$defs":  # JSON Schema's definitions block, which `$ref: '#/$defs/…'` reads
            blocks.append(key)
            continue
        own, (start, end) = subtrees.get(key, {}), written.get(key, (0, 0))
        rest = set().union(*(nodes.keys() for other, nodes in subtrees.items() if other != key))
        if any(start <= own[ident].start < end for ident in own.keys() & rest):
            blocks.append(key)
    return blocks


def _nodes(node: Node) -> dict[int, Node]:
    seen: dict[int, Node] = {}
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen[id(current)] = current
        if current.is_map:
            stack.extend(n for pair in current.value for n in pair)
        elif current.is_seq:
            stack.extend(current.value)
    return seen


# readTest (src/util/testCaseReader.ts) refuses an inline test with none of these set (JavaScript
# truthiness), or a numeric `threshold`.
_TEST_CONTENT = ("assert", "vars", "options", "metadata", "provider", "providerOutput")
NO_CONTENT = (
    "Test case must contain one of the following properties: assert, vars, options, metadata, provider, "
    "providerOutput, threshold."
)


def _check_content(report, test: TestInfo) -> None:
    node = test.node
    if test.index < 0 or node is None or not node.is_map or not node.value or not test.source.is_config:
        return
    threshold = node.get("threshold")
    if any(js_truthy(node.get(key)) for key in _TEST_CONTENT) or (
        threshold is not None and isinstance(threshold.value, (int, float)) and not isinstance(threshold.value, bool)
    ):
        return
    ignored = [k.value for k, _v in node.pairs() if isinstance(k.value, str) and k.value not in TEST_KEYS]
    hint = (
        f" ('{ignored[0]}' does not count: promptfoo ignores it; data of your own goes under 'metadata:'.)"
        if ignored
        else ""
    )
    report(INVALID_FIELD, test.source, node.value[0][0], f"promptfoo refuses this test: '{NO_CONTENT}'{hint}")


def check_test_keys(ctx, report, test: TestInfo) -> None:
    node = test.node
    if node is None:
        return
    if not node.is_map:
        if not (node.is_scalar and isinstance(node.value, str)):
            report(INVALID_FIELD, test.source, node, f"A test must be a mapping, not {describe_type(to_plain(node))}.")
        return
    what = "defaultTest" if test.index < 0 else "test"
    check_unknown(
        ctx, report, test.source, node, TEST_KEYS, UNKNOWN_KEY, what, "promptfoo ignores it.", extra_keys(ctx, what)
    )
    if not ctx.enabled(INVALID_FIELD):
        return
    _check_content(report, test)
    if not looks_valid(node, _TEST_KINDS):
        plain = {k: v for k, v in to_plain(node).items() if k != "assert"}
        report_pydantic(ctx, report, test.source, node, validate("TestCase", plain), what, skip=("provider", "options"))
    options = node.get("options")
    if options is not None and not options.is_map:
        report(INVALID_FIELD, test.source, options, "'options' must be a mapping.")
    asserts = node.get("assert")
    if asserts is not None and not asserts.is_seq and not (asserts.is_scalar and asserts.value is None):
        report(
            INVALID_FIELD,
            test.source,
            asserts,
            f"'assert' must be a list of assertions, not {describe_type(to_plain(asserts))}; promptfoo cannot run this test.",
        )
