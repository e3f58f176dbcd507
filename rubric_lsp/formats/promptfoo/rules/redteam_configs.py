"""Red-team plugins ``redteam generate`` skips because their config lacks what they need (PF114),
and a policy config it cannot even print (PF115).

promptfoo 0.123.1 registers a ``validate`` function for a few plugins (src/redteam/plugins/index.ts);
when it fails, generation logs 'Validation failed for plugin <id>: …, skipping plugin.' and goes on
without it. The conditions below are those functions'; which plugins have one is read from the
package (``redteam_ids.VALIDATED_PLUGINS``), and a test fails when the two sets differ.

Before validating, generation prints each plugin's config summary (src/redteam/index.ts,
synthesize): for a `policy` plugin with a `config` whose `policy` is neither a string nor a valid
policy object it calls ``policy.trim()`` and stops with a TypeError.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from rubric_lsp.document import Node
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.promptfoo.redteam_ids import PROMPTFOO_VERSION
from rubric_lsp.formats.promptfoo.resolve import ConfigView
from rubric_lsp.formats.promptfoo.rules.common import E, F, W
from rubric_lsp.rules.registry import rule

PLUGIN_SKIPPED = rule(
    "PF114",
    "redteam-plugin-skipped",
    W,
    f"A red-team plugin without the config it needs: promptfoo {PROMPTFOO_VERSION}'s `redteam generate` skips it.",
    "`policy` needs `config.policy` (the policy text, or `{id, text}` with a UUID or 12-hex-digit id), `intent` "
    "`config.intent`, `indirect-prompt-injection` `config.indirectInjectionVar` and `rag-poisoning` a non-empty "
    "`config.intendedResults`. Without it promptfoo logs 'Validation failed for plugin …, skipping plugin.' and "
    "generates the scan without that plugin, so the risk it names is never tested.",
    bad="targets: [openai:gpt-4.1-mini]\nredteam:\n  purpose: A support bot for a bank\n  plugins: [policy]",
    good="targets: [openai:gpt-4.1-mini]\nredteam:\n  purpose: A support bot for a bank\n  plugins:\n"
    "    - id: policy\n      config:\n        policy: Never quote interest rates",
    formats=F,
    checked_against=f"promptfoo {PROMPTFOO_VERSION}'s red-team plugin validators (src/redteam/plugins), run on each case",
)

POLICY_CRASH = rule(
    "PF115",
    "redteam-policy-crash",
    E,
    f"A `policy` plugin whose `config.policy` is neither text nor a valid policy object: promptfoo "
    f"{PROMPTFOO_VERSION}'s `redteam generate` stops.",
    "When it lists the plugins it will use, `redteam generate` prints a policy's text: a `config` without "
    "`policy` stops it with 'TypeError: Cannot read properties of undefined (reading 'trim')', and a policy object "
    "whose `id` is not a UUID or 12 hex digits (a name such as `no-rates`) with 'TypeError: policy.trim is not a "
    "function'. Write the policy as text (`policy: Never quote rates`) or give it a valid id.",
    bad="targets: [openai:gpt-4.1-mini]\nredteam:\n  purpose: A support bot for a bank\n  plugins:\n"
    "    - id: policy\n      config:\n        policy: {id: no-rates, text: Never quote interest rates}",
    good="targets: [openai:gpt-4.1-mini]\nredteam:\n  purpose: A support bot for a bank\n  plugins:\n"
    "    - id: policy\n      config:\n        policy: Never quote interest rates",
    formats=F,
    checked_against=f"promptfoo {PROMPTFOO_VERSION}'s `redteam generate`, run on each case",
)

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", re.IGNORECASE)
_INLINE_ID = re.compile(r"[0-9a-f]{12}", re.IGNORECASE)


def _truthy(value: Any) -> bool:
    """JavaScript's truthiness (an empty list or mapping is true)."""
    return value not in (None, False, 0, "") if not isinstance(value, (list, dict)) else True


def _policy_object(policy: Any) -> bool:
    """promptfoo's isValidPolicyObject: PolicyObjectSchema's {id, text?, name?}."""
    if not isinstance(policy, dict) or not isinstance(policy.get("id"), str):
        return False
    if not (_UUID.fullmatch(policy["id"]) or _INLINE_ID.fullmatch(policy["id"])):
        return False
    return all(policy.get(k) is None or isinstance(policy[k], str) for k in ("text", "name"))


# plugin id -> (does its validate function accept this config, what it needs)
NEEDS: dict[str, tuple[Callable[[dict], bool], str]] = {
    "intent": (lambda c: _truthy(c.get("intent")), "config.intent"),
    "policy": (
        lambda c: _truthy(c.get("policy")) and (isinstance(c["policy"], str) or _policy_object(c["policy"])),
        "config.policy (the policy text, or {id, text} with a UUID or 12-hex-digit id)",
    ),
    "indirect-prompt-injection": (lambda c: _truthy(c.get("indirectInjectionVar")), "config.indirectInjectionVar"),
    "rag-poisoning": (
        lambda c: isinstance(c.get("intendedResults"), list) and bool(c["intendedResults"]),
        "a non-empty config.intendedResults",
    ),
}


def check_plugin_config(ctx, report, view: ConfigView, item: Node) -> None:
    id_node = item.get("id") if item.is_map else item
    plugin = id_node.value if id_node is not None and id_node.is_scalar else None
    if id_node is None or not isinstance(plugin, str) or plugin not in NEEDS:
        return
    config = to_plain(item.get("config")) if item.is_map and item.get("config") is not None else None
    if config is not None and "{{" in str(config):
        return  # rendered from the environment when promptfoo loads the config
    accepts, needs = NEEDS[plugin]
    if isinstance(config, dict) and accepts(config):
        return
    if plugin == "policy" and isinstance(config, dict) and not isinstance(config.get("policy"), str):
        _report_policy_crash(ctx, report, view, item, config)
    elif ctx.enabled(PLUGIN_SKIPPED):
        report(
            PLUGIN_SKIPPED,
            view.source,
            id_node,
            f"promptfoo {PROMPTFOO_VERSION}'s `redteam generate` skips this plugin ('Validation failed for plugin "
            f"{plugin}: …, skipping plugin.'): it needs {needs}. The scan runs without it.",
        )


def _report_policy_crash(ctx, report, view: ConfigView, item: Node, config: dict) -> None:
    """A config whose policy is neither a string nor a policy object: the summary's policy.trim() throws."""
    if not ctx.enabled(POLICY_CRASH):
        return
    policy = config.get("policy")
    said = "Cannot read properties of undefined (reading 'trim')" if policy is None else "policy.trim is not a function"
    config_node = item.get("config")
    where = config_node.get("policy") if config_node is not None and config_node.is_map else None
    report(
        POLICY_CRASH,
        view.source,
        where if where is not None else item.key_node("config") or item,
        f"promptfoo {PROMPTFOO_VERSION}'s `redteam generate` stops here with 'TypeError: {said}': a policy must be "
        "its text or {id, text} with a UUID or 12-hex-digit id. Write the policy text.",
    )
