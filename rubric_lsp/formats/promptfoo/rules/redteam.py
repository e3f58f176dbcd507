"""Red-team configs: the grader red-team grading uses (PF018), plugin and strategy ids promptfoo
refuses (PF112, PF113); plugins it skips for want of config are redteam_configs.py's (PF114).

The ids come from the installed promptfoo package (``redteam_ids.py``, generated). What promptfoo
0.123.1 does with an id it does not know, read in its dist/ and run (``redteam generate``):

- ``redteam generate`` and ``redteam run`` validate the section with ``RedteamConfigSchema`` and stop
  with 'Invalid redteam configuration: …' (src/redteam/commands/generate.ts); ``eval`` and the
  config loader only log 'Invalid configuration file …' (src/util/config/load.ts), since eval does not
  use the section.
- A strategy the schema accepts can still be refused when generation starts: ``validateStrategies``
  (src/redteam/strategies/index.ts) knows only the registered strategies, so ``default`` and a
  ``multilingual`` without ``config.languages`` stop it ('Invalid strategy(s): …'), and ``custom``
  needs ``config.strategyText``.
"""

from __future__ import annotations

from rubric_lsp.document import Node
from rubric_lsp.formats.promptfoo.assertion_types import base_type
from rubric_lsp.formats.promptfoo.redteam_ids import (
    JAVASCRIPT_EXTENSIONS,
    PLUGINS,
    PROMPTFOO_VERSION,
    REGISTERED_STRATEGIES,
    STRATEGIES,
    STRATEGY_COLLECTIONS,
)
from rubric_lsp.formats.promptfoo.resolve import ConfigView
from rubric_lsp.formats.promptfoo.rules.common import E, F, W, text_of
from rubric_lsp.formats.promptfoo.rules.redteam_configs import check_plugin_config
from rubric_lsp.rules.registry import rule
from rubric_lsp.rules.suggest import suggest

REDTEAM_GRADER = rule(
    "PF018",
    "redteam-without-provider",
    W,
    "A redteam config with llm-rubric graders but no `redteam.provider`.",
    "Without redteam.provider, grading of red-team results may go to promptfoo's remote service and "
    "ignore the grader you configured.",
    bad="redteam:\n  plugins: [pii]\ndefaultTest:\n  options:\n    provider: openai:gpt-4.1\n  assert:\n    - type: llm-rubric\n      value: Refuses to reveal personal data",
    good="redteam:\n  provider: openai:gpt-4.1\n  plugins: [pii]\ndefaultTest:\n  options:\n    provider: openai:gpt-4.1\n  assert:\n    - type: llm-rubric\n      value: Refuses to reveal personal data",
    formats=F,
)

_REFUSES = f"promptfoo {PROMPTFOO_VERSION}'s `redteam generate` (and `redteam run`) refuses"
_TARGET = "targets: [openai:gpt-4.1-mini]\nredteam:\n  purpose: A support bot for a bank\n"

UNKNOWN_PLUGIN = rule(
    "PF112",
    "unknown-redteam-plugin",
    E,
    f"A red-team plugin id promptfoo {PROMPTFOO_VERSION} does not know: `redteam generate` refuses the config.",
    f"{_REFUSES} a `redteam.plugins` id that is not one of its plugins, collections (`harmful`, `pii`, "
    "`default`…) or framework aliases (`owasp:llm`, `nist:ai:measure`, `mitre:atlas`…) and does not start with "
    '`file://` (a custom plugin): \'Invalid plugin id "…". Custom plugins must start with file:// or use a '
    "built-in plugin.' (`promptfoo eval` only logs it as 'Invalid configuration file'.) The ids are read from "
    "promptfoo's own schema.",
    bad=_TARGET + "  plugins: [cybercrime]",
    good=_TARGET + "  plugins: ['harmful:cybercrime']",
    fix="rename the id to the plugin it misspells",
    fix_safety="Safe only for a typo of one plugin id (`harmfull:hate`, `competitor`). A plugin named by its last "
    "part (`cybercrime` for `harmful:cybercrime`) is an unsafe fix: another plugin may have been meant "
    "(`harmful:cybercrime:malicious-code`).",
    formats=F,
    checked_against=f"promptfoo {PROMPTFOO_VERSION}'s src/validators/redteam.ts (RedteamConfigSchema, parsed by "
    "doGenerateRedteam), run on each case",
)

