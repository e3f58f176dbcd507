"""The smell rules as a user meets them: off the default lint path, on when selected or in the editor,
reported in every format at the words that trip them, and the autorubric split fix."""

from __future__ import annotations

import json
import subprocess
import sys

from rubric_lsp.fixes import apply_edits
from rubric_lsp.lint import lint_text
from rubric_lsp.settings import Settings

RUBRIC = """\
- name: ack_and_refund
  requirement: The response acknowledges the order number and offers a refund.
  weight: 10
- name: tone
  requirement: "The response should sound polite, friendly, and welcoming."
  weight: 5
- name: helpfulness
  requirement: How helpful is the response?
  weight: 5
  options:
    - {label: Not helpful, value: 0}
    - {label: Somewhat helpful, value: 0.5}
    - {label: Very helpful, value: 1}
"""
SMELLS = Settings(select=("RL3",))


def codes(result) -> list[str]:
    return [d.code for d in result.diagnostics if d.code.startswith("RL3")]


def words_of(result, code: str) -> list[str]:
    text = result.document.text
    return [text[d.span.start : d.span.end] for d in result.diagnostics if d.code == code]


def test_off_on_the_default_lint_path_and_on_when_selected_or_in_the_editor():
    assert codes(lint_text(RUBRIC, "r.rubric.yaml")) == []
    selected = lint_text(RUBRIC, "r.rubric.yaml", settings=SMELLS)
    assert sorted(set(codes(selected))) == ["RL301", "RL302", "RL308", "RL311"]
    assert sorted(codes(lint_text(RUBRIC, "r.rubric.yaml", smells=True))) == sorted(codes(selected))
    # ignore works as for any rule; an opt-in rule (RL310) needs its own code
    assert "RL302" not in codes(lint_text(RUBRIC, "r.rubric.yaml", settings=Settings(ignore=("RL302",)), smells=True))
    assert "RL310" not in codes(lint_text(RUBRIC, "r.rubric.yaml", settings=Settings(select=("RL",))))


def test_every_finding_is_info_and_never_fails_a_default_run(tmp_path):
    assert {d.severity.label for d in lint_text(RUBRIC, "r.rubric.yaml", settings=SMELLS).diagnostics} == {"info"}
    path = tmp_path / "r.rubric.yaml"
    path.write_text(RUBRIC, encoding="utf-8")
    run = [sys.executable, "-c", "from rubric_lsp.cli import lint_main; raise SystemExit(lint_main())"]
    selected = subprocess.run([*run, "--select", "RL3", str(path)], capture_output=True, text=True, timeout=120)
    assert selected.returncode == 0 and "RL301" in selected.stdout
    failing = subprocess.run(
        [*run, "--select", "RL3", "--fail-level", "info", str(path)], capture_output=True, timeout=120
    )
    assert failing.returncode == 1


def test_the_range_is_the_words_that_trip_it():
    result = lint_text(RUBRIC, "r.rubric.yaml", settings=SMELLS)
    assert words_of(result, "RL302") == ["polite", "helpful"]
    assert words_of(result, "RL301") == ["acknowledges the order number and offers"]
    assert words_of(result, "RL308") == ["Not helpful"]
    message = next(d.message for d in result.diagnostics if d.code == "RL301")
    assert "split into two criteria: 'acknowledges the order number' / 'offers a refund'" in message


def test_the_split_fix_halves_the_weight_and_keeps_the_yaml_readable():
    import yaml

    result = lint_text(RUBRIC, "r.rubric.yaml", settings=Settings(select=("RL301",)))
    (found,) = result.diagnostics
    assert found.fix is not None and not found.fix.safe
    fixed = yaml.safe_load(apply_edits(RUBRIC, found.fix.edits))
    assert fixed[:2] == [
        {"name": "ack_and_refund_1", "requirement": "The response acknowledges the order number.", "weight": 5},
        {"name": "ack_and_refund_2", "requirement": "The response offers a refund.", "weight": 5},
    ]
    assert fixed[2:] == yaml.safe_load(RUBRIC)[1:]


def test_the_split_fix_in_json():
    rubric = json.dumps(
        [
            {"requirement": "Acknowledges the order and offers a refund", "weight": 4},
            {"requirement": "Cites a source", "weight": -2},
        ]
    )
    result = lint_text(rubric, "r.rubric.json", settings=Settings(select=("RL301",)))
    (found,) = result.diagnostics
    assert found.fix is not None
    assert json.loads(apply_edits(rubric, found.fix.edits))[:2] == [
        {"requirement": "Acknowledges the order.", "weight": 2},
        {"requirement": "Offers a refund.", "weight": 2},
    ]


