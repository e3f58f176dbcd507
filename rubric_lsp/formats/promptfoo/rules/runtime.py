"""What `promptfoo eval` 0.123.1 refuses before it runs a test: an empty prompts list, no providers (PF108),
provider ids it cannot load (PF110); the prompts themselves are ``prompts.py``'s (PF109, PF119, PF121).

The messages quote promptfoo's (src/util/config/load.ts, src/providers/index.ts,
src/providers/sagemaker.ts, src/providers/github). A red-team config is checked for what `promptfoo
redteam generate` refuses: it loads the config as eval does, so it needs a target, but it
generates the tests and a missing `prompts` key becomes '{{prompt}}'.
"""

from __future__ import annotations

import re
from pathlib import Path

from rubric_lsp.document import Node
from rubric_lsp.formats.promptfoo.resolve import ConfigView
from rubric_lsp.formats.promptfoo.rules.common import E, F, W, js_truthy, no_items, providers_node
from rubric_lsp.formats.promptfoo.rules.prompts import check_default_prompt, check_prompt_items
from rubric_lsp.rules.registry import rule
from rubric_lsp.rules.suggest import suggest

NOTHING_TO_RUN = rule(
    "PF108",
    "missing-prompts-or-providers",
    E,
    "An empty `prompts` list, or no providers in a config with assertions: `promptfoo eval` refuses it.",
    "promptfoo stops with 'You must provide at least 1 prompt' when `prompts` is an empty list, and with "
    "'You must specify at least 1 provider' when `providers`/`targets` is missing or empty. A config with "
    "no `prompts` key at all is not refused: promptfoo runs its default prompt '{{prompt}}' (PF121 names a "
    "misspelt `promts:`/`prompt:`, and a default prompt that renders empty). A config with neither providers nor assertions is what `promptfoo "
    "generate dataset` / `generate assertions` read, which need no provider, so it is left alone. A misspelt "
    "providers key (`provider:`) is the usual cause: promptfoo ignores it. (Providers given on the command "
    "line, `-r` / `--providers`, also satisfy promptfoo; a config meant for that use can disable this rule.) "
    "A red-team config needs its target too: `promptfoo redteam generate` 0.123.1 loads it the same way, "
    "though without a `prompts` key it uses '{{prompt}}'.",
    bad="prompts: ['Say {{x}}']\nprovider: [openai:gpt-4.1-mini]\ntests:\n  - assert:\n      - type: contains\n        value: hi",
    good="prompts: ['Say {{x}}']\nproviders: [openai:gpt-4.1-mini]\ntests:\n  - assert:\n      - type: contains\n        value: hi",
    fix="rename a misspelt `provider`/`targts` key to the key promptfoo reads",
    fix_safety="Safe when the misspelt key is an unambiguous typo of the missing key: promptfoo refuses the config "
    "without it, so the rename only makes it run as written. A key that is not a near spelling is not renamed.",
    formats=F,
    checked_against="promptfoo 0.123.1's src/util/config/load.ts (readConfig, resolveConfigs)",
)

UNKNOWN_PROVIDER = rule(
    "PF110",
    "unknown-provider",
    E,
    "A provider id promptfoo 0.123.1 cannot load (unknown, retired, or a SageMaker model type it does not know).",
    "promptfoo fails the eval with 'Could not identify provider', the provider's retirement notice, or "
    "'Invalid model type' before running a test.",
    bad="prompts: ['Say {{x}}']\nproviders: [nonexistent:foo]",
    good="prompts: ['Say {{x}}']\nproviders: [openai:gpt-4.1-mini]",
    formats=F,
    checked_against="promptfoo 0.123.1's src/providers/registry.ts, src/providers/index.ts, src/providers/sagemaker.ts",
)

NO_PROMPT = "You must provide at least 1 prompt"
NO_PROVIDER = "You must specify at least 1 provider (for example, openai:gpt-4.1)"
EVAL = "`promptfoo eval`"
REDTEAM = "`promptfoo redteam generate` (like `redteam run` and `eval`)"
# What makes a red-team config: promptfoo's loader moves top-level plugins/strategies into `redteam`.
REDTEAM_KEYS = ("redteam", "plugins", "strategies")


