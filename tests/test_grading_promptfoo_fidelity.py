"""promptfoo grading decides as promptfoo does: grader slots, request shape, reply coercion,
thresholds, weights, prompt rendering, provider ids and credential checks.

Judges are reached through litellm's real HTTP client against tests/judge_server.py; pure
helpers (JavaScript's Number(), provider-id mapping, settings) get unit tests.
"""

from __future__ import annotations

import json
import math

import pytest

from rubric_lsp.engine import (
    ERROR_VERDICT,
    GradingError,
    JudgeSettings,
    MissingCredentials,
    grade_text,
)
from rubric_lsp.engine.failures import JudgeFailure
from rubric_lsp.engine.settings import api_key_for, provider_of
from rubric_lsp.formats.promptfoo.grading.assertions import decide, parse_rubric_reply
from rubric_lsp.formats.promptfoo.grading.prompts import (
    UNDEFINED,
    custom_messages,
    js_number,
    js_number_text,
    render,
    try_parse,
)
from rubric_lsp.formats.promptfoo.grading.providers import (
    GraderConfigError,
    promptfoo_to_litellm,
    settings_from_promptfoo,
)
from tests.judge_server import JudgeServer, Reply
from tests.promptfoo_grading import SECRET, settings, verdict

OWN_KEY = "sk-own-grader-KEY-9876543210abcdef"


def config(assertions: str, default_options: str = "    provider: openai:judge\n", vars_: str = "{q: hi}") -> str:
    return f"""\
prompts: ["Answer: {{{{q}}}}"]
providers: [echo]
defaultTest:
  options:
{default_options}tests:
  - vars: {vars_}
    assert:
{assertions}"""


async def grade(server, tmp_path, text, response="Paris.", query=None, **kw):
    return await grade_text(text, "promptfooconfig.yaml", response, query, settings(server, tmp_path, **kw))


# -- 1. --model replaces the defaultTest.options.provider slot whole; a grader's own base wins ------


async def test_cli_model_drops_the_replaced_graders_config(judge_server, tmp_path):
    text = config(
        "      - type: llm-rubric\n        value: is polite\n",
        "    provider:\n      id: ollama:chat:llama3\n      config: {apiBaseUrl: 'http://127.0.0.1:9', temperature: 0.7, max_tokens: 33}\n",
    )
    judge_server.default = verdict(True, 1)
    report = await grade(judge_server, tmp_path, text, model="openai/cli-judge")
    assert report.verdicts[0].verdict == "PASS"
    request = judge_server.completions[0]
    assert request.model == "cli-judge"
    assert request.body["temperature"] == 0 and "max_tokens" not in request.body


async def test_graders_own_api_base_wins_over_the_global_one(judge_server, tmp_path):
    with JudgeServer() as own_server:
        own_server.default = verdict(True, 1)
        judge_server.default = verdict(True, 1)
        text = config(
            f"      - type: llm-rubric\n        value: is polite\n        provider:\n          id: openai:chat:own\n          config: {{apiBaseUrl: '{own_server.base_url}'}}\n"
            "      - type: llm-rubric\n        value: is short\n"
        )
        report = await grade(judge_server, tmp_path, text)
        assert [v.verdict for v in report.verdicts] == ["PASS", "PASS"]
        assert [r.model for r in own_server.completions] == ["own"]
        assert [r.model for r in judge_server.completions] == ["judge"]  # no base of its own: the global one


# -- 2. JSON mode only with promptfoo's default (JSON) grader -----------------------------------


async def test_json_mode_only_with_promptfoos_default_grader(judge_server, tmp_path):
    judge_server.default = verdict(True, 1)
    custom = config(
        "      - type: llm-rubric\n        value: is polite\n",
        "    rubricPrompt: 'Grade {{output}} against {{rubric}}; answer pass or fail.'\n",
    )
    await grade(judge_server, tmp_path, custom)  # no grader named: promptfoo's default, whatever the prompt
    await grade(judge_server, tmp_path, config("      - type: llm-rubric\n        value: is short\n"))  # a named one
    default_request, named_request = judge_server.completions
    assert default_request.response_format == {"type": "json_object"} and default_request.model == "gpt-5.6-sol"
    assert named_request.response_format is None and named_request.model == "judge"


