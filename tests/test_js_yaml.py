"""Issue 24 item 6: PF116 reports what promptfoo's YAML reader (js-yaml 5.4.1) refuses that libyaml reads.

Every expectation is checked against the released js-yaml that promptfoo 0.123.1 pins, run
through node (``tests/js_yaml_oracle.mjs``: its ``parseEvents``, and promptfoo's ``loadYaml``
with the same schema); tests that need it skip outside CI without the package
(``promptfoo_modules``). The documents are our own.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from rubric_lsp.document import issues as K
from rubric_lsp.document import parse_document
from rubric_lsp.document.js_yaml_refusals import js_yaml_refusal, suspicious
from rubric_lsp.lint import lint_text
from tests.conftest import require

ORACLE = Path(__file__).with_name("js_yaml_oracle.mjs")
CONFIG = "prompts:\n  - 'Answer: {{q}}'\nproviders:\n  - openai:gpt-4.1-mini\ntests:\n"
HEAD_LINES = CONFIG.count("\n")

# (name, a config libyaml reads and js-yaml refuses, js-yaml's reason, its (line:column), 1-based)
REFUSED = [
    (
        "an anchor and a tag on an indented key",
        CONFIG + "  - vars:\n      &a !!str q: x\n      j: 1\n",
        "bad indentation of a mapping entry",
        (8, 7),
    ),
    (
        "flow sequence continuation left of its key",
        CONFIG + "  - vars:\n      q: [a,\n      b]\n",
        "deficient indentation",
        (8, 7),
    ),
    ("flow mapping continuation", CONFIG + "  - vars:\n      q: {a: 1,\n     b: 2}\n", "deficient indentation", (8, 6)),
    (
        "double-quoted continuation",
        CONFIG + '  - vars:\n      q: "two\n      lines"\n',
        "deficient indentation",
        (8, 7),
    ),
    (
        "single-quoted in a sequence item",
        CONFIG + "  - description: 'two\n    lines'\n",
        "deficient indentation",
        (7, 5),
    ),
    ("tab inside a flow sequence", CONFIG + "  - vars: {q: [a,\tb]}\n", "deficient indentation", (6, 19)),
    (
        "comment glued to a quote",
        CONFIG + "  - description: 'smoke'#first\n",
        "bad indentation of a mapping entry",
        (6, 25),
    ),
    (
        "glued comment on a block header",
        CONFIG + "  - vars:\n      q: |#note\n        text\n",
        "a line break is expected",
        (7, 11),
    ),
    (
        "spaces after an empty block scalar",
        CONFIG + "  - vars:\n      q: |\n   \n  - vars: {q: x}\n",
        "bad indentation of a mapping entry",
        (9, 3),
    ),
    ("unknown local tag", CONFIG + "  - vars:\n      q: !include q.txt\n", "unknown scalar tag !<!include>", (7, 10)),
    ("a tag after an anchor", CONFIG + "  - vars:\n      q: &home !env HOME\n", "unknown scalar tag !<!env>", (7, 16)),
    (
        "a sequence under a scalar tag",
        CONFIG + "  - vars:\n      q: !!str [x]\n",
        "unknown sequence tag !<tag:yaml.org,2002:str>",
        (7, 10),
    ),
    (
        "a scalar under a sequence tag",
        CONFIG + "  - vars:\n      q: !!seq x\n",
        "cannot resolve a node with !<tag:yaml.org,2002:seq> explicit tag",
        (7, 10),
    ),
    (
        "a flow sequence as a key",
        CONFIG + "  - vars:\n      [a, b]: c\n",
        "object-based map does not support complex keys",
        (1, 1),
    ),
    (
        "an alias of a mapping as a key",
        CONFIG + "  - vars: &v {a: 1}\n    x:\n      *v : 2\n",
        "object-based map does not support complex keys",
        (8, 8),
    ),
    (
        "nesting past js-yaml's 100 levels",
        CONFIG + "  - vars: {q: " + "[" * 100 + "]" * 100 + "}\n",
        "nesting exceeded maxDepth (100)",
        (6, 111),
    ),
]
# Read alike by both: no finding, though the scan may look (indentation one column further).
LOADED = [
    CONFIG + "  - vars:\n      q: [a,\n       b]\n",
    CONFIG + '  - vars:\n      q: "two\n       lines"\n',
    CONFIG + "  - description: 'two\n     lines'\n",
    CONFIG + "  - vars: {q: [a, b]}  # tab-free\n",
    CONFIG + "  - description: 'smoke' #first\n",
    CONFIG + "  - vars:\n      q: |\n        text\tmore\n",
    CONFIG + "  - vars: {q: " + "[" * 60 + "]" * 60 + "}\n",
    CONFIG
    + "  - vars:\n      q: ! plain\n      r: !!binary aGk=\n      s: !!set {a, b}\n      t: !!omap [a: 1]\n      u: !!map\n",
    CONFIG + "  - description: Hello! There\n    vars: {q: !!timestamp 2024-01-01}\n",
    CONFIG + "  - vars: !!set\n      ? [a]\n    description: 'Why? **Because**: {{x}}: y'\n",
]


def js_yaml(modules: Path, texts: list[str]) -> list[dict]:
    """js-yaml's verdicts on ``texts``: {"parse": …, "load": …}, each None or {reason, position, line, column}."""
    node = shutil.which("node")
    require(node is not None, "node is not installed")
    done = subprocess.run(
        [node, str(ORACLE), str(modules)], input=json.dumps(texts), capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def pf115(text: str, path: str = "promptfooconfig.yaml") -> list:
    return [d for d in lint_text(text, path).diagnostics if d.code == "PF116"]


def libyaml_reads(text: str) -> bool:
    doc = parse_document(text, "promptfooconfig.yaml")
    return doc.root is not None and not any(i.kind == K.SYNTAX_ERROR for i in doc.issues)


@pytest.mark.parametrize("name, text, reason, where", REFUSED, ids=[r[0] for r in REFUSED])
def test_a_js_yaml_refusal_is_an_error_with_its_reason_and_position(name, text, reason, where):
    assert libyaml_reads(text), "libyaml refuses it too: RL001's business"
    found = pf115(text)
    assert len(found) == 1
    assert found[0].severity.name == "ERROR"
    assert f'"{reason} ({where[0]}:{where[1]})"' in found[0].message
    if where != (1, 1):  # js-yaml places a collection key's refusal at the file's start; PF116 marks the key
        assert found[0].range.start.line + 1 == where[0]


@pytest.mark.parametrize("text", LOADED)
def test_what_js_yaml_loads_gets_no_finding(text):
    assert libyaml_reads(text)
    assert pf115(text) == []


def test_the_expectations_are_js_yaml_s_own(promptfoo_modules):
    texts = [r[1] for r in REFUSED] + LOADED
    verdicts = js_yaml(promptfoo_modules, texts)
    for (name, _text, reason, (line, column)), verdict in zip(REFUSED, verdicts, strict=False):
        load = verdict["load"]
        assert load is not None, name
        assert (load["reason"], load["line"] + 1, load["column"] + 1) == (reason, line, column), name
    for text, verdict in zip(LOADED, verdicts[len(REFUSED) :], strict=True):
        assert verdict["load"] is None, text


def test_other_formats_and_json_configs_are_left_alone():
    text = "criteria:\n  - requirement: [a,\n    b]\n"  # autorubric: PyYAML reads it (AR109 is its check)
    assert [d for d in lint_text(text, "r.rubric.yaml").diagnostics if d.code == "PF116"] == []
    assert pf115('{"prompts": ["x"],\n"providers": ["echo"]}', "promptfooconfig.json") == []


# --- a seeded, bounded differential test against js-yaml itself -------------------------------

_VALUES = [
    "[alpha, beta]",
    "{k: v, n: 2}",
    "'single quoted'",
    '"double quoted"',
    "plain words here",
    "|\n{i}  literal line\n{i}  second",
    ">-\n{i}  folded line",
    "[a, [b, c], {d: e}]",
    "&anchor [x, y]",
    # Constructs the scan looks for, inside block scalars (where it ignores them) until a shifted line leaves one.
    "|\n{i}  x [a]: b, y {c}: d, 'q'#c\n{i}  ? x\n{i}  -[y]",
    ">\n{i}  &x\n{i}  !t\n{i}  |\n{i}  k {v}: w",
]


def _config(rng: random.Random) -> str:
    """A promptfoo-shaped config whose values span lines in the ways js-yaml and libyaml weigh."""
    lines = [CONFIG.rstrip("\n")]
    for _ in range(rng.randint(1, 3)):
        lines.append("  - vars:")
        for key in rng.sample(["q", "topic", "tags", "ctx"], rng.randint(1, 3)):
            value = rng.choice(_VALUES).replace("{i}", "      ")
            lines.append(f"      {key}: {value}")
        if rng.random() < 0.5:
            lines.append(f"    description: {rng.choice(_VALUES[:5])}")
    text = "\n".join(lines) + "\n"
    for _ in range(rng.randint(1, 3)):
        text = _mutate(rng, text)
    return text


def _mutate(rng: random.Random, text: str) -> str:
    """Break a value across lines, shift a line's indentation, or put in a tab or a glued comment."""
    lines = text.split("\n")
    i = rng.randrange(HEAD_LINES, len(lines))
    line = lines[i]
    choice = rng.random()
    if choice < 0.45:  # break after a separator inside the value, the continuation at some column
        cut = [j for j, c in enumerate(line) if c in ", " and j > len(line) - len(line.lstrip()) + 4]
        if cut:
            j = rng.choice(cut) + 1
            lines[i] = line[:j].rstrip(" ") + "\n" + " " * rng.randint(0, 9) + line[j:].lstrip(" ")
    elif choice < 0.8:  # shift the indentation
        body = line.lstrip(" ")
        lines[i] = " " * max(0, len(line) - len(body) + rng.choice([-2, -1, 1, 2])) + body
    elif choice < 0.9:
        j = rng.randrange(len(line) + 1)
        lines[i] = line[:j] + "\t" + line[j:]
    else:
        lines[i] = line + rng.choice(["#note", " #note", "\n   ", "\n"])
    return "\n".join(lines)


def test_pf115_matches_js_yaml_on_generated_configs(promptfoo_modules):
    rng = random.Random(20241126)
    texts = [_config(rng) for _ in range(1500)]
    verdicts = js_yaml(promptfoo_modules, texts)
    compared = refused = 0
    for text, verdict in zip(texts, verdicts, strict=True):
        mine = js_yaml_refusal(text)
        parse = verdict["parse"]
        # The port throws exactly where js-yaml's parser does, whatever libyaml says.
        assert (mine and (mine.reason, mine.offset)) == (parse and (parse["reason"], parse["position"])), text
        if not libyaml_reads(text):
            continue
        compared += 1
        found = pf115(text)
        if parse is None:
            assert found == [], text
            continue
        refused += 1
        doc = parse_document(text, "promptfooconfig.yaml")
        assert suspicious(doc.text, doc.flow_lines, doc.block_scalars, doc.root), (
            f"the scan let a refusal through:\n{text}"
        )
        assert len(found) == 1, text
        assert found[0].range.start.line == parse["line"], text
        assert f"{parse['reason']} ({parse['line'] + 1}:{parse['column'] + 1})" in found[0].message
    # The generator must exercise both sides.
    assert compared > 500 and refused > 100, (compared, refused)  # this seed: 622 and 148


# Text that the scan's patterns look for (js_yaml_refusals._GATED), here inside quotes: content to both readers.
_QUOTED_WORDS = ["more words", "{Z}: one", "[a]: b", "x #c", "ends &anchor", "ends !tag", "-[y]", "?[x]", "| x"]


def _quoted(rng: random.Random, column: int) -> str:
    """A quoted scalar spanning lines (or not), its continuation lines at columns around ``column``."""
    quote = rng.choice("\"'")
    lines = [quote + rng.choice(_QUOTED_WORDS)]
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        if rng.random() < 0.2:
            lines.append(" " * rng.randint(0, column + 2))  # a blank line, spaces only
        lines.append(" " * max(0, column + rng.choice([-2, -1, 0, 1, 2, 4])) + rng.choice(_QUOTED_WORDS))
    return "\n".join(lines) + quote


def _block(rng: random.Random, indent: int, depth: int) -> list[str]:
    """Lines of a block mapping or sequence at ``indent``: entries that are quoted scalars spanning lines,
    plain words, or nested collections (compact ``- key:`` entries and sequences at their key's column too)."""
    lines: list[str] = []
    sequence = rng.random() < 0.5
    for n in range(rng.randint(1, 3)):
        lead = " " * indent + ("- " if sequence else f"k{n}: ")
        column = indent + (2 if sequence else 0)  # where js-yaml's collection of a value starts
        choice = rng.random()
        if choice < 0.45:
            lines.extend((lead + _quoted(rng, column if sequence else indent + 1)).split("\n"))
        elif choice < 0.55:  # the quoted scalar on a line of its own below its key or dash
            below = " " * (indent + rng.choice([1, 2, 4]))
            lines.append(lead.rstrip())
            lines.extend((below + _quoted(rng, column if sequence else indent + 1)).split("\n"))
        elif choice < 0.65 or depth > 2:
            lines.append(lead + "plain words")
        elif sequence and choice < 0.8:  # a compact mapping: "- k0: ..." then its keys at column
            inner = _block(rng, column, depth + 1)
            while inner and inner[0].lstrip().startswith("-"):
                inner = _block(rng, column, depth + 1)
            if not inner:
                inner = [" " * column + "k: v"]
            lines.append(lead + inner[0][column:])
            lines.extend(inner[1:])
        else:
            lines.append(lead.rstrip())
            nested = indent if not sequence and rng.random() < 0.3 else indent + 2
            lines.extend(_block(rng, nested, depth + 1))
    return lines


def test_a_quoted_scalar_spanning_lines_is_read_by_the_port_whenever_js_yaml_may_refuse_it(promptfoo_modules):
    """The reader leaves a quoted scalar spanning lines to a cheap check instead of the port when it is an
    entry of a block collection (yaml_reader.quoted_lines_indented), and the scan looks past what quoted
    scalars hold: on generated documents, nested and compact, every one js-yaml refuses must still be
    suspicious, and the port must be spared some (each of them holds a quoted scalar)."""
    rng = random.Random(20261130)
    texts = ["\n".join(["tests:", *_block(rng, 2, 0)]) + "\n" for _ in range(1500)]
    verdicts = js_yaml(promptfoo_modules, texts)
    spared = refused = 0
    for text, verdict in zip(texts, verdicts, strict=True):
        if not libyaml_reads(text):
            continue
        doc = parse_document(text, "promptfooconfig.yaml")
        flagged = suspicious(doc.text, doc.flow_lines, doc.block_scalars, doc.root)
        if verdict["parse"] is not None:
            refused += 1
            assert flagged, f"the reader let a refusal through:\n{text}"
        elif not flagged:
            spared += 1
    assert refused > 200 and spared > 200, (refused, spared)


# --- real files: no false alarm, and every refusal found ------------------------------------


def _corpus_yaml(corpus: Path) -> list[Path]:
    files = sorted((corpus / "promptfoo").rglob("*.yaml")) + sorted((corpus / "promptfoo").rglob("*.yml"))
    labels = json.loads((corpus / "wild" / "labels.json").read_text())
    return files + [corpus / "wild" / c["tree_file"] for c in labels["configs"]]


def test_pf115_on_real_files_is_js_yaml_s_verdict(corpus, promptfoo_modules):
    """Every YAML file of promptfoo's examples and every wild config: the port throws where js-yaml's
    parser does, and PF116 is reported exactly when promptfoo's loadYaml refuses a file libyaml reads
    (in our half of the wild corpus none is refused: every file must be left alone)."""
    files = _corpus_yaml(corpus)
    texts = [parse_document(path.read_bytes(), str(path)).text for path in files]
    verdicts = js_yaml(promptfoo_modules, texts)
    for path, text, verdict in zip(files, texts, verdicts, strict=True):
        mine = js_yaml_refusal(text)
        parse, load = verdict["parse"], verdict["load"]
        assert (mine and mine.reason) == (parse and parse["reason"]), path
        found = pf115(text)
        if load is None or not libyaml_reads(text):
            assert found == [], path
        elif parse is not None:
            assert [d.range.start.line for d in found] == [parse["line"]], path


def test_a_referenced_test_file_js_yaml_refuses_is_reported_at_its_reference(tmp_path):
    """promptfoo reads `tests: file://…yaml` with the same loadYaml (readTestFiles), so it refuses those too."""
    (tmp_path / "tests.yaml").write_text('- vars:\n    q: "two\n    lines"\n')
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(CONFIG.replace("tests:\n", "tests: file://tests.yaml\n"))
    from rubric_lsp.lint import lint_path

    found = [d for d in lint_path(config).diagnostics if d.code == "PF116"]
    assert len(found) == 1
    assert found[0].range.start.line == HEAD_LINES - 1  # the `tests:` line holding the reference
    assert found[0].message.startswith("tests.yaml line 3: ") and '"deficient indentation (3:5)"' in found[0].message