def check_runtime(ctx, report, view: ConfigView) -> set[str]:
    """Runs the checks; returns the top-level keys reported here (PF001 leaves them to PF108)."""
    root = view.root
    if any(root.has(key) for key in REDTEAM_KEYS):
        return _check_redteam_runtime(ctx, report, view)
    claimed: set[str] = set()
    prompts = root.get("prompts")
    if js_truthy(prompts) and no_items(prompts):  # `prompts: []`; a missing or null one gets the default prompt
        report(
            NOTHING_TO_RUN,
            view.source,
            root.key_node("prompts") or prompts,
            f"`promptfoo eval` refuses this config: '{NO_PROMPT}' (this `prompts` list holds none; with no "
            "`prompts` key at all promptfoo would run its default prompt '{{prompt}}').",
        )
    elif prompts is not None:
        check_prompt_items(ctx, report, view, prompts)
    claimed |= check_default_prompt(ctx, report, view)
    if no_items(providers_node(root)) and view.assertions():
        claimed |= _missing(ctx, report, view, NO_PROVIDER, ("providers", "targets"), EVAL)
    _check_provider_ids(ctx, report, view)
    return claimed


def _check_redteam_runtime(ctx, report, view: ConfigView) -> set[str]:
    """A red-team config: `redteam generate` (and `redteam run`) resolve it as eval does
    (src/util/config/load.ts resolveConfigs), so they need a target; with no `prompts` key the
    loader supplies '{{prompt}}', but an empty list stays empty and is refused."""
    root = view.root
    prompts = root.get("prompts")
    if js_truthy(prompts) and no_items(prompts):
        report(
            NOTHING_TO_RUN,
            view.source,
            root.key_node("prompts") or prompts,
            f"{REDTEAM} refuses this config: '{NO_PROMPT}'.",
        )
    elif prompts is not None:
        check_prompt_items(ctx, report, view, prompts)
    claimed: set[str] = set()
    if no_items(providers_node(root)):
        claimed = _missing(ctx, report, view, NO_PROVIDER, ("providers", "targets"), REDTEAM)
    _check_provider_ids(ctx, report, view)
    return claimed


def _check_provider_ids(ctx, report, view: ConfigView) -> None:
    root = view.root
    if ctx.enabled(UNKNOWN_PROVIDER):
        for key in ("providers", "targets"):
            for id_node in _provider_ids(root.get(key)):
                problem = provider_problem(id_node.value)
                if problem is not None:
                    report(UNKNOWN_PROVIDER, view.source, id_node, problem)


def _missing(ctx, report, view: ConfigView, message: str, keys: tuple[str, ...], command: str = EVAL) -> set[str]:
    """Report the missing providers, at a misspelling of the key when there is one (promptfoo ignores that key)."""
    root = view.root
    for key_node, _value in root.pairs():
        name = key_node.value
        if not isinstance(name, str) or name in keys:
            continue
        found = suggest(name, keys, 0.75)
        if found is None:
            continue
        fix = ctx.rename(key_node, found.name, f"Rename '{name}' to '{found.name}'", safe=found.safe)
        report(
            NOTHING_TO_RUN,
            view.source,
            key_node,
            f"promptfoo reads no '{found.name}' here ('{name}' is ignored), so {command} refuses the config: "
            f"'{message}'. Did you mean '{found.name}'?",
            fix,
        )
        return {name}
    present = root.key_node("targets") or root.key_node("providers")
    where = present if present is not None else ctx.line_span(root)
    report(
        NOTHING_TO_RUN,
        view.source,
        where,
        f"{command} refuses this config: '{message}' (unless providers are given with `-r`/`--providers`).",
    )
    return set()