# -- 3-5. reply coercion ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply, expected",
    [
        ('{"pass": "true", "score": 1}', (True, 1.0)),
        ('{"pass": "yes"}', (True, 1.0)),
        ('{"pass": "Y", "score": "0.4"}', (True, 0.4)),
        ('{"pass": "no"}', (False, 0.0)),
        ('{"pass": 1}', (False, 0.0)),  # String(1) is "1": not true|yes|pass|y
        ('{"pass": null, "score": 0.2}', (True, 0.2)),  # null ?? true
        ('{"pass": true, "score": null}', (True, 0.0)),  # Number(null) is 0
        ('{"pass": true, "score": ""}', (True, 0.0)),
        ('{"pass": false, "score": true}', (False, 1.0)),
        ('{"pass": true, "score": [0.3]}', (True, 0.3)),
        ('{"pass": false, "score": "1_0"}', (False, 0.0)),
        ('{"pass": true, "score": "Infinity"}', (True, 1.0)),
        ('{"pass": true, "score": {"v": 1}}', (True, 1.0)),
        ('{"reason": "ok"}', (True, 1.0)),  # no pass, no score: PASS, Number(true)
        ("{}", (True, 1.0)),
    ],
)
def test_pass_and_score_are_coerced_like_promptfoo(reply, expected):
    passed, score, _, _ = parse_rubric_reply(reply)
    assert (passed, score) == (expected[0], pytest.approx(expected[1]))


def test_the_last_object_with_pass_or_score_is_the_verdict_else_the_last_object():
    assert parse_rubric_reply('{"pass": false, "score": 0} then {"note": "done"}')[:2] == (False, 0.0)
    assert parse_rubric_reply('{"a": 1} and {"reason": "fine"}')[2] == "fine"
    with pytest.raises(JudgeFailure):
        parse_rubric_reply("no json object at all")


async def test_coerced_replies_through_the_judge(judge_server, tmp_path):
    judge_server.when("is polite", Reply.json({"pass": "yes", "score": "0.75"}))
    judge_server.when("is short", Reply.json({"reason": "looked fine"}))
    judge_server.when("is kind", Reply.json({"pass": "nope", "score": None}))
    text = config(
        "      - type: llm-rubric\n        value: is polite\n"
        "      - type: llm-rubric\n        value: is short\n"
        "      - type: llm-rubric\n        value: is kind\n"
    )
    report = await grade(judge_server, tmp_path, text)
    assert [(v.verdict, v.score) for v in report.verdicts] == [("PASS", 0.75), ("PASS", 1.0), ("FAIL", 0.0)]
    assert report.verdicts[1].reason == "looked fine"


# -- 4. JavaScript's Number() -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, expected",
    [
        (None, 0.0),
        ("", 0.0),
        ("  \n\t", 0.0),
        (True, 1.0),
        (False, 0.0),
        ([0.3], 0.3),
        ([], 0.0),
        ([1, 2], math.nan),
        ({"a": 1}, math.nan),
        ("0x10", 16.0),
        ("0b11", 3.0),
        ("0o17", 15.0),
        (" 1 ", 1.0),
        ("1_0", math.nan),
        ("Infinity", math.inf),
        ("-Infinity", -math.inf),
        ("inf", math.nan),
        ("nan", math.nan),
        ("1e3", 1000.0),
        (".5", 0.5),
        ("5.", 5.0),
        ("+2", 2.0),
        ("-0x10", math.nan),
        ("1,5", math.nan),
        ([["7"]], 7.0),
        ([None], 0.0),
        (UNDEFINED, math.nan),
        (42, 42.0),
        ("\ufeff3", 3.0),
    ],
)
def test_js_number(value, expected):
    result = js_number(value)
    if math.isnan(expected):
        assert math.isnan(result)
    else:
        assert result == expected


