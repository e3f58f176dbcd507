"""Judge resolution: promptfoo provider ids (the format's ``model_ids``), default graders by credential, missing keys."""

from __future__ import annotations

import pytest

from rubric_lsp.engine.runner import model_spellings, with_model_spellings
from rubric_lsp.engine.settings import JudgeSettings, MissingCredentials, api_key_for, default_model
from rubric_lsp.formats.promptfoo.grading.providers import promptfoo_to_litellm, settings_from_promptfoo


@pytest.mark.parametrize(
    "provider, model",
    [
        ("openai:gpt-5-mini", "openai/gpt-5-mini"),
        ("openai:chat:gpt-4o-mini", "openai/gpt-4o-mini"),
        ("openai:responses:gpt-5", "openai/gpt-5"),
        ("anthropic:messages:claude-sonnet-4-5", "anthropic/claude-sonnet-4-5"),
        ("azure:chat:my-deployment", "azure/my-deployment"),
        ("ollama:chat:llama3.1:8b", "ollama_chat/llama3.1:8b"),
        ("openrouter:deepseek/deepseek-v4-flash", "openrouter/deepseek/deepseek-v4-flash"),
        ("vertex:gemini-2.5-pro", "vertex_ai/gemini-2.5-pro"),
        ("bedrock:anthropic.claude-3-haiku-20240307-v1:0", "bedrock/anthropic.claude-3-haiku-20240307-v1:0"),
        ("openai/gpt-4o", "openai/gpt-4o"),  # already a litellm id
        ("gpt-4o", "gpt-4o"),
    ],
)
def test_promptfoo_ids_map_to_litellm(provider, model):
    assert promptfoo_to_litellm(provider) == model


def test_default_judge_follows_promptfoos_credential_order():
    assert default_model({"ANTHROPIC_API_KEY": "a", "MISTRAL_API_KEY": "m"}) == "anthropic/claude-sonnet-4-5-20250929"
    assert default_model({"OPENAI_API_KEY": "o", "ANTHROPIC_API_KEY": "a"}) == "openai/gpt-5"
    assert default_model({"GOOGLE_API_KEY": "g"}) == "gemini/gemini-2.5-pro"
    assert default_model({}, api_base="http://localhost:8000/v1") == "openai/judge"
    with pytest.raises(MissingCredentials, match="RUBRIC_JUDGE_MODEL"):
        default_model({})


def test_environment_fills_the_gaps():
    env = {
        "RUBRIC_JUDGE_MODEL": "openai:chat:gpt-4o-mini",
        "RUBRIC_JUDGE_API_BASE": "http://h/v1",
        "RUBRIC_CACHE_DIR": "/tmp/x",
    }
    resolved = with_model_spellings(JudgeSettings(env=env)).resolved()
    assert (resolved.model, resolved.api_base) == ("openai/gpt-4o-mini", "http://h/v1")
    assert JudgeSettings(model="openai/x", env=env).resolved().model == "openai/x"
    assert JudgeSettings(env=env).resolved().model == "openai:chat:gpt-4o-mini"  # no spellings: as given


def test_a_judge_model_may_be_spelled_as_any_formats_owner_tool_spells_it():
    spell = model_spellings()  # the formats' Format.model_ids, whatever file is graded
    assert spell("openai:chat:gpt-4o-mini") == "openai/gpt-4o-mini"
    assert spell("anthropic/claude-x") == "anthropic/claude-x"  # litellm's own spelling: as given
    resolved = with_model_spellings(JudgeSettings(model="ollama:chat:llama3", models=["vertex:gemini-2.5-pro"], env={}))
    assert resolved.resolved().judge_models() == ["ollama_chat/llama3", "vertex_ai/gemini-2.5-pro"]


def test_missing_key_names_the_variable_and_local_servers_need_none():
    with pytest.raises(MissingCredentials, match="OPENROUTER_API_KEY"):
        api_key_for("openrouter/deepseek/x", None, {})
    assert api_key_for("openai/judge", "http://127.0.0.1:1/v1", {}) == "no-key-needed"
    assert api_key_for("ollama_chat/llama3", None, {}) is None
    assert api_key_for("openai/gpt-4o", None, {"OPENAI_API_KEY": "sk-1"}) == "sk-1"


def test_promptfoo_grader_settings_are_honoured():
    base = JudgeSettings()
    s = settings_from_promptfoo(
        base,
        {
            "id": "openai:chat:gpt-4o",
            "config": {"temperature": 0.7, "max_tokens": 50, "apiBaseUrl": "http://vllm:8000/v1"},
        },
    )
    assert (s.model, s.temperature, s.max_tokens, s.api_base) == ("openai/gpt-4o", 0.7, 50, "http://vllm:8000/v1")
    pinned = settings_from_promptfoo(JudgeSettings(model="openai/cli", api_base="http://cli/v1"), "openai:gpt-5")
    assert (pinned.model, pinned.api_base) == ("openai/cli", "http://cli/v1")