def _provider_ids(listed: Node | None) -> list[Node]:
    """The id scalars of target providers: strings, {id: ...} objects and {provider-id: options} maps."""
    if listed is None:
        return []
    items = listed.value if listed.is_seq else [listed]
    ids = []
    for item in items:
        if item.is_scalar and isinstance(item.value, str):
            ids.append(item)
        elif item.is_map and item.get("id") is not None:
            node = item.get("id")
            if node is not None and node.is_scalar and isinstance(node.value, str):
                ids.append(node)
        elif item.is_map and len(item.value) == 1 and not item.has("callApi"):
            key = item.value[0][0]
            if isinstance(key.value, str):
                ids.append(key)
    return ids


# -- promptfoo 0.123.1's provider factories (src/providers/registry.ts and the aws, google and
#    red-team families), as prefixes and whole ids --------------------------------------------
_PREFIXES = (
    "a2a:", "abliteration:", "ai21:", "aimlapi:", "alibaba:", "alicloud:", "aliyun:", "anthropic:",
    "atlascloud:", "azure:", "azureopenai:", "bam:", "cerebras:", "cloudera:", "cloudflare-ai:",
    "cloudflare-gateway:", "cohere:", "cometapi:", "dashscope:", "databricks:", "deepseek:", "docker:",
    "elevenlabs:", "envoy:", "f5:", "fal:", "fireworks:", "github:", "groq:", "helicone:", "hf:", "http:",
    "https:", "huggingface:", "hyperbolic:", "jfrog:", "litellm:", "llama:", "llamaapi:", "localai:", "mcp:",
    "meta:", "minimax:", "mistral:", "mlflow-gateway:", "modelslab:", "moonshot:", "n8n:", "novita:",
    "nscale:", "nvidia:", "ollama:", "openai:", "openclaw:", "opencode:", "openinterpreter:", "openrouter:",
    "orcarouter:", "package:", "perplexity:", "portkey:", "promptfoo:model:", "quiverai:", "qwak:",
    "replicate:", "slack:", "snowflake:", "togetherai:", "transformers.js:", "transformers:", "truefoundry:",
    "vercel:", "voyage:", "watsonx:", "webhook:", "ws:", "wss:", "xai:",
    # script providers, the aws, google and red-team families, cloud and file references
    "exec:", "golang:", "python:", "ruby:", "bedrock:", "bedrock-agent:", "sagemaker:", "vertex:", "google:",
    "palm:", "promptfoo:redteam:", "promptfoo://", "file://",
)  # fmt: skip
_EXACT = {
    "a2a", "browser", "echo", "http", "https", "llama", "mcp", "n8n", "openclaw", "opencode", "openinterpreter",
    "promptfoo:manual-input", "promptfoo:simulated-user", "sequence", "slack", "websocket", "ws", "wss",
    "agentic:memory-poisoning",
}  # fmt: skip
_SCRIPT = re.compile(r"\.(?:[cm]?[jt]s|py|go|rb)(?::[\w.]+)?$")
SAGEMAKER_TYPES = ("openai", "llama", "huggingface", "jumpstart", "custom")
GITHUB_RETIRED = (
    "GitHub Models was retired on July 30, 2026, including its inference API. Configure another provider "
    "with its own credentials."
)


def provider_problem(provider_id: str) -> str | None:
    """promptfoo's reason for not loading ``provider_id``, or None when it can (or we cannot tell)."""
    if "{{" in provider_id or "${" in provider_id:
        return None  # rendered from the environment at load time
    if provider_id.startswith("github:"):
        return f"promptfoo cannot run '{provider_id}': '{GITHUB_RETIRED}'"
    if provider_id.startswith("sagemaker:"):
        return _sagemaker_problem(provider_id)
    if provider_id in _EXACT or provider_id.startswith(_PREFIXES) or _SCRIPT.search(provider_id):
        return None
    nearest = suggest(provider_id.split(":", 1)[0] + ":", _PREFIXES, 0.75)
    hint = f" Did you mean '{nearest.name}…'?" if nearest is not None else ""
    return (
        f"promptfoo cannot load this provider: 'Could not identify provider: {provider_id}' "
        f"(see https://promptfoo.dev/docs/providers/).{hint}"
    )


