"""A dataset grading's disagreements and confusion matrices as text every client can show.

The "n disagreeing item(s)" and "confusion matrix" lenses used to return data only VS Code's
extension displayed (a quick pick, a webview); a lens run in Neovim or Emacs showed nothing
(issue 25, item 8). The server now shows the same content itself as ``window/showMessage``
text, which every client displays (Neovim: ``vim.notify`` and ``:messages``; eglot: the echo
area and ``*Messages*``). The extension, which renders these its own way, passes
``"show": false`` so that nothing appears twice.

Items are numbered from 1 as in the CLI's text output (``rows.py``); JSON ``index`` stays 0-based.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

if TYPE_CHECKING:
    from rubric_lsp.server.verdicts import Shown

# More lines than this make a notification no one reads; the rest is counted, not listed.
MAX_LISTED = 20


def wants_text(args: dict[str, Any]) -> bool:
    """The client asked for the text (the default) unless it renders the answer itself."""
    return args.get("show") is not False


def show_text(ls: Any, text: str) -> None:
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=text))


def disagreements_text(criterion: Any, found: list[dict[str, Any]]) -> str:
    """``criterion: n item(s) where …`` then one line per item: its number, line, label and verdict."""
    if not found:
        return f"{criterion}: the judge agrees with every label"
    lines = [f"{criterion}: {len(found)} item(s) where the judge and the labels disagree"]
    for item in found[:MAX_LISTED]:
        start = ((item.get("range") or {}).get("start") or {}).get("line")
        where = "" if start is None else f", line {start + 1}"
        lines.append(f"  item {item['index'] + 1}{where}: labelled {item['truth']}, judged {item['judged']}")
    if len(found) > MAX_LISTED:
        lines.append(f"  … and {len(found) - MAX_LISTED} more (rubric grade --report lists them all)")
    return "\n".join(lines)


def confusion_text(entry: dict[str, Any]) -> str:
    """The criterion's confusion matrix as an aligned table: a row per label, a column per verdict."""
    confusion = entry.get("confusion") or {}
    labels = [str(label) for label in confusion.get("labels") or []]
    matrix = confusion.get("matrix") or []
    head = f"{entry.get('name')}: confusion matrix over {entry.get('compared', 0)} compared item(s)"
    if not labels:
        return f"{head}: nothing compared"
    corner = "label \\ judge"
    first = max(len(corner), *(len(label) for label in labels))
    width = max(*(len(label) for label in labels), *(len(str(n)) for row in matrix for n in row))
    rows = [corner.ljust(first) + "".join(f"  {label:>{width}}" for label in labels)]
    for label, row in zip(labels, matrix, strict=False):
        rows.append(label.ljust(first) + "".join(f"  {n:>{width}}" for n in row))
    return head + "\n" + "\n".join(rows)


def agreement_entry(data: Any, criterion: Any) -> dict[str, Any] | None:
    """The agreement entry of criterion ``criterion`` (its 0-based index) in a dataset result."""
    if not isinstance(data, dict):
        return None
    return next((c for c in data.get("agreement") or [] if c.get("index") == criterion), None)


def last_dataset_grading(ls: Any, uri: str) -> tuple[Shown, dict[str, Any]]:
    """What the last dataset grading of ``uri`` showed, and its result; ValueError when there is none."""
    state = ls.docs.get(uri)
    shown: Shown | None = state.extra.get("shown") if state is not None else None
    data = shown.result if shown is not None else None
    if shown is None or not isinstance(data, dict) or "agreement" not in data:
        raise ValueError("no dataset grading of this document to show; run Grade Examples first")
    return shown, data


# The lenses whose content the server shows as text (their commands' answers).
VIEW_COMMANDS = ("rubric-lsp.showDisagreements", "rubric-lsp.report")


def lens_actions(ls: Any, uri: str, at: types.Range) -> list[types.Command]:
    """The dataset lenses of the criteria under ``at`` as code actions ("Show confusion matrix").

    eglot and Helix display no code lenses at all; their users reach these through the code-action
    menu instead, and the command's text answer (above) is what they then see.
    """
    from rubric_lsp.server.positions import Converter

    state = ls.docs.get(uri)
    shown: Shown | None = state.extra.get("shown") if state is not None else None
    if shown is None or state.result is None:
        return []
    convert = Converter(shown.lines() or state.result.document.lines, ls.encoding)
    actions = []
    for lens in shown.lenses:
        where = convert.range(lens.range)
        if lens.command in VIEW_COMMANDS and where.start.line <= at.end.line and at.start.line <= where.end.line:
            actions.append(types.Command(title=f"Show {lens.title}", command=lens.command, arguments=lens.arguments))
    return actions
