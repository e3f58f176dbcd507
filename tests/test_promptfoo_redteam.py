"""Red-team configs: plugin and strategy ids (PF112, PF113), plugins skipped or crashing for want
of config (PF114, PF115) and targets (PF108), checked against promptfoo 0.123.1 itself.

The id table is generated from the installed package (``redteam_ids_gen``); a test regenerates it
from the package the suite runs against. Every minimal document below is also handed to promptfoo's
own validation (``RedteamConfigSchema`` and ``validateStrategies``, called the way ``redteam
generate`` calls them): promptfoo refuses it exactly when we report an error. ``redteam generate``
itself (run on these documents with ``dist/src/main.js``, offline) printed the messages quoted by
the rules: 'Invalid plugin id "cybercrime". Custom plugins must start with file:// …', 'Invalid
input' at strategies[0] for ``base-64`` and ``file://strat.py``, 'Invalid strategy(s): default' and
'… multilingual', 'Custom strategy requires strategyText in config', and 'You must specify at least
1 provider' for ``targets: []`` and for no targets, 'Validation failed for plugin intent: …, skipping
plugin.' (and for rag-poisoning, indirect-prompt-injection, a bare policy), and 'TypeError: policy.trim
is not a function' for a policy object with the id `no-rates`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rubric_lsp.diagnostics import Severity
from rubric_lsp.fixes import apply_edits
from rubric_lsp.formats.promptfoo import redteam_ids
from rubric_lsp.formats.promptfoo.editor import completion_values
from rubric_lsp.formats.promptfoo.redteam_ids_gen import TARGET, find_chunk, read_ids, render
from tests.conftest import require
from tests.helpers import codes, lines_of
from tests.helpers import lint as _lint

HEAD = "targets: [openai:gpt-4.1-mini]\nredteam:\n  purpose: A support bot for a bank\n"


def lint(text: str):
    return _lint(text, "promptfooconfig.yaml")


def _node() -> str:
    node = shutil.which("node")
    require(node is not None, "Node is not installed")
    assert node is not None
    return node


# -- the generated table ------------------------------------------------------------------------


def test_the_id_table_is_what_the_installed_promptfoo_says(promptfoo_modules):
    _node()
    assert render(read_ids(promptfoo_modules)) == TARGET.read_text(encoding="utf-8"), (
        f"{TARGET.name} is stale: run python -m rubric_lsp.formats.promptfoo.redteam_ids_gen --write NODE_MODULES"
    )


def test_the_table_holds_each_class_of_id():
    plugins = redteam_ids.PLUGINS
    assert {"harmful:hate", "pii:direct", "contracts", "policy", "intent"} <= plugins  # plugins
    assert {"harmful", "pii", "default", "foundation"} <= plugins  # collections
    assert {"owasp:llm", "owasp:llm:01", "nist:ai:measure", "mitre:atlas", "toxicity"} <= plugins  # aliases
    assert not {"cybercrime", "custom", "prompt-injection", "harmful:discrimination"} & plugins
    assert {"basic", "base64", "jailbreak:composite", "custom", "prompt-injection"} <= redteam_ids.STRATEGIES
    assert {"default", "multilingual"} <= redteam_ids.STRATEGIES - redteam_ids.REGISTERED_STRATEGIES
    assert redteam_ids.STRATEGY_COLLECTIONS["other-encodings"]


# -- minimal documents, each checked against promptfoo's validation -----------------------------

# (name, the lines under `redteam:` after purpose, the codes we report with their lines)
CASES = [
    ("plugins of each class", "  plugins: [contracts, 'harmful:hate', pii:direct, policy, intent]", []),
    ("collections", "  plugins: [harmful, pii, default, foundation, medical]", []),
    ("framework aliases", "  plugins: ['owasp:llm', 'nist:ai:measure', 'mitre:atlas', 'owasp:llm:01', toxicity]", []),
    ("plugin objects", "  plugins:\n    - id: 'harmful:hate'\n      numTests: 2\n    - {id: bola, config: {}}", []),
    ("custom plugins", "  plugins: ['file://plugins/mine.yaml', 'file:///abs/p.json']", []),
    ("unknown plugin", "  plugins: [cybercrime]", [("PF112", 4)]),
    ("unknown plugin object", "  plugins:\n    - id: unsafe-practices", [("PF112", 5)]),
    ("a strategy as plugin", "  plugins: [prompt-injection, custom]", [("PF112", 4), ("PF112", 4)]),
    ("unknown harmful plugin", "  plugins: ['harmful:discrimination']", [("PF112", 4)]),
    ("a case-changed plugin", "  plugins: [Harmful]", [("PF112", 4)]),
    ("strategies", "  plugins: [contracts]\n  strategies: [basic, base64, jailbreak:composite, other-encodings]", []),
    (
        "strategy objects",
        "  plugins: [contracts]\n  strategies:\n    - id: jailbreak:meta\n      config: {numTests: 1}\n"
        "    - id: custom:polite\n      config: {strategyText: Ask politely}\n"
        "    - id: multilingual\n      config: {languages: [fr]}",
        [],
    ),
    ("custom strategy files", "  plugins: [contracts]\n  strategies: ['file://s.js', 'file://s.MTS']", []),
    ("unknown strategy", "  plugins: [contracts]\n  strategies: [base-64]", [("PF113", 5)]),
    ("unknown strategy object", "  plugins: [contracts]\n  strategies:\n    - id: rot-13", [("PF113", 6)]),
    ("a plugin as strategy", "  plugins: [contracts]\n  strategies: [harmful]", [("PF113", 5)]),
    ("a python strategy file", "  plugins: [contracts]\n  strategies: ['file://s.py']", [("PF113", 5)]),
    ("the default strategy", "  plugins: [contracts]\n  strategies: [default]", [("PF113", 5)]),
    ("multilingual alone", "  plugins: [contracts]\n  strategies: [multilingual]", [("PF113", 5)]),
    ("custom without text", "  plugins: [contracts]\n  strategies: [custom]", [("PF113", 5)]),
]

# Does what `redteam generate` does with the section (src/redteam/commands/generate.ts and
# src/redteam/index.ts): plugins and strategies as objects, RedteamConfigSchema, strategy
# collections expanded, validateStrategies. Prints, per section, null or promptfoo's message.
_VERDICTS = r"""
const [tablesPath, strategiesPath, input] = process.argv.slice(1);
const tables = require(tablesPath);
const { validateStrategies } = require(strategiesPath);
(async () => {
  const out = [];
  for (const section of JSON.parse(input)) {
    const plugins = (section.plugins || ["default"]).map((p) => (typeof p === "string" ? { id: p } : p));
    const strategies = (section.strategies || ["basic"]).map((s) => (typeof s === "string" ? { id: s } : s));
    const parsed = tables.RedteamConfigSchema.safeParse({ plugins, strategies });
    if (!parsed.success) { out.push(parsed.error.issues.map((i) => i.message).join("; ")); continue; }
    const expanded = parsed.data.strategies.flatMap((s) =>
      (tables.STRATEGY_COLLECTION_MAPPINGS[s.id] || [s.id]).map((id) => ({ ...s, id })));
    try { await validateStrategies(expanded); out.push(null); } catch (e) { out.push(e.message); }
  }
  console.log(JSON.stringify(out));
})();
"""


def _promptfoo_verdicts(node_modules: Path, sections: list[dict]) -> list[str | None]:
    dist = node_modules / "promptfoo" / "dist" / "src"
    tables = find_chunk(dist, "const RedteamConfigSchema = ").resolve()
    strategies = find_chunk(dist, "async function validateStrategies(").resolve()
    done = subprocess.run(
        [_node(), "-e", _VERDICTS, str(tables), str(strategies), json.dumps(sections)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(("name", "section", "expected"), CASES, ids=[c[0] for c in CASES])
def test_plugin_and_strategy_ids(name, section, expected):
    result = lint(HEAD + section + "\n")
    found = [(d.code, d.range.start.line + 1) for d in result.diagnostics if d.code in ("PF112", "PF113")]
    assert found == expected, [d.message for d in result.diagnostics]
    assert all(d.severity is Severity.ERROR for d in result.diagnostics if d.code in ("PF112", "PF113"))


def test_promptfoo_refuses_exactly_the_documents_we_report(promptfoo_modules):
    import yaml

    sections = [yaml.safe_load(HEAD + section)["redteam"] for _, section, _ in CASES]
    verdicts = _promptfoo_verdicts(promptfoo_modules, sections)
    for (name, _, expected), verdict in zip(CASES, verdicts):
        assert (verdict is not None) == bool(expected), f"{name}: promptfoo says {verdict!r}"


def test_messages_quote_promptfoo_and_suggest_the_nearest_id():
    def message(section: str) -> str:
        return next(d.message for d in lint(HEAD + section + "\n").diagnostics if d.code in ("PF112", "PF113"))

    assert 'Invalid plugin id "cybercrime". Custom plugins must start with file://' in message(
        "  plugins: [cybercrime]"
    )
    assert "Did you mean 'harmful:cybercrime'?" in message("  plugins: [cybercrime]")
    assert "'prompt-injection' is a strategy" in message("  plugins: [prompt-injection]")
    assert "Did you mean" not in message("  plugins: ['harmful:discrimination']")  # no look-alike guess
    assert "Did you mean 'rot13'?" in message("  plugins: [contracts]\n  strategies: [rot-13]")
    assert "'Invalid strategy(s): default'" in message("  plugins: [contracts]\n  strategies: [default]")
    assert "strategyText" in message("  plugins: [contracts]\n  strategies: [custom]")
    assert "'harmful' is a plugin" in message("  plugins: [contracts]\n  strategies: [harmful]")


def test_fixes_rename_typos_safely_and_last_parts_unsafely():
    typo = lint(HEAD + "  plugins: ['harmfull:hate', competitor]\n  strategies: [base-64]\n")
    fixes = [d.fix for d in typo.diagnostics if d.code in ("PF112", "PF113")]
    assert all(f is not None and f.safe for f in fixes)
    text = typo.document.text
    for fix in reversed(fixes):
        text = apply_edits(text, fix.edits)  # type: ignore[union-attr]
    assert "plugins: ['harmful:hate', competitors]" in text and "strategies: [base64]" in text
    assert codes(lint(text)) == []
    last_part = next(d for d in lint(HEAD + "  plugins: [cybercrime]\n").diagnostics if d.code == "PF112")
    assert last_part.fix is not None and not last_part.fix.safe
    assert "PF112" not in codes(lint(apply_edits(HEAD + "  plugins: [cybercrime]\n", last_part.fix.edits)))


def test_top_level_plugins_and_strategies_are_red_team_lists():
    """promptfoo's loader moves them into `redteam` (`redteam generate` then refuses 'cybercrime')."""
    result = lint("targets: [echo]\nplugins: [cybercrime, contracts]\nstrategies: [base-64, basic]\n")
    assert [(d.code, d.range.start.line + 1) for d in result.diagnostics] == [("PF112", 2), ("PF113", 3)]
    assert codes(lint("targets: [echo]\nplugins: [contracts]\nstrategies: [basic]\n")) == []  # no PF001, no PF108