UNKNOWN_STRATEGY = rule(
    "PF113",
    "invalid-redteam-strategy",
    E,
    f"A red-team strategy promptfoo {PROMPTFOO_VERSION} refuses: `redteam generate` stops.",
    f"{_REFUSES} a strategy that is not one of its strategies, a `file://` JavaScript/TypeScript file "
    "or `custom`/`custom:…` ('Invalid redteam configuration: Invalid input'). Some ids its schema accepts still "
    "stop generation: `default` ('Invalid strategy(s): default': omit `strategies` for the defaults), "
    "`multilingual` without `config.languages` (use the top-level `language`), and `custom` without "
    "`config.strategyText` ('Custom strategy requires strategyText in config').",
    bad=_TARGET + "  plugins: [contracts]\n  strategies: [base-64]",
    good=_TARGET + "  plugins: [contracts]\n  strategies: [base64]",
    fix="rename the id to the strategy it misspells",
    fix_safety="Safe only for a typo of one strategy id (`rot-13` → `rot13`); otherwise no fix is offered.",
    formats=F,
    checked_against=f"promptfoo {PROMPTFOO_VERSION}'s src/validators/redteam.ts and src/redteam/strategies "
    "(validateStrategies), run on each case",
)

# What a strategy id may be renamed to: the ids generation runs (collections are expanded first).
_RUNNABLE_STRATEGIES = sorted(STRATEGIES & (REGISTERED_STRATEGIES | set(STRATEGY_COLLECTIONS)))


def check_redteam(ctx, report, view: ConfigView) -> None:
    redteam = view.root.get("redteam")
    section = redteam if redteam is not None and redteam.is_map else None
    if section is not None:
        _check_grader(report, view, section)
    # promptfoo's loader (src/util/config/load.ts) moves top-level plugins/strategies into `redteam`.
    for owner in (section, view.root):
        if owner is None:
            continue
        plugins = owner.get("plugins")
        if ctx.enabled(UNKNOWN_PLUGIN):
            for node in _ids(plugins):
                _check_plugin(ctx, report, view, node)
        for item in plugins.value if plugins is not None and plugins.is_seq else []:
            check_plugin_config(ctx, report, view, item)
        strategies = owner.get("strategies")
        if ctx.enabled(UNKNOWN_STRATEGY) and strategies is not None and strategies.is_seq:
            for item in strategies.value:
                _check_strategy(ctx, report, view, item)


def _check_grader(report, view: ConfigView, redteam: Node) -> None:
    if redteam.has("provider"):
        return
    default = view.default_test
    configured = [
        a
        for test in (view.tests or ([default] if default is not None else []))
        for a in test.assertions
        if base_type(a.type or "") == "llm-rubric"
        and view.grader(a, test if test is not default else None).source != "default"
    ]
    if configured:
        report(
            REDTEAM_GRADER,
            view.source,
            view.root.key_node("redteam"),
            "This config configures a grader for its llm-rubric assertions but 'redteam' sets no 'provider': "
            "red-team grading may go to promptfoo's remote service and ignore that grader. Set redteam.provider.",
        )


def _ids(listed: Node | None) -> list[Node]:
    """The id scalars of a plugins or strategies list: strings and the ``id`` of objects."""
    found = []
    for item in listed.value if listed is not None and listed.is_seq else []:
        node = item.get("id") if item.is_map else item
        text = text_of(node)
        if node is not None and text is not None and "{{" not in text:
            found.append(node)
    return found


