"""``rubric-lint``'s ruff habits: --version, its own name in errors, --exit-zero, --statistics,
--output-file, --diff, --show-fixes and --watch (a bounded run in a subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rubric_lsp import __version__
from rubric_lsp.cli import lint_main, main
from tests.conftest import REPO

# Two safe fixes (AR021 'guideline', AR001 'requirment', which also clears AR103) and AR104, which no fix clears.
BAD = """\
guideline: Judge the final answer only.
rubric:
  - name: units
    requirment: Gives the temperature in Celsius
    weight: 4
  - name: length
    requirement: Is short
    weight: [1]
"""
GOOD = "rubric:\n  - name: units\n    requirement: Gives the temperature in Celsius\n    weight: 4\n"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = lint_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    path = tmp_path / "bad.rubric.yaml"
    path.write_text(BAD)
    return path


def subprocess_lint(*argv: str, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    code = "import sys; from rubric_lsp.cli import lint_main; sys.exit(lint_main())"
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, env=env, **kw)


def test_version_of_rubric_lint_and_rubric():
    done = subprocess_lint("--version")
    assert (done.returncode, done.stdout.strip()) == (0, f"rubric-lint {__version__}")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "rubric_lsp", "--version"], capture_output=True, text=True, env=env)
    assert (done.returncode, done.stdout.strip()) == (0, f"rubric-lsp {__version__}")


def test_usage_errors_are_named_rubric_lint(capsys):
    code, _out, err = run(capsys, "--no-such-flag", "x")
    assert code == 2
    assert err.splitlines()[-1].startswith("rubric-lint: error: unrecognized arguments: --no-such-flag")
    assert "rubric:" not in err and "rubric lint:" not in err
    code, _out, err = run(capsys, "rule", "--no-such-flag")
    assert code == 2 and err.splitlines()[-1].startswith("rubric-lint")
    code, _out, err = run(capsys, "rule", "XX999")
    assert code == 2 and err.startswith("rubric-lint: unknown rule code 'XX999'")
    # `rubric lint` is the `rubric` command's
    assert main(["lint", "--no-such-flag"]) == 2
    assert "rubric: error:" in capsys.readouterr().err


def test_exit_zero_keeps_the_report_and_exits_0(capsys, bad):
    code, out, _ = run(capsys, str(bad))
    assert code == 1
    code, out_zero, _ = run(capsys, str(bad), "--exit-zero")
    assert code == 0 and out_zero == out and "AR103" in out
    assert run(capsys, str(bad), "--diff", "--exit-zero")[0] == 0
    # an error is still an error
    code, _, err = run(capsys, str(bad.parent / "missing.yaml"), "--exit-zero")
    assert code == 2 and "no such file" in err


def test_statistics_counts_each_rule_instead_of_each_finding(capsys, bad, tmp_path):
    second = tmp_path / "second.rubric.yaml"
    second.write_text(BAD)
    code, out, _ = run(capsys, str(bad), str(second), "--statistics")
    assert code == 1
    lines = out.splitlines()
    assert lines == [
        "2\tAR001\t[*] unknown-criterion-key",
        "2\tAR021\t[*] unknown-key",
        "2\tAR103\t[ ] missing-requirement",
        "2\tAR104\t[ ] invalid-criterion-field",
    ]
    code, out, _ = run(capsys, str(bad), "--statistics", "--format", "json")
    assert json.loads(out) == [
        {"code": "AR001", "name": "unknown-criterion-key", "count": 1, "fixable": True},
        {"code": "AR021", "name": "unknown-key", "count": 1, "fixable": True},
        {"code": "AR103", "name": "missing-requirement", "count": 1, "fixable": False},
        {"code": "AR104", "name": "invalid-criterion-field", "count": 1, "fixable": False},
    ]
    code, out, _ = run(capsys, str(bad), "--statistics", "--select", "AR103")
    assert out == "1\tAR103\tmissing-requirement\n"  # no fix anywhere: no marker column


def test_output_file_takes_the_report_and_stdout_stays_empty(capsys, bad, tmp_path):
    target = tmp_path / "reports" / "lint.json"
    code, out, _ = run(capsys, str(bad), "--format", "json", "--output-file", str(target))
    assert code == 1 and out == ""
    assert {f["code"] for f in json.loads(target.read_text())} == {"AR001", "AR021", "AR103", "AR104"}
    # written anew, not appended
    code, out, _ = run(capsys, str(bad), "--format", "json", "-o", str(target), "--select", "AR103")
    assert [f["code"] for f in json.loads(target.read_text())] == ["AR103"]


def test_output_file_that_cannot_be_written_is_an_error(capsys, bad, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, _, err = run(capsys, str(bad), "-o", str(blocker / "x.txt"))
    assert code == 2 and err.startswith("rubric-lint: ")


def test_stdin_fix_with_output_file_keeps_the_fixed_text_on_stdout(tmp_path):
    target = tmp_path / "report.txt"
    done = subprocess_lint("-", "--stdin-filename", "x.rubric.yaml", "--fix", "-o", str(target), input=BAD)
    assert done.returncode == 1
    assert "requirement: Gives" in done.stdout and "guidelines:" in done.stdout
    report = target.read_text()
    assert "AR104" in report and "AR001" not in report


def test_diff_prints_the_fixes_writes_nothing_and_exits_1(capsys, bad):
    code, out, err = run(capsys, str(bad), "--diff")
    assert code == 1
    assert out.startswith(f"--- {bad}\n+++ {bad}\n@@ ")
    assert "-guideline: Judge" in out and "+guidelines: Judge" in out
    assert "-    requirment: Gives" in out and "+    requirement: Gives" in out
    assert "AR103" not in out and "AR104" not in out  # the diff only, no findings
    assert err == "Would fix 2 problem(s).\n"
    assert bad.read_text() == BAD
    # --fix --diff is the same
    assert run(capsys, str(bad), "--fix", "--diff")[:2] == (1, out)
    assert bad.read_text() == BAD


def test_diff_with_nothing_to_fix_exits_0(capsys, tmp_path, bad):
    good = tmp_path / "good.rubric.yaml"
    good.write_text(GOOD)
    code, out, err = run(capsys, str(good), "--diff")
    assert (code, out, err) == (0, "", "No problems would be fixed.\n")
    # findings without a fix do not count: only changes do
    code, out, _ = run(capsys, str(bad), "--diff", "--select", "AR104")
    assert (code, out) == (0, "")


def test_diff_of_stdin_prints_only_the_diff(bad):
    done = subprocess_lint("-", "--stdin-filename", "x.rubric.yaml", "--diff", input=BAD)
    assert done.returncode == 1
    assert done.stdout.startswith("--- x.rubric.yaml\n+++ x.rubric.yaml\n")
    assert all(line[:1] in ("-", "+", "@", " ") for line in done.stdout.splitlines())  # nothing but the diff


def test_diff_masks_a_key_written_in_the_file(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    path = tmp_path / "k.rubric.yaml"
    path.write_text("# apiKey: sk-proj-abcdefghijklmnop0123456789\n" + BAD)
    code, out, _ = run(capsys, str(path), "--diff")
    assert code == 1
    assert "abcdefghijklmnop0123456789" not in out


def test_show_fixes_lists_what_fix_applied(capsys, bad):
    code, out, _ = run(capsys, str(bad), "--fix", "--show-fixes")
    assert code == 1  # AR104 has no fix and remains
    assert "Fixed 2 problem(s).\n" not in out  # the list replaces the summary's count
    assert f"Fixed 2 problem(s):\n- {bad}:\n    1 × AR001 (unknown-criterion-key)\n    1 × AR021 (unknown-key)\n" in out
    assert "guidelines:" in bad.read_text()
    # machine formats stay one document: the list goes to stderr
    bad.write_text(BAD)
    code, out, err = run(capsys, str(bad), "--fix", "--show-fixes", "--format", "json")
    assert [f["code"] for f in json.loads(out)] == ["AR104"]
    assert "Fixed 2 problem(s):" in err


def test_show_fixes_with_diff_lists_what_would_be_fixed(capsys, bad):
    code, _out, err = run(capsys, str(bad), "--diff", "--show-fixes")
    assert code == 1
    assert err.startswith(f"Would fix 2 problem(s):\n- {bad}:\n    1 × AR001")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-", "--watch"], "--watch needs files or folders"),
        (["x", "--watch", "--diff"], "--watch and --diff"),
        (["x", "--diff", "--statistics"], "choose one"),
    ],
)
def test_options_that_do_not_go_together(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err and err.startswith("rubric-lint: ")


def _read_until(stream, needle: str, deadline: float) -> str:
    seen = ""
    while needle not in seen:
        if time.monotonic() > deadline:
            raise AssertionError(f"{needle!r} not seen within the deadline; got {seen!r}")
        line = stream.readline()
        if not line:
            raise AssertionError(f"stream ended before {needle!r}; got {seen!r}")
        seen += line
    return seen


def _replace(path: Path, text: str) -> None:
    part = path.parent.parent / (path.name + ".part")  # outside the watched folder, on its file system
    part.write_text(text)
    os.replace(part, path)


def test_watch_relints_on_change_and_ends_on_ctrl_c(tmp_path):
    import signal

    folder = tmp_path / "rubrics"
    folder.mkdir()
    target = folder / "a.rubric.yaml"
    target.write_text(GOOD)
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
    code = "import sys; from rubric_lsp.cli import lint_main; sys.exit(lint_main())"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(folder), "--watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 60
    try:
        first = _read_until(proc.stdout, "Found 0 problem(s)", deadline)
        assert "AR001" not in first
        # Each edit lands whole (written beside, then renamed over): written in place, a poll between
        # the truncation and the write (likely on a loaded machine) is a change of its own.
        _replace(target, BAD)
        second = _read_until(proc.stdout, "Found 4 problem(s)", deadline)
        assert "AR001" in second and "AR103" in second
        _replace(target, GOOD)
        _read_until(proc.stdout, "Found 0 problem(s)", deadline)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0
        err = proc.stderr.read()
        assert "Starting rubric-lint in watch mode" in err and err.count("File change detected") == 2
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
