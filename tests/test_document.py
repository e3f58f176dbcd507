"""The document model: exact ranges, plain values, and what goes wrong reading a file."""

from __future__ import annotations

import pytest

from rubric_lsp.document import Position, parse_document
from rubric_lsp.fixes import apply_edits
from tests.helpers import codes, lines_of, lint


def at(doc, node):
    """(line, character) of a node's start and end, 0-based."""
    rng = doc.range(node)
    return (rng.start.line, rng.start.character), (rng.end.line, rng.end.character)


def kinds(doc):
    return [issue.kind for issue in doc.issues]


# -- ranges -------------------------------------------------------------------


def test_every_key_and_value_has_its_exact_range():
    text = "criteria:\n  - name: accuracy\n    weight: 10\n"
    doc = parse_document(text, "x.yaml")
    item = doc.root.get("criteria").elements()[0]
    assert at(doc, item.key_node("name")) == ((1, 4), (1, 8))
    assert at(doc, item.get("name")) == ((1, 10), (1, 18))
    weight = item.get("weight")
    assert at(doc, weight) == ((2, 12), (2, 14))
    assert text[weight.start : weight.end] == "10" and weight.value == 10


def test_columns_count_code_points_with_non_ascii_text():
    doc = parse_document("a: é😀\nb: x\n", "x.yaml")
    assert at(doc, doc.root.get("a")) == ((0, 3), (0, 5))
    assert at(doc, doc.root.get("b")) == ((1, 3), (1, 4))


def test_bom_is_dropped_and_ranges_start_after_it():
    doc = parse_document("\ufeffa: 1\n".encode(), "x.yaml")
    assert kinds(doc) == []
    assert doc.text.startswith("a:")
    assert at(doc, doc.root.get("a")) == ((0, 3), (0, 4))


def test_crlf_line_endings_keep_ranges_on_their_lines():
    doc = parse_document(b"a: 1\r\nb: yes\r\nc: [1, 2\r\n", "x.yaml")
    assert kinds(doc) == ["syntax-error"]
    rng = doc.range(doc.issues[0].span)
    assert rng.start.line == rng.end.line
    doc = parse_document(b"a: 1\r\nb: yes\r\n", "x.yaml")
    assert at(doc, doc.root.get("b")) == ((1, 3), (1, 6))
    assert doc.lines.line_text(1) == "b: yes"  # no stray \r in the line
    fixed = apply_edits(doc.text, doc.issues[0].edits)
    assert fixed == 'a: 1\r\nb: "yes"\r\n'


def test_a_lone_carriage_return_is_a_line_break_as_in_lsp_and_yaml():
    doc = parse_document("a: 1\rb: yes\r\nc: 2\n", "x.yaml")
    assert at(doc, doc.root.get("b")) == ((1, 3), (1, 6))
    assert at(doc, doc.root.get("c")) == ((2, 3), (2, 4))
    assert doc.lines.line_text(0) == "a: 1"


def test_tabs_in_indentation_are_a_syntax_error_that_says_so():
    doc = parse_document("a:\n\tb: 1\n", "x.yaml")
    assert kinds(doc) == ["syntax-error"]
    assert "tabs" in doc.issues[0].message
    assert doc.range(doc.issues[0].span).start == Position(1, 0)


def test_tabs_inside_values_are_fine():
    doc = parse_document("a: one\ttwo\nb: 1\t# comment\n", "x.yaml")
    assert kinds(doc) == [] and doc.value == {"a": "one\ttwo", "b": 1}


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n# and another\n", "---\n"])
def test_empty_and_comment_only_files_have_no_root_and_no_issue(text):
    doc = parse_document(text, "x.yaml")
    assert doc.issues == []
    assert doc.value is None or doc.value == ""


def test_empty_json_file_has_no_root():
    doc = parse_document("", "x.json")
    assert doc.root is None and doc.issues == []


# -- syntax errors -------------------------------------------------------------


@pytest.mark.parametrize(
    "text, path, line",
    [
        ("a: 1\nb: c: d\n", "x.yaml", 1),
        ("a: [1, 2\nb: 3\n", "x.yaml", 1),
        ('a: "open\n  more\n', "x.yaml", 0),
        ('{"a": 1\n "b": 2}', "x.json", 1),
        ('{"a": "x\n"}', "x.json", 0),
        ('{"a": 1', "x.json", 0),
        ("[1, 2] 3", "x.json", 0),
    ],
)
def test_syntax_errors_have_a_position_and_a_range_on_one_line(text, path, line):
    doc = parse_document(text, path)
    assert kinds(doc) == ["syntax-error"]
    issue = doc.issues[0]
    assert issue.fatal and doc.root is None
    rng = doc.range(issue.span)
    assert rng.start.line == line
    assert rng.end.line == rng.start.line
    assert issue.span.end > issue.span.start