def test_ids_rendered_from_the_environment_are_left_alone():
    assert codes(lint(HEAD + "  plugins: ['{{ env.PLUGIN }}']\n  strategies: ['{{ env.S }}']\n")) == []


# -- plugins skipped for want of config (PF114) and the policy crash (PF115) ----------------------

PLUGIN_CONFIGS = [
    ("policy", None, "PF114"),
    ("policy", {"policy": ""}, "PF114"),
    ("policy", {"policy": "Never quote interest rates"}, None),
    ("policy", {"policy": {"id": "0123456789ab", "text": "No rates"}}, None),
    ("policy", {"policy": {"id": "0b6a4a3e-54d3-4c6e-9f38-2f4d1c1b2a3d", "text": "No rates"}}, None),
    ("policy", {"policy": {"id": "no-rates", "text": "No rates"}}, "PF115"),
    ("policy", {"severity": "high"}, "PF115"),
    ("intent", None, "PF114"),
    ("intent", {"intent": ""}, "PF114"),
    ("intent", {"intent": ["How do I open an account?"]}, None),
    ("indirect-prompt-injection", {}, "PF114"),
    ("indirect-prompt-injection", {"indirectInjectionVar": "context"}, None),
    ("rag-poisoning", {"intendedResults": []}, "PF114"),
    ("rag-poisoning", {"intendedResults": ["The bot leaks a rate"]}, None),
]

