"""What a grading command grades: its document, the units under the selection, the targets a text can be graded against.

Each format says what can be graded in its files through its editor hooks (``gradable_units``,
``examples_plan``: see :mod:`rubric_lsp.formats.editor`); this module only finds the units under
a selection, lists targets across documents, and turns a plan into a ``GradeRequest``. A command
without a ``uri`` works on the document the client last touched (``RubricServer.touch``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types

from rubric_lsp.document import Document, parse_document
from rubric_lsp.document.files import UnreadableFile, read_regular_text
from rubric_lsp.document.positions import Span
from rubric_lsp.formats.editor import EditorContext, GradableUnit, GradePlan
from rubric_lsp.formats.plugin import Format
from rubric_lsp.formats.registry import detect
from rubric_lsp.server.app import RubricServer
from rubric_lsp.server.positions import Converter

log = logging.getLogger(__name__)

MAX_WORKSPACE_FILES = 400  # files looked at for the targets list (per request)
SKIPPED_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache", "dist", "build"}
SUFFIXES = (".yaml", ".yml", ".json", ".jsonl")


class NoDocument(ValueError):
    """No ``uri`` given and no document touched yet: the client's mistake (-32602)."""


@dataclass
class Read:
    """A document as the grading commands see it: text, parse, format and view."""

    uri: str
    text: str
    document: Document
    format: Format | None
    view: Any

    @property
    def gradable(self) -> bool:
        return self.format is not None and self.format.grader is not None and self.document.root is not None

    def context(self) -> EditorContext:
        return EditorContext(self.document, self.view)

    def units(self) -> list[GradableUnit]:
        return self._hook("gradable_units", [], "listing what can be graded in")

    def examples_plan(self) -> GradePlan | None:
        return self._hook("examples_plan", None, "finding the examples of")

    def results_files(self) -> list[str]:
        """Results files the file's own tool wrote beside it, newest first (``EditorHooks.results_files``)."""
        return self._hook("results_files", [], "looking for results files beside")

    def _hook(self, name: str, default: Any, doing: str) -> Any:
        """The format's editor hook ``name`` on this document; ``default`` when it has none or it fails (logged)."""
        if not self.gradable or self.format is None:
            return default
        try:
            return getattr(self.format.editor_hooks(), name)(self.context())
        except Exception:
            log.exception("%s %s failed", doing, self.uri)
            return default

    @property
    def name(self) -> str:
        return Path(self.document.path or self.uri).name


def document_uri(ls: RubricServer, args: dict[str, Any]) -> str:
    uri = args.get("uri") or ls.touched
    if not isinstance(uri, str):
        raise NoDocument('no document: pass {"uri": …} or open one first')
    return uri


def text_of(ls: RubricServer, uri: str) -> str:
    """An open document's text, else the file's (a regular file within max-file-size; call it off the loop)."""
    if uri in ls.workspace.text_documents:
        return ls.text_of(uri)[0]
    path = ls.path_of(uri) if uri.startswith("file:") else None
    if path is None:
        raise NoDocument(f"cannot read {uri}: not an open document or a file: URI")
    limit = ls.settings.lint_settings(path).max_file_size
    try:
        return read_regular_text(path, limit)
    except FileNotFoundError:
        raise NoDocument(f"{path} does not exist") from None
    except UnicodeDecodeError:
        raise NoDocument(f"{path} is not UTF-8 text") from None
    except OSError as exc:  # UnreadableFile names its reason; others (a folder, no permission) are one line too
        raise NoDocument(
            str(exc) if isinstance(exc, UnreadableFile) else f"cannot read {path}: {exc.strerror or exc}"
        ) from None


