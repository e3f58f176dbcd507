"""Which config strings promptfoo 0.123.1 reads as files — above all those written *without* ``file://``.

Pure decisions with no rule codes (``rules/bare_refs.py`` reports on them). Each mirrors the
code of the released package (``node_modules/promptfoo/dist/src``):

Prompts — ``processPrompt`` (``graders-*.js``, ``src/prompts/index.ts``), after ``normalizeInput``
(``evalResult-*.js``: a string, a list item, ``item.raw || item.id``, or a key of the map form):

1. ``exec:…`` runs a command, never read: not checked.
2. ``maybeFilePath(raw)`` false → the text is the prompt. False when the text holds a line
   break or ``portkey://``/``langfuse://``/``helicone://``; else true when it starts with
   ``file://``, when its last or second-to-last ``:``-token ends in one of
   ``VALID_FILE_EXTENSIONS``, when its 3rd- or 4th-last character (UTF-16) is ``.``, or when
   it holds ``*``, ``/`` or ``\\``.
3. ``parsePathOrGlob`` (``util-*.js``): a folder, or glob magic in the text or its resolved
   path (``hasMagic`` of glob 13) → a pattern: globbed, and when nothing matches the text
   itself is the prompt ("Using raw string") — never a failure.
4. By extension (exact, case-sensitive): ``.csv .j2 .json .jsonl .md .py .txt .yml .yaml``
   are read with ``readFileSync`` and a JS extension is imported, so a missing file stops the
   eval (ENOENT); ``.sh .bash .exe .bat .cmd .ps1 .rb .pl`` run as commands (not checked).
5. Any other extension, or none: an existing executable file runs; otherwise nothing is read
   and ``readPrompts`` throws ``There are no prompts in "…"``.

Tests — ``readTests`` (``main.js``, ``src/util/testCaseReader.ts``):

* a ``tests:`` string: ``az://…`` is a blob; one ending in ``yaml``/``yml`` is globbed by
  ``loadTestsFromGlob`` (no match: ``No test files found for path`` logged, no tests); any
  other goes to ``readStandaloneTestsFile``.
* a ``tests:`` list item (also in ``scenarios[].tests``): a JS/``.py`` file (after a
  ``:function`` suffix), ``.xlsx``/``.xls`` (before ``#sheet``) or any other ``:`` goes to
  ``readStandaloneTestsFile``; everything else is globbed by ``loadTestsFromGlob``.
* ``{path: …}`` (the whole value or a list item) goes to ``readStandaloneTestsFile``.
* ``file://`` is stripped before either reads; ``readStandaloneTestsFile`` never globs, so
  ``tests: file://data/*.csv`` names one literal file.
* ``readStandaloneTestsFile``: Hugging Face, Azure blob, Google Sheets and SharePoint URLs
  are fetched; a local path (``getStandaloneTestsFileMetadata``) is imported (JS), run
  (``.py``) or read (``.csv .xlsx .xls .json .jsonl .yaml .yml``, no globbing), so a missing
  one stops the eval; another extension returns no tests (PF024 reports that).

defaultTest — ``resolveConfigs`` (``main.js``) passes a string without ``file://`` to
``readTest``, which reads ``path.resolve(basePath, test)``: a missing file stops the eval.

Relative paths resolve from the config's folder (``basePath``) with Node's ``path.resolve``:
no ``~`` expansion. Strings holding an ``{{ env.X }}`` template are skipped: promptfoo fills
them from the environment first (``renderEnvOnlyInObject``).
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rubric_lsp.document import Node

FILE = "file://"
VALID_FILE_EXTENSIONS = (
    ".cjs", ".cts", ".j2", ".js", ".json", ".jsonl", ".md", ".mjs", ".mts", ".py", ".ts", ".txt", ".yml", ".yaml",
)  # fmt: skip
_INLINE_MARKERS = ("\n", "portkey://", "langfuse://", "helicone://")
_JAVASCRIPT = re.compile(r"\.(js|cjs|mjs|ts|cts|mts)$", re.IGNORECASE)
PROMPT_READ = (".csv", ".j2", ".json", ".jsonl", ".md", ".py", ".txt", ".yml", ".yaml")
PROMPT_COMMANDS = (".sh", ".bash", ".exe", ".bat", ".cmd", ".ps1", ".rb", ".pl")
_TESTS_READ = ("csv", "xlsx", "xls", "json", "jsonl", "yaml", "yml")
_FETCHED = ("huggingface://datasets/", "az://", "https://docs.google.com/spreadsheets/")
_SHAREPOINT = re.compile(r"https://[^/]+\.sharepoint\.com/", re.IGNORECASE)
# renderEnvOnlyInObject: a {{ … }} block naming env. or env[ is filled from the environment.
_TEMPLATE = re.compile(r"\{\{(?:[^}]|\}(?!\}))*\}\}")
_ENV = re.compile(r"\benv\.|env\[")
_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")


@dataclass(frozen=True)
class FileUse:
    """A string promptfoo reads as a file: where it looks and what it does when nothing is there."""

    text: str  # the string as written
    path: Path  # absolute, as promptfoo resolves it (a pattern when ``glob``)
    glob: bool = False  # globbed: nothing matching is the problem
    executable: bool = False  # a prompt with another extension: only an executable file loads
    why: str = ""  # why promptfoo takes it as a path (prompts)


def is_javascript_file(path: str) -> bool:
    return bool(_JAVASCRIPT.search(path))


def env_templated(text: str) -> bool:
    return any(_ENV.search(block) for block in _TEMPLATE.findall(text))


def _char_at(text: str, index: int) -> str:
    """JavaScript's ``text.charAt(index)``: indexes UTF-16 code units, '' out of range."""
    units = text.encode("utf-16-le")
    if not 0 <= index < len(units) // 2:
        return ""
    return units[2 * index : 2 * index + 2].decode("utf-16-le", errors="replace")


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def file_path_reason(text: str) -> str | None:
    """Why ``maybeFilePath(text)`` is true (a short phrase), or None when it is false."""
    if any(marker in text for marker in _INLINE_MARKERS):
        return None
    if text.startswith(FILE):
        return "it starts with file://"
    tokens = text.split(":")
    for ext in VALID_FILE_EXTENSIONS:
        if tokens[-1].endswith(ext) or (len(tokens) > 1 and tokens[-2].endswith(ext)):
            return f"it ends in {ext}"
    length = _utf16_length(text)
    if _char_at(text, length - 3) == "." or _char_at(text, length - 4) == ".":
        return "a '.' stands three or four characters from its end, as before a file extension"
    for char in ("*", "/", "\\"):
        if char in text:
            return f"it contains '{char}'"
    return None


