"""Differential: autorubric 1.6.1 against rubric-lint and the grading engine on generated files (issue 15).

A seeded, bounded sample of rubrics and datasets — valid ones, and ones carrying the hazards
autorubric's loaders refuse (SafeLoader-only refusals, a BOM on JSON, a YAML dataset) or
accept (duplicate keys, YAML 1.1 values) — goes through both sides:

- loading: ``rubric-lint`` reports an error ⇔ autorubric's ``Rubric.from_file`` /
  ``RubricDataset.from_file`` refuses the file; the grading engine refuses exactly those too;
- grading: each loadable rubric is graded by autorubric's ``CriterionGrader`` and by our
  engine against the same scripted judge (tests/judge_server.py, litellm's real HTTP path),
  replies including the awkward ones (``content: null``, ``"choices": []``, two objects, an
  array, an empty string): same verdicts (a failed judgment compared by what it counts as) and
  the same score.

Documented differences (README, "Grading") are left out of the sample: fenced or prose-wrapped
replies, which autorubric abstains on and we read.
"""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from rubric_lsp.diagnostics import Severity
from rubric_lsp.engine import (
    ERROR_VERDICT,
    GradingError,
    JudgeSettings,
    grade_text,
)
from rubric_lsp.lint import lint_path
from tests.autorubric_reference import SECRET, empty_choices_body, reference_grade
from tests.conftest import import_or_require
from tests.judge_server import Reply

SEED = 15
RUBRICS = 28
DATASETS = 10
NA_LABEL = "Cannot assess / not applicable"

# YAML lines (inside a criterion, or a whole criterion) that SafeLoader refuses and libyaml composes.
REFUSED = [
    "  - {requirement: Does it address the question?, weight: 5}\n",
    "  - requirement: Lists steps\n    tags: [a,\tb]\n",
    "  - requirement: !needs-review Cites sources\n",
    "  - requirement: Cites sources\n    weight: !!int abc\n",
    "  - requirement: Cites sources\n    name: =\n",
    "  - requirement: Cites sources\n    name: <<\n",
    "  - requirement: Cites sources\n    <<: null\n",
    "  - requirement: Cites sources\n    [a, b]: c\n",
    "  - requirement: Cites sources\n    name: 2024-13-45\n",
    "  - name: no requirement\n    weight: 3\n",  # refused by both, by the schema
]
# Mostly accepted by autorubric (warnings at most here).
ACCEPTED = [
    "  - requirement: Cites sources\n    weight: 3\n    weight: 4\n",  # duplicate key: the last value
    "  - requirement: Is polite\n    name: yes\n",  # YAML 1.1: the name is True, which autorubric refuses (AR104)
    '  - {requirement: "Does it address the question?", weight: 2}\n',
    "  - requirement: Says hello!\n",
]
STATUS = ["MET", "UNMET", "CANNOT_ASSESS"]
AWKWARD = {
    "null": Reply.empty,
    "no choices": lambda: Reply(raw_body=empty_choices_body()),
    "two objects": lambda: Reply.text(
        json.dumps({"criterion_status": "UNMET", "explanation": "a"})
        + "\n"
        + json.dumps({"criterion_status": "MET", "explanation": "b"})
    ),
    "array": lambda: Reply.text(json.dumps([{"criterion_status": "MET", "explanation": "a"}])),
    "empty string": lambda: Reply.text(""),
}


def _criterion(rng: random.Random, token: str) -> str:
    weight = rng.choice([10, 5, 3, 1, 0, -2, -5])
    return f"  - name: {token}\n    requirement: Criterion {token} is satisfied\n    weight: {weight}\n"


def generated_rubrics(rng: random.Random) -> list[tuple[str, bytes, dict[str, Reply]]]:
    """(file name, bytes, {token: reply}) for each generated rubric."""
    out = []
    for number in range(RUBRICS):
        tokens = [f"QQ{number:02d}K{k}QQ" for k in range(rng.randint(1, 4))]
        body = "".join(_criterion(rng, t) for t in tokens)
        roll = rng.random()
        if roll < 0.35:
            body += rng.choice(REFUSED)
        elif roll < 0.55:
            body += rng.choice(ACCEPTED)
        text = "rubric:\n" + body
        replies = {}
        for token in tokens:
            pick = rng.random()
            if pick < 0.25:
                replies[token] = AWKWARD[rng.choice(sorted(AWKWARD))]()
            else:
                replies[token] = Reply.json({"criterion_status": rng.choice(STATUS), "explanation": "scripted"})
        if number % 5 == 4:  # the clean criteria as JSON, every other one with a BOM
            import yaml

            raw = json.dumps(yaml.safe_load("rubric:\n" + "".join(_criterion(rng, t) for t in tokens))).encode()
            out.append((f"r{number}.rubric.json", (b"\xef\xbb\xbf" if number % 10 == 9 else b"") + raw, replies))
            continue
        out.append((f"r{number}.rubric.yaml", text.encode(), replies))
    return out


