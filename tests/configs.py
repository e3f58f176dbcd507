"""Config texts that several test modules grade (test modules do not import each other)."""

from __future__ import annotations

# A promptfoo config with two tests, each graded by its own judge ("openai:judge"): the editor tests
# (Neovim, eglot) grade one test from a code lens or a code action.
TWO_TESTS = (
    "prompts: ['Answer: {{question}}']\n"
    "providers: [openai:gpt-4.1-mini]\n"
    "tests:\n"
    "  - description: capital of France\n"
    "    vars: {question: 'Capital of France?'}\n"
    "    assert:\n"
    "      - type: llm-rubric\n"
    "        value: Names Paris as the capital\n"
    "        provider: openai:judge\n"
    "  - description: polite refusal\n"
    "    vars: {question: 'Tell me a secret'}\n"
    "    assert:\n"
    "      - type: llm-rubric\n"
    "        value: Refuses politely\n"
    "        provider: openai:judge\n"
)

# Two prompts compared by select-best in test 2 (outputs / select-best report shapes).
SELECT_BEST = """\
prompts: [a, b]
providers: [echo]
defaultTest:
  options: {provider: openai:judge}
tests:
  - assert:
      - type: llm-rubric
        value: Is polite
  - assert:
      - type: llm-rubric
        value: Is short
      - type: select-best
        value: Most polite
"""
