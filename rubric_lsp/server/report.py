"""``rubric-lsp.report``: the HTML report of a document's last grading, for an editor's webview.

Every grading the server runs (``rubric-lsp.grade`` and the commands built on it) is
remembered per document, the last one only; ``rubric-lsp.report {"uri"}`` renders it as
``rubric grade --report`` would (``reporters/grade/html.py``: self-contained, redacted) and
returns ``{"html": ...}``. With ``"criterion"`` (the dataset's "confusion matrix" lens) the
server also shows that criterion's matrix as a text table (``dataset_views``) for clients that
display no HTML, unless the client passes ``"show": false`` (VS Code: its webview shows it). Rendering a large dataset's report takes a fraction of a second,
so it runs on a worker thread: the server keeps answering meanwhile.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from rubric_lsp.server import dataset_views

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
        from rubric_lsp.reporters.grade.html import render
    except ImportError as exc:
        raise invalid(f"{REPORT}: the report needs the [grade] extra ({exc.name} is missing)") from None
    request, result = last
    if args.get("criterion") is not None and dataset_views.wants_text(args):
        _show_confusion(ls, args["uri"], args["criterion"])
    html = await asyncio.to_thread(render, request, result)
    return {"html": html}


def _show_confusion(ls: Any, uri: str, criterion: int) -> None:
    """The "confusion matrix" lens in a client that shows no HTML: the matrix as a text table."""
    try:
        _, data = dataset_views.last_dataset_grading(ls, uri)
    except ValueError:
        return  # not a dataset grading: the report alone answers
    entry = dataset_views.agreement_entry(data, criterion)
    if entry is not None:
        dataset_views.show_text(ls, dataset_views.confusion_text(entry))


def register(ls: Any) -> None:
    @ls.command(REPORT)
    async def report(ls: Any, *args: Any) -> dict[str, Any]:
        return await report_command(ls, args[0])