# Each registered plugin's validate function, called as synthesize calls it ({language, ...config,
# modifiers}); prints, per case, whether it accepts the config.
_VALIDATES = r"""
const [indexPath, input] = process.argv.slice(1);
const { Plugins } = require(indexPath).redteam;
console.log(JSON.stringify(JSON.parse(input).map(([id, config]) => {
  try { Plugins.find((p) => p.key === id).validate({ language: undefined, ...(config || {}), modifiers: {} }); return true; }
  catch (e) { return false; }
})));
"""


def _plugin_doc(plugin: str, config: dict | None) -> str:
    item = f"    - id: {plugin}\n" + (f"      config: {json.dumps(config)}\n" if config is not None else "")
    return HEAD + "  plugins:\n" + item


@pytest.mark.parametrize(("plugin", "config", "code"), PLUGIN_CONFIGS)
def test_plugins_missing_their_config(plugin, config, code):
    result = lint(_plugin_doc(plugin, config))
    found = [d for d in result.diagnostics if d.code in ("PF114", "PF115")]
    assert [d.code for d in found] == ([code] if code else [])
    assert all(d.severity is (Severity.ERROR if d.code == "PF115" else Severity.WARNING) for d in found)


def test_the_config_checks_are_promptfoos(promptfoo_modules):
    from rubric_lsp.formats.promptfoo.rules.redteam_configs import NEEDS

    assert set(NEEDS) == redteam_ids.VALIDATED_PLUGINS  # a new validator in promptfoo needs a condition here
    index = (promptfoo_modules / "promptfoo" / "dist" / "src" / "index.cjs").resolve()
    cases = [[plugin, config] for plugin, config, _ in PLUGIN_CONFIGS]
    done = subprocess.run(
        [_node(), "-e", _VALIDATES, str(index), json.dumps(cases)], capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr
    accepted = json.loads(done.stdout.strip().splitlines()[-1])
    for (plugin, config, code), accepts in zip(PLUGIN_CONFIGS, accepted):
        assert accepts == (code is None), (plugin, config)  # PF115's configs fail validation too


# -- targets ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("targets: []\nredteam:\n  plugins: [contracts]\n", [1]),
        ("redteam:\n  plugins: [contracts]\n", [1]),
        ("target: [openai:gpt-4.1-mini]\nredteam:\n  plugins: [contracts]\n", [1]),  # misspelt: ignored
        ("providers: [openai:gpt-4.1-mini]\nredteam:\n  plugins: [contracts]\n", []),
        ("targets: [openai:gpt-4.1-mini]\nprompts: []\nredteam:\n  plugins: [contracts]\n", [2]),
        ("targets: [openai:gpt-4.1-mini]\npromts: [x]\nredteam:\n  plugins: [contracts]\n", []),  # default prompt
    ],
)
def test_a_redteam_config_needs_a_target_not_prompts(text, expected):
    result = lint(text)
    assert lines_of(result, "PF108") == expected
    for d in result.diagnostics:
        if d.code == "PF108":
            assert "`promptfoo redteam generate`" in d.message