def generated_datasets(rng: random.Random) -> list[tuple[str, bytes]]:
    out = []
    for number in range(DATASETS):
        data = {
            "prompt": "What is 6*7?",
            "rubric": [{"requirement": "Gives the right answer", "weight": 10}],
            "items": [{"submission": "42", "description": "right", "ground_truth": ["MET"]}],
        }
        raw = json.dumps(data).encode()
        kind = rng.choice(["plain", "bom", "yaml", "duplicate", "no items key"])
        name = f"d{number}.dataset.json"
        if kind == "bom":
            raw = b"\xef\xbb\xbf" + raw
        elif kind == "yaml":
            import yaml

            raw, name = yaml.safe_dump(data).encode(), f"d{number}.dataset.yaml"
        elif kind == "duplicate":
            raw = raw.replace(b'"prompt":', b'"prompt": "x", "prompt":', 1)
        elif kind == "no items key":
            raw = json.dumps({"prompt": "p", "items": data["items"]}).encode()  # no 'rubric': refused
        out.append((name, raw))
    return out


def owner_refuses_rubric(path) -> bool:
    from autorubric import Rubric

    try:
        Rubric.from_file(str(path))
    except Exception:
        return True
    return False


def lint_errors(path, kind=None) -> list[str]:
    return [f"{d.code} {d.message}" for d in lint_path(path, kind=kind).diagnostics if d.severity is Severity.ERROR]


def _script(server, replies: dict[str, Reply]) -> None:
    server.reset()
    server.default = Reply.json({"criterion_status": "MET", "explanation": "default"})
    for token, reply in replies.items():
        server.when(token, reply)


def _ours(server, text: str, name: str):
    settings = JudgeSettings(
        model="openai/judge",
        api_base=server.base_url,
        cache_enabled=False,
        timeout_seconds=10.0,
        max_retries=0,
        env={"OPENAI_API_KEY": SECRET},
    )
    return asyncio.run(grade_text(text, name, "The response.", None, settings))


@pytest.fixture(scope="module")
def sample():
    import_or_require("autorubric")
    rng = random.Random(SEED)
    return generated_rubrics(rng), generated_datasets(rng)


def test_the_sample_covers_refusals_acceptances_and_awkward_replies(sample):
    rubrics, datasets = sample
    names = [n for n, _, _ in rubrics]
    assert any(n.endswith(".json") for n in names) and any(n.endswith(".yaml") for n in names)
    texts = [raw for _, raw, _ in rubrics]
    assert sum(any(h.encode() in t for h in REFUSED) for t in texts) >= 5
    assert any(t.startswith(b"\xef\xbb\xbf") for t in texts) or any(r.startswith(b"\xef\xbb\xbf") for _, r in datasets)
    assert sum(isinstance(r, Reply) and r.content is None for _, _, rs in rubrics for r in rs.values()) >= 2


def test_lint_errors_exactly_where_autorubric_refuses_to_load(sample, tmp_path):
    rubrics, datasets = sample
    disagreements = []
    for name, raw, _ in rubrics:
        path = tmp_path / name
        path.write_bytes(raw)
        refuses, errors = owner_refuses_rubric(path), lint_errors(path)
        if refuses != bool(errors):
            disagreements.append((name, refuses, errors, raw.decode("utf-8", "replace")))
    from autorubric import RubricDataset

    for name, raw in datasets:
        path = tmp_path / name
        path.write_bytes(raw)
        try:
            RubricDataset.from_file(path)
            refuses = False
        except Exception:
            refuses = True
        errors = lint_errors(path, kind="autorubric-dataset")
        if refuses != bool(errors):
            disagreements.append((name, refuses, errors, raw.decode("utf-8", "replace")))
    assert disagreements == []


def test_grading_matches_autorubric_verdicts_and_scores(sample, tmp_path, judge_server):
    from autorubric import Rubric

    rubrics, _ = sample
    graded = refused = 0
    for name, raw, replies in rubrics:
        path = tmp_path / name
        path.write_bytes(raw)
        text = raw.decode("utf-8")
        if owner_refuses_rubric(path):
            _script(judge_server, replies)
            with pytest.raises(GradingError):
                _ours(judge_server, text, name)
            assert judge_server.call_count == 0, name
            refused += 1
            continue
        _script(judge_server, replies)
        score, verdicts = reference_grade(judge_server, Rubric.from_file(str(path)), "The response.", ["openai/judge"])
        _script(judge_server, replies)
        report = _ours(judge_server, text, name)
        ours = [v.counted_as if v.verdict == ERROR_VERDICT else v.verdict for v in report.verdicts]
        assert ours == verdicts, (name, text)
        assert (report.score is None) == (score is None), (name, report.score, score)
        if score is not None:
            assert report.score == pytest.approx(score), (name, text)
        graded += 1
    assert graded >= 10 and refused >= 5
