"""--fix writes the file the user meant: a symlink's target (the link stays), a hard-linked file in
place (its names keep sharing it), mode and owner kept."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rubric_lsp.cli import lint_main

FIXABLE = "rubric:\n  - requirement: Cites a source\n    wieght: 2\n"  # AR001, a safe rename to weight
FIXED = "rubric:\n  - requirement: Cites a source\n    weight: 2\n"


def test_a_symlink_stays_a_link_and_its_target_is_fixed(tmp_path: Path):
    target = tmp_path / "shared" / "real.rubric.yaml"
    target.parent.mkdir()
    target.write_text(FIXABLE, encoding="utf-8")
    link = tmp_path / "link.rubric.yaml"
    link.symlink_to(target)
    assert lint_main(["--fix", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text(encoding="utf-8") == FIXED


def test_hard_links_keep_sharing_the_fixed_file(tmp_path: Path):
    first = tmp_path / "a.rubric.yaml"
    first.write_text(FIXABLE, encoding="utf-8")
    second = tmp_path / "b.rubric.yaml"
    os.link(first, second)
    inode = first.stat().st_ino
    assert lint_main(["--fix", str(first)]) == 0
    assert first.stat().st_ino == inode == second.stat().st_ino
    assert second.read_text(encoding="utf-8") == FIXED


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_owner_and_mode_are_kept(tmp_path: Path):
    path = tmp_path / "r.rubric.yaml"
    path.write_text(FIXABLE, encoding="utf-8")
    os.chown(path, 4242, 4243)
    os.chmod(path, 0o640)
    assert lint_main(["--fix", str(path)]) == 0
    info = path.stat()
    assert (info.st_uid, info.st_gid, info.st_mode & 0o777) == (4242, 4243, 0o640)
    assert path.read_text(encoding="utf-8") == FIXED
