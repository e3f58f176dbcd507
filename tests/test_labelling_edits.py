"""The minimal edits labels are written with: everything outside the edited span is the file's own, byte for
byte, and the result reads back as the intended value (JSON documents; a labels file's CSV and JSONL rows)."""

from __future__ import annotations

import csv
import io
import json
import random

import pytest

from rubric_lsp.document import parse_document
from rubric_lsp.fixes import apply_edits
from rubric_lsp.labelling import edits, table


def edited(text, change):
    doc = parse_document(text, "x.json")
    return apply_edits(text, change(doc, doc.root))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{\n  "a": 1\n}\n', '{\n  "a": 1,\n  "gt": ["MET"],\n  "why": [null]\n}\n'),
        ('{\n\t"a": 1\n}', '{\n\t"a": 1,\n\t"gt": ["MET"],\n\t"why": [null]\n}'),
        ('{"a": 1, "b": 2}', '{"a": 1, "b": 2, "gt": ["MET"], "why": [null]}'),
        ("{}", '{"gt": ["MET"], "why": [null]}'),
        ('{\r\n  "a": "é"\r\n}\r\n', '{\r\n  "a": "é",\r\n  "gt": ["MET"],\r\n  "why": [null]\r\n}\r\n'),
    ],
)
def test_new_keys_follow_the_last_pair_as_it_is_written(text, expected):
    result = edited(text, lambda doc, root: edits.set_keys(doc, root, [("gt", ["MET"]), ("why", [None])]))
    assert result == expected
    assert json.loads(result)["gt"] == ["MET"]


def test_a_list_of_the_same_length_changes_only_its_differing_entries():
    text = '{"gt": [ "MET" ,"UNMET",\n   "Rude" ], "x": 1}'
    result = edited(text, lambda doc, root: edits.set_keys(doc, root, [("gt", ["MET", "MET", "Rude"])]))
    assert result == '{"gt": [ "MET" ,"MET",\n   "Rude" ], "x": 1}'
    other = edited(text, lambda doc, root: edits.set_keys(doc, root, [("gt", ["MET"])]))
    assert other == '{"gt": ["MET"], "x": 1}'
    assert edited(text, lambda doc, root: edits.set_keys(doc, root, [("gt", ["MET", "UNMET", "Rude"])])) == text


@pytest.mark.parametrize(
    ("text", "removed"),
    [
        ('{\n  "a": 1,\n  "gt": [1],\n  "b": 2\n}', '{\n  "a": 1,\n  "b": 2\n}'),
        ('{\n  "a": 1,\n  "gt": [1]\n}', '{\n  "a": 1\n}'),
        ('{\n  "gt": [1],\n  "a": 1\n}', '{\n  "a": 1\n}'),
        ('{"gt": [1]}', "{}"),
        ('{"a": 1, "gt": [1], "gt": [2], "b": 3}', '{"a": 1, "b": 3}'),
        ('{"gt": [1], "gt": [2], "b": 3}', '{"b": 3}'),
        ('{"a": 1}', '{"a": 1}'),
    ],
)
def test_a_removed_key_takes_one_comma_and_its_line(text, removed):
    assert edited(text, lambda doc, root: edits.remove_key(doc, root, "gt")) == removed
    json.loads(removed)


def test_random_objects_keep_every_other_byte():
    rng = random.Random(37)
    for _ in range(200):
        keys = [f"k{i}" for i in range(rng.randint(0, 5))]
        indent = rng.choice(["  ", "\t", "    "])
        if keys and rng.random() < 0.5:
            body = "{" + ", ".join(f'"{k}": {rng.randint(0, 9)}' for k in keys) + "}"
        else:
            body = "{" + ",".join(f'\n{indent}"{k}": {rng.randint(0, 9)}' for k in keys) + ("\n}" if keys else "}")
        value = [rng.choice(["MET", "UNMET"]) for _ in range(rng.randint(1, 3))]
        added = edited(body, lambda doc, root, value=value: edits.set_keys(doc, root, [("gt", value)]))
        assert json.loads(added) == {**json.loads(body), "gt": value}
        back = edited(added, lambda doc, root: edits.remove_key(doc, root, "gt"))
        assert back == body


def test_a_csv_row_is_appended_replaced_and_removed_in_place():
    text = 'config,test,assertion,output,verdict\r\np.yaml,1,polite,"hi,\nAnn",pass\r\np.yaml,1,polite,bye,fail\r\n'
    rows = table.read(text, jsonl=False)
    assert [r.number for r in rows.rows] == [2, 4] and rows.rows[0].fields["output"] == "hi,\nAnn"
    wanted = {"test": "1", "assertion": "polite", "output": "bye", "labeller": ""}
    changed = table.put(rows, wanted, {"config": "p.yaml", **wanted, "verdict": "pass", "labeller": "ann"}, ["config"])
    assert changed == (
        'config,test,assertion,output,verdict,labeller\r\np.yaml,1,polite,"hi,\nAnn",pass\r\np.yaml,1,polite,bye,pass,ann\r\n'
    )
    read = list(csv.DictReader(io.StringIO(changed)))
    assert read[0]["labeller"] is None and read[1]["labeller"] == "ann"
    new = {"test": "1", "assertion": "polite", "output": "yo", "labeller": "bob"}
    appended = table.put(table.read(changed, False), new, {**new, "verdict": "fail"}, ["config"])
    assert appended == changed + ",1,polite,yo,fail,bob\r\n"
    removed = table.put(table.read(appended, False), {"output": "hi,\nAnn"}, None, [])
    assert removed == appended.replace('p.yaml,1,polite,"hi,\nAnn",pass\r\n', "")


def test_a_new_csv_gets_its_header_and_a_jsonl_row_its_line():
    empty = table.read("", jsonl=False)
    text = table.put(
        empty, {"output": "x"}, {"config": "c.yaml", "output": "x", "verdict": "pass"}, ["config", "output", "verdict"]
    )
    assert text == "config,output,verdict\nc.yaml,x,pass\n"
    lines = '{"output": "a", "verdict": "pass"}\n\n{"output": "b", "verdict": "fail"}'
    jsonl = table.read(lines, jsonl=True)
    assert [r.number for r in jsonl.rows] == [1, 3]
    replaced = table.put(jsonl, {"output": "b"}, {"output": "b", "verdict": "pass"}, [])
    assert replaced == '{"output": "a", "verdict": "pass"}\n\n{"output": "b", "verdict": "pass"}\n'
    appended = table.put(table.read(lines, True), {"output": "c"}, {"output": "c", "verdict": "fail"}, [])
    assert appended == lines + '\n{"output": "c", "verdict": "fail"}\n'
    with pytest.raises(ValueError, match="row 2 is not JSON"):
        table.read('{"a": 1}\n{nope\n', True)


@pytest.mark.parametrize("text", ['"' + "x" * 200_000 + "\nitem,label\n", 'item,label\n"' + "x" * 200_000 + "\n"])
def test_a_labels_file_the_csv_reader_refuses_is_a_one_line_error_header_included(text):
    for read in (lambda: table.read(text, False), lambda: list(table.rows_of(text, False))):
        with pytest.raises(ValueError, match=r"^row [12]: field larger than field limit"):
            read()
