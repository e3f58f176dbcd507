"""gitignore globs (.gitignore, the settings' `kinds`) without catastrophic backtracking, with pathspec's answers."""

from __future__ import annotations

import random
import threading
import time

import pathspec

from rubric_lsp import globs
from rubric_lsp.cli import lint_main

ATOMS = ["a", "b", "*", "*", "?", "[ab]", "/", "**", "!", "\\*"]
NAMES = ["a", "b", "ab", "ba", "aab", "*", "a*b", "x"]


def _random_pattern(rng: random.Random) -> str:
    pattern = "".join(rng.choice(ATOMS) for _ in range(rng.randint(1, 7)))
    return pattern.lstrip("!") or "a"


def _random_path(rng: random.Random) -> str:
    return "/".join("".join(rng.choice(NAMES) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 3)))


def test_the_safe_matcher_answers_as_pathspec_does():
    """Seeded and bounded: 3,000 random patterns, each on 20 random paths."""
    rng = random.Random(20261126)
    for _ in range(3000):
        pattern = _random_pattern(rng)
        try:
            reference = pathspec.GitIgnoreSpec.from_lines([pattern])
        except Exception:  # a pattern pathspec refuses is refused the same way by globs.spec
            continue
        safe = globs.spec([pattern])
        for _ in range(20):
            path = _random_path(rng)
            assert safe.match_file(path) == reference.match_file(path), (pattern, path)


def _within(seconds: float, work) -> bool:
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(seconds)
    return not thread.is_alive()


def test_a_pattern_of_nineteen_stars_matches_at_once():
    """pathspec's own regex takes over a minute on this one name; the bound is generous on purpose."""
    pattern = "*a" * 18 + "*b"
    spec = globs.spec([pattern])
    answers: list[bool] = []
    assert _within(
        5, lambda: answers.extend(spec.match_file(n) for n in ("a" * 30, "a" * 20 + "b", "x/" + "a" * 18 + "b"))
    )
    assert answers == [False, True, True]


def test_a_hostile_gitignore_does_not_stall_a_folder_run(tmp_path, capsys):
    (tmp_path / ".gitignore").write_text("*a" * 18 + "*b\n", encoding="utf-8")
    (tmp_path / ("a" * 30 + ".rubric.yaml")).write_text("rubric:\n  - requirment: x\n", encoding="utf-8")
    codes: list[int] = []
    started = time.monotonic()
    assert _within(30, lambda: codes.append(lint_main(["--select", "AR001", str(tmp_path)])))
    assert codes == [1], capsys.readouterr()
    assert time.monotonic() - started < 30


def test_a_hostile_kinds_glob_in_the_settings_matches_at_once(tmp_path):
    from rubric_lsp.settings import Settings

    settings = Settings(kinds=(("*a" * 18 + "*b", "promptfoo-config"),), root=tmp_path)
    found: list[str | None] = []
    assert _within(5, lambda: found.append(settings.kind_for(str(tmp_path / ("a" * 30)))))
    assert found == [None]
    assert settings.kind_for(str(tmp_path / ("a" * 20 + "b"))) == "promptfoo-config"