def test_promptfoo_values_in_quotes_and_block_scalars():
    config = """\
prompts: [a]
providers: [openai:gpt-4.1-mini]
tests:
  - vars: {q: x}
    assert:
      - type: llm-rubric
        value: "Response is helpful"
      - type: not-llm-rubric
        value: Contains a detailed history of the company
      - type: factuality
        value: The capital may be Sacramento, if needed
      - type: g-eval
        value:
          - |
            Rate the response on a scale of 1-5
            for how well it explains the cause.
"""
    result = lint_text(config, "promptfooconfig.yaml", settings=SMELLS)
    assert words_of(result, "RL307") == ["helpful"]
    assert "RL304" not in codes(result)  # a not- assertion penalises what its value describes
    assert "RL303" not in codes(result)  # a factuality value is the reference answer, not the criterion's wording
    assert words_of(result, "RL308") == ["Rate the response on a scale of 1-5"]
    assert words_of(result, "RL302") == ["helpful", "how well"]


def test_northstar_and_rubrics_task():
    request = json.dumps(
        {
            "graders": [
                {"type": "rubric", "name": "tone", "rubric": "Pass when the reply is polite and stays on topic."}
            ],
        }
    )
    found = lint_text(request, "eval_run_request.json", kind="northstar-eval-run-request", settings=SMELLS)
    assert words_of(found, "RL302") == ["polite"]
    task = {
        "task_id": "t",
        "status": "done",
        "threads": [
            {
                "id": "th",
                "turns": [
                    {
                        "id": "u",
                        "annotations": [
                            {"key": "rubric_1_criteria_1", "title": "Which response is better overall?", "value": 1}
                        ],
                        "messages": [],
                    }
                ],
            }
        ],
    }
    found = lint_text(json.dumps(task), "task.json", kind="rubrics-task", settings=SMELLS)
    assert words_of(found, "RL307") == ["Which response is better"]


def test_the_language_tool_stays_off_the_default_lint_path(tmp_path):
    (tmp_path / "r.rubric.yaml").write_text(RUBRIC, encoding="utf-8")
    probe = (
        "import sys\n"
        "sys.argv = ['rubric-lint', 'r.rubric.yaml']\n"
        "from rubric_lsp.cli import lint_main\n"
        "lint_main()\n"
        "print('LOADED=' + ','.join(sorted(m for m in sys.modules if m.startswith(('lemminflect', 'numpy', 'rubric_lsp.rules.smells')))))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert "LOADED=\n" in done.stdout, done.stdout + done.stderr


def _one(requirement: str) -> str:
    return f"- name: a\n  requirement: {requirement}\n  weight: 5\n"


def test_bundled_requirement_defers_to_double_barreled_where_both_read_it():
    """AR019 and RL301 say the same of one requirement; where the smell rules run, RL301 (which names the two
    parts and offers the split) is the one reported. AR019 stays where the smells do not run, and where RL301
    does not read two requirements."""
    both = _one("The response acknowledges the order number and offers a refund.")
    assert [d.code for d in lint_text(both, "r.rubric.yaml").diagnostics] == ["AR019"]
    assert [d.code for d in lint_text(both, "r.rubric.yaml", smells=True).diagnostics] == ["RL301"]
    alone = _one("empathetic and offers to help troubleshoot")  # one requirement, as the corpus labels it
    found = [d.code for d in lint_text(alone, "r.rubric.yaml", smells=True).diagnostics]
    assert "AR019" in found and "RL301" not in found


def test_a_promptfoo_value_read_from_a_text_file_is_read(tmp_path):
    (tmp_path / "rubric.txt").write_text("The response includes the Authorization header if needed.\n", "utf-8")
    (tmp_path / "script.py").write_text("def get_assert(output, context):\n    return 'is polite if needed'\n", "utf-8")
    config = (
        "prompts: ['hi']\nproviders: [echo]\ntests:\n  - assert:\n"
        "      - type: llm-rubric\n        value: file://rubric.txt\n"
        "      - type: llm-rubric\n        value: file://script.py\n"
        "      - type: llm-rubric\n        value: file://missing.txt\n"
    )
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(config, encoding="utf-8")
    found = lint_text(config, str(path), smells=True)
    hedges = [d for d in found.diagnostics if d.code == "RL303"]
    assert len(hedges) == 1 and "'if needed'" in hedges[0].message  # the script is never run
    assert words_of(found, "RL303") == ["file://rubric.txt"]  # reported on the reference
    assert str(tmp_path / "rubric.txt") in found.dependencies  # an edit to it re-lints the config