async def response_text(
    ls: RubricServer, args: dict[str, Any], doc_uri: str | None, key: str = "response"
) -> str | None:
    """The response named by ``args["response"]`` (an open document's URI, a file: URI, or a path, relative
    to the graded document's folder): how a client without a Grade Selection command grades a unit against a
    response held in a file or another buffer. None when no response is named. ``key``: another argument naming
    a file the same way (``results``: a results file to grade whole)."""
    given = args.get(key)
    if given is None:
        return None
    if given in ls.workspace.text_documents or given.startswith("file:"):
        uri = given
    else:
        path = Path(os.path.expanduser(given))
        base = ls.path_of(doc_uri) if doc_uri and doc_uri.startswith("file:") else None
        if not path.is_absolute():
            path = (Path(base).parent if base else Path.cwd()) / path
        uri = path.absolute().as_uri()
    return await asyncio.get_running_loop().run_in_executor(ls.lint_pool, text_of, ls, uri)


def _read_now(uri: str, text: str, path: str | None) -> Read:
    doc = parse_document(text, path or "untitled.txt")
    fmt = None
    view = None
    if doc.readable and doc.root is not None:
        try:
            fmt = detect(doc)
            view = fmt.build_view(doc) if fmt is not None else None
        except Exception:
            log.debug("reading %s failed", uri, exc_info=True)
    return Read(uri, text, doc, fmt, view)


async def read(ls: RubricServer, uri: str) -> Read:
    """The document at ``uri``: an open one through its lint (shared view), else read from disk."""
    if uri in ls.workspace.text_documents:
        result = await ls.lint(uri)
        return Read(uri, result.document.text, result.document, result.format, result.view)
    loop = asyncio.get_running_loop()
    # Off the event loop: a workspace file may be large, slow, or not a regular file at all.
    text = await loop.run_in_executor(ls.lint_pool, text_of, ls, uri)
    return await loop.run_in_executor(ls.lint_pool, _read_now, uri, text, ls.path_of(uri))


def selection_span(ls: RubricServer, doc: Read, rng: Any) -> Span | None:
    """The selection (an LSP range in the client's units) as code points; None: no selection known."""
    if rng is None:
        return None
    if isinstance(rng, dict):
        try:
            rng = types.Range(
                start=types.Position(line=int(rng["start"]["line"]), character=int(rng["start"]["character"])),
                end=types.Position(line=int(rng["end"]["line"]), character=int(rng["end"]["character"])),
            )
        except (KeyError, TypeError, ValueError):
            raise ValueError('"range" must be an LSP Range {"start": {line, character}, "end": {…}}') from None
    return Converter(doc.document.lines, ls.encoding).to_span(rng)


def units_under(units: list[GradableUnit], span: Span, text: str = "") -> list[GradableUnit]:
    """The innermost units the selection touches (a cursor: the innermost units holding it). Each unit owns
    its lines whole (``text``: the document's): the indent and list dash before its first key too, so a
    cursor at the start of ``  - vars:`` (where an editor's back-to-indentation lands) is in that test."""
    spans = {id(u): whole_lines(text, u.span) for u in units}
    if span.end > span.start:
        touched = [u for u in units if spans[id(u)].start < span.end and span.start < spans[id(u)].end]
    else:
        touched = [u for u in units if spans[id(u)].start <= span.start <= spans[id(u)].end]
    return [
        u
        for u in touched
        if not any(
            o is not u and u.span.start <= o.span.start and o.span.end <= u.span.end and o.span != u.span
            for o in touched
        )
    ]


# Before a unit's first key on its line: indentation and YAML block-sequence dashes ("  - ", "- - ").
_LEAD = re.compile(r"[ \t]*(?:-[ \t]+)*-?[ \t]*")
# After its last value on its line: spaces, a JSON comma, a YAML comment.
_TRAIL = re.compile(r"[ \t,]*(?:#.*)?")


def whole_lines(text: str, span: Span) -> Span:
    """``span`` from the start of its first line when only indentation and dashes come before it there, to
    the end of its last line when only spaces, a comma or a comment follow it there."""
    if not text:
        return span
    line_start = text.rfind("\n", 0, span.start) + 1
    start = line_start if _LEAD.fullmatch(text, line_start, span.start) else span.start
    line_end = text.find("\n", span.end)
    line_end = len(text) if line_end == -1 else line_end
    end = line_end if _TRAIL.fullmatch(text, span.end, line_end) else span.end
    return Span(start, max(end, span.end))


