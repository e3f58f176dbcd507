"""The arguments each ``workspace/executeCommand`` command takes, checked in one place.

A command called with arguments of the wrong shape (``["str"]``, no ``text``, a URI that names
no file) is the client's mistake: it gets InvalidParams (-32602) with a one-line message, never
an internal error with a traceback. Command bodies may then read their argument without checks.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from rubric_lsp.formats.errors import describe_type


@dataclass(frozen=True)
class Arg:
    name: str
    kind: type | tuple[type, ...]
    required: bool = False
    document: bool = False  # a URI the server can read: an open document or a file: URI
    what: str = ""


def _type_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {
        str: "a string",
        int: "an integer",
        float: "a number",
        bool: "true or false",
        dict: "an object",
        list: "a list",
    }
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _json_type(value: Any) -> str:
    return describe_type(value, mapping="an object")  # JSON-RPC says object


# Without "uri", a grading command works on the document the client last touched (docs/editor-grading.md).
URI = Arg("uri", str, document=True, what="the document (default: the one last touched)")
RANGE = Arg("range", dict, what="the selection, an LSP Range (default: the last cursor position seen)")
TARGET = Arg("target", dict, what="an entry of rubric-lsp.gradeTargets to grade the selection against")
QUERY = Arg("query", str, what="the prompt the response answers")
TEST = Arg("test", int, what="the 1-based test number, for files with tests")
RESPONSE = Arg(
    "response", str, what="the response to grade, held in a file: a path (relative to the document) or a URI"
)
RESULTS = Arg(
    "results",
    str,
    what="a results file the document's own tool wrote (an eval's -o results.json), graded whole: a path (relative "
    "to the document) or a URI",
)
# The dataset lenses and "needs a response" show their answer as text (window/showMessage) unless the
# client renders it itself.
SHOW = Arg("show", bool, what="false: only return the answer (the client displays it its own way)")

# Every command and its one object argument's fields.
COMMANDS: dict[str, tuple[Arg, ...]] = {
    "rubric-lsp.gradeText": (
        URI,
        Arg("text", str, required=True, what="the response to grade"),
        QUERY,
        TEST,
    ),
    "rubric-lsp.gradeDocument": (URI,),
    "rubric-lsp.grade": (
        URI,
        Arg("kind", str, what="response | outputs | examples | dataset | rescore | results"),
        Arg("text", str, what="the response to grade"),
        RESPONSE,
        Arg("texts", list, what="the outputs to compare"),
        QUERY,
        TEST,
        Arg("limit", int, what="grade at most this many items"),
        Arg("verdicts", list, what="one verdict per criterion, to rescore"),
        Arg("units", list, what="the names of the units to grade"),
        RANGE,
        TARGET,
        RESULTS,
        SHOW,
    ),
    "rubric-lsp.gradeResults": (URI, RESULTS),
    "rubric-lsp.gradeSelection": (
        URI,
        RANGE,
        TARGET,
        Arg("text", str, what="the response to grade"),
        RESPONSE,
        QUERY,
        SHOW,
    ),
    "rubric-lsp.gradeExamples": (URI, SHOW),
    "rubric-lsp.gradeTargets": (),
    "rubric-lsp.calibrate": (
        URI,
        Arg(
            "record",
            str,
            what="where to write the record (a *.calibration.json file; default: beside the labelled set)",
        ),
    ),
    "rubric-lsp.review": (URI,),
    "rubric-lsp.cancelGrading": (),
    "rubric-lsp.showDisagreements": (
        URI,
        Arg("criterion", int, required=True, what="the index of the criterion in the agreement list"),
        SHOW,
    ),
    "rubric-lsp.clearVerdicts": (Arg("uri", str, document=False, what="the document"),),
    "rubric-lsp.label": (
        URI,
        Arg("item", str, what="the key of the item to open the page on"),
        Arg("labeller", str, what="who labels (default: the labelling.labeller setting, else git's user.name)"),
        Arg("open", bool, what="false: only answer the page's URL (the client shows it its own way)"),
    ),
    "rubric-lsp.report": (
        Arg("uri", str, required=True, what="the graded document"),
        Arg("criterion", int, what="the dataset criterion whose confusion matrix to show (0-based)"),
        SHOW,
    ),
}


def invalid(message: str) -> JsonRpcInvalidParams:
    return JsonRpcInvalidParams(message=message)


def check(ls: Any, command: str, arguments: tuple[Any, ...]) -> None:
    """Raise InvalidParams (one line) unless ``arguments`` fit ``command``'s declared fields."""
    fields = COMMANDS.get(command)
    if fields is None:
        return
    shape = "{" + ", ".join(f'"{f.name}": …' for f in fields if f.required) + "}"
    required = [f for f in fields if f.required]
    if not arguments:
        if required:
            raise invalid(f"{command} takes one argument {shape}; it got none")
        return
    if len(arguments) > 1:
        raise invalid(f"{command} takes one argument {shape}; it got {len(arguments)}")
    given = arguments[0]
    if not isinstance(given, dict):
        raise invalid(f"{command} takes one object argument {shape}; it got {_json_type(given)}")
    for field in fields:
        value = given.get(field.name)
        if value is None:
            if field.required:
                what = f" ({field.what})" if field.what else ""
                raise invalid(f'{command}: "{field.name}"{what} is missing')
            continue
        kinds = field.kind if isinstance(field.kind, tuple) else (field.kind,)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise invalid(f'{command}: "{field.name}" must be {_type_name(field.kind)}; it is {_json_type(value)}')
        if field.document and not (isinstance(value, str) and _readable(ls, value)):
            raise invalid(
                f'{command}: "{field.name}" must be an open document or a file: URI; it is {str(value)[:200]!r}'
            )


def _readable(ls: Any, uri: str) -> bool:
    try:
        if uri in ls.workspace.text_documents:
            return True
    except AttributeError:
        pass
    return uri.startswith("file:") and ls.path_of(uri) is not None


def checked(ls: Any, command: str, handler: Callable[..., Any]) -> Callable[..., Any]:
    """``handler`` (``(ls, *args)``) with its arguments checked first; same signature for pygls."""
    if inspect.iscoroutinefunction(handler):

        @functools.wraps(handler)
        async def run_async(server: Any, *args: Any) -> Any:
            check(server, command, args)
            return await handler(server, *args)

        return run_async

    @functools.wraps(handler)
    def run(server: Any, *args: Any) -> Any:
        check(server, command, args)
        return handler(server, *args)

    return run
