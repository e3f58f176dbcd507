"""A grading that needs a response gets one as a document: a scratch response file the client opens.

Some units are graded against a response (a format's ``GradePlan`` of kind ``response``). When none
was given or used yet, the server creates ``<file>.response.md`` beside the graded file (in a folder
of the temporary directory when that folder takes no new file, or the file has no path), asks the
client to open it (``window/showDocument``, when the client can) and remembers it:

- the response file carries a "▶ Grade against …" code lens (and the same code action) that grades
  the unit against its text, in any client that sends the server the file;
- a grading of that unit (or any response grading of that file) run again uses the file's text once
  the user has written it, so a client that shows only documents and messages (eglot) follows too;
- the message names each editor's documented command (docs/editors.md): ``:RubricGrade FILE`` in
  Neovim, ``M-x rubric-grade-with-response`` in Emacs.

Nothing here names a format: the unit's noun and label come from the format's editor hooks.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types

from rubric_lsp.formats.editor import GradePlan
from rubric_lsp.server.app import RubricServer
from rubric_lsp.server.grading_plan import Read

log = logging.getLogger(__name__)

SUFFIX = ".response.md"
GRADE = "rubric-lsp.grade"
TEMP_FOLDER = "rubric-lsp-responses"


@dataclass
class ResponseFile:
    """A scratch response file and what it is graded against."""

    uri: str
    path: Path
    target: str  # the graded document's URI
    target_name: str
    plan: GradePlan
    unit: str | None  # "test 'capital of France'"; None: the file's every unit
    beside: bool  # beside the graded file (else in the temporary directory)

    def command(self, title: str) -> types.Command:
        """``rubric-lsp.grade`` of the unit against the file's text (read when the command runs)."""
        argument: dict[str, Any] = {"uri": self.target, "kind": "response", "response": self.uri}
        if self.plan.test is not None:
            argument["test"] = self.plan.test
        if self.plan.units:
            argument["units"] = list(self.plan.units)
        return types.Command(title=title, command=GRADE, arguments=[argument])

    @property
    def title(self) -> str:
        return (
            f"▶ Grade against {self.unit} ({self.target_name})" if self.unit else f"▶ Grade against {self.target_name}"
        )

    @property
    def shown_path(self) -> str:
        """The file as a message names it: its name beside the graded file, else its whole path."""
        return self.path.name if self.beside else str(self.path)


def _place(target_path: str | None, target_uri: str, name: str) -> tuple[Path, bool]:
    """Where the response file of ``name`` goes: beside it when that folder takes a new file, else a
    folder of the temporary directory of its own (one per graded file)."""
    if target_path is not None:
        beside = Path(target_path).parent / (name + SUFFIX)
        if _can_create(beside):
            return beside, True
    import tempfile  # (and random, shutil): for a response kept, not at the server's start

    digest = hashlib.sha256(target_uri.encode("utf-8")).hexdigest()[:12]
    folder = Path(tempfile.gettempdir()) / TEMP_FOLDER / digest
    return folder / (name + SUFFIX), False


def _can_create(path: Path) -> bool:
    """Create ``path`` empty (never over a file); False when its folder does not take it."""
    try:
        with open(path, "x", encoding="utf-8"):
            pass
    except FileExistsError:  # the user's own file of that name is theirs to write in; a folder is in the way
        return path.is_file()
    except OSError:
        return False
    return True


def create(target_uri: str, target_path: str | None, plan: GradePlan, unit: str | None) -> ResponseFile:
    """The response file of the document at ``target_uri``, created empty when missing (an existing file,
    the user's, is never written). Raises OSError when it cannot be created. Call it off the event loop."""
    name = Path(target_path or target_uri.rsplit("/", 1)[-1] or "untitled").name
    path, beside = _place(target_path, target_uri, name)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    return ResponseFile(path.as_uri(), path, target_uri, name, plan, unit, beside)


def remember(ls: RubricServer, found: ResponseFile) -> None:
    """``found`` is the document's response file from now on (for ``found.plan``: its lens grades that)."""
    forget_target(ls, found.target)
    ls.responses[found.uri] = found


def of_target(ls: RubricServer, target_uri: str) -> ResponseFile | None:
    """The response file remembered for the document at ``target_uri``, if any."""
    return next((f for f in ls.responses.values() if f.target == target_uri), None)


def forget_target(ls: RubricServer, target_uri: str) -> None:
    """Another response was graded against the document: its response file is no longer the one to use."""
    for uri in [u for u, f in ls.responses.items() if f.target == target_uri]:
        ls.responses.pop(uri, None)


