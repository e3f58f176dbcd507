"""What promptfoo 0.123.1 makes of the prompts a config writes: objects it refuses (PF109), objects whose
prompt is not the one written (PF119), and no prompts read at all (PF121: it runs '{{prompt}}').

A prompt list item goes through ``combineConfigs`` (main.js: ``invariant`` on a string ``raw`` or
``label``, then ``makeAbsolute``: an object without an ``id`` must be a whole ``PromptSchema``, a
string ``raw`` and ``label``), then ``normalizeInput`` (``raw: item.raw || item.id, ...item``) and
``processPrompt``, which reads ``raw`` (a file when ``maybeFilePath``) and keeps ``id``, ``label`` and
``config`` (``processString``). Any other key is dropped. With no truthy ``prompts``, ``readConfig``
runs ``['{{prompt}}']``, which renders empty where no test gives a ``prompt`` var.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from rubric_lsp.document import Node
from rubric_lsp.document.files import read_regular_text
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.promptfoo.fields import TOP_LEVEL_KEYS
from rubric_lsp.formats.promptfoo.paths import maybe_file_path
from rubric_lsp.formats.promptfoo.resolve import MAX_REFERENCED_BYTES, ConfigView
from rubric_lsp.formats.promptfoo.rules.common import E, F, js_truthy, providers_node
from rubric_lsp.rules.registry import rule
from rubric_lsp.rules.suggest import suggest

INVALID_PROMPT = rule(
    "PF109",
    "invalid-prompt",
    E,
    "A prompt object promptfoo refuses: without a string `raw` or `label`, or without an `id` and not both.",
    "promptfoo reads a prompt as a string (text or file:// path) or an object with a `raw` (the text) or "
    "`label` string; `{id, content}` and other shapes stop the eval with 'Invalid prompt'. An object without "
    "an `id` must have both `raw` and `label` strings (`{raw: …}` alone, `{label, file}`): 'Invalid prompt object'.",
    bad="prompts:\n  - id: greeting\n    content: Say hello to {{name}}\nproviders: [openai:gpt-4.1-mini]",
    good="prompts:\n  - id: greeting\n    raw: Say hello to {{name}}\nproviders: [openai:gpt-4.1-mini]",
    formats=F,
    checked_against="promptfoo 0.123.1's src/util/config/load.ts (combineConfigs: 'Invalid prompt: …', "
    "makeAbsolute: 'Invalid prompt object: …')",
)

IGNORED_PROMPT_KEYS = rule(
    "PF119",
    "prompt-sent-is-its-id",
    E,
    "A prompt object with no `raw` whose prompt text is in a key promptfoo ignores (`file:`, `template:`, "
    "…): promptfoo sends its `id` as the prompt.",
    "promptfoo reads a prompt object's `raw`, or its `id` when there is no `raw`, and keeps only `id`, `label` "
    "and `config`; `file:`, `path:`, `template:`, `content:` and any other key are dropped without a word, and "
    "`promptfoo validate` says the config is valid. So `{id: chartwright, label: Charts, file: file://prompt.txt}` "
    "sends the word 'chartwright' to the model, not the file. Reported when the `id` is a bare name (no spaces, "
    "no template, not a file path): a prompt text in `id` is sent as written.",
    bad="prompts:\n  - id: chartwright\n    label: Chart writer\n    template: 'Draw a chart of {{data}}'\n"
    "providers: [openai:gpt-4.1-mini]",
    good="prompts:\n  - id: chartwright\n    label: Chart writer\n    raw: 'Draw a chart of {{data}}'\n"
    "providers: [openai:gpt-4.1-mini]",
    fix="rename the one ignored key holding the prompt (`file`, `path`, `template`, `content`, `text`, `prompt`) to `raw`",
    fix_safety="Unsafe: it changes what is sent (the file or text instead of the id), and a path promptfoo cannot "
    "read as a prompt (an extension it has no reader for) then stops the eval.",
    formats=F,
    checked_against="promptfoo 0.123.1's normalizeInput (raw: item.raw || item.id) and processString (keeps id, "
    "raw, label, config), run with `promptfoo eval`: the echo provider answers 'chartwright'",
)

DEFAULT_PROMPT = rule(
    "PF121",
    "no-prompts-read",
    E,
    "No `prompts` promptfoo reads: a misspelt `prompts` key, or none while no test sets a `prompt` var.",
    "Without a truthy `prompts`, promptfoo 0.123.1 runs its default prompt '{{prompt}}' (readConfig warns "
    '\'Expected top-level "prompts" property in config or a test variable named "prompt"\' and runs). A '
    "misspelt key (`promts:`, `prompt:`) is ignored, so the prompts it holds are never sent. With no `prompts` "
    "at all, '{{prompt}}' renders empty unless a test gives a `prompt` var: reported when there are tests, none "
    "gives one (a CSV test file by its columns) nor a prefix, suffix or `providerOutput`, every test's vars are "
    "known, and every target is a model that is sent the prompt as it is (not an HTTP, WebSocket or script target "
    "building its own request from the vars, nor one with `inputs`). A config without tests is left alone: it is "
    "often a base merged with the tests' config (`-c base.yaml -c suite.yaml`).",
    bad="promts: ['Summarize {{text}}']\nproviders: [openai:gpt-4.1-mini]\ntests:\n  - vars: {text: Hello}",
    good="prompts: ['Summarize {{text}}']\nproviders: [openai:gpt-4.1-mini]\ntests:\n  - vars: {text: Hello}",
    fix="rename a misspelt `prompts` key",
    fix_safety="Safe when the key is an unambiguous typo of `prompts` (see the unknown-key rules) and the config is "
    "certainly broken without it: the default prompt renders empty for every test. Otherwise unsafe: a test's "
    "`prompt` var or the target builds what is sent today, and the rename changes it.",
    formats=F,
    checked_against="promptfoo 0.123.1's src/util/config/load.ts (readConfig: prompts default to ['{{prompt}}']), "
    "run with `promptfoo eval`: the echo provider answers ''",
)

# The keys of a prompt object promptfoo reads (PromptSchema's; template, display and function are
# dropped by processString for a config prompt, but display names it in the results database).
READ_KEYS = ("id", "raw", "label", "config", "display", "function")
# Ignored keys a prompt's text is written under: the one PF119's fix renames to `raw`.
PROMPT_LIKE = ("file", "path", "template", "content", "text", "prompt", "body", "message")


def check_prompt_items(ctx, report, view: ConfigView, prompts: Node) -> None:
    for item in prompts.value if prompts.is_seq else []:
        if item.is_scalar and isinstance(item.value, str):
            continue
        refused = _refusal(item)
        if refused is not None:
            report(INVALID_PROMPT, view.source, item.value[0][0] if item.is_map and item.value else item, refused)
        elif item.is_map:
            _ignored_keys(ctx, report, view, item)


def _refusal(item: Node) -> str | None:
    """promptfoo's message refusing the prompt list item ``item`` (not a string), or None."""
    raw, label = (item.get("raw"), item.get("label")) if item.is_map else (None, None)
    hint = " Put the prompt text in 'raw'." if item.is_map and item.has("content") else ""
    if not any(_is_string(n) for n in (raw, label)):
        return (
            f"promptfoo refuses this prompt: 'Invalid prompt: {_js(to_plain(item))}. Prompts must be either a string "
            f"or an object with a 'raw' or 'label' string property.'{hint}"
        )
    if js_truthy(item.get("id")) or (_is_string(raw) and _is_string(label) and _schema_fields_ok(item)):
        return None
    return (
        f"promptfoo refuses this prompt: 'Invalid prompt object: {_js(to_plain(item))}' (an object without an 'id' "
        f"needs both a 'raw' and a 'label' string).{hint}"
    )


