"""Labels refused, never dropped (issue 33, item 4).

- An autorubric dataset's labels autorubric refuses (a misspelt verdict, ``CANNOT_ASSESS`` on a multi-choice
  criterion, a ground truth list of the wrong length) refuse ``rubric calibrate`` before any judge call, naming
  every bad label's ``file:line``, the rule's words and its code — exactly the lint's findings (AR205-AR207) —
  where they were silently left out ("4 labels" from 6 items). Seeded: each class corrupts random items of
  random datasets.
- A labels file that cannot be read is one line naming the row, never a traceback: a CSV cell over the CSV
  reader's limit, a line over the line limit, a JSONL row nested 100,000 deep, text that is not UTF-8; a valid
  JSONL row holding U+2028 is read (its output reaches the judge intact).
- Rows repeating an earlier row's output (the same label, or another) are counted and reported.
- The rows are streamed: reading, surveying and tallying hold a bounded amount per row, never the file
  (tracemalloc, not time).
"""

from __future__ import annotations

import asyncio
import json
import random
import tracemalloc

import pytest

from rubric_lsp.calibration import labelled
from rubric_lsp.calibration.labels import LabelsFile, iter_labels, survey
from rubric_lsp.cli import lint_main, main
from tests.calibration import LABELS_REQUEST, labels_judge
from tests.conftest import use_judge
from tests.judge_server import Reply

RUBRIC = [
    {"name": "chlorophyll", "requirement": "Mentions chlorophyll"},
    {"name": "products", "requirement": "Names the products"},
    {
        "name": "helpful",
        "requirement": "How helpful is it?",
        "options": [{"label": "Not helpful", "value": 0}, {"label": "Very helpful", "value": 1}],
    },
]
GOOD = ("MET", "UNMET", "CANNOT_ASSESS")
OPTIONS = ("Not helpful", "Very helpful")


def _misspelt(rng: random.Random, truth: list[str]) -> list[str]:
    word = rng.choice(GOOD)
    spelt = rng.choice([word.lower(), word.title(), word[:-1] + word[-1] * 2, "MTE", "UNMTE", "yes", "true"])
    return [spelt, *truth[1:]]


def _abstained_choice(rng: random.Random, truth: list[str]) -> list[str]:
    return [*truth[:2], rng.choice(["CANNOT_ASSESS", "cannot_assess", "N/A"])]


def _short(rng: random.Random, truth: list[str]) -> list[str]:
    return truth[: rng.randint(0, len(truth) - 1)]


CLASSES = {"AR206": _misspelt, "AR207": _abstained_choice, "AR205": _short}


def _dataset(rng: random.Random, items: int) -> dict:
    return {
        "prompt": "Explain photosynthesis",
        "rubric": RUBRIC,
        "items": [
            {
                "submission": f"Plants use chlorophyll {n}.",
                "description": f"item {n}",
                "ground_truth": [rng.choice(GOOD), rng.choice(GOOD[:2]), rng.choice(OPTIONS)],
            }
            for n in range(items)
        ],
    }


def _write(path, data: dict) -> None:
    # One item per line, so an item's line is its position: the refusal's file:line can be checked.
    items = ",\n".join("    " + json.dumps(item) for item in data["items"])
    head = json.dumps({k: v for k, v in data.items() if k != "items"})[:-1]
    path.write_text(f'{head}, "items": [\n{items}\n]}}\n')


@pytest.fixture
def judged(judge_server, tmp_path, monkeypatch):
    use_judge(monkeypatch, judge_server, "sk-test-refused", tmp_path / "cache")
    judge_server.handler = labels_judge
    return judge_server


@pytest.mark.parametrize("code", sorted(CLASSES))
@pytest.mark.parametrize("seed", range(3))
def test_labels_autorubric_refuses_refuse_the_calibration_naming_each_line(
    judged, tmp_path, capfd, monkeypatch, code, seed
):
    rng = random.Random(f"{code}-{seed}")
    data = _dataset(rng, rng.randint(4, 9))
    bad = sorted(rng.sample(range(len(data["items"])), rng.randint(1, 3)))
    for index in bad:
        data["items"][index]["ground_truth"] = CLASSES[code](rng, data["items"][index]["ground_truth"])
    path = tmp_path / "photo.dataset.json"
    _write(path, data)
    code_, _, err = _run(capfd, "calibrate", str(path))
    assert code_ == 2 and judged.call_count == 0, err
    assert not (tmp_path / "photo.dataset.json.calibration.json").exists()
    assert "Traceback" not in err and f"{len(bad)} label(s) of the dataset cannot be used" in err
    named = [line for line in err.splitlines() if line.startswith(f"{path}:")]
    assert [int(line.split(":")[1]) for line in named] == [index + 2 for index in bad]  # items start on line 2
    assert all(line.endswith(f"({code})") for line in named)
    # The lint's findings on the same file: the same lines, codes and words.
    monkeypatch.chdir(tmp_path)
    assert lint_main(["--format", "json", "--select", "AR2", str(path)]) == 1
    findings = [f for f in json.loads(capfd.readouterr().out) if f["code"] in ("AR205", "AR206", "AR207")]
    assert [(f["range"]["start"]["line"] + 1, f["code"]) for f in findings] == [(i + 2, code) for i in bad]
    assert all(f"{f['message']} ({f['code']})" in err for f in findings)