def test_unterminated_quote_points_at_the_opening_quote():
    doc = parse_document('requirement: "Cites sources\n  weight: 10\n', "x.yaml")
    assert doc.range(doc.issues[0].span).start == Position(0, 13)


def test_syntax_error_reported_through_rl001_on_its_line():
    result = lint("criteria:\n  - requirement: [unclosed\n", "x.rubric.yaml")
    assert codes(result) == ["RL001"]


def test_multi_document_yaml_reports_the_second_document_and_keeps_the_first():
    doc = parse_document("a: 1\n---\nb: 2\n", "x.yaml")
    assert kinds(doc) == ["syntax-error"]
    assert "second YAML document" in doc.issues[0].message
    assert at(doc, doc.issues[0].span) == ((1, 0), (1, 3))
    assert doc.value == {"a": 1}


def test_explicit_single_document_markers_are_fine():
    doc = parse_document("---\na: 1\n...\n", "x.yaml")
    assert kinds(doc) == [] and doc.value == {"a": 1}


# -- values and nodes -------------------------------------------------------------


def test_plain_values_remember_their_nodes():
    doc = parse_document("criteria:\n  - name: a\n    weight: 2\n", "x.yaml")
    value = doc.value
    assert value == {"criteria": [{"name": "a", "weight": 2}]}
    assert value.node is doc.root
    assert value["criteria"].node is doc.root.get("criteria")
    assert at(doc, value["criteria"][0].node) == ((1, 4), (2, 13))


def test_non_string_keys_are_kept():
    doc = parse_document("1: one\nfalse: no-string\nnull: nothing\n? [a, b]\n: list key\n1.5: float\n", "x.yaml")
    value = doc.value
    assert value[1] == "one" and value[False] == "no-string" and value[None] == "nothing"
    assert value[1.5] == "float"
    assert "list key" in value.values()
    assert doc.root.get(1).value == "one"


def test_merge_keys_apply_and_explicit_keys_win():
    doc = parse_document(
        "base: &b {weight: 1, scale_type: ordinal}\nother: &o {weight: 7, extra: 1}\nc:\n  <<: [*b, *o]\n  weight: 3\n",
        "x.yaml",
    )
    assert kinds(doc) == []
    assert doc.value["c"] == {"weight": 3, "scale_type": "ordinal", "extra": 1}
    assert doc.root.get("c").get("weight").value == 3


def test_merge_list_earlier_source_wins():
    doc = parse_document("a: &a {k: 1}\nb: &b {k: 2}\nc:\n  <<: [*a, *b]\n", "x.yaml")
    assert doc.value["c"]["k"] == 1


def test_resolve_and_at_follow_paths():
    doc = parse_document("a:\n  - b: 1\n  - b: 2\n", "x.yaml")
    node, key_node, followed = doc.root.resolve(["a", 1, "b"])
    assert node.value == 2 and key_node.value == "b" and followed == 3
    node, _, followed = doc.root.resolve(["a", 5])
    assert followed == 1 and node.is_seq


def test_json_values_and_positions():
    doc = parse_document('{\n  "a": [1, 2.5, true, null, "x\\u00e9"]\n}', "x.json")
    assert doc.value == {"a": [1, 2.5, True, None, "xé"]}
    assert at(doc, doc.root.get("a").elements()[1]) == ((1, 11), (1, 14))


def test_jsonl_reports_a_bad_line_by_number_and_keeps_the_others():
    doc = parse_document('{"id": 1}\n{"id": \n\n{"id": 3}\n', "cases.jsonl")
    assert kinds(doc) == ["syntax-error"]
    assert doc.issues[0].message.startswith("line 2:")
    assert doc.range(doc.issues[0].span).start.line == 1
    assert [item["id"] for item in doc.value] == [1, 3]


# -- duplicate keys ----------------------------------------------------------------


def test_duplicate_key_points_at_both():
    doc = parse_document("name: a\nweight: 1\nweight: 2\n", "x.yaml")
    assert kinds(doc) == ["duplicate-key"]
    issue = doc.issues[0]
    assert at(doc, issue.span) == ((2, 0), (2, 6))
    ((related_span, _note),) = issue.related
    assert at(doc, related_span) == ((1, 0), (1, 6))
    assert "line 2" in issue.message
    assert doc.value["weight"] == 2  # last wins, like the loaders