def maybe_file_path(text: str) -> bool:
    """promptfoo's ``maybeFilePath``."""
    return file_path_reason(text) is not None


def has_magic(pattern: str) -> bool:
    """glob 13's ``hasMagic`` (minimatch 10): does ``pattern`` hold a wildcard?

    A pattern starting with ``#`` is a comment (no magic); leading ``!`` negate. Braces are
    expanded first (``{a,b}`` alone is not magic, and can part a ``[`` from its ``]``); then,
    per path segment: ``**``, an unescaped ``*`` or ``?``, a bracket class with its closing
    ``]`` other than a single literal character (``[_]`` is an escape), or an extglob
    ``+(…)``/``@(…)``/``!(…)``.
    """
    if not pattern or pattern.startswith("#"):
        return False
    expanded = braces(pattern.lstrip("!"))
    if expanded is None:
        return True  # too many alternatives to weigh: taken for a pattern, so never reported
    return any(_segment_magic(segment) for one in expanded for segment in one.split("/"))


def _segment_magic(segment: str) -> bool:
    if segment == "**":
        return True
    # Where the last ] and ) stand: whether a [ or an extglob closes, without rescanning (linear time).
    last_bracket, last_paren = segment.rfind("]"), segment.rfind(")")
    i, n = 0, len(segment)
    while i < n:
        char = segment[i]
        if char == "\\":
            i += 2
            continue
        if char in "*?":
            return True
        if char == "[" and last_bracket >= i + 2:
            end = segment.find("]", i + 2)
            inner = segment[i + 1 : end]
            if inner[:1] in ("!", "^") or not (len(inner) == 1 or (len(inner) == 2 and inner[0] == "\\")):
                return True
            i = end + 1  # [x] is the literal x
            continue
        if char in "+@!" and segment[i + 1 : i + 2] == "(" and last_paren >= i + 2:
            return True
        i += 1
    return False