def _dataset_judge(request) -> Reply:
    if "<options>" in request.text:
        return Reply.json({"selected_option": 1, "explanation": "fits"})
    return Reply.json({"criterion_status": "MET", "explanation": "ok"})


def test_a_dataset_whose_labels_autorubric_reads_is_calibrated_with_every_label(judged, tmp_path, capfd):
    judged.handler = _dataset_judge
    data = _dataset(random.Random(33), 6)
    path = tmp_path / "photo.dataset.json"
    _write(path, data)
    code, _, err = _run(capfd, "calibrate", str(path))
    assert code == 0, err
    record = json.loads((tmp_path / "photo.dataset.json.calibration.json").read_text())
    units = {u["id"]: u["figures"] for u in record["units"]}
    # Every label is compared or counted as an abstention: none left out.
    for unit in ("chlorophyll", "products", "helpful"):
        f = units[unit]
        assert f["failed"] == 0 and f["labels"] + sum(f["abstained"].values()) == len(data["items"]), (unit, f)


def _run(capfd, *argv):
    code = main(list(argv))
    out, err = capfd.readouterr()
    return code, out, err


@pytest.fixture
def request_file(tmp_path):
    (tmp_path / "run.json").write_text(json.dumps(LABELS_REQUEST))
    return tmp_path / "run.json"


@pytest.mark.parametrize(
    "name, content, message",
    [
        (
            "labels.csv",
            "grader,output,verdict\nsafety," + "x" * (200 * 1024) + ",pass\n",
            "labels.csv row 2: a cell is larger than the CSV reader's 128 KiB; put a long output in a file",
        ),
        (
            "labels.csv",
            'grader,output,verdict\nsafety,ok,pass\nsafety,"' + "y" * (5 * 1024 * 1024),
            "labels.csv line 3: longer than 4 MiB",
        ),
        (
            "labels.jsonl",
            "[" * 100_000 + "]" * 100_000 + "\n",
            "labels.jsonl row 1: not a labels row (nested too deeply)",
        ),
        (
            "labels.jsonl",
            '{"grader": "safety", "output": ' + "[" * 100_000 + "]" * 100_000 + ', "verdict": "pass"}\n',
            "labels.jsonl row 1: not a labels row (nested too deeply)",
        ),
        ("labels.csv", b"grader,output,verdict\nsafety,caf\xe9,pass\n", "labels.csv line 2: not UTF-8 text"),
        ("labels.csv", "grader,output,grader\nsafety,x,pass\n", "labels.csv row 1: the column 'grader' is named twice"),
        ("labels.csv", "grader,output,verdict\nsafety,a\rb,pass\n", "labels.csv row 2: not CSV"),
    ],
)
def test_a_labels_file_that_cannot_be_read_is_one_line(
    judge_server, tmp_path, capfd, request_file, name, content, message
):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    code, _, err = _run(capfd, "calibrate", str(path), "--config", str(request_file))
    assert code == 2 and judge_server.call_count == 0
    assert len(err.strip().splitlines()) == 1 and message in err, err


def test_a_jsonl_row_holding_a_line_separator_is_read_whole(judged, tmp_path, capfd, request_file):
    output = "please wait,\u2028Ann\u2029 one output"
    rows = [
        {"grader": "safety", "output": output, "verdict": "pass"},
        {"grader": "safety", "output": "go", "verdict": "fail"},
    ]
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert "\u2028" in path.read_text(encoding="utf-8")  # written raw, as JSON allows
    code, out, err = _run(capfd, "calibrate", str(path), "--config", str(request_file))
    assert code == 0, err
    assert "safety: 2 labels" in out
    assert any(json.dumps(output)[1:-1] in r.text for r in judged.requests)  # the grader's JSON holds it whole