@pytest.mark.parametrize(
    "number, text",
    [
        (1.0, "1"),
        (0.1, "0.1"),
        (1e-7, "1e-7"),
        (0.00001, "0.00001"),
        (1e21, "1e+21"),
        (1e16, "10000000000000000"),
        (-2.5, "-2.5"),
        (123456.789, "123456.789"),
        (math.inf, "Infinity"),
        (1.5e300, "1.5e+300"),
    ],
)
def test_js_number_text(number, text):
    assert js_number_text(number) == text


# -- 6. string thresholds ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field",
    [
        "      - type: llm-rubric\n        value: is polite\n        threshold: '0.8'\n",
        "      - type: llm-rubric\n        value: is polite\n        threshold: true\n",
        "      - type: g-eval\n        value: coherent\n        threshold: '0.9'\n",
        "      - type: llm-rubric\n        value: is polite\n        weight: '2'\n",
    ],
)
async def test_string_or_boolean_threshold_or_string_weight_refuses_the_config(judge_server, tmp_path, field):
    # promptfoo 0.123.1's zod assertion validation refuses the whole config (AssertValidationError);
    # grading it anyway would report verdicts promptfoo never gives.
    judge_server.default = verdict(True, 0.5)
    text = config("      - type: llm-rubric\n        value: is short\n" + field)
    with pytest.raises(GradingError, match=r"Invalid assertion at tests\[0\]\.assert\[1\]"):
        await grade(judge_server, tmp_path, text, query="Say hi")
    assert judge_server.completions == []


async def test_string_threshold_applies_to_max_score(judge_server, tmp_path):
    from rubric_lsp.document import parse_document
    from rubric_lsp.formats.promptfoo.grading.outputs import grade_promptfoo_outputs

    judge_server.default = verdict(True, 0.5)
    text = config(
        "      - type: llm-rubric\n        value: is polite\n      - type: max-score\n        value: {threshold: '0.9'}\n"
    )
    result = await grade_promptfoo_outputs(
        parse_document(text, "promptfooconfig.yaml"), ["one", "two"], None, settings(judge_server, tmp_path)
    )
    selection = result["max_score"][0]
    assert selection["winner"] is None and "0.9" in selection["reason"]


# -- 7. apiHost, per provider -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "provider, cfg, base",
    [
        ("openai:chat:gpt-4o", {"apiHost": "my-proxy.example.com"}, "https://my-proxy.example.com/v1"),
        (
            "openai:chat:gpt-4o",
            {"apiHost": "my-proxy.example.com", "apiBaseUrl": "http://other/v1"},
            "https://my-proxy.example.com/v1",
        ),
        ("openai:chat:gpt-4o", {"apiBaseUrl": "http://other/v1"}, "http://other/v1"),
        ("azure:chat:my-deploy", {"apiHost": "myres.openai.azure.com"}, "https://myres.openai.azure.com"),
        ("azure:chat:my-deploy", {"apiHost": "https://myres.openai.azure.com/"}, "https://myres.openai.azure.com"),
        (
            "azure:chat:my-deploy",
            {"apiHost": "h.example.com", "apiBaseUrl": "https://base.example.com/"},
            "https://base.example.com",
        ),
        ("anthropic:messages:claude-x", {"apiBaseUrl": "http://gw/anthropic"}, "http://gw/anthropic"),
    ],
)
def test_api_host_per_provider(provider, cfg, base):
    assert settings_from_promptfoo(JudgeSettings(env={}), {"id": provider, "config": cfg}).api_base == base


# -- 8. grader config keys --------------------------------------------------------------------------


