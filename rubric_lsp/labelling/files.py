"""The files a labelling session writes, and only those: the labelled file (or its labels file) and its labels log.

Each is written whole or not at all (a temporary file beside it, fsync, an atomic rename) and only when it
changed since it was read: a file someone edited meanwhile is read again before the label is applied, never
overwritten with stale text (``Written.check``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from rubric_lsp.calibration.record_file import write_atomic


class ChangedMeanwhile(OSError):
    """The file changed on disk since it was read: the label is not written (read it again and retry)."""


@dataclass(frozen=True)
class Target:
    """A file the session may write: its path, made absolute with symlinks followed once, when opened."""

    path: Path

    @classmethod
    def of(cls, path: Path) -> Target:
        return cls(Path(os.path.realpath(path)))

    def read(self) -> bytes | None:
        """Its bytes (None: it does not exist yet)."""
        try:
            return self.path.read_bytes()
        except FileNotFoundError:
            return None

    def write(self, text: str, expected: bytes | None) -> None:
        """Write ``text`` when the file still holds ``expected`` (None: still absent); ChangedMeanwhile else."""
        if self.read() != expected:
            raise ChangedMeanwhile(f"{self.path} changed on disk while it was being labelled; read again")
        write_atomic(self.path, text)