def test_repeated_and_conflicting_rows_are_counted_and_reported(judged, tmp_path, capfd, request_file):
    rows = [
        ("please sit", "pass"),
        ("go away", "fail"),
        ("please sit", "pass"),  # row 3: a duplicate of row 1
        ("go away", "pass"),  # row 4: a conflict with row 2
        ("thanks", "pass"),
    ]
    path = tmp_path / "labels.csv"
    path.write_text("grader,output,verdict\n" + "".join(f"safety,{o},{v}\n" for o, v in rows))
    code, out, err = _run(capfd, "calibrate", str(path), "--config", str(request_file))
    assert code == 0, err
    assert f"{path} row 4 labels the same output of the same unit as row 2 with the same label" in err
    assert f"{path} row 5 labels the same output of the same unit as row 3 with another label (fail, pass)" in err
    assert "safety: 5 labels" in out  # both rows of each pair are counted, as the notes say
    assert judged.call_count == 3  # each distinct output graded once
    # A column that tells the rows apart (who labelled it) makes them two labels, not a repeat.
    path.write_text("grader,rater,output,verdict\nsafety,ann,go,fail\nsafety,bob,go,pass\n")
    code, out, err = _run(capfd, "calibrate", str(path), "--config", str(request_file))
    assert code == 0 and "same output" not in err


def test_many_repeats_are_counted_not_listed(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("grader,output,verdict\n" + "safety,same,pass\n" * 40 + "safety,same,fail\n" * 7)
    notes = survey(path, tmp_path / "run.json").notes
    named = [n for n in notes if " labels the same output " in n]
    # Five of each kind named (rows 3-7 repeat row 2's pass; rows 42-46 give it a fail), then each kind counted.
    assert [int(n.split(" row ")[1].split()[0]) for n in named] == [3, 4, 5, 6, 7, 42, 43, 44, 45, 46]
    assert notes[len(named) :] == [
        f"{path}: 39 rows in all repeat an earlier row's output with the same label",
        f"{path}: 7 rows in all repeat an earlier row's output with another label",
    ]


def _rows_file(path, rows: int, seed: int) -> int:
    rng = random.Random(seed)
    outputs = ["".join(rng.choice("abcdefgh ") for _ in range(400)) for _ in range(50)]
    with path.open("w", encoding="utf-8") as handle:
        handle.write("grader,output,verdict\n")
        for _ in range(rows):
            handle.write(f"safety,{rng.choice(outputs)},{rng.choice(['pass', 'fail'])}\n")
    return path.stat().st_size


def _peak(work) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _graded_peak(path, config) -> tuple[int, int, int]:
    """The peak memory of grading ``path``'s rows with an instant judge, its rows and its gradings."""
    asked = []

    async def ask(unit, row):
        asked.append(row.output)
        return {unit: ("a" in row.output[:3], "why")}

    how = labelled.RowGrading(lambda row: "safety", lambda unit, row: (unit, row.output), ask, lambda u: 0.5, 4)
    tallies: dict = {}
    peak = _peak(lambda: tallies.update(asyncio.run(labelled.grade_rows(LabelsFile(path, config), how))))
    return peak, tallies["safety"].rows, len(asked)


def test_labels_are_streamed_in_memory_bounded_per_row(tmp_path):
    config = tmp_path / "run.json"
    small, large = tmp_path / "small.csv", tmp_path / "large.csv"
    _rows_file(small, 10_000, seed=36)
    size = _rows_file(large, 20_000, seed=36)  # ~8 MiB: 400 characters a row
    assert _peak(lambda: sum(1 for _ in iter_labels(large, config))) < 256 * 1024  # a row at a time
    assert _peak(lambda: survey(large, config)) < 256 * 1024  # a hash per distinct row
    first, rows, gradings = _graded_peak(small, config)
    second, more_rows, _ = _graded_peak(large, config)
    assert (rows, more_rows, gradings) == (10_000, 20_000, 50)  # each distinct output graded once
    # What a row adds once graded: its number, its pair, its judged category and which reason (~24 bytes), never
    # its text (400 characters); and never the file.
    assert (second - first) / 10_000 < 64 and second < size / 4, (first, second, size)


def test_the_labels_are_checked_on_the_document_the_grading_read(tmp_path, monkeypatch):
    """The lint that refuses labels takes the grader's document as it is: the dataset is not read twice."""
    from rubric_lsp import lint
    from rubric_lsp.document import parse_document
    from rubric_lsp.engine.runner import GradingError
    from rubric_lsp.formats.autorubric.grading.labels import refuse_unusable_labels

    rng = random.Random("read-once")
    data = _dataset(rng, 4)
    data["items"][2]["ground_truth"] = ["MTE", "MET", "Very helpful"]
    path = tmp_path / "labels.dataset.json"
    _write(path, data)
    doc = parse_document(path.read_text(), str(path))

    def read_again(*_args, **_kwargs):
        raise AssertionError("the dataset was read again")

    monkeypatch.setattr(lint, "parse_document", read_again)
    with pytest.raises(GradingError, match=r"labels\.dataset\.json:4: .*\(AR206\)"):
        refuse_unusable_labels(doc)
    data["items"][2]["ground_truth"] = ["MET", "MET", "Very helpful"]
    _write(path, data)
    refuse_unusable_labels(parse_document(path.read_text(), str(path)))  # nothing refused
