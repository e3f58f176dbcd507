"""promptfoo 0.123.1's default grader: which model it grades with, per the API keys it finds.

From ``getDefaultProviders`` / ``getDefaultProviderPreferences`` (``src/providers/defaults.ts``
and each provider's ``defaults.ts``): an OpenAI key wins, then Azure (key and deployment
names, only without an OpenAI key), then Anthropic, then Google AI Studio, then Mistral, then
xAI. llm-rubric's default is the *JSON* grader (``response_format: json_object``) for OpenAI,
Mistral and xAI; Google AI Studio's llm-rubric grader is its plain one; Anthropic's llm-rubric grader forces a ``grade_output`` tool
call instead (not reproduced: rubric-lsp sends no JSON mode there, the prompt still asks for
JSON); Azure's is the plain deployment. The other model-graded types use the plain grader.
Google Vertex (application-default credentials) and Codex logins are not mapped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class DefaultGrader:
    model: str  # a litellm model string
    json_mode: bool  # llm-rubric asks for JSON mode with it


def default_grader(env: Mapping[str, str]) -> DefaultGrader | None:
    """The grader promptfoo 0.123.1 picks from ``env``'s keys, or None when it would pick none we can run."""
    openai = bool(env.get("OPENAI_API_KEY"))
    azure_key = env.get("AZURE_OPENAI_API_KEY") or env.get("AZURE_API_KEY")
    azure_deployment = env.get("AZURE_OPENAI_DEPLOYMENT_NAME")
    if openai:
        return DefaultGrader("openai/gpt-5.6-sol", True)
    if azure_key and env.get("AZURE_DEPLOYMENT_NAME") and azure_deployment:
        return DefaultGrader(f"azure/{azure_deployment}", False)
    if env.get("ANTHROPIC_API_KEY"):
        return DefaultGrader("anthropic/claude-sonnet-4-6", False)
    if env.get("GEMINI_API_KEY") or env.get("GOOGLE_API_KEY") or env.get("PALM_API_KEY"):
        return DefaultGrader("gemini/gemini-3.8-flash", False)  # its llm-rubric grader is the plain one
    if env.get("MISTRAL_API_KEY"):
        return DefaultGrader("mistral/mistral-large-latest", True)
    if env.get("XAI_API_KEY"):
        return DefaultGrader("xai/grok-4.3", True)
    return None
