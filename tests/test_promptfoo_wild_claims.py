"""Claims as strong as promptfoo 0.123.1's behaviour, on the shapes real users write (issue 24, items 2-5).

- PF108 only where `promptfoo eval` refuses: an empty `prompts` list, or no providers in a config
  with assertions. No `prompts` key runs the default prompt '{{prompt}}' (readConfig); a config with
  neither providers nor assertions is what `promptfoo generate dataset/assertions` read.
- a misspelt `prompts` key is an error (PF121, issue 34: the prompts written are never sent) saying what
  promptfoo runs instead; its rename is safe only when the config is certainly broken as written.
- PF002/PF003 only on a scoring instruction, not on a count in prose.
- PF001 leaves alone top-level blocks kept for YAML anchors, and the keys settings' `extra-keys` name.

Each document is written for this file; the owner's code each claim rests on is pinned at the end.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from textwrap import dedent

import pytest

from rubric_lsp.lint import lint_text
from rubric_lsp.server.settings import ServerSettings
from rubric_lsp.settings import Settings, SettingsError, settings_from_mapping
from tests.conftest import require

PROVIDER = "providers: [openai:gpt-4.1-mini]\n"
ASSERTING = "tests:\n  - vars: {city: Oslo}\n    assert:\n      - type: icontains\n        value: oslo\n"


def lint(text: str, settings: Settings | None = None, path: str = "promptfooconfig.yaml"):
    return lint_text(dedent(text).lstrip("\n"), path, settings=settings)


def found(text: str, code: str, settings: Settings | None = None) -> list:
    return [d for d in lint(text, settings).diagnostics if d.code == code]


# -- PF108: no prompts key, generation configs ------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # no `prompts`: promptfoo runs '{{prompt}}' and the tests give the prompt
        PROVIDER + "tests:\n  - vars: {prompt: Name a fjord}\n",
        # an HTTP target builds its own request from vars; promptfoo only warns
        "providers:\n  - id: https\n    config: {url: 'http://localhost/x', body: {q: '{{q}}'}}\n"
        "tests:\n  - vars: {q: hi}\n    assert:\n      - type: contains\n        value: hi\n",
        # `prompts: null` is falsy too: the default prompt
        "prompts:\n" + PROVIDER + "tests:\n  - vars: {prompt: hi}\n",
    ],
)
def test_a_config_without_prompts_is_not_refused(text):
    assert [d for d in lint(text).diagnostics if d.severity.label == "error"] == []
    assert found(text, "PF108") == []


@pytest.mark.parametrize(
    "text",
    [
        "prompts: ['Describe {{city}}']\n",  # what `promptfoo generate dataset` reads
        "prompts: ['Describe {{city}}']\ntests:\n  - vars: {city: Oslo}\n",
    ],
)
def test_a_config_for_generation_needs_no_provider(text):
    assert found(text, "PF108") == []


def test_no_providers_with_assertions_is_refused_and_says_so():
    (diagnostic,) = found("prompts: ['Describe {{city}}']\n" + ASSERTING, "PF108")
    assert diagnostic.severity.label == "error"
    assert "You must specify at least 1 provider" in diagnostic.message and "--providers" in diagnostic.message


def test_an_empty_prompts_list_is_refused():
    (diagnostic,) = found("prompts: []\n" + PROVIDER, "PF108")
    assert "You must provide at least 1 prompt" in diagnostic.message
    assert "default prompt" in diagnostic.message  # and says how that differs from no key at all


# -- a misspelt prompts key: PF121, what promptfoo runs instead, fix safety -----------------------


def test_a_misspelt_prompts_key_says_promptfoo_runs_the_default_prompt():
    text = "prompt: Describe {{city}}\n" + PROVIDER
    result = lint(text)
    assert [d.code for d in result.diagnostics] == ["PF121"]  # not also PF001
    (diagnostic,) = result.diagnostics
    assert diagnostic.severity.label == "error"
    assert "default prompt '{{prompt}}'" in diagnostic.message and "refuse" not in diagnostic.message
    assert "prompt it sends is empty" in diagnostic.message
    assert diagnostic.fix is not None and diagnostic.fix.safe  # broken as written: nothing gives `prompt`


@pytest.mark.parametrize(
    "tests",
    [
        "tests:\n  - vars: {prompt: Describe Oslo}\n",  # the default prompt has a value: it runs
        "tests: file://cases.csv\n",  # the cases may give `prompt`: cannot tell
    ],
)
def test_renaming_a_misspelt_prompts_key_is_unsafe_when_the_config_may_work(tests):
    (diagnostic,) = found("promts: ['Describe {{city}}']\n" + PROVIDER + tests, "PF121")
    assert diagnostic.severity.label == "error"  # the prompts written are never sent either way
    assert "prompt it sends is empty" not in diagnostic.message
    assert diagnostic.fix is not None and not diagnostic.fix.safe


# -- PF002 / PF003: a scoring instruction, not a number ----------------------------------------------


def rubric(value: str, threshold: str = "") -> str:
    extra = f"\n        threshold: {threshold}" if threshold else ""
    return (
        "prompts: ['Answer {{q}}']\n" + PROVIDER + "tests:\n  - vars: {q: hi}\n    assert:\n"
        f"      - type: llm-rubric\n        value: {json.dumps(value)}{extra}\n"
    )


@pytest.mark.parametrize(
    "value",
    [
        "Answers in 1-5 words max",
        "Lists 3-5 concrete steps, each with an owner",
        "Says the backlog should drain and return to 0 after the fix",
        "Mentions that the product has a score of 87.5 in the survey",
        "Gives 1 example of a refund",
    ],
)
def test_a_count_in_prose_is_not_a_score(value):
    assert found(rubric(value), "PF002") == []
    assert found(rubric(value, "0.8"), "PF003") == []


@pytest.mark.parametrize(
    "value, quoted",
    [
        ("Rate how polite the reply is on a scale of 1-10", "Rate how polite the reply is on a scale of 1-10"),
        ("Return 1 if the reply is polite, otherwise 0.", "Return 1"),
        ("Score 0.7+ if it names the fee", "Score 0.7+"),
        ("Give a score between 0 and 1 for politeness", "score between 0 and 1"),
    ],
)
def test_a_scoring_instruction_without_threshold_says_what_promptfoo_does(value, quoted):
    (diagnostic,) = found(rubric(value), "PF002")
    assert f"'{quoted}'" in diagnostic.message
    # runJsonGradingPrompt: pass = parsed.pass ?? true; the score counts only with a threshold
    assert "the judge's `pass` alone" in diagnostic.message and "leaves it out" in diagnostic.message
    assert "always passes" not in diagnostic.message


def test_a_wide_scale_with_a_fraction_threshold_still_trips_pf003():
    assert len(found(rubric("Rate the tone from 1 to 10", "0.8"), "PF003")) == 1
    assert found(rubric("Rate the tone from 0 to 1", "0.8"), "PF003") == []
    assert found(rubric("Write 1-5 sentences", "0.8"), "PF003") == []


# -- PF001: anchor blocks, extra-keys -----------------------------------------------------------------

SHARED_BLOCKS = """
prompts: ['Describe {{city}}']
providers: [openai:gpt-4.1-mini]
x-common: &checks
  - type: icontains
    value: fjord