def extname(path: str) -> str:
    """Node's ``path.extname`` (posix), which ``path.parse(...).ext`` also gives: unlike
    ``os.path.splitext``, ``..txt`` has the extension ``.txt``."""
    start_dot, start_part, end, matched_slash, pre_dot_state = -1, 0, -1, True, 0
    for i in range(len(path) - 1, -1, -1):
        char = path[i]
        if char == "/":
            if not matched_slash:
                start_part = i + 1
                break
            continue
        if end == -1:
            matched_slash, end = False, i + 1
        if char == ".":
            if start_dot == -1:
                start_dot = i
            elif pre_dot_state != 1:
                pre_dot_state = 1
        elif start_dot != -1:
            pre_dot_state = -1
    if (
        start_dot == -1
        or end == -1
        or pre_dot_state == 0  # nothing before the dot: a dotfile such as .txt
        or (pre_dot_state == 1 and start_dot == end - 1 and start_dot == start_part + 1)  # the name is '..'
    ):
        return ""
    return path[start_dot:end]


def _resolve(base: Path, text: str) -> Path:
    """Node's ``path.resolve(base, text)``: lexical (.. and . folded), no ``~`` expansion."""
    return Path(os.path.normpath(os.path.join(base, text)))


def prompt_use(raw: str, base: Path) -> FileUse | None:
    """The file promptfoo's ``processPrompt`` reads for prompt ``raw`` (written without
    ``file://``), or None when it takes the text as the prompt, globs it, or runs it."""
    if raw.startswith((FILE, "exec:")) or env_templated(raw):
        return None
    why = file_path_reason(raw)
    if why is None:
        return None
    file_path = _resolve(base, raw)
    filename = os.path.relpath(file_path, base)
    last_colon = filename.rfind(":")
    if last_colon > 1:
        without = filename[:last_colon]
        if is_javascript_file(without) or without.endswith((".py", ".go", ".rb")):
            filename = without
    target = _resolve(base, filename)
    if os.path.isdir(target) or has_magic(raw) or has_magic(str(file_path).replace("\\", "/")):
        return None  # a pattern: nothing matching means the text itself is the prompt
    ext = extname(os.path.relpath(target, base))
    if ext in PROMPT_COMMANDS:
        return None
    if ext in PROMPT_READ or (ext and is_javascript_file(ext)):
        return FileUse(raw, target, why=why)
    return FileUse(raw, target, executable=True, why=why)


def bare_prompt(raw: str, base: Path) -> Path | str | None:
    """What prompt ``raw`` (written without ``file://``) is to promptfoo: the text itself (``raw``
    returned), the one file it reads (a ``Path``, existing or not), or None when that cannot be told
    statically (a glob that matches, a command, an environment template)."""
    if raw.startswith("exec:") or env_templated(raw):
        return None
    if not maybe_file_path(raw):
        return raw
    use = prompt_use(raw, base)
    if use is not None:
        return use.path
    if extname(raw) in PROMPT_COMMANDS:
        return None
    return None if matches(FileUse(raw, _resolve(base, raw), glob=True)) else raw  # no match: the text


def tests_use(text: str, base: Path, *, in_list: bool) -> FileUse | None:
    """The file(s) ``readTests`` reads for a ``tests:`` string (``in_list``: an item of a tests
    list), with or without ``file://``, or None when it reads no local file."""
    if env_templated(text):
        return None
    if in_list:
        last_colon = text.rfind(":")
        without = text[:last_colon] if last_colon > 1 else text
        sheetless = text.split("#")[0]
        if (
            is_javascript_file(without)
            or without.endswith(".py")
            or sheetless.endswith((".xlsx", ".xls"))
            or ":" in text.removeprefix(FILE)
        ):
            return standalone_use(text, base)
        return _glob_use(text, base)
    if text.startswith("az://"):
        return None
    if text.endswith(("yaml", "yml")):
        return _glob_use(text, base)
    return standalone_use(text, base)


