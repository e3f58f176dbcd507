"""promptfoo's grading prompts as promptfoo renders them: Nunjucks-like variables, JavaScript value semantics.

Split from ``assertions`` (which grades the assertions with these prompts): how a template is
rendered (``render``, values becoming text as JavaScript writes them: ``js_values.py``), and the
messages of the built-in and custom rubric prompts.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable
from typing import Any

from rubric_lsp.document import issues as K
from rubric_lsp.document import parse_document
from rubric_lsp.document.js_yaml import js_number_text as js_number_text  # re-exported: assertions use it
from rubric_lsp.document.js_yaml import read_as_js_yaml
from rubric_lsp.engine.failures import JudgeFailure
from rubric_lsp.formats.promptfoo.grading.owner_prompts import DEFAULT_GRADING_PROMPT
from rubric_lsp.formats.promptfoo.js_values import (
    UNDEFINED,
    js_json,
    js_number,
    js_string,
)  # graders import them here too

_VARIABLE = re.compile(r"\{\{-?\s*([A-Za-z_][\w.]*)\s*(\|[^}]*)?-?\}\}")


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


def try_parse(text: str) -> Any:
    """promptfoo's ``tryParse``: the output parsed as JSON when it is JSON text, else the text."""
    try:
        return json.loads(text, parse_constant=_reject_constant)  # JSON.parse knows no NaN/Infinity
    except (ValueError, RecursionError):
        return text


def prompt_context(variables: dict[str, Any]) -> dict[str, Any]:
    """promptfoo's ``processContextForTemplating`` for grading prompts: objects become compact
    JSON text, arrays keep their items with object items as JSON text (so ``{{ list }}`` prints
    them comma-joined)."""
    processed: dict[str, Any] = {}
    for key, value in variables.items():
        if isinstance(value, dict):
            processed[key] = js_json(value)
        elif isinstance(value, list):
            processed[key] = [js_json(item) if isinstance(item, (dict, list)) else item for item in value]
        else:
            processed[key] = value
    return processed


def _render_plain(template: str, variables: dict[str, Any]) -> str:
    """``{{ name }}`` / ``{{ name.attr }}`` substitution only: the fallback for a template
    Jinja cannot parse (Nunjucks syntax it lacks); filters are ignored there."""

    def value_of(match: re.Match[str]) -> str:
        parts = match.group(1).split(".")
        value: Any = variables
        for part in parts:
            if isinstance(value, dict) and part in value:
                value = value[part]
            else:
                return ""
        return js_string(value)

    return _VARIABLE.sub(value_of, template)


def _js_filters() -> dict[str, Callable[..., Any]]:
    # Nunjucks filters whose Jinja namesakes print differently (the rest are Jinja's own).
    return {
        "dump": lambda value, *_: js_json(value),
        "load": json.loads,
        "round": _js_round,
    }


def _js_round(value: Any, precision: int = 0, method: str = "common") -> float:
    """Nunjucks' ``round``: ``Number()`` of the value (undefined: NaN), ``Math.round`` (half up)."""
    number = js_number(value if isinstance(value, (str, int, float, list)) or value is None else UNDEFINED)
    if not math.isfinite(number):
        return number
    factor = 10**precision
    scaled = number * factor
    if method == "ceil":
        rounded = math.ceil(scaled)
    elif method == "floor":
        rounded = math.floor(scaled)
    else:
        rounded = math.floor(scaled + 0.5)
    return rounded / factor


_environment: Any = None


def _jinja() -> Any:
    """A Jinja environment that prints values as Nunjucks does (``js_string``); imported on first
    use (the lint path never renders)."""
    global _environment
    if _environment is None:
        import jinja2

        _environment = jinja2.Environment(
            autoescape=False,
            undefined=jinja2.ChainableUndefined,
            finalize=lambda value: js_string(None if isinstance(value, jinja2.Undefined) else value),
            keep_trailing_newline=True,
        )
        _environment.filters.update(_js_filters())
    return _environment


def render(template: str, variables: dict[str, Any]) -> str:
    """Nunjucks' ``renderString(template, variables)`` through Jinja (the common filters
    ``upper``, ``lower``, ``title``, ``capitalize``, ``trim``, ``default``, ``join``, ``length``,
    ``replace``, ``round``, ``dump``... and ``{% for %}`` / ``{% if %}``), values printed as
    JavaScript prints them: null/undefined empty, objects ``[object Object]``, arrays
    comma-joined, numbers as JavaScript writes them. A template Jinja cannot read or run
    falls back to plain ``{{ name }}`` substitution."""
    if "{" not in template:
        return template
    try:
        compiled = _compiled(template) if len(template) <= _CACHED_TEMPLATE_CHARS else _jinja().from_string(template)
        return str(compiled.render(variables))
    except Exception:
        return _render_plain(template, variables)


# Compiling promptfoo's default grading prompt costs ~0.26 ms, rendering it compiled ~0.006 ms, and an eval renders
# the same few templates (its grading prompt, each test's rubric) once per output and assertion: compiled once.
_CACHED_TEMPLATE_CHARS = 64 * 1024