def _sagemaker_problem(provider_id: str) -> str | None:
    parts = provider_id.split(":")
    model_type, endpoint = parts[1], ":".join(parts[2:])
    if len(parts) < 3 or model_type in ("embedding", "embeddings", *SAGEMAKER_TYPES) or "jumpstart" in endpoint:
        return None  # `sagemaker:<endpoint>` takes its type from config.modelType
    return (
        f"promptfoo cannot load '{provider_id}': 'Invalid model type \"{model_type}\" in `config.modelType`. "
        f"Valid types are: {', '.join(SAGEMAKER_TYPES)}'."
    )


NO_DATA = rule(
    "PF024",
    "reads-nothing",
    W,
    "A `tests:` string or a list of `vars` files promptfoo reads nothing from.",
    "promptfoo reads tests only from files it knows by extension (.csv, .json, .jsonl, .yaml, .yml, .xlsx, "
    ".js/.ts, .py) or from dataset URLs, and returns no tests for anything else; a `vars:` list names "
    "files (globs) to merge vars from, and one that matches no file adds nothing. Either way the eval "
    "runs without what the config seems to say.",
    bad="prompts: ['Say {{x}}']\nproviders: [openai:gpt-4.1-mini]\ntests: abc",
    good="prompts: ['Say {{x}}']\nproviders: [openai:gpt-4.1-mini]\ntests: file://tests.csv",
    formats=F,
)

_TEST_FILE = re.compile(r"\.(?:csv|jsonl?|ya?ml|xlsx?|[cm]?[jt]s|py)(?::[\w.]+)?(?:#.*)?$", re.IGNORECASE)
_TEST_URLS = ("huggingface://datasets/", "az://", "https://docs.google.com/spreadsheets/", "https://")


def check_sources(ctx, report, view: ConfigView) -> None:
    """Test and vars sources that load nothing (PF024)."""
    if not ctx.enabled(NO_DATA):
        return
    tests = view.root.get("tests")
    if tests is not None and tests.is_scalar and isinstance(tests.value, str):
        path = tests.value.removeprefix("file://")
        if not (_TEST_FILE.search(path) or path.startswith(_TEST_URLS) or "{{" in path):
            report(
                NO_DATA,
                view.source,
                tests,
                f"promptfoo reads no tests from '{tests.value}': it is not a file type it loads tests from "
                "(.csv, .json, .jsonl, .yaml, .yml, .xlsx, .js/.ts, .py) or a dataset URL, so the eval runs no tests.",
            )
    if view.base_dir is None:
        return  # an unsaved buffer: nothing to match the names against
    defaults = [view.default_test] if view.default_test is not None else []  # readTest reads its vars alike
    for test in defaults + view.tests:
        vars_node = test.get("vars")
        if vars_node is None or not test.source.is_config or not (vars_node.is_seq or vars_node.is_scalar):
            continue
        for item in vars_node.value if vars_node.is_seq else [vars_node]:
            name = item.value if item.is_scalar else None
            if not isinstance(name, str) or name.startswith("file://") or "{{" in name:
                continue  # file:// references are RL010's
            if _matches_a_file(view.base_dir, name):
                continue
            report(
                NO_DATA,
                view.source,
                item,
                f"'{name}' in a vars list matches no file: promptfoo reads a list of vars as files to merge "
                "vars from, so this adds no vars. Write vars as a mapping ({name: value}).",
            )


def _matches_a_file(base: Path, pattern: str) -> bool:
    if not pattern:
        return False
    try:
        return (
            any(Path(pattern).parent.glob(Path(pattern).name))
            if Path(pattern).is_absolute()
            else any(base.glob(pattern))
        )
    except (OSError, ValueError, NotImplementedError):  # a pattern pathlib cannot walk: assume it matches
        return True
