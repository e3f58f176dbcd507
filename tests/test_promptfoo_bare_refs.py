"""Files named without ``file://`` that promptfoo reads anyway (issue 24 item 8): RL010 and PF120.

Each case is a minimal config of our own; the decision it checks is promptfoo 0.123.1's (see
``rubric_lsp/formats/promptfoo/paths.py`` for the code each mirrors). The last tests run
promptfoo's own ``readPrompts``/``readTests`` on the same strings and compare.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from rubric_lsp.diagnostics import Severity
from rubric_lsp.formats.promptfoo import paths
from rubric_lsp.lint import lint_path
from tests.conftest import require
from tests.helpers import codes, lines_of

PROBES = Path(__file__).parent / "data" / "promptfoo-paths"


def lint(folder: Path, text: str, **files: str):
    for name, content in files.items():
        target = folder / name.replace("__", "/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    config = folder / "promptfooconfig.yaml"
    config.write_text(text, encoding="utf-8")
    return lint_path(config, root_dir=folder)


def findings(result) -> list[tuple[str, int]]:
    return [(d.code, d.range.start.line + 1) for d in result.diagnostics if d.code in ("RL010", "PF120")]


# -- prompts ---------------------------------------------------------------------------------


def test_a_prompt_file_named_without_file_prefix_must_exist(tmp_path):
    text = "prompts:\n  - prompts.txt\n  - prompts/other.md\n  - gen.py:make\nproviders: [echo]\n"
    result = lint(tmp_path, text)
    assert findings(result) == [("RL010", 2), ("RL010", 3), ("RL010", 4)]
    assert "promptfoo reads this prompt as a file (it ends in .txt)" in result.diagnostics[0].message
    # The function suffix is not part of the file's name.
    assert str(tmp_path / "gen.py") + ")" not in result.diagnostics[2].message
    assert findings(lint(tmp_path, text, **{"prompts.txt": "a", "prompts__other.md": "b", "gen.py": "x"})) == []


def test_map_form_and_id_items_are_paths_raw_wins_over_id(tmp_path):
    text = "prompts:\n  - id: chat.json\n    label: chat\n  - raw: 'Hello {{name}}'\n    id: missing.md\nproviders: [echo]\n"
    assert findings(lint(tmp_path, text)) == [("RL010", 2)]
    assert findings(lint(tmp_path, "prompts:\n  prompts/a.txt: A\nproviders: [echo]\n")) == [("RL010", 2)]


def test_text_promptfoo_takes_as_the_prompt_is_never_reported(tmp_path):
    inline = [
        "'Say hello to {{name}}.'",  # a '.' at the end only, not 3 or 4 characters from it
        "'prompts/*.txt'",  # a glob matching nothing: promptfoo uses the text itself
        "'Is it yes/no?'",  # '?' is glob magic: a pattern, so the text when nothing matches
        "'exec:./gen.sh'",  # runs a command
        "'./gen.sh'",  # a command extension: run, not read
        "'Reply via portkey://x/y'",
        "|\n    Answer yes/no: {{q}}",  # a line break: never a path
    ]
    text = "prompts:\n" + "".join(f"  - {item}\n" for item in inline) + "providers: [echo]\n"
    assert findings(lint(tmp_path, text)) == []


def test_a_one_line_prompt_read_as_a_path_is_pf112(tmp_path):
    text = "prompts:\n  - 'Answer yes/no: {{q}}'\n  - 'Wait...'\n  - 'v1.20'\nproviders: [echo]\n"
    result = lint(tmp_path, text)
    assert findings(result) == [("PF120", 2), ("PF120", 3), ("PF120", 4)]
    first = result.diagnostics[0]
    assert first.severity == Severity.ERROR
    assert "it contains '/'" in first.message and 'There are no prompts in "Answer yes/no: {{q}}"' in first.message
    assert "`|` block" in first.message


def test_a_path_without_a_read_extension_loads_only_if_executable(tmp_path):
    text = "prompts: [./make_prompt]\nproviders: [echo]\n"
    script = tmp_path / "make_prompt"
    script.write_text("#!/bin/sh\necho hi\n")
    result = lint(tmp_path, text)
    assert findings(result) == [("PF120", 1)]
    assert "not executable" in result.diagnostics[0].message
    script.chmod(0o755)
    assert findings(lint(tmp_path, text)) == []


# -- tests, defaultTest, scenarios -------------------------------------------------------------


def test_tests_strings_must_name_files(tmp_path):
    for value, message in [
        ("evals/cases.jsonl", "promptfoo reads it as a tests file and stops when it is missing"),
        ("data.csv", "stops when it is missing"),
        ("cases.yaml", "logs 'No test files found for path: cases.yaml'"),
        ("{path: tests.json}", "stops when it is missing"),
    ]:
        result = lint(tmp_path, f"prompts: ['Hi {{{{a}}}}']\nproviders: [echo]\ntests: {value}\n")
        assert findings(result) == [("RL010", 3)], value
        assert message in result.diagnostics[0].message, value
    files = {"evals__cases.jsonl": '{"vars": {"a": 1}}\n', "data.csv": "a\n1\n", "cases.yaml": "- vars: {a: 1}\n"}
    for value in ("evals/cases.jsonl", "data.csv", "cases.yaml"):
        assert (
            findings(lint(tmp_path, f"prompts: ['Hi {{{{a}}}}']\nproviders: [echo]\ntests: {value}\n", **files)) == []
        )


def test_a_csv_tests_string_is_one_file_not_a_glob(tmp_path):
    # readStandaloneTestsFile reads the string as one path: a glob that matches is still missing.
    result = lint(tmp_path, "prompts: [p]\nproviders: [echo]\ntests: data/*.csv\n", **{"data__a.csv": "a\n1\n"})
    assert findings(result) == [("RL010", 3)]
    assert "globs are not expanded" in result.diagnostics[0].message


def test_tests_list_items_are_globs_or_files(tmp_path):
    text = (
        "prompts: [p]\nproviders: [echo]\ntests:\n"
        "  - cases/*.yaml\n"  # matches
        "  - other/*.yaml\n"  # matches nothing
        "  - 'What is 2+2?'\n"  # any string in a tests list is a path or glob
        "  - gen.py:tests\n"  # a script: must exist
        "  - huggingface://datasets/org/name\n"  # fetched
        "  - https://example.com/tests.csv\n"  # a URL: not a local file
        "  - path: rows.csv\n"
        "  - vars: {a: 1}\n"
    )
    result = lint(tmp_path, text, **{"cases__one.yaml": "- vars: {a: 1}\n"})
    assert findings(result) == [("RL010", 5), ("RL010", 6), ("RL010", 7), ("RL010", 10)]


def test_unknown_test_file_types_stay_pf024s(tmp_path):
    result = lint(tmp_path, "prompts: [p]\nproviders: [echo]\ntests: cases.txt\n")
    assert "RL010" not in codes(result) and lines_of(result, "PF024") == [3]


def test_default_test_and_scenario_tests(tmp_path):
    text = (
        "prompts: [p]\nproviders: [echo]\ndefaultTest: defaults.yaml\n"
        "scenarios:\n  - config: [{vars: {a: 1}}]\n    tests:\n      - scenario_cases.yaml\n"
    )
    result = lint(tmp_path, text)
    assert findings(result) == [("RL010", 3), ("RL010", 7)]
    assert "defaultTest string as the path of a test file" in result.diagnostics[0].message
    files = {"defaults.yaml": "vars: {a: 1}\n", "scenario_cases.yaml": "- vars: {b: 1}\n"}
    assert findings(lint(tmp_path, text, **files)) == []


def test_file_prefixed_strings_and_env_templates_are_left_to_others(tmp_path):
    text = "prompts: [file://gone.txt, '{{ env.PROMPT_DIR }}/p.txt']\nproviders: [echo]\ntests: '{{ env.TESTS }}.csv'\n"
    result = lint(tmp_path, text)
    assert findings(result) == [("RL010", 1)]  # file:// is file_refs' RL010, reported once
    assert "gone.txt" in result.diagnostics[0].message


# -- promptfoo's own decision, run on the same strings ------------------------------------------

PROMPTS = [
    "p.txt", "missing.txt", "prompts/*.txt", "sub", "x.md", "Hello {{name}}", "Say hi.", "Say hi...", "a.b",
    "What is 2*3", "{a,b}.txt", "foo.sh", "exec:foo.sh", "gen.py:fn", "x.unknown", "Summarize: http://x.com",
    "portkey://x/y", "runme", "plain", "./plain", "notes.md:foo", "Rate [1]/5", "Rate [a-c]/5", "a\\b", "a\\*b.txt",
    "# comment/x", "!neg/x.txt", "PROMPT.TXT", "Summarize this in one line: notes.txt", "v1.20", "café.txt",
    "😀😀.md", "A/B testing", "file.j2", "x.yaml:fn", "..txt", ".txt", "dir/", "/etc/nonexistent.txt", "[abc",
    "@(x)/y", "prompt.ts:make", "a:b:c.txt", "helicone://x.txt", "1/2", "Is it yes/no?", "Answer yes/no: {{q}}",
]  # fmt: skip
TESTS = [
    ("string", "t.yaml"), ("string", "missing.yaml"), ("string", "data/t.csv"), ("string", "data/missing.csv"),
    ("string", "data/*.csv"), ("string", "t.jsonl"), ("string", "gone.json"), ("string", "x.txt"),
    ("item", "t.yaml"), ("item", "nope.yaml"), ("item", "data/*.csv"), ("item", "What is 2+2?"), ("item", "*.yml"),
    ("item", "data/t.csv"), ("item", "gone.js"), ("item", "data/t.csv:fn"), ("path", "t.jsonl"), ("path", "no.csv"),
    ("default", "t.yaml"), ("default", "no.yaml"), ("default", "data/t.csv"), ("string", "file://data/*.csv"),
    ("string", "file://t.yaml"), ("item", "file://data/*.csv"), ("item", "file://nope/*.yaml"), ("path", "file://t.jsonl"),
]  # fmt: skip


def _node() -> str:
    node = shutil.which("node")
    require(node is not None, "node is not installed")
    return str(node)


def _run(node: str, script: str, promptfoo_modules: Path, base: Path, cases: object, tmp_path: Path) -> list[dict]:
    (tmp_path / "cases.json").write_text(json.dumps(cases), encoding="utf-8")
    dist = promptfoo_modules / "promptfoo" / "dist" / "src"
    done = subprocess.run(
        [node, str(PROBES / script), str(dist), str(base), str(tmp_path / "cases.json")],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_prompt_decisions_match_promptfoos_read_prompts(promptfoo_modules, tmp_path):
    base = tmp_path / "base"
    for name, text in {
        "p.txt": "hi",
        "prompts/a.txt": "hi",
        "plain": "x",
        "notes.md": "x",
        "runme": "#!/bin/sh\n",
    }.items():
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        (base / name).write_text(text)
    (base / "runme").chmod(0o755)
    (base / "sub").mkdir()
    for case in _run(_node(), "read_prompts.mjs", promptfoo_modules, base, PROMPTS, tmp_path):
        raw = case["raw"]
        assert paths.maybe_file_path(raw) == case["maybeFilePath"], raw
        if case["hasMagic"]:  # our hasMagic may only err towards a pattern (never reported)
            assert paths.has_magic(raw), raw
        use = paths.prompt_use(raw, base)
        fails = use is not None and not paths.loads_prompt(use)
        assert fails == case["outcome"].startswith("error"), (raw, case["outcome"])
        if fails:
            expected = "There are no prompts" if use.executable else str(use.path)
            assert expected in case["outcome"], (raw, case["outcome"])


def test_tests_decisions_match_promptfoos_read_tests(promptfoo_modules, tmp_path):
    base = tmp_path / "base"
    (base / "data").mkdir(parents=True)
    (base / "t.yaml").write_text("- vars: {a: 1}\n")
    (base / "t.jsonl").write_text('{"vars": {"a": 1}}\n')
    (base / "data" / "t.csv").write_text("a\n1\n")
    (base / "x.txt").write_text("text\n")
    cases = [{"kind": kind, "value": value} for kind, value in TESTS]
    for case in _run(_node(), "read_tests.mjs", promptfoo_modules, base, cases, tmp_path):
        kind, value = case["kind"], case["value"]
        if kind == "default":
            use = paths.default_test_use(value, base)
        elif kind == "path":
            use = paths.standalone_use(value, base)
        else:
            use = paths.tests_use(value, base, in_list=kind == "item")
        missing = use is not None and not paths.matches(use)
        said = case["outcome"] + case["log"]
        node_missing = re.search(r"ENOENT|Cannot find module|not found|No test files found", said) is not None
        assert missing == node_missing, (kind, value, case)
        if use is None:
            assert case["outcome"] == "loaded 0", (kind, value, case)


def test_hostile_one_line_prompts_neither_crash_nor_stall(tmp_path):
    # A name longer than the file system allows makes pathlib raise; a line of brace groups would
    # expand exponentially; runs of [ or +( without their closing character once cost quadratic time.
    long_path = "notes/" + "x" * 400
    prompts = [long_path + ".txt", long_path, "{a,b}" * 40 + "/x.txt", "[" * 20000 + "/", "+(" * 20000 + "/"]
    text = "prompts:\n" + "".join(f"  - {json.dumps(p)}\n" for p in prompts) + "providers: [echo]\n"
    text += f"tests: file://{'y' * 400}.csv\n"
    result = lint(tmp_path, text)
    assert "RL900" not in codes(result)
    assert findings(result) == [("RL010", 2), ("PF120", 3), ("PF120", 5), ("PF120", 6), ("RL010", 8)]


def test_default_test_vars_files_that_match_nothing_are_pf024(tmp_path):
    # resolveConfigs reads defaultTest with readTest, whose vars list or string goes to readTestFiles:
    # a glob that matches nothing adds no vars, silently (as for a test's vars).
    text = "prompts: ['Hi {{a}}']\nproviders: [echo]\ndefaultTest:\n  vars: [shared_vars.yaml]\ntests:\n  - vars: {}\n"
    assert lines_of(lint(tmp_path, text), "PF024") == [4]
    assert "PF024" not in codes(lint(tmp_path, text, **{"shared_vars.yaml": "a: 1\n"}))


def test_the_view_reads_a_prompt_file_named_without_file_prefix(tmp_path):
    # Counting outputs and grading use the prompt promptfoo sends: the file's text, not its name.
    text = "prompts: [prompts.txt, 'Is it yes/no?']\nproviders: [echo]\ntests:\n  - vars: {q: 1}\n"
    view = lint(tmp_path, text, **{"prompts.txt": "First {{q}}\n---\nSecond {{q}}\n"}).view
    assert view.prompt_count == 3
    assert view.prompt(0) == "First {{q}}" and view.prompt(1) == "Is it yes/no?"


def test_a_file_prefixed_csv_glob_is_read_literally(tmp_path):
    # readTests sends a tests string that is not YAML to readStandaloneTestsFile, which strips file://
    # and reads the rest as one path: the glob matches a file, yet promptfoo stops with ENOENT.
    files = {"data__a.csv": "a\n1\n", "cases__one.yaml": "- vars: {a: 1}\n"}
    result = lint(tmp_path, "prompts: [p]\nproviders: [echo]\ntests: file://data/*.csv\n", **files)
    assert findings(result) == [("RL010", 3)]
    assert "globs are not expanded" in result.diagnostics[0].message
    # A YAML glob, or a list item, is globbed: nothing to report when it matches.
    assert findings(lint(tmp_path, "prompts: [p]\nproviders: [echo]\ntests: file://cases/*.yaml\n", **files)) == []
    assert findings(lint(tmp_path, "prompts: [p]\nproviders: [echo]\ntests: [file://data/*.csv]\n", **files)) == []