@functools.lru_cache(maxsize=256)
def _compiled(template: str) -> Any:
    """``template`` compiled by the environment (a Jinja template renders any number of times, on any thread)."""
    return _jinja().from_string(template)


def load_rubric_prompt(rubric_prompt: Any, default: str) -> str:
    """promptfoo's ``loadRubricPrompt``: the default when none (or ``{}``) is given; an object or
    list as its JSON text."""
    if not rubric_prompt:
        return default
    if isinstance(rubric_prompt, (dict, list)):
        return js_json(rubric_prompt)
    return rubric_prompt if isinstance(rubric_prompt, str) else js_string(rubric_prompt)


def render_rubric_prompt(prompt: str, context: dict[str, Any]) -> str:
    """promptfoo's ``renderLlmRubricPrompt``: the context prepared (``prompt_context``); JSON
    prompt text has each of its strings rendered and is written back as JSON, any other text
    is rendered whole."""
    processed = prompt_context(context)
    try:
        parsed = json.loads(prompt)
    except ValueError:
        return render(prompt, processed)

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return render(value, processed)
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    return js_json(walk(parsed))


def chat_messages(prompt: str) -> list[dict[str, Any]]:
    """How promptfoo's chat providers read the rendered prompt (``parseChatPrompt``): a YAML
    list when it starts ``- role:``, JSON messages when it is JSON, else one user message."""
    trimmed = prompt.strip()
    if trimmed.startswith("- role:"):
        messages = _yaml_messages(prompt)
        if messages is None:
            raise _prompt_failure("not a valid YAML message list", prompt)
        return messages
    try:
        parsed = json.loads(prompt)
    except ValueError:
        if _looks_like_json(trimmed):
            raise _prompt_failure("not valid JSON", prompt) from None
        return [{"role": "user", "content": prompt}]
    if isinstance(parsed, list) and parsed and all(isinstance(m, dict) and "role" in m for m in parsed):
        return parsed
    return [{"role": "user", "content": prompt}]


def _looks_like_json(trimmed: str) -> bool:
    """promptfoo's ``looksLikeJson``: text it refuses rather than send as a plain user message."""
    if trimmed.startswith("{") and trimmed.endswith("}"):
        return True
    if trimmed.startswith("[") and trimmed.endswith("]"):
        after = trimmed[1:].lstrip()
        return not after or after[0] in '"{[-' or after[0].isdigit() or after.startswith(("true", "false", "null"))
    return False


def _prompt_failure(what: str, prompt: str) -> Any:
    return JudgeFailure(
        "unknown", f"The rendered grading prompt is {what}; promptfoo refuses it: {prompt[:120]!r}", "config"
    )


def owner_messages(rubric_prompt: Any, default: str, context: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages promptfoo sends: the prompt loaded, rendered with ``context``, read as chat."""
    return chat_messages(render_rubric_prompt(load_rubric_prompt(rubric_prompt, default), context))


def grading_messages(
    rubric_prompt: Any, output: str, rubric: Any, test_vars: dict[str, Any], vars_last: bool = False
) -> list[dict[str, Any]]:
    """llm-rubric's messages: promptfoo 0.123.1 spreads the test vars first, then ``output`` (the
    output JSON-parsed when it parses, ``tryParse``) and ``rubric``, so a var named ``output``
    does not replace the graded output (``vars_last``: 0.121.9's order, where it did)."""

    own = {"output": try_parse(output), "rubric": rubric}
    context = {**own, **test_vars} if vars_last else {**test_vars, **own}
    return owner_messages(rubric_prompt, DEFAULT_GRADING_PROMPT, context)


def custom_messages(
    rubric_prompt: Any, variables: dict[str, Any], render_text: Callable[[str, dict[str, Any]], str] | None = None
) -> list[dict[str, Any]]:
    """A ``rubricPrompt`` rendered with ``variables`` as promptfoo renders it (kept for callers
    of the old signature; ``render_text`` is no longer needed: Jinja runs loops itself)."""
    return owner_messages(rubric_prompt, "", variables)


def _yaml_messages(text: str) -> list[dict[str, Any]] | None:
    """A text prompt written as a YAML list of ``{role, content}`` messages (promptfoo's chat
    providers read a prompt starting with ``- role:`` with its ``loadYaml``: js-yaml, so
    ``content: yes`` is the text "yes"), else None. Parsed before rendering, so values holding
    quotes or newlines cannot break the YAML."""
    if not text.strip().startswith("- role:"):
        return None

    doc = parse_document(text, "prompt.yaml", language="yaml")
    if not doc.readable or any(issue.kind in (K.SYNTAX_ERROR, K.DUPLICATE_KEY) for issue in doc.issues):
        return None  # js-yaml refuses it too (a second document, a duplicated key)
    read_as_js_yaml(doc)
    loaded = doc.value
    if (
        isinstance(loaded, list)
        and loaded
        and all(
            isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str) for m in loaded
        )
    ):
        return [dict(m) for m in loaded]
    return None
