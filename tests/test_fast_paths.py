"""The lint's shortcuts give the answers of the long ways they replace (issue 36).

What a command-line run looks up per folder (workspace.one_run): each folder's repository root and settings
file found once and shared with the folders below it; the loader's resolver; the depth bound's prefix search;
a mapping's keys told apart without repeated_keys."""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import yaml

from rubric_lsp.cli import lint_main
from rubric_lsp.document import parse_document, yaml_depth
from rubric_lsp.document.yaml_depth import LOADER
from rubric_lsp.settings import find_config
from rubric_lsp.workspace import one_run, repository_root

CONFIG = "prompts: [a]\nproviders: [openai:gpt-4.1-mini]\ntests:\n  - vars: {q: x}\n    assert:\n      - type: contains\n        value: a\n"


def _tree(tmp_path: Path) -> dict[str, Path]:
    """repo/.git, repo/a/b (a settings file in a), repo/c, and outside/ with no repository."""
    folders = {name: tmp_path / name for name in ("repo", "repo/a", "repo/a/b", "repo/c", "outside/d")}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    (tmp_path / "repo" / ".git").mkdir()
    (tmp_path / "repo" / "a" / ".rubric-lint.toml").write_text('ignore = ["ALL"]\n')
    return folders


def test_lookups_in_a_run_give_the_answers_of_lookups_without_it(tmp_path):
    folders = _tree(tmp_path)
    files = [folder / "x.yaml" for folder in folders.values()]
    alone = [(repository_root(f), find_config(f)) for f in files]
    with one_run():
        once = [(repository_root(f), find_config(f)) for f in [*files, *reversed(files)]]
    assert once == alone + alone[::-1]
    assert alone[2] == (tmp_path / "repo", (tmp_path / "repo" / "a" / ".rubric-lint.toml").resolve())
    assert alone[3] == (tmp_path / "repo", None)
    assert alone[4][0] is None


def test_outside_a_run_nothing_is_remembered(tmp_path):
    """A long-running process (the server) must see a repository or a settings file created meanwhile."""
    folders = _tree(tmp_path)
    inner = folders["repo/a/b"] / "x.yaml"
    with one_run():
        assert repository_root(inner) == tmp_path / "repo"
        (folders["repo/a/b"] / ".git").mkdir()
        assert repository_root(inner) == tmp_path / "repo"  # within the run: as it was first found
    assert repository_root(inner) == folders["repo/a/b"]
    (folders["repo/a/b"] / "rubric-lint.toml").write_text("")
    assert find_config(inner) == (folders["repo/a/b"] / "rubric-lint.toml").resolve()


def test_a_run_over_sibling_folders_applies_each_folder_s_settings(tmp_path, capsys, monkeypatch):
    folders = _tree(tmp_path)
    for name in ("repo/a/b", "repo/c"):
        (folders[name] / "promptfooconfig.yaml").write_text(CONFIG.replace("type: contains", "type: containz"))
    monkeypatch.chdir(tmp_path)
    code = lint_main(["--format", "json", "repo"])
    found = json.loads(capsys.readouterr().out)
    # repo/a's settings ignore every rule; repo/c has none: each file judged by its own folder's settings.
    assert code == 1
    assert {Path(d["path"]).parent.name for d in found} == {"c"}


def test_the_loader_resolves_scalars_as_pyyaml_s_safe_loader():
    """The loader's resolver (yaml_depth._SafeLoader) gives each scalar the tag PyYAML's own gives it."""
    if LOADER is yaml.SafeLoader or LOADER is getattr(yaml, "CSafeLoader", None):
        return  # PyYAML's own resolver in use: nothing to compare
    ours, theirs = LOADER(""), yaml.CSafeLoader("")
    rng = random.Random(3)
    chars = "0123456789.+-_:eExob~nNtTfFyYlL<= aZé\t"
    values = ["", "~", "null", "True", "off", "0x1F", "0o7", "017", "1_000", "1:20", ".inf", "-.NaN", "1e3", "<<", "="]
    values += ["".join(rng.choice(chars) for _ in range(rng.randint(1, 8))) for _ in range(5000)]
    try:
        for value in values:
            for implicit in ((True, False), (False, True), (False, False), (True, True)):
                assert ours.resolve(yaml.ScalarNode, value, implicit) == theirs.resolve(
                    yaml.ScalarNode, value, implicit
                )
        for kind in (yaml.SequenceNode, yaml.MappingNode):
            assert ours.resolve(kind, None, True) == theirs.resolve(kind, None, True)
        text = "a: [1, 0o7, yes, ~, 2024-01-01, !!str 3, '4', {b: .5}]\n? [x]\n: y\n"
        assert yaml.compose(text, Loader=LOADER) is not None
        assert repr(yaml.compose(text, Loader=LOADER)) == repr(yaml.compose(text, Loader=yaml.CSafeLoader))
    finally:
        ours.dispose()
        theirs.dispose()


def test_the_depth_bound_s_prefix_search_agrees_with_measuring_each_line():
    """yaml_depth._depth_within against the bound it replaced: the longest line prefix of indentation and
    "- ? :" markers, plus one, plus one per bracket, measured line by line (seeded texts of those characters)."""
    prefix = re.compile(r"^[ \t?:-]*", re.M)

    def bound(text: str) -> int:
        return max(map(len, prefix.findall(text)), default=0) + 1 + text.count("[") + text.count("{")

    rng = random.Random(2)
    for _ in range(3000):
        text = "".join(rng.choice(" \t?:-\n\r[{a") for _ in range(rng.randint(0, 40)))
        for cap in (0, 1, 2, 3, 5, 10, 20):
            assert yaml_depth._depth_within(text, cap) == (bound(text) <= cap), (text, cap)


def test_duplicate_keys_are_found_among_keys_that_compare_equal():
    """A mapping's keys are told apart by a set first; what it cannot tell apart goes to repeated_keys."""
    text = "a: 1\nb: 2\na: 3\n1: x\n1.0: y\ntrue: z\n? [k]\n: v\n"
    doc = parse_document(text, "x.yaml")
    assert sorted(i.message.split("'")[1] for i in doc.issues if i.kind == "duplicate-key") == ["1.0", "a"]
    assert not [i for i in parse_document("a: 1\nb: 2\n1: x\ntrue: y\n", "y.yaml").issues if i.kind == "duplicate-key"]


def test_the_workspace_outside_a_repository_is_what_pathlib_would_say(tmp_path, monkeypatch):
    """default_root's last resort (no repository, no settings file) compares strings, as Path.is_relative_to
    compares parts: a sibling whose name starts with the current folder's is outside it."""
    from rubric_lsp.workspace import default_root

    here = tmp_path / "work"
    for folder in (here / "a" / "b", tmp_path / "workshop", tmp_path / "other"):
        folder.mkdir(parents=True)
    monkeypatch.chdir(here)
    names = [
        "x.yaml",
        "a/x.yaml",
        "a/b/x.yaml",
        "./a/../x.yaml",
        "../workshop/x.yaml",
        "../work/a/x.yaml",
        str(tmp_path / "other" / "x.yaml"),
        str(tmp_path / "workshop"),
        "../work",
        ".",
    ]
    for name in names:
        absolute = Path(os.path.abspath(name))  # ('..' taken by name, as default_root takes it)
        expected = Path.cwd() if absolute.is_relative_to(Path.cwd()) else absolute.parent
        assert default_root(name) == expected, name
    assert default_root(str(tmp_path / "workshop" / "x.yaml")) == tmp_path / "workshop"
    assert default_root("a/b/x.yaml") == here
