"""``rubric-lsp.report``: the HTML report of a document's last grading, for an editor's webview.

Every grading the server runs (``rubric-lsp.grade`` and the commands built on it) is
remembered per document, the last one only; ``rubric-lsp.report {"uri"}`` renders it as
``rubric grade --report`` would (``grading/html_report.py``: self-contained, redacted) and
returns ``{"html": ...}``. Rendering a large dataset's report takes a fraction of a second,
so it runs on a worker thread: the server keeps answering meanwhile.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

REPORT = "rubric-lsp.report"

# server → uri → (request, result) of the last grading of that document
_LAST: weakref.WeakKeyDictionary[Any, dict[str, tuple[Any, Any]]] = weakref.WeakKeyDictionary()


def remember(ls: Any, uri: str, request: Any, result: Any) -> None:
    if result is not None and hasattr(result, "to_json"):
        _LAST.setdefault(ls, {})[uri] = (request, result)


async def report_command(ls: Any, args: dict[str, Any]) -> dict[str, Any]:
    from rubric_lsp.server.arguments import invalid

    last = _LAST.get(ls, {}).get(args["uri"])
    if last is None:
        raise invalid(f"{REPORT}: this document has not been graded since the server started; grade it first")
    try:
        from rubric_lsp.grading.html_report import render
    except ImportError as exc:
        raise invalid(f"{REPORT}: the report needs the [grade] extra ({exc.name} is missing)") from None
    request, result = last
    html = await asyncio.to_thread(render, request, result)
    return {"html": html}


def register(ls: Any) -> None:
    @ls.command(REPORT)
    async def report(ls: Any, *args: Any) -> dict[str, Any]:
        return await report_command(ls, args[0])
