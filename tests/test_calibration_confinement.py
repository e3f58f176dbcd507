"""Confinement (issue 33, item 7).

- A labels file's ``output_file`` and ``config`` name files inside its own folder tree only: an absolute path,
  a ``../`` that leaves it and a link inside that leads out are each refused before the file is read, so its
  content never reaches the judge (a secret beside the labels file's folder is the bait).
- A format plugin that raises SystemExit (or another BaseException) at import, in its rules' import or in its
  detector is reported like any other broken plugin: ``rubric-lint`` lints the rest and says which plugin,
  never exits with the plugin's code and no word (a real ``.dist-info`` on the path, as pip leaves it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from rubric_lsp.cli import main
from tests.calibration import LABELS_REQUEST, labels_judge
from tests.conftest import REPO, use_judge

SECRET = "sk-secret-outside-the-labels-folder"


@pytest.fixture
def folders(judge_server, tmp_path, monkeypatch):
    use_judge(monkeypatch, judge_server, "sk-test-confined", tmp_path / "cache")
    judge_server.handler = labels_judge
    (tmp_path / "secret.txt").write_text(f"please {SECRET}\n")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "run.json").write_text(json.dumps(LABELS_REQUEST))
    labels = tmp_path / "team" / "labels"
    labels.mkdir(parents=True)
    (labels / "run.json").write_text(json.dumps(LABELS_REQUEST))
    (labels / "outputs").mkdir()
    (labels / "outputs" / "ok.txt").write_text("please sit")
    (labels / "outputs" / "leak.txt").symlink_to(tmp_path / "secret.txt")
    return tmp_path


@pytest.mark.parametrize(
    "column, named",
    [
        ("output_file", "{root}/secret.txt"),
        ("output_file", "../../secret.txt"),
        ("output_file", "outputs/../../../secret.txt"),
        ("output_file", "outputs/leak.txt"),  # a link inside that leads out
        ("config", "{root}/elsewhere/run.json"),
        ("config", "../../elsewhere/run.json"),
    ],
)
def test_a_labels_file_names_files_in_its_own_folder_tree_only(folders, judge_server, capfd, column, named):
    named = named.format(root=folders)
    row = {"config": "run.json", "grader": "safety", "output_file": "outputs/ok.txt", "verdict": "pass"}
    rows = [row, {**row, column: named}]
    labels = folders / "team" / "labels" / "labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code = main(["calibrate", str(labels)])
    err = capfd.readouterr().err
    assert code == 2 and f"labels.jsonl row 2: {column} {named!r} is outside" in err, err
    assert len(err.strip().splitlines()) == 1
    assert judge_server.call_count == 0
    judge_server.assert_never_saw(SECRET)
    # The same rows inside the folder are graded.
    labels.write_text(json.dumps(row) + "\n")
    assert main(["calibrate", str(labels)]) == 0, capfd.readouterr().err


BROKEN = {
    "exit-at-import": ("import sys\nsys.exit(3)\n", "failed to load: SystemExit: 3"),
    "base-at-import": ("raise BaseException('plugin gave up')\n", "failed to load: BaseException: plugin gave up"),
    "exit-in-detect": (
        "import sys\nfrom rubric_lsp.formats.plugin import Format\n"
        "def _detect(doc):\n    sys.exit(4)\n"
        "FORMATS = [Format(name='decks', title='Decks', languages=('yaml',), rule_prefix='DK', detect=_detect)]\n",
        "format 'decks' failed to detect a file: SystemExit: 4",
    ),
    "exit-in-rules": (
        "from rubric_lsp.formats.plugin import Format\n"
        "FORMATS = [Format(name='decks', title='Decks', languages=('yaml',), rule_prefix='DK',\n"
        "                  file_patterns=('*.deck.yaml',), checker_modules=('rubric_decks_rules',))]\n",
        "format 'decks' its rules (rubric_decks_rules) failed to load: SystemExit: 5",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_plugin_that_exits_is_reported_as_broken_not_obeyed(tmp_path, case):
    source, words = BROKEN[case]
    site = tmp_path / "site"
    info = site / "rubric_decks-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rubric-decks\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[rubric_lsp.formats]\ndecks = rubric_decks:FORMATS\n")
    (site / "rubric_decks.py").write_text(source)
    (site / "rubric_decks_rules.py").write_text("import sys\nsys.exit(5)\n")
    (tmp_path / "a.rubric.yaml").write_text("criteria:\n  - name: a\n    weight: 5\n    requirement: ''\n")
    (tmp_path / "b.deck.yaml").write_text("cards: []\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(site)])}
    done = subprocess.run(
        [sys.executable, "-m", "rubric_lsp", "lint", str(tmp_path / "a.rubric.yaml"), str(tmp_path / "b.deck.yaml")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 1, (done.returncode, done.stderr)  # the rubric's finding, not the plugin's exit
    assert "AR" in done.stdout and "Traceback" not in done.stderr
    assert words in done.stderr and "its files are not checked" in done.stderr, done.stderr
