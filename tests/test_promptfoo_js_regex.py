"""PF125: a regex value JavaScript's RegExp refuses, found without loading a JavaScript engine.

``js_regex.refusal`` is checked against V8 itself (mini-racer, the grading's engine) on seeded
generated patterns built from the syntax where Python and JavaScript part ways; the lint path is
checked never to import the engine, in a fresh interpreter.
"""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from rubric_lsp.formats.promptfoo.js_regex import refusal
from rubric_lsp.lint import lint_text
from tests.conftest import require

TOKENS = [
    "a",
    "b",
    "z",
    "1",
    "_",
    ",",
    "<",
    ">",
    "=",
    "!",
    ":",
    ".",
    "-",
    "^",
    "$",
    "|",
    "*",
    "+",
    "?",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "[^",
    "{2}",
    "{1,}",
    "{2,1}",
    "{,3}",
    "(?:",
    "(?=",
    "(?!",
    "(?<=",
    "(?<!",
    "(?<n>",
    "(?<m>",
    "(?P<n>",
    "(?P=n)",
    "(?i)",
    "(?i:",
    "(?-i:",
    "(?im-s:",
    "(?ii:",
    "(?-:",
    "(?#c)",
    "\\",
    "\\d",
    "\\b",
    "\\B",
    "\\k<n>",
    "\\k",
    "\\1",
    "\\2",
    "\\0",
    "\\8",
    "\\c",
    "\\cA",
    "\\c1",
    "\\x4",
    "\\x41",
    "\\u004",
    "\\u0041",
    "\\u{41}",
    "\\p{L}",
    "\\Z",
    "\\A",
    "\\-",
    "\\]",
    "😀",
    "é",
]


def _patterns(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 7))) for _ in range(count)]


def test_the_issue_patterns():
    assert refusal("(?P<n>\\d+)") == "Invalid group"
    assert refusal("(?i)paris") == "Invalid group"
    assert refusal("a++") == "Nothing to repeat"
    assert refusal("(?P<n>x)") == "Invalid group"
    # Literals in JavaScript (Annex B), not refusals.
    assert refusal("ba{,3}$") is None and refusal("Paris\\Z") is None and refusal("^Paris$") is None


def test_every_message_is_v8s_on_generated_patterns():
    """2,000 seeded patterns: the same refusal, with the same words, as V8's own parser gives."""
    require(
        importlib.util.find_spec("py_mini_racer") is not None, "V8 (mini-racer, the [grade] extra) is the reference"
    )
    from rubric_lsp.formats.promptfoo.grading import javascript

    patterns = _patterns(20261129, 2000)
    refused = 0
    for pattern in patterns:
        theirs = javascript.regex_test(pattern, "")
        expected = theirs.split(f"/{pattern}/: ", 1)[1] if isinstance(theirs, str) else None
        assert refusal(pattern) == expected, pattern
        refused += expected is not None
    assert 400 < refused < 1600  # both kinds are well represented


CONFIG = """prompts: ['{{x}}']
providers: [echo]
tests:
  - vars: {x: hi}
    assert:
      - type: regex
        value: '(?P<n>\\d+)'
      - type: not-regex
        value: 'a++'
      - type: regex
        value: 'ba{,3}$'
      - type: regex
        value: '{{x}}('
      - type: javascript
        value: output.length > 0
"""


def test_pf125_reports_what_javascript_refuses():
    found = [(d.code, d.message) for d in lint_text(CONFIG, "promptfooconfig.yaml").diagnostics]
    assert [code for code, _ in found if code == "PF125"] == ["PF125", "PF125"]
    messages = [m for code, m in found if code == "PF125"]
    assert "/(?P<n>\\d+)/: Invalid group" in messages[0] and "(?<name>…)" in messages[0]
    assert "/a++/: Nothing to repeat" in messages[1] and "not-regex fails on every output" in messages[1]


@pytest.mark.parametrize("blocked", [False, True])
def test_the_lint_path_never_loads_the_javascript_engine(tmp_path, blocked):
    """rubric-lint on a config full of regex and javascript assertions: PF125 found, and neither the
    engine (py_mini_racer) nor the module that drives it imported; with the engine made unimportable too."""
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    probe = (
        "import sys, json\n"
        + ("sys.modules['py_mini_racer'] = None\n" if blocked else "")
        + f"sys.argv = ['rubric-lint', '--format', 'json', {str(config)!r}]\n"
        "from rubric_lsp.cli import lint_main\n"
        "import io, contextlib\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    code = lint_main()\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('py_mini_racer') and sys.modules[m] is not None)\n"
        "driver = 'rubric_lsp.formats.promptfoo.grading.javascript' in sys.modules\n"
        "grading = sorted(m for m in sys.modules if m.startswith('rubric_lsp.formats.promptfoo.grading'))\n"
        "print(json.dumps({'code': code, 'loaded': loaded, 'driver': driver, 'grading': grading, 'out': out.getvalue()}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=Path(__file__).parent.parent
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["loaded"] == [] and result["driver"] is False and result["grading"] == []
    codes = [finding["code"] for finding in json.loads(result["out"])]
    assert codes.count("PF125") == 2 and result["code"] == 1