def test_token_and_temperature_settings():
    def apply(cfg):
        return settings_from_promptfoo(JudgeSettings(env={}), {"id": "openai:gpt-4o", "config": cfg})

    assert apply({"max_completion_tokens": 300}).max_tokens == 300
    assert apply({"max_tokens": 100.0}).max_tokens == 100
    assert apply({"maxTokens": 64}).max_tokens == 64
    with pytest.raises(GraderConfigError, match="temperature"):
        apply({"temperature": True})
    with pytest.raises(GraderConfigError, match="max_tokens"):
        apply({"max_tokens": 10.5})


async def test_grader_config_reaches_the_request(judge_server, tmp_path):
    judge_server.default = verdict(True, 1)
    text = config(
        "      - type: llm-rubric\n        value: is polite\n        provider: {id: 'openai:chat:a', config: {max_completion_tokens: 300}}\n"
        "      - type: llm-rubric\n        value: is short\n        provider: {id: 'openai:chat:b', config: {max_tokens: 100.0}}\n"
        "      - type: llm-rubric\n        value: is kind\n        provider: {id: 'openai:chat:c', config: {temperature: true}}\n"
    )
    report = await grade(judge_server, tmp_path, text)
    by_model = {r.model: r.body for r in judge_server.completions}
    assert by_model["a"]["max_tokens"] == 300 and by_model["b"]["max_tokens"] == 100
    assert "c" not in by_model
    third = report.verdicts[2]
    assert third.verdict == ERROR_VERDICT and "temperature" in third.reason and third.passed is None


async def test_api_key_envar_and_literal_api_key_are_sent_and_never_shown(judge_server, tmp_path):
    def echo_key(request):
        if "is polite" in request.text:  # an error body quoting the key, as some gateways do
            return Reply.error(400, "invalid key " + request.headers.get("authorization", ""))
        return verdict(True, 1)

    judge_server.default = echo_key
    text = config(
        f"      - type: llm-rubric\n        value: is polite\n        provider: {{id: 'openai:chat:lit', config: {{apiKey: '{OWN_KEY}'}}}}\n"
        "      - type: llm-rubric\n        value: is short\n        provider: {id: 'openai:chat:env', config: {apiKeyEnvar: MY_GRADER_KEY}}\n"
    )
    env = {"OPENAI_API_KEY": SECRET, "MY_GRADER_KEY": "sk-from-envar-ABCDEF0123456789"}
    report = await grade(judge_server, tmp_path, text, env=env)
    auth = {r.model: r.headers.get("authorization", "") for r in judge_server.completions}
    assert OWN_KEY in auth["lit"] and "sk-from-envar-ABCDEF0123456789" in auth["env"]
    shown = json.dumps(report.to_json())
    assert report.verdicts[0].verdict == ERROR_VERDICT and OWN_KEY not in shown
    judge_server.assert_never_saw(OWN_KEY)  # never in a request body
    cached = "".join(p.read_text(errors="ignore") for p in (tmp_path / "c").rglob("*") if p.is_file())
    assert OWN_KEY not in cached and "sk-from-envar" not in cached


async def test_two_graders_of_one_model_with_their_own_keys_each_send_their_own(judge_server, tmp_path):
    judge_server.default = verdict(True, 1)
    other = "sk-other-grader-KEY-0123456789abcdef"
    text = config(
        f"      - type: llm-rubric\n        value: is polite\n        provider: {{id: 'openai:chat:same', config: {{apiKey: '{OWN_KEY}'}}}}\n"
        f"      - type: llm-rubric\n        value: is short\n        provider: {{id: 'openai:chat:same', config: {{apiKey: '{other}'}}}}\n"
    )
    report = await grade(judge_server, tmp_path, text)
    auth = {
        ("polite" if "is polite" in r.text else "short"): r.headers.get("authorization", "")
        for r in judge_server.completions
    }
    assert OWN_KEY in auth["polite"] and other in auth["short"]
    assert [v.verdict for v in report.verdicts] == ["PASS", "PASS"]