def _check_plugin(ctx, report, view: ConfigView, node: Node) -> None:
    plugin = node.value
    if plugin in PLUGINS or plugin.startswith("file://"):
        return
    fix, hint = None, ""
    ends_like = sorted(p for p in PLUGINS if p.endswith(":" + plugin))
    found = suggest(plugin, PLUGINS, 0.75)
    if plugin in STRATEGIES or plugin in REGISTERED_STRATEGIES:
        hint = f" '{plugin}' is a strategy: list it under 'redteam.strategies'."
    elif ends_like:
        hint = f" Did you mean '{ends_like[0]}'?"
        fix = ctx.rename(node, ends_like[0], f"Use '{ends_like[0]}'", safe=False)
    elif found is not None and found.safe:
        hint = f" Did you mean '{found.name}'?"
        fix = ctx.rename(node, found.name, f"Use '{found.name}'", safe=True)
    report(
        UNKNOWN_PLUGIN,
        view.source,
        node,
        f'{_REFUSES} this config: \'Invalid plugin id "{plugin}". Custom plugins must start with file:// or use a '
        f"built-in plugin.'{hint} See https://www.promptfoo.dev/docs/red-team/plugins for the plugins.",
        fix,
    )


def _check_strategy(ctx, report, view: ConfigView, item: Node) -> None:
    ids = _ids_of(item)
    if ids is None:
        return
    node, config = ids
    message = _strategy_problem(node.value, config)
    if message is None:
        return
    fix = None
    found = suggest(node.value, _RUNNABLE_STRATEGIES, 0.75)
    if node.value not in STRATEGIES and not node.value.startswith("file://"):
        if node.value in PLUGINS:
            message += f" '{node.value}' is a plugin: list it under 'redteam.plugins'."
        elif found is not None and found.safe:
            message += f" Did you mean '{found.name}'?"
            fix = ctx.rename(node, found.name, f"Use '{found.name}'", safe=True)
    report(UNKNOWN_STRATEGY, view.source, node, f"{_REFUSES} this config: {message}", fix)


def _ids_of(item: Node) -> tuple[Node, Node | None] | None:
    """A strategy's id scalar and its ``config`` (None for the string form)."""
    node = item.get("id") if item.is_map else item
    text = text_of(node)
    if node is None or text is None or "{{" in text:
        return None
    return node, item.get("config") if item.is_map else None


def _strategy_problem(strategy: str, config: Node | None) -> str | None:
    """promptfoo's message refusing ``strategy`` with ``config``, or None when it runs it."""
    if strategy == "custom" or strategy.startswith("custom:"):
        text = config.get("strategyText") if config is not None and config.is_map else None
        return None if text_of(text) is not None else "'Custom strategy requires strategyText in config'."
    if strategy.startswith("file://"):
        if strategy.lower().endswith(JAVASCRIPT_EXTENSIONS):
            return None
        return (
            "'Invalid redteam configuration: Invalid input' (a custom strategy must be a file:// path ending in "
            f"{', '.join(JAVASCRIPT_EXTENSIONS)})."
        )
    if strategy not in STRATEGIES:
        return f"'Invalid redteam configuration: Invalid input': '{strategy}' is not one of its strategies."
    if strategy == "multilingual":
        languages = config.get("languages") if config is not None and config.is_map else None
        if languages is not None and languages.is_seq and languages.value:
            return None  # moved to the top-level `language` before generation
        return (
            "'Invalid strategy(s): multilingual' (without config.languages it is not removed before generation). "
            "Set the top-level 'language' instead."
        )
    if strategy in REGISTERED_STRATEGIES or strategy in STRATEGY_COLLECTIONS:
        return None
    hint = " Omit 'strategies' to get the default ones." if strategy == "default" else ""
    return f"'Invalid strategy(s): {strategy}'.{hint}"