def _schema_fields_ok(item: Node) -> bool:
    """PromptSchema's optional string fields are strings where given."""
    return all(item.get(key) is None or _is_string(item.get(key)) for key in ("id", "template", "display"))


def _ignored_keys(ctx, report, view: ConfigView, item: Node) -> None:
    prompt_id = item.get("id")
    if item.has("raw") or not _is_string(prompt_id):
        return
    assert prompt_id is not None  # _is_string
    name = prompt_id.value
    if not name or re.search(r"\s|\{\{|\{%", name) or maybe_file_path(name):
        return  # a prompt text (sent as written) or a file (read): the id is what was meant
    ignored = [(k, v) for k, v in item.pairs() if isinstance(k.value, str) and k.value not in READ_KEYS]
    if not ignored:
        return
    names = " and ".join(f"'{k.value}'" for k, _ in ignored)
    held = [v.value for k, v in ignored if k.value in PROMPT_LIKE and _is_string(v)]
    instead = f", not {held[0]!r}" if len(held) == 1 else ""
    fix = None
    movable = [k for k, v in ignored if k.value in PROMPT_LIKE and _is_string(v)]
    if len(movable) == 1 and view.source.is_config:
        fix = ctx.rename(movable[0], "raw", f"Rename '{movable[0].value}' to 'raw'", safe=False)
    report(
        IGNORED_PROMPT_KEYS,
        view.source,
        ignored[0][0],
        f"promptfoo ignores {names} on a prompt (it reads 'raw', else 'id', with 'label' and 'config'), so the "
        f"prompt it sends is the text {name!r} (this prompt's id){instead}. Put the prompt in 'raw' "
        "(raw: file://… for a file), keeping 'id' and 'label'.",
        fix,
    )


