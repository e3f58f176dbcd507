"""Where rubric-lsp keeps what it caches for the user: the platform's cache folder, ``rubric-lsp`` in it.

The judge's verdicts (``engine.settings.default_cache_dir``) and the language server's protocol bytecode
(``server.lsp_types``) live in folders of their own under it. Standard library only: the server asks before its
first diagnostics, which load no engine.
"""

from __future__ import annotations

import os
from pathlib import Path


def user_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/rubric-lsp`` (``~/.cache``), ``~/Library/Caches/rubric-lsp`` or ``%LOCALAPPDATA%``'s."""
    if os.name == "nt":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif os.uname().sysname == "Darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "rubric-lsp"
