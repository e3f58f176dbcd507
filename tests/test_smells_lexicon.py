"""The smell rules' English lexicon: a table derived from lemminflect's (tools/gen_english_lexicon.py), so that
the product neither imports lemminflect nor installs numpy (docs/smells.md, "The lexicon")."""

from __future__ import annotations

import gzip
import importlib.util
import subprocess
import sys
from pathlib import Path

from rubric_lsp.rules.smells import lexicon
from tests.conftest import require

REPO = Path(__file__).resolve().parent.parent
TABLE = REPO / "rubric_lsp" / "rules" / "smells" / "lexicon.tsv.gz"


def test_the_table_answers_what_the_rules_ask():
    assert lexicon.verb("offers") == "offer" and lexicon.verb("is") == "be"
    assert lexicon.verb("review") == "review"  # a base form is its own verb
    assert lexicon.verb("table") is None or lexicon.verb("table") == "table"
    assert lexicon.verb("response") is None
    assert lexicon.verb_only("acknowledge") and not lexicon.verb_only("offer")  # "offer" is a noun too
    assert lexicon.lemma("criteria") == "criterion" and lexicon.lemma("zzyzx") == "zzyzx"


def test_the_table_is_sorted_for_bisection():
    lines = [
        line
        for line in gzip.decompress(TABLE.read_bytes()).decode("utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    assert lines == sorted(lines)
    assert all(line.count("\t") == 3 for line in lines)
    words = [line.split("\t", 1)[0] for line in lines]
    assert len(set(words)) == len(words)


def test_the_table_is_what_lemminflect_says():
    require(importlib.util.find_spec("lemminflect") is not None, "lemminflect (the test extra) derives the table")
    done = subprocess.run(
        [sys.executable, str(REPO / "tools" / "gen_english_lexicon.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr


def test_smells_run_without_lemminflect_or_numpy(tmp_path):
    (tmp_path / "r.rubric.yaml").write_text(
        "- name: ack\n  requirement: The response acknowledges the order and offers a refund.\n  weight: 5\n",
        encoding="utf-8",
    )
    probe = (
        "import sys\n"
        "from rubric_lsp.lint import lint_text\n"
        "found = lint_text(open('r.rubric.yaml').read(), 'r.rubric.yaml', smells=True)\n"
        "print('CODES=' + ','.join(sorted({d.code for d in found.diagnostics})))\n"
        "print('LOADED=' + ','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('lemminflect', 'numpy'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert "RL301" in done.stdout and "LOADED=\n" in done.stdout, done.stdout + done.stderr