$defs:
  polite: &polite {type: llm-rubric, value: Is polite}
city_defaults: &city
  city: Oslo
tests:
  - vars: *city
    assert: *checks
  - vars: {<<: *city, country: Norway}
    assert: [*polite]
"""


def test_top_level_blocks_kept_for_anchors_are_not_unknown_keys():
    assert found(SHARED_BLOCKS, "PF001") == []


def test_a_top_level_key_nobody_aliases_is_still_reported():
    text = SHARED_BLOCKS.replace("x-common: &checks", "x-notes: {owner: me}\nx-common: &checks")
    assert [d.message.split(":")[0] for d in found(text, "PF001")] == ["Unknown top-level key 'x-notes'"]


def test_a_top_level_key_that_only_uses_an_alias_is_still_reported():
    # promptfoo ignores a top-level `vars`: the alias there is lost, not shared
    text = SHARED_BLOCKS + "vars: *city\n"
    assert [d.message.split(":")[0] for d in found(text, "PF001")] == ["Unknown top-level key 'vars'"]


TAGGED = """
prompts: ['Describe {{city}}']
providers: [openai:gpt-4.1-mini]
tests:
  - vars: {city: Oslo}
    tags: [smoke]
    assert:
      - type: icontains
        value: oslo
"""


def test_a_test_key_for_own_scripts_points_at_metadata_and_the_setting():
    (diagnostic,) = found(TAGGED, "PF001")
    assert diagnostic.severity.label == "warning"
    assert "'metadata:'" in diagnostic.message and 'extra-keys = {test = ["tags"]}' in diagnostic.message


def test_a_test_name_points_at_description_with_an_unsafe_rename():
    (diagnostic,) = found(TAGGED.replace("tags: [smoke]", "name: smoke"), "PF001")
    assert "'description'" in diagnostic.message and "metadata" not in diagnostic.message
    assert diagnostic.fix is not None and not diagnostic.fix.safe


def test_extra_keys_in_the_settings_silence_it():
    settings = settings_from_mapping({"extra-keys": {"test": ["tags"]}})
    assert found(TAGGED, "PF001", settings) == []
    # other places are still checked, and each place has its own list
    assert found(TAGGED.replace("tests:", "tags2: 1\ntests:"), "PF001", settings) != []
    top = settings_from_mapping({"extra-keys": {"top-level": ["owner"]}})
    assert len(found(TAGGED.replace("tests:", "owner: qa\ntests:"), "PF001", top)) == 1  # only `tags`


def test_the_server_reads_extra_keys_from_the_settings_file(tmp_path: Path):
    (tmp_path / "rubric-lint.toml").write_text('extra-keys = {test = ["tags"]}\n')
    config = tmp_path / "promptfooconfig.yaml"
    settings = ServerSettings().merged({"lint": {"ignore": ["PF021"]}}).lint_settings(str(config))
    assert settings.extra_keys == (("test", ("tags",)),)
    assert [d for d in lint_text(dedent(TAGGED), str(config), settings=settings).diagnostics if d.code == "PF001"] == []


def test_a_test_holding_only_ignored_keys_is_refused():
    # readTest: an inline test needs assert, vars, options, metadata, provider, providerOutput or a
    # numeric threshold; `tags` does not count
    text = "prompts: ['Describe {{city}}']\n" + PROVIDER + "tests:\n  - description: smoke\n    tags: [a]\n"
    (diagnostic,) = found(text, "PF107")
    assert "promptfoo refuses this test: 'Test case must contain one of" in diagnostic.message
    assert "'tags' does not count" in diagnostic.message
    for content in ("vars: {}", "threshold: 0.5", "metadata: {tags: [a]}"):
        assert found(text.replace("tags: [a]", content), "PF107") == []


@pytest.mark.parametrize(
    "value, problem",
    [({"tests": ["tags"]}, "not a place PF001 checks"), ({"test": "tags"}, "must be a table of place")],
)
def test_extra_keys_are_validated(value, problem):
    with pytest.raises(SettingsError, match=problem):
        settings_from_mapping({"extra-keys": value})


# -- the owner's code these claims rest on -------------------------------------------------------


def _promptfoo_source(modules: Path) -> str:
    return (modules / "promptfoo" / "dist" / "src" / "index.js").read_text(encoding="utf-8")


def test_promptfoo_defaults_a_missing_prompts_key_and_spares_generation_configs(promptfoo_modules):
    source = _promptfoo_source(promptfoo_modules)
    # readConfig (src/util/config/load.ts): a falsy `prompts` becomes the default prompt
    assert "if (!ret.prompts) {" in source and 'ret.prompts = ["{{prompt}}"];' in source
    # `targets` replaces `providers` whenever it is truthy
    assert "if (ret.targets) {" in source and "ret.providers = ret.targets;" in source
    # resolveConfigs: the refusals, and the two commands that need no provider
    assert 'if (!hasPrompts) failConfigResolution("You must provide at least 1 prompt");' in source
    assert 'type !== "DatasetGeneration" && type !== "AssertionGeneration" && !hasProviders' in source


def test_promptfoo_passes_an_llm_rubric_on_the_judges_pass_unless_a_threshold_is_set(promptfoo_modules):
    source = _promptfoo_source(promptfoo_modules)
    assert "let pass = parsed.pass ?? true;" in source  # runJsonGradingPrompt
    assert 'if (typeof threshold === "number" && Number.isFinite(threshold)) pass = pass && score >= threshold;' in (
        source
    )
    assert "{reason: string, pass: boolean, score: number}" in source  # DEFAULT_GRADING_PROMPT asks for pass


def test_promptfoo_refuses_a_test_without_content(promptfoo_modules):
    source = _promptfoo_source(promptfoo_modules)
    assert (
        "if (!isDefaultTest && !testCase.assert && !testCase.vars && !testCase.options && !testCase.metadata && "
        '!testCase.provider && !testCase.providerOutput && typeof testCase.threshold !== "number") throw' in source
    )


def test_promptfoo_drops_unknown_top_level_and_test_keys_silently(promptfoo_modules, tmp_path):
    require(subprocess.run(["node", "--version"], capture_output=True).returncode == 0, "node is not installed")
    script = tmp_path / "keys.mjs"
    script.write_text(
        f"const m = await import({json.dumps(str(promptfoo_modules / 'promptfoo/dist/src/index.js'))});\n"
        "const r = m.UnifiedConfigSchema.safeParse({prompts: ['x'], providers: ['echo'], 'x-common': {a: 1},\n"
        "  tests: [{vars: {a: 1}, tags: ['smoke']}]});\n"
        "console.log(JSON.stringify({ok: r.success, keys: Object.keys(r.data).sort(), test: r.data.tests[0]}));\n"
        "process.exit(0);\n"
    )
    run = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=120)
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result == {"ok": True, "keys": ["prompts", "providers", "tests"], "test": {"vars": {"a": 1}}}


# -- the shared corpus of real users' configs (labels.json) ---------------------------------------

MY_CLASSES = ("PF001", "PF002", "PF003", "PF108", "PF121")
# Findings whose code changed with the claim (issues 24, 34): the label names the old code.
RELABELLED = {
    # `prompt:` misspelt: a true finding, but promptfoo runs the default prompt rather than refusing,
    # and the prompt written is never sent (an error since issue 34)
    ("phillipou__blossomer_gtm_app/eval/target_account.yaml", 1, "PF108"): "PF121",
    ("phillipou__blossomer_gtm_app/eval/target_account.yaml", 1, "PF001"): "PF121",
}


def test_real_configs_keep_their_true_findings_and_lose_the_false_ones(corpus):
    wild = corpus / "wild"
    data = json.loads((wild / "labels.json").read_text(encoding="utf-8"))
    labels = {(x["file"], x["line"], x["code"]): x["class"] for x in data["labels"] if x["code"] in MY_CLASSES}
    reported = set()
    for entry in data["configs"]:
        path = wild / entry["tree_file"]
        result = lint_text(path.read_text(encoding="utf-8"), str(path))
        relative = entry["tree_file"].removeprefix("trees/")
        reported |= {
            (relative, d.range.start.line + 1, d.code)
            for d in result.diagnostics
            if d.code in MY_CLASSES and d.severity.label in ("error", "warning")
        }
    expected_true = {
        (f, line, RELABELLED.get((f, line, code), code)) for (f, line, code), c in labels.items() if c == "TRUE"
    }
    assert sorted(expected_true - reported) == [], "true findings no longer reported"
    false = {key for key, c in labels.items() if c == "FALSE"}
    assert sorted(reported & false) == [], "false alarms"
    assert sorted(reported - expected_true - set(labels)) == [], "new findings: label them"