# -- 9. provider ids --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "provider, model",
    [
        ("bedrock:converse:amazon.nova-pro-v1:0", "bedrock/converse/amazon.nova-pro-v1:0"),
        ("bedrock:anthropic.claude-3-haiku-20240307-v1:0", "bedrock/anthropic.claude-3-haiku-20240307-v1:0"),
        ("ollama:completion:llama3", "ollama/llama3"),
        ("ollama:llama3", "ollama/llama3"),
        ("ollama:llama3.1:8b", "ollama/llama3.1:8b"),
        ("ollama:chat:llama3", "ollama_chat/llama3"),
    ],
)
def test_provider_ids_litellm_accepts(provider, model):
    import os

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    assert promptfoo_to_litellm(provider) == model
    _, custom_provider, _, _ = litellm.get_llm_provider(model)
    assert custom_provider == model.split("/", 1)[0]


# -- 10. weights ------------------------------------------------------------------------------------


async def test_weights_weigh_the_score_and_weight_zero_does_not_count(judge_server, tmp_path):
    judge_server.when("is polite", Reply.server_error(500))
    judge_server.when("is short", verdict(True, 0.5))
    judge_server.when("is kind", verdict(True, 1.0))
    judge_server.when("is loud", verdict(False, 0.0))
    text = config(
        "      - type: llm-rubric\n        value: is polite\n        weight: 0\n"
        "      - type: llm-rubric\n        value: is short\n        weight: 2\n"
        "      - type: llm-rubric\n        value: is kind\n"
        "      - type: llm-rubric\n        value: is loud\n        weight: 0\n"
    )
    report = await grade(judge_server, tmp_path, text)
    assert [v.verdict for v in report.verdicts] == [ERROR_VERDICT, "PASS", "PASS", "FAIL"]
    assert report.verdicts[0].passed is None and report.verdicts[0].error  # shown honestly
    assert report.passed is True
    assert report.score == pytest.approx((0.5 * 2 + 1.0) / 3)
    assert report.to_json()["verdicts"][1]["weight"] == 2


# -- 11. inversion is clamped -----------------------------------------------------------------------


def test_inverted_score_is_clamped():
    assert decide(True, 1.5, None, True) == (False, 0.0)
    assert decide(False, -0.5, None, True) == (True, 1.0)
    assert decide(True, math.nan, None, True) == (False, 1.0)


async def test_not_llm_rubric_with_out_of_range_score(judge_server, tmp_path):
    judge_server.default = verdict(True, 1.7)
    report = await grade(judge_server, tmp_path, config("      - type: not-llm-rubric\n        value: apologizes\n"))
    assert (report.verdicts[0].verdict, report.verdicts[0].score) == ("FAIL", 0.0)


# -- 12. rendering ----------------------------------------------------------------------------------


def test_render_values_like_nunjucks():
    variables = {"topics": ["a", {"k": 1}, None, 2.0], "obj": {"k": 1, "j": [1, 2.0]}, "n": 1.0, "x": None, "b": False}
    assert (
        # Nunjucks prints an object as [object Object] (promptfoo renders a rubric value with the raw vars).
        render("{{ topics }}|{{ obj }}|{{ n }}|{{ x }}|{{ b }}", variables)
        == "a,[object Object],,2|[object Object]|1||false"
    )
    assert render(
        "{{ q | upper }} {{ n | round }} {{ m | round }} {{ obj | dump }}", {**variables, "q": "paris", "m": 2.5}
    ) == ('PARIS 1 3 {"k":1,"j":[1,2]}')
    assert try_parse('"x"') == "x" and try_parse("NaN") == "NaN" and try_parse("{bad") == "{bad"