def test_unknown_targets_are_reported_in_redteam_configs_too():
    assert lines_of(lint("targets: [nonexistent:foo]\nredteam:\n  plugins: [contracts]\n"), "PF110") == [1]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("targets: []\nredteam:\n  plugins: [contracts]\n", True),
        ("redteam:\n  plugins: [contracts]\n", True),
        ("targets: [echo]\nprompts: []\nredteam:\n  plugins: [contracts]\n", True),
        (HEAD.replace("redteam:", "prompts: [x]\nredteam:") + "  plugins:\n    - {id: policy, config: {}}\n", True),
    ],
)
def test_what_redteam_generate_itself_refuses(promptfoo_modules, tmp_path, text, refused):
    """Runs promptfoo's CLI (offline: it stops before generating anything) on the document."""
    (tmp_path / "home").mkdir()
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(text, encoding="utf-8")
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_DISABLE_REMOTE_GENERATION": "true",
        "PROMPTFOO_DISABLE_SHARING": "1",
        "CI": "1",
    }
    main = promptfoo_modules / "promptfoo" / "dist" / "src" / "main.js"
    done = subprocess.run(
        [_node(), str(main), "redteam", "generate", "-c", str(config), "-o", str(tmp_path / "out.yaml")],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
        env=env,
    )
    said = done.stdout + done.stderr
    if "policy" in text:  # PF115
        assert "TypeError: Cannot read properties of undefined (reading 'trim')" in said, said[-2000:]
        assert "PF115" in codes(lint(text))
        return
    needs = "You must specify at least 1 provider" if "prompts" not in text else "You must provide at least 1 prompt"
    assert (needs in said) == refused, said[-2000:]
    assert ("PF108" in codes(lint(text))) == refused


# -- the editor ---------------------------------------------------------------------------------


def test_completion_offers_plugin_and_strategy_ids():
    plugins = completion_values(["redteam", "plugins", 0, "id"], "id")
    strategies = completion_values(["redteam", "strategies", 1, "id"], "id")
    assert "harmful:hate" in plugins and "owasp:llm" in plugins
    assert "base64" in strategies and "default" not in strategies and "harmful" not in strategies
    assert completion_values(["tests", 0, "assert", 0, "id"], "id") == []