def combine(units: list[GradableUnit]) -> GradePlan:
    """One plan for several units: one test if they share it, else every test; their named units together."""
    plans = [u.plan for u in units]
    first = plans[0]
    if len(plans) == 1:
        return first
    tests = {p.test for p in plans}
    names: tuple[str, ...] = ()
    if all(p.units for p in plans):
        names = tuple(dict.fromkeys(n for p in plans for n in p.units))
    return GradePlan(first.kind, tests.pop() if len(tests) == 1 else None, names, first.text, first.path)


# -- targets -------------------------------------------------------------------------------
def target_json(doc: Read, unit: GradableUnit) -> dict[str, Any]:
    title = doc.format.title if doc.format is not None else "file"
    data: dict[str, Any] = {
        "label": unit.label or doc.name,
        "detail": " · ".join(p for p in (unit.detail or f"{title} {unit.noun}", doc.name) if p),
        "uri": doc.uri,
        "format": doc.format.name if doc.format is not None else None,
    }
    if unit.plan.test is not None:
        data["test"] = unit.plan.test
    if unit.plan.units:
        data["grader"] = unit.plan.units[0]
    return data


def _workspace_files(ls: RubricServer) -> list[Path]:
    found: list[Path] = []
    try:
        folders = [ls.path_of(f.uri) for f in ls.workspace.folders.values()]
    except Exception:
        folders = []
    for folder in folders:
        if folder is None:
            continue
        for top, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
            found.extend(Path(top) / f for f in sorted(files) if f.endswith(SUFFIXES))
            if len(found) >= MAX_WORKSPACE_FILES:
                return found[:MAX_WORKSPACE_FILES]
    return found


async def targets(ls: RubricServer) -> list[dict[str, Any]]:
    """Every target in the open documents and the workspace folders, each unit its own entry."""
    uris = list(ls.workspace.text_documents)
    seen = set(uris)
    for path in await asyncio.get_running_loop().run_in_executor(ls.lint_pool, _workspace_files, ls):
        uri = path.as_uri()
        if uri not in seen:
            seen.add(uri)
            uris.append(uri)
    found = []
    for uri in uris:
        try:
            doc = await read(ls, uri)
        except (OSError, UnicodeDecodeError, NoDocument):
            continue
        found += [target_json(doc, unit) for unit in doc.units() if unit.target]
    return found


async def target_plan(ls: RubricServer, target: dict[str, Any]) -> tuple[Read, GradePlan]:
    """The document and plan a ``target`` argument names (one entry of the targets list)."""
    uri = target.get("uri")
    if not isinstance(uri, str):
        raise ValueError('"target" must be an entry of rubric-lsp.gradeTargets (it has no "uri")')
    try:
        doc = await read(ls, uri)
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f'"target" names a file that cannot be read: {exc}') from None
    if not doc.gradable:
        raise ValueError(f'"target" {doc.name} is not a file rubric-lsp can grade against')
    test, grader = target.get("test"), target.get("grader")
    return doc, GradePlan(
        "response",
        test if isinstance(test, int) and not isinstance(test, bool) else None,
        (grader,) if isinstance(grader, str) else (),
    )


def request_for(doc: Read, plan: GradePlan, response: tuple[str, str | None] | None, limit: int | None = None) -> Any:
    """The GradeRequest of ``plan`` on ``doc`` (``response``: the text and query a response plan grades)."""
    from rubric_lsp.engine.request import GradeRequest, RequestKind

    kind = RequestKind(plan.kind)
    text, path = (plan.text, plan.path) if plan.text is not None else (doc.text, doc.document.path)
    responses: tuple[str, ...] = (response[0],) if kind is RequestKind.RESPONSE and response else ()
    query = response[1] if kind is RequestKind.RESPONSE and response else None
    test_index = plan.test - 1 if plan.test is not None and plan.test >= 1 else None
    return GradeRequest(text, path, kind, responses, query, test_index, limit, (), plan.units)