async def test_grading_prompt_renders_output_and_vars_like_promptfoo(judge_server, tmp_path):
    judge_server.default = verdict(True, 1)
    text = config(
        "      - type: llm-rubric\n        value: 'covers {{topics}} and {{obj}}'\n      - type: llm-rubric\n        value: '{{ nothing }}'\n",
        vars_="{q: hi, topics: [1, b], obj: {k: 1}, n: 1.0}",
    )
    await grade(judge_server, tmp_path, text, response='{"answer":   "Paris", "n": 1.0}')
    texts = [r.text for r in judge_server.completions]
    # A list whose first value is not a string is one value (promptfoo expands only a list of strings: cases.py).
    assert any("covers 1,b and [object Object]" in t for t in texts)
    assert all('<Output>\n{"answer":"Paris","n":1}\n</Output>' in t for t in texts)
    empty = next(t for t in texts if "covers" not in t)
    assert "<Rubric>\n\n</Rubric>" in empty  # an undefined var renders empty (a missing value is refused: PF103)


async def test_json_string_output_renders_its_text(judge_server, tmp_path):
    judge_server.default = verdict(True, 1)
    await grade(
        judge_server, tmp_path, config("      - type: llm-rubric\n        value: is polite\n"), response='"Hello there"'
    )
    assert "<Output>\nHello there\n</Output>" in judge_server.completions[0].text


def test_yaml_message_list_rubric_prompt():
    # promptfoo renders the text first, then its chat provider reads it as a YAML message list.
    prompt = "- role: system\n  content: 'Judge {{rubric}}: say \"json\"'\n- role: user\n  content: |\n    Output: {{output}}\n"
    messages = custom_messages(prompt, {"output": 'He said "hi"', "rubric": "politeness"})
    assert messages == [
        {"role": "system", "content": 'Judge politeness: say "json"'},
        {"role": "user", "content": 'Output: He said "hi"\n'},
    ]
    # An output that breaks the YAML once rendered: promptfoo refuses the prompt; so do we (no guess).
    with pytest.raises(JudgeFailure, match="not a valid YAML"):
        custom_messages(prompt, {"output": 'He said "hi"\nthen: left', "rubric": "politeness"})


async def test_yaml_rubric_prompt_is_sent_as_messages(judge_server, tmp_path):
    judge_server.default = verdict(True, 1)
    text = config(
        "      - type: llm-rubric\n        value: is polite\n",
        "    provider: openai:judge\n    rubricPrompt: |\n      - role: system\n        content: Grade against {{rubric}}\n      - role: user\n        content: 'Output: {{output}}'\n",
    )
    await grade(judge_server, tmp_path, text)
    assert judge_server.completions[0].messages == [
        {"role": "system", "content": "Grade against is polite"},
        {"role": "user", "content": "Output: Paris."},
    ]


# -- 13. credential pre-checks ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "model, provider",
    [
        ("command-r", "cohere"),
        ("mistral-large-latest", "mistral"),
        ("mixtral-8x7b", "mistral"),
        ("codestral-latest", "mistral"),
        ("claude-3-haiku", "anthropic"),
        ("gemini-2.5-pro", "gemini"),
        ("gpt-4o", "openai"),
        ("o3-mini", "openai"),
        ("chatgpt-4o-latest", "openai"),
        ("text-embedding-3-small", "openai"),
        ("llama3", ""),
        ("openai/x", "openai"),
    ],
)
def test_unprefixed_models_map_as_litellm_would(model, provider):
    assert provider_of(model) == provider


def test_credential_prechecks():
    with pytest.raises(MissingCredentials, match="COHERE_API_KEY"):
        api_key_for("command-r", None, {})
    assert api_key_for("llama3", None, {}) is None  # unknown: litellm reports
    assert api_key_for("vertex_ai/gemini-2.5-pro", None, {}) is None  # application-default credentials
    assert api_key_for("bedrock/anthropic.claude-3", None, {}) is None  # IAM roles
    assert api_key_for("gemini-2.5-pro", None, {"GEMINI_API_KEY": "g-123456"}) == "g-123456"


def test_judge_models_are_unique():
    s = JudgeSettings(model="openai/a", models=["openai/b", "openai/a", "openai/b", "openai/c"])
    assert s.judge_models() == ["openai/a", "openai/b", "openai/c"]