def show(ls: RubricServer, found: ResponseFile) -> bool:
    """Ask the client to open the response file (not awaited: the command answers at once); False when the
    client cannot be asked (eglot 1.9, Helix), and the message then names the file's whole path."""
    if not ls.client_supports("window.show_document.support"):
        return False

    def done(future: Any) -> None:
        error = future.exception() if not future.cancelled() else None
        if error is not None:
            log.info("the client did not open %s: %s", found.path, error)

    try:
        ls.window_show_document(types.ShowDocumentParams(uri=found.uri, take_focus=True)).add_done_callback(done)
    except Exception as exc:  # a closed connection: the message still names the file
        log.info("cannot ask the client to open %s: %s", found.path, exc)
        return False
    return True


def advice(found: ResponseFile, noun: str, opened: bool) -> str:
    """What to do next, in every client's words (docs/editors.md names the Neovim and Emacs commands)."""
    where = f"{found.shown_path} (opened{' beside it' if found.beside else ''})" if opened else str(found.path)
    return (
        f"Grading this {noun} needs a response: write it in {where}, then run "
        f'"{found.title}" at its top, or grade here again once it is saved. '
        f"Neovim: :RubricGrade {found.path}; Emacs: M-x rubric-grade-with-response RET {found.path} "
        f"(docs/editors.md), with the cursor on the {noun}. "
        "VS Code: or select a response anywhere and run Rubric: Grade Selection."
    )


def text_of(ls: RubricServer, found: ResponseFile) -> str:
    """The response file's text: the open document's (unsaved edits too), else the file's."""
    if found.uri in ls.workspace.text_documents:
        return ls.text_of(found.uri)[0]
    try:
        return found.path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def written(ls: RubricServer, target_uri: str) -> tuple[str, str | None] | None:
    """The response written in the document's response file (None: none remembered, or still empty)."""
    found = of_target(ls, target_uri)
    if found is None:
        return None
    text = text_of(ls, found)
    return (text, None) if text.strip() else None


def lenses(ls: RubricServer, uri: str) -> list[types.CodeLens]:
    """The "▶ Grade against …" lens at the top of a response file."""
    found = ls.responses.get(uri)
    if found is None:
        return []
    top = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
    return [types.CodeLens(range=top, command=found.command(found.title))]


def actions(ls: RubricServer, uri: str) -> list[types.Command]:
    """The lens as a code action anywhere in a response file (clients without code lenses)."""
    found = ls.responses.get(uri)
    return [found.command(found.title.removeprefix("▶ "))] if found is not None else []


async def needs_response(
    ls: RubricServer, doc: Read, plan: GradePlan, noun: str, unit: str | None, show_text: bool
) -> dict[str, Any]:
    """No response to grade against: a response file to write one in, opened in the client, and a message naming
    what to run in each editor (docs/editors.md); shown as text unless the client shows the answer itself."""
    loop = asyncio.get_running_loop()
    try:
        found = await loop.run_in_executor(ls.lint_pool, create, doc.uri, doc.document.path, plan, unit)
    except OSError as exc:
        text = (
            f"Grading this {noun} needs a response, and no response file could be made ({exc.strerror or exc}): "
            "keep the response in a file and run :RubricGrade FILE in Neovim or M-x rubric-grade-with-response in "
            f"Emacs (docs/editors.md) with the cursor on the {noun}, or in VS Code select a response anywhere and "
            "run Rubric: Grade Selection."
        )
        if show_text:
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=text))
        return {"needsResponse": True, "message": text}
    remember(ls, found)
    opened = show(ls, found)
    said = advice(found, noun, opened)
    if show_text:  # the VS Code extension shows its own toast, with a button (it passes "show": false)
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=said))
    log.info("%s", said)
    answer: dict[str, Any] = {"needsResponse": True, "message": said, "responseFile": found.uri}
    answer["unit"] = unit or found.target_name
    answer["grade"] = {"title": found.title, "command": GRADE, "arguments": found.command(found.title).arguments}
    return answer


async def written_async(ls: RubricServer, uri: str) -> tuple[str, str | None] | None:
    """The response written in the document's response file (read off the loop: it may be a closed file)."""
    if of_target(ls, uri) is None:
        return None
    return await asyncio.get_running_loop().run_in_executor(ls.lint_pool, written, ls, uri)


async def keep_or_forget(ls: RubricServer, uri: str, response: tuple[str, str | None] | None) -> None:
    """A response other than the one written in the document's response file was graded: that file is no
    longer the document's response (the last response used is)."""
    now = await written_async(ls, uri)
    if now is not None and response is not None and now[0] != response[0]:
        forget_target(ls, uri)


def empty_answer(ls: RubricServer, args: dict[str, Any], named: str | None) -> dict[str, Any] | None:
    """A named response file that holds nothing yet: say so instead of grading an empty response."""
    if named is None or named.strip():
        return None
    message = f"{args.get('response')} is empty: write the response to grade in it (and save it), then grade again."
    if args.get("show") is not False:
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
    return {"message": message}
