"""The verdict cache: one small JSON file per judge request that produced a usable reply.

Keyed by a hash of everything that can change a verdict (prompt version, model, API
base, temperature, max tokens, response format, and the messages — which hold the
criterion, guidelines, response and query). Only replies that parsed are stored, so a
failure is never cached. Writes go to a temporary file in the same folder and are renamed
into place, so concurrent writers (several editors, a CLI run) never see half a file and a
cancelled grading leaves nothing half-written. API keys are never part of a key or entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

CACHE_FORMAT = 1


class VerdictCache:
    def __init__(self, directory: Path):
        self.directory = Path(directory)

    @staticmethod
    def key(request: dict[str, Any]) -> str:
        canonical = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> str | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT or not isinstance(data.get("content"), str):
            return None
        return data["content"]

    def put(self, key: str, content: str) -> None:
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump({"format": CACHE_FORMAT, "content": content}, handle)
                os.replace(temp, path)
            except BaseException:
                try:
                    os.unlink(temp)
                except OSError:
                    pass
                raise
        except OSError:
            pass  # a read-only or full cache folder must not fail grading