def test_duplicate_key_in_json_and_through_the_rule():
    doc = parse_document('{"a": 1,\n "a": 2}', "x.json")
    assert kinds(doc) == ["duplicate-key"]
    result = lint("criteria:\n  - requirement: x\n    weight: 1\n    weight: 2\n", "x.rubric.yaml")
    assert lines_of(result, "RL002") == [4]
    diag = next(d for d in result.diagnostics if d.code == "RL002")
    assert len(diag.related) == 1
    assert result.document.range(diag.related[0].span).start.line == 2


def test_near_miss_duplicates_are_not_reported():
    doc = parse_document("a: 1\nA: 2\n'1': x\n1: y\ntrue: z\n'true': w\nb:\n  a: 1\n", "x.yaml")
    assert kinds(doc) == []


def test_keys_merged_from_an_anchor_are_not_duplicates():
    doc = parse_document("base: &b {k: 1}\nc:\n  <<: *b\n  k: 2\n", "x.yaml")
    assert kinds(doc) == []


# -- YAML 1.1 values -------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw", ["yes", "no", "on", "off", "NO", "Yes", "ON", "010", "0777", "1:30", "0o17", "1e3", "1.5e3"]
)
def test_yaml11_values_are_flagged_with_a_quoting_fix(raw):
    text = f"criteria:\n  - requirement: x\n    label: {raw}\n"
    result = lint(text, "x.rubric.yaml")
    assert lines_of(result, "RL005") == [3]
    diag = next(d for d in result.diagnostics if d.code == "RL005")
    assert diag.severity.label == "warning"
    assert diag.fix is not None and diag.fix.safe
    assert apply_edits(result.document.text, diag.fix.edits) == text.replace(f"label: {raw}", f'label: "{raw}"')


@pytest.mark.parametrize(
    "raw",
    [
        "'yes'",
        '"on"',
        "true",
        "false",
        "True",
        "0",
        "0.5",
        "10",
        "-3",
        "1.5e+3",
        "0x1F",
        "yes please",
        "1.2.3",
        "y",
        "n",
        "~",
    ],
)
def test_yaml11_near_misses_are_not_flagged(raw):
    result = lint(f"criteria:\n  - requirement: x\n    label: {raw}\n", "x.rubric.yaml")
    assert "RL005" not in codes(result)


def test_yaml11_values_in_keys_and_flow_collections():
    doc = parse_document("on: push\nlist: [yes, 'no', 010]\n", "x.yaml")
    assert [doc.text[i.span.start : i.span.end] for i in doc.issues] == ["on", "yes", "010"]


def test_yaml11_message_says_both_readings():
    doc = parse_document("a: yes\nb: 010\n", "x.yaml")
    assert "boolean true" in doc.issues[0].message and 'string "yes"' in doc.issues[0].message
    assert "8" in doc.issues[1].message


# -- trailing commas in JSON -----------------------------------------------------------


def test_trailing_commas_are_reported_once_with_one_fix_for_all():
    text = '{"a": [1, 2,],\n "b": {"c": 1,},}'
    doc = parse_document(text, "x.json")
    assert kinds(doc) == ["trailing-comma"]
    issue = doc.issues[0]
    assert len(issue.related) == 2 and "2 more" in issue.message
    fixed = apply_edits(text, issue.edits)
    assert fixed == '{"a": [1, 2],\n "b": {"c": 1}}'
    assert parse_document(fixed, "x.json").issues == []


# -- comments -------------------------------------------------------------------------


def test_comments_ignore_hash_inside_scalars():
    doc = parse_document(
        "a: \"x # not a comment\"\nb: 'y # nor this'\nc: |\n  block # text\nd: 1  # real\n# own line\ne: f#g\n",
        "x.yaml",
    )
    assert doc.comments() == [(4, "real"), (5, "own line")]


def test_comments_of_unreadable_yaml_fall_back_to_a_line_scan():
    doc = parse_document('a: [1\nb: "#x"  # c\n', "x.yaml")
    assert doc.root is None
    assert doc.comments() == [(1, "c")]


def test_json_accepts_python_json_special_numbers():
    # json.loads (and so autorubric) reads NaN and ±Infinity; they must not be syntax errors.
    import math

    from rubric_lsp.document import parse_document

    doc = parse_document('{"a": NaN, "b": Infinity, "c": -Infinity, "d": -1}', "x.json")
    assert doc.issues == []
    assert math.isnan(doc.value["a"]) and doc.value["b"] == math.inf and doc.value["c"] == -math.inf
    assert doc.value["d"] == -1
