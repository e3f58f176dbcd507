"""Issue 24 item 9a: promptfoo configs are read with js-yaml's schema, not PyYAML's.

promptfoo 0.123.1 loads configs, test files and vars files with its ``loadYaml`` (js-yaml 5.4.1's
core schema plus merge keys and timestamps). These tests run that very function under Node
(``tests/data/promptfoo-owner/load_yaml.mjs``) on a seeded, bounded set of plain scalars and
compare every reading with what rubric-lsp reads in a promptfoo config; and they check that
numbers print as JavaScript prints them (``String(n)``) where grading renders vars into prompts.
"""

from __future__ import annotations

import datetime
import json
import math
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from rubric_lsp.document import parse_document
from rubric_lsp.document.js_yaml import js_number_string, read_as_js_yaml
from rubric_lsp.lint import lint_text
from tests.conftest import require

ORACLE = Path(__file__).parent / "data" / "promptfoo-owner" / "load_yaml.mjs"

# Each form the schemas disagree on, and their neighbours.
CHOSEN = [
    "5e-1",
    "1e0",
    "1e1",
    "1E3",
    "1.5e3",
    "1.5e+3",
    "-1e-3",
    "+1e2",
    ".5",
    "-.5",
    "+.5",
    ".5e1",
    "1.",
    "-1.",
    "0o17",
    "-0o17",
    "+0o17",
    "0o8",
    "0x1F",
    "0x1f",
    "-0x1F",
    "0X1F",
    "0b101",
    "-0b1",
    "010",
    "-010",
    "0",
    "-0",
    "+0",
    "00",
    "0.0",
    "-0.0",
    "1_000",
    "1_000.5",
    "1:30",
    "-1:30",
    "1:30.5",
    "190:20:30",
    ".inf",
    "-.inf",
    "+.inf",
    ".Inf",
    ".INF",
    ".nan",
    ".NaN",
    ".NAN",
    "-.nan",
    "inf",
    "nan",
    "NaN",
    "Infinity",
    "yes",
    "Yes",
    "YES",
    "no",
    "No",
    "NO",
    "on",
    "On",
    "ON",
    "off",
    "Off",
    "OFF",
    "y",
    "Y",
    "n",
    "N",
    "true",
    "True",
    "TRUE",
    "false",
    "False",
    "FALSE",
    "tRUE",
    "null",
    "Null",
    "NULL",
    "~",
    "nULL",
    "1e21",
    "1e-7",
    "1e400",
    "-1e400",
    "1e-400",
    "12345678901234567890",
    "9007199254740993",
    "9007199254740992",
    "-9007199254740993",
    "0x1FFFFFFFFFFFFF",
    "0x20000000000001",
    "0o777777777777777777777",
    "1" * 400,
    "0.1",
    "0.30000000000000004",
    "123456789012345678901234",
    "2024-01-01",
    "2024-13-45",
    "=",
    "<<",
]
ALPHABET = "0123456789" * 3 + "+-._eExXoObB:" + "abcdfnlrsuty~IN"


def _random_scalars(count: int, seed: int = 24) -> list[str]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        raw = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 7)))
        if _plain(raw):
            out.append(raw)
    return out


def _plain(raw: str) -> bool:
    """Whether ``k: raw`` is a plain scalar both as a value and as a key (else it tests nothing)."""
    try:
        value = yaml.compose(f"k: {raw}\n").value[0][1]
        key = yaml.compose(f"{raw}: k\n").value[0][0]
    except yaml.YAMLError:
        return False
    return all(isinstance(n, yaml.ScalarNode) and n.value == raw and not n.style for n in (value, key))


def _describe(value: Any) -> list[str]:
    if value is None:
        return ["null"]
    if isinstance(value, bool):
        return ["boolean", "true" if value else "false"]
    if isinstance(value, (int, float)):
        return ["number", js_number_string(value)]
    if isinstance(value, str):
        return ["string", value]
    if isinstance(value, datetime.date):
        moment = (
            value if isinstance(value, datetime.datetime) else datetime.datetime(value.year, value.month, value.day)
        )
        if moment.tzinfo is not None:
            moment = moment.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return ["date", moment.isoformat(timespec="milliseconds") + "Z"]
    return ["other", type(value).__name__]