def _glob_use(text: str, base: Path) -> FileUse | None:
    """``loadTestsFromGlob``: Hugging Face datasets are fetched, anything else is globbed."""
    if text.startswith("huggingface://datasets/"):
        return None
    return FileUse(text, _resolve(base, text.removeprefix(FILE)), glob=True)


def standalone_use(text: str, base: Path) -> FileUse | None:
    """``readStandaloneTestsFile`` on a tests path (also ``{path: …}``): one file, never globbed."""
    if env_templated(text) or text.startswith(_FETCHED) or _SHAREPOINT.search(text):
        return None
    resolved = str(_resolve(base, text.removeprefix(FILE)))
    if resolved.count(":") > 1:
        return None  # promptfoo stops with 'Too many colons', not a missing file
    last_colon = resolved.rfind(":")
    without = resolved[:last_colon] if last_colon > 1 else resolved
    sheet_ext = extname(os.path.basename(without).split("#")[0])[1:]
    ext = sheet_ext if sheet_ext in ("xlsx", "xls") else extname(without)[1:]
    if is_javascript_file(without) or ext == "py":
        return FileUse(text, Path(without))
    if ext in ("xlsx", "xls"):
        return FileUse(text, Path(resolved.split("#")[0]))
    if ext in _TESTS_READ:
        return FileUse(text, Path(resolved))
    return None


def default_test_use(text: str, base: Path) -> FileUse | None:
    """``readTest`` on a ``defaultTest`` string written without ``file://``."""
    if text.startswith(FILE) or env_templated(text):
        return None
    return FileUse(text, _resolve(base, text))


def matches(use: FileUse) -> list[Path]:
    """The files ``use`` names that exist (a glob: node-glob's matches, braces expanded)."""
    if not use.glob:
        return [use.path] if os.path.exists(use.path) else []
    patterns = braces(str(use.path))
    if patterns is None:
        return [use.path]  # too many alternatives to try: taken as found, never reported
    found: list[Path] = []
    for pattern in patterns:
        if has_magic(pattern):
            found.extend(Path(p) for p in sorted(glob.glob(pattern, recursive=True)))
        elif os.path.exists(pattern):
            found.append(Path(pattern))
    return found


def loads_prompt(use: FileUse) -> bool:
    """Whether the prompt file ``use`` names loads (see step 5 for other extensions)."""
    if not use.executable:
        return os.path.exists(use.path)
    try:
        return os.path.isfile(use.path) and bool(os.stat(use.path).st_mode & 0o111)
    except OSError:
        return False


def braces(pattern: str, limit: int = 256) -> list[str] | None:
    """Brace alternatives expanded (``a.{yaml,yml}`` → ``a.yaml``, ``a.yml``), as minimatch does;
    None past ``limit`` alternatives (a line of ``{a,b}`` groups would otherwise grow exponentially)."""
    out = [pattern]
    while True:
        grown: list[str] = []
        for one in out:
            match = _BRACES.search(one)
            if match is None:
                grown.append(one)
                continue
            for choice in match.group(1).split(","):
                grown.append(one[: match.start()] + choice + one[match.end() :])
        if grown == out:
            return out
        if len(grown) > limit:
            return None
        out = grown


def prompt_raw_nodes(root: Node) -> list[Node]:
    """The scalars ``normalizeInput`` turns into ``prompt.raw``: the ``prompts`` string, each string
    item, ``item.raw || item.id`` of a mapping item, or each key of the map form ``{raw: label}``."""
    prompts = root.get("prompts") if root.is_map else None
    if prompts is None:
        return []
    if prompts.is_scalar:
        return [prompts]
    if prompts.is_map:
        return [key_node for _key, key_node, _value in prompts.items()]
    out = []
    for item in prompts.value if prompts.is_seq else []:
        if item.is_map:
            raw = item.get("raw")
            item = raw if raw is not None and raw.is_scalar and raw.value else item.get("id")
        if item is not None and item.is_scalar:
            out.append(item)
    return out