def _is_string(node: Node | None) -> bool:
    return node is not None and node.is_scalar and isinstance(node.value, str)


def _js(value: Any) -> str:
    """``JSON.stringify(value)`` as promptfoo's message shows it, cut to 80 characters."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text if len(text) <= 80 else text[:77] + "..."


# -- no prompts read (PF121) ---------------------------------------------------------------------

# Provider families that send the rendered prompt to a model as it is (the default '{{prompt}}'
# rendering empty reaches the model empty); HTTP, WebSocket, script and agent-framework targets
# build their own request, often from the vars, so they are not judged.
MODEL_PREFIXES = (
    "openai:", "anthropic:", "azure:", "azureopenai:", "bedrock:", "vertex:", "google:", "palm:", "ollama:",
    "mistral:", "groq:", "cohere:", "deepseek:", "xai:", "togetherai:", "openrouter:", "fireworks:",
    "perplexity:", "replicate:", "huggingface:", "hf:", "litellm:", "localai:", "cerebras:", "ai21:",
    "alibaba:", "dashscope:", "databricks:", "watsonx:", "cloudflare-ai:", "hyperbolic:", "novita:",
    "nvidia:", "moonshot:", "minimax:", "llama:", "llamaapi:", "aimlapi:", "cometapi:", "nscale:",
)  # fmt: skip
EXACT_MODELS = ("echo",)


def check_default_prompt(ctx, report, view: ConfigView) -> set[str]:
    """PF121; returns the misspelt `prompts` key it reported (the unknown-key rule leaves it)."""
    root = view.root
    if js_truthy(root.get("prompts")):
        return set()
    empty = default_prompt_empty(view)
    for key_node, _value in root.pairs():
        name = key_node.value
        if not isinstance(name, str) or name in TOP_LEVEL_KEYS:
            continue
        found = suggest(name, TOP_LEVEL_KEYS, 0.75)
        if found is None or found.name != "prompts":
            continue
        fix = None
        if view.source.is_config and not root.has("prompts"):
            fix = ctx.rename(key_node, "prompts", f"Rename '{name}' to 'prompts'", safe=found.safe and empty)
        report(
            DEFAULT_PROMPT,
            view.source,
            key_node,
            f"promptfoo reads no 'prompts' here ('{name}' is ignored), so it runs its default prompt '{{{{prompt}}}}' "
            "instead of these"
            + (", and no test sets a 'prompt' var: every prompt it sends is empty." if empty else ".")
            + " Did you mean 'prompts'?",
            fix,
        )
        return {name}
    if default_prompt_empty(view, implicit_test=False):
        where = root.key_node("prompts") or ctx.line_span(root)
        report(
            DEFAULT_PROMPT,
            view.source,
            where,
            "With no 'prompts', promptfoo runs its default prompt '{{prompt}}', and no test sets a 'prompt' var: "
            "every prompt it sends is empty. Add 'prompts:' (e.g. prompts: ['Answer: {{question}}']), or a 'prompt' "
            "var to each test.",
        )
    return set()


def default_prompt_note(view: ConfigView) -> tuple[str, bool] | None:
    """For a key the unknown-key rule takes for `prompts`: what promptfoo runs instead, and whether
    that is certainly broken (None when the config has prompts)."""
    if js_truthy(view.root.get("prompts")):
        return None
    broken = default_prompt_empty(view)
    note = "With no 'prompts', promptfoo runs its default prompt '{{prompt}}'"
    return (note + (", and no test sets a 'prompt' var, so the prompt it sends is empty." if broken else ".")), broken


def default_prompt_empty(view: ConfigView, *, implicit_test: bool = True) -> bool:
    """Whether the default prompt '{{prompt}}' certainly reaches every target empty: the tests are all
    read (or are CSV files whose columns are read), with every var known and none (nor defaultTest) a
    `prompt` var or a prefix/suffix; some test calls the target (no `providerOutput`), no test names
    its own provider, and every target is a model sent the prompt as it is. A config with no tests
    runs one made of defaultTest alone (``implicit_test``; PF121 does not count it: such a config is
    often a base that `-c` merges with the tests' config)."""
    if js_truthy(view.root.get("prompts")):
        return False
    csv_rows = 0
    if not view.tests_complete:
        csv_rows = _csv_rows_without_prompt(view)
        if not csv_rows:
            return False
    default = [view.default_test] if view.default_test is not None else []
    tests = view.tests
    if (
        not tests
        and not csv_rows
        and not (implicit_test and view.root.get("tests") is None and view.root.get("scenarios") is None)
    ):
        return False
    run = tests or default  # the tests that call the target (none: one implicit test, with nothing set)
    considered = tests + default
    if not all(t.vars_complete for t in considered) or any("prompt" in t.vars for t in considered):
        return False
    if any(t.get(key) is not None for t in considered for key in ("provider", "providers")):
        return False
    if any(t.options_field(key) is not None for t in considered for key in _PROMPT_OPTIONS):
        return False
    if not csv_rows and run and all(t.get("providerOutput") is not None for t in run):
        return False
    return _targets_send_the_prompt(providers_node(view.root))


# Test options that write around the rendered prompt (renderPrompt: prefix + prompt + suffix).
_PROMPT_OPTIONS = ("prefix", "suffix")
# CSV columns that give the prompt something: the var itself, a prefix/suffix, or an output that
# replaces the call (testCaseFromCsvRow, main.js).
_CSV_PROMPT_COLUMNS = {"prompt", "__prefix", "__suffix", "__providerOutput"}


def _csv_rows_without_prompt(view: ConfigView) -> int:
    """The rows of the CSV test files `tests` names, when every test source not read is such a file
    and none has a column giving the prompt something; else 0 (cannot tell)."""
    tests = view.root.get("tests")
    items = tests.value if tests is not None and tests.is_seq else [tests] if tests is not None else []
    rows = 0
    for item in items:
        if item.is_map and not item.has("path"):
            continue  # an inline test, in the view
        name = item.value if item.is_scalar and isinstance(item.value, str) else None
        path = name.removeprefix("file://") if name is not None else ""
        if not path.lower().endswith(".csv") or view.base_dir is None or "{{" in path:
            return 0
        found = _csv_table(view.base_dir / path)
        if found is None or found[0] & _CSV_PROMPT_COLUMNS:
            return 0
        rows += found[1]
    return rows


def _csv_table(path: Path) -> tuple[set[str], int] | None:
    """A CSV file's column names (trimmed, as promptfoo reads them) and its number of rows; None if unreadable."""
    import csv  # only a config with no prompts and CSV tests needs it: not on every lint's import path
    import io

    try:
        text = read_regular_text(path, MAX_REFERENCED_BYTES)  # a BOM dropped, as promptfoo's reader does
    except (OSError, ValueError):  # missing, not a regular file, too large, not UTF-8
        return None
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
    except (StopIteration, csv.Error):
        return None
    try:
        rows = sum(1 for row in reader if any(cell.strip() for cell in row))
    except csv.Error:
        return None
    return {column.strip() for column in header}, rows


def _targets_send_the_prompt(listed: Node | None) -> bool:
    items = listed.value if listed is not None and listed.is_seq else [listed] if listed is not None else []
    if not items:
        return False
    for item in items:
        if item.is_map and (item.has("inputs") or item.has("transform")):
            return False
        if item.is_map and item.has("id"):
            ident = item.get("id")
        elif item.is_map and len(item.value) == 1:
            ident = item.value[0][0]
        else:
            ident = item
        value = ident.value if ident is not None and ident.is_scalar else None
        if not isinstance(value, str) or "{{" in value or "${" in value:
            return False
        if not (value in EXACT_MODELS or value.startswith(MODEL_PREFIXES)):
            return False
    return True
