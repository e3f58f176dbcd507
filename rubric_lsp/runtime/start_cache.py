"""What a process computed at its start, by key, kept for the next start in a marshal file of the user's cache.

The protocol types' attrs methods (``server/lsp_types.py``), the dataclasses' methods
(``runtime/dataclass_bytecode.py``) and the regular expressions' compiled code (``runtime/regex_code.py``) are
each a pure function of their source that every start would compute again. A file is per interpreter
(``sys.implementation.cache_tag`` in its name, under ``bytecode/``) and starts with a header naming what wrote it;
an unreadable, foreign or damaged file reads as empty, and a folder that cannot be written costs only the time.

``StartCache`` reads its file at the first look-up, not before; a process that computed something the file lacked
writes the file again as it ends, with what it held (unless that grew past ``MAX_ENTRIES``: then only what this
process used, so keys of sources long changed do not pile up).
"""

from __future__ import annotations
import __future__

import atexit
import contextlib
import functools
import marshal
import operator
import os
import sys
from pathlib import Path
from typing import Any

from rubric_lsp.runtime.user_cache import user_cache_dir

MAX_ENTRIES = 4000
# The compiler flags of every ``from __future__`` feature: code compiled for a cache takes those of the frame
# whose own compile it stands in for (``exec`` and ``compile`` inherit them), masked with this.
FUTURE_FLAGS = functools.reduce(
    operator.or_, (getattr(__future__, name).compiler_flag for name in __future__.all_feature_names)
)


def cache_file(name: str) -> Path:
    """``<user cache>/bytecode/<name>.<cache tag>.marshal``."""
    return user_cache_dir() / "bytecode" / f"{name}.{sys.implementation.cache_tag}.marshal"


def read(path: Path, header: bytes) -> dict[Any, Any]:
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    if not data.startswith(header):
        return {}
    try:
        known = marshal.loads(data[len(header) :])
    except (ValueError, EOFError, TypeError):
        return {}
    return known if isinstance(known, dict) else {}


def write(path: Path, header: bytes, data: dict[Any, Any]) -> str | None:
    """Write ``data`` whole (a process ending at the same time writes its own file, then one replaces the
    other); why not, or None."""
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_bytes(header + marshal.dumps(data))
        os.replace(partial, path)
    except (OSError, ValueError) as error:  # (ValueError: an object marshal cannot write)
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        return str(error)
    return None


class StartCache:
    def __init__(self, path: Path, header: bytes) -> None:
        self.path = path
        self.header = header
        self.known: dict[Any, Any] | None = None
        self.used: dict[Any, Any] = {}
        self.computed = 0  # look-ups the file could not answer

    def get(self, key: Any) -> Any:
        """What this process or the file holds for ``key`` (None: compute it and ``add`` it)."""
        value = self.used.get(key)
        if value is not None:
            return value
        if self.known is None:
            self.known = read(self.path, self.header)
        value = self.known.get(key)
        if value is not None:
            self.used[key] = value
        return value

    def add(self, key: Any, value: Any) -> Any:
        self.computed += 1
        self.used[key] = value
        return value

    def save(self) -> None:
        if not self.computed:
            return
        known = self.known or {}
        merged = {**known, **self.used} if len(known) + len(self.used) <= MAX_ENTRIES else dict(self.used)
        write(self.path, self.header, merged)

    def save_at_exit(self) -> None:
        atexit.register(self.save)