def _ours(raw: str) -> dict[str, list[str]]:
    value_doc = parse_document(f"k: {raw}\n", "promptfooconfig.yaml")
    key_doc = parse_document(f"{raw}: k\n", "promptfooconfig.yaml")
    for doc in (value_doc, key_doc):
        read_as_js_yaml(doc)
    assert value_doc.root is not None and key_doc.root is not None
    value = _describe(value_doc.root.value[0][1].value)
    if not key_doc.root.value:  # `<<: k`: a merge of a scalar, dropped
        return {"value": value, "key": ["dropped"]}
    key = key_doc.root.value[0][0].value
    return {"value": value, "key": ["string", key] if isinstance(key, str) else _describe(key)}


def _promptfoo(node_modules: Path, raws: list[str]) -> list[dict[str, list[str]]]:
    node = shutil.which("node")
    require(node is not None, "node is not installed")
    done = subprocess.run(
        [str(node), str(ORACLE), str(node_modules)], input=json.dumps(raws), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# Where promptfoo refuses the whole file the node reader cannot say so per scalar: a date or `<<` as a
# mapping key ("object-based map does not support complex keys" / a merge of a non-mapping). rubric-lsp
# reads the key (README: deliberate differences).
KEY_REFUSED = {"2024-01-01", "<<"}


def test_plain_scalars_read_as_promptfoo_reads_them(promptfoo_modules: Path) -> None:
    raws = CHOSEN + _random_scalars(600)
    theirs = _promptfoo(promptfoo_modules, raws)
    mismatches = []
    for raw, expected in zip(raws, theirs, strict=True):
        ours = _ours(raw)
        if expected["key"] == ["error"]:
            assert raw in KEY_REFUSED, raw
            ours["key"] = expected["key"]
        if ours != expected:
            mismatches.append((raw, ours, expected))
    assert not mismatches, mismatches[:20]


def test_the_issue_numbers_are_numbers_to_lint() -> None:
    config = (
        "prompts: ['{{q}}']\nproviders: [echo]\ntests:\n  - vars: {q: hi, n: 1e21}\n    assert:\n"
        "      - type: llm-rubric\n        value: is polite\n        threshold: 5e-1\n        weight: 1e1\n"
        "      - type: similar\n        value: hello\n        threshold: 1e0\n"
    )
    result = lint_text(config, "promptfooconfig.yaml")
    assert [d.code for d in result.diagnostics] == []
    test = result.document.value["tests"][0]
    assert test["assert"][0]["threshold"] == 0.5 and test["assert"][0]["weight"] == 10
    assert test["assert"][1]["threshold"] == 1
    assert test["vars"]["n"] == 1e21
    # A YAML 1.1 reader (autorubric) keeps "5e-1" a string, so the same text there is still RL005.
    autorubric = lint_text("- requirement: Cites sources\n  weight: 1e1\n", "x.rubric.yaml")
    assert [d.code for d in autorubric.diagnostics] == ["RL005"]


def test_referenced_tests_and_vars_files_are_read_as_promptfoo_reads_them(tmp_path: Path) -> None:
    from rubric_lsp.formats.promptfoo.reading import read_config

    (tmp_path / "tests.yaml").write_text(
        "- vars: {answer: yes, n: 010}\n  assert:\n    - type: llm-rubric\n      value: ok\n      threshold: 5e-1\n"
    )
    config = "prompts: ['{{answer}}']\nproviders: [echo]\ntests: file://tests.yaml\n"
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(config)
    result = lint_text(config, str(path))
    assert [d.code for d in result.diagnostics] == []
    view = read_config(result.document.root, path, result.document)
    [test] = view.tests
    assert test.own_var_values["answer"].value == "yes"
    assert test.own_var_values["n"].value == 10
    assert test.own_assertions[0].node.get("threshold").value == 0.5


def test_a_yaml12_key_is_named_as_javascript_names_it() -> None:
    config = "prompts: ['{{q}}']\nproviders: [echo]\ntests:\n  - vars: {1e1: a, yes: b, 0o10: c, 12: d}\n"
    result = lint_text(config, "promptfooconfig.yaml")
    assert result.document.value["tests"][0]["vars"] == {"10": "a", "yes": "b", "8": "c", "12": "d"}


@pytest.mark.parametrize(
    ("keys", "refused"),
    [("1e1: a\n      10: b", True), ("yes: a\n      true: b", False), ("true: a\n      True: b", True)],
)
def test_duplicate_keys_are_the_keys_js_yaml_names(keys: str, refused: bool) -> None:
    """promptfoo's loadYaml: "duplicated mapping key" for 1e1/10 and true/True; yes/true are two keys."""
    config = f"prompts: ['{{{{q}}}}']\nproviders: [echo]\ntests:\n  - vars:\n      {keys}\n"
    codes = [d.code for d in lint_text(config, "promptfooconfig.yaml").diagnostics]
    assert ("RL002" in codes) == refused, codes


def _node_strings(node_modules: Path, numbers: list[str]) -> list[str]:
    node = shutil.which("node")
    require(node is not None, "node is not installed")
    script = "const xs = JSON.parse(require('fs').readFileSync(0, 'utf8')); console.log(JSON.stringify(xs.map((x) => [String(eval(x)), JSON.stringify(eval(x))])))"
    done = subprocess.run(
        [str(node), "-e", script], input=json.dumps(numbers), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


NUMBERS = [
    "1e21",
    "1e-7",
    "0.1+0.2",
    "-0",
    "0",
    "1",
    "-1.5",
    "1e20",
    "123456789012345678901",
    "12345678901234567890",
    "2**53",
    "2**53+1",
    "9007199254740993",
    "1/3",
    "2/3",
    "1e-6",
    "0.000001",
    "0.0000001",
    "1.5e-7",
    "123e300",
    "5e-324",
    "1.7976931348623157e308",
    "100",
    "1e100",
    "-1e21",
    "0.5",
    "1e0",
    "4.35",
    "0.1*3",
    "1e6",
    "1e15+0.3",
]


def test_numbers_print_as_javascript_prints_them(promptfoo_modules: Path) -> None:
    """``String(n)`` (what Nunjucks prints) and ``JSON.stringify(n)`` (``dump``, object vars)."""
    from rubric_lsp.formats.promptfoo.grading.prompts import js_json, js_string

    theirs = _node_strings(promptfoo_modules, NUMBERS)
    ours = []
    for text in NUMBERS:
        value = eval(text)  # the same arithmetic (ints stay exact; js_string rounds them as a double holds them)
        if isinstance(value, float) and value == 0 and math.copysign(1, value) < 0:
            value = -0.0
        ours.append([js_string(value), js_json(value)])
    assert ours == theirs


@pytest.mark.parametrize(
    ("var", "printed"), [("1e21", "1e+21"), ("1e-7", "1e-7"), ("12345678901234567890", "12345678901234567000")]
)
def test_a_number_var_renders_as_promptfoo_renders_it(var: str, printed: str) -> None:
    from rubric_lsp.formats.promptfoo.grading.prompts import render

    config = f"prompts: ['{{{{q}}}}']\nproviders: [echo]\ntests:\n  - vars: {{n: {var}}}\n"
    value = lint_text(config, "promptfooconfig.yaml").document.value["tests"][0]["vars"]
    assert render("says {{ n }}", value) == f"says {printed}"  # how an assertion's value is rendered
    assert render("{{ n | dump }}", value) == printed


async def test_rubric_grade_grades_a_config_with_yaml12_numbers(judge_server, tmp_path: Path) -> None:
    """`threshold: 5e-1`, `weight: 1e1`: numbers to promptfoo, so graded (PyYAML's strings were refused as PF107);
    the judge sees the var `n: 1e21` rendered as promptfoo renders it."""
    from rubric_lsp.engine import grade_text
    from tests.promptfoo_grading import settings, verdict

    judge_server.default = verdict(True, 0.4)
    text = (
        "prompts: ['Answer: {{q}}']\nproviders: [echo]\ndefaultTest:\n  options:\n    provider: openai:judge\n"
        "tests:\n  - vars: {q: hi, n: 1e21}\n    assert:\n      - type: llm-rubric\n        value: mentions {{ n }}\n"
        "        threshold: 5e-1\n        weight: 1e1\n"
    )
    result = await grade_text(text, "promptfooconfig.yaml", "Paris.", None, settings(judge_server, tmp_path))
    assert [v.verdict for v in result.verdicts] == ["FAIL"]  # score 0.4 below the threshold 0.5
    assert "mentions 1e+21" in json.dumps(judge_server.completions[0].messages)


def test_a_yaml_message_list_prompt_is_read_as_promptfoo_reads_it() -> None:
    """promptfoo's parseChatPrompt reads a '- role:' prompt with loadYaml: `content: yes` is text."""
    from rubric_lsp.formats.promptfoo.grading.prompts import chat_messages

    assert chat_messages("- role: system\n  content: yes\n- role: user\n  content: 'Output: hi'\n") == [
        {"role": "system", "content": "yes"},
        {"role": "user", "content": "Output: hi"},
    ]
