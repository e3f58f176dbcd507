"""No import circle between modules, and no module importing from a layer above its own.

The graph is read from the source (``tests/import_graph.py``): module-level imports,
in-function ones and type-only ones all count, so hiding an import inside a function does not
hide a circle. The layers, lowest first (a module may import from its own layer and below)::

    runtime → document → rules → formats → lint → engine → graders → reporters → faces

``lint`` (the lint entry point and its settings) sits between the formats it detects and the
engine, which lints nothing but reads the settings; ``graders`` are the formats' graders, plugins
built on the engine and loaded by name (``Format.grader``), so they sit above it. Layers from
``lint`` up are format-neutral: they import a format's package only through the plugin interface
(``formats.plugin``, ``formats.registry``, …), never ``formats.<fmt>.…`` by name.
"""

from __future__ import annotations

import fnmatch
import textwrap
from pathlib import Path

import pytest

from tests.import_graph import (
    PACKAGE,
    Edge,
    edges,
    graph,
    in_function_imports,
    module_files,
    shortest_cycle,
    strongly_connected,
)

LAYERS = ("runtime", "document", "rules", "formats", "lint", "engine", "graders", "reporters", "faces")

# (module pattern under rubric_lsp, layer, why there); the longest matching pattern wins.
PLACES = (
    ("", "runtime", "the package's __init__: its version only"),
    ("runtime", "runtime", "process-wide settings with one owner each (the garbage collector), for every layer"),
    ("document", "document", "text → nodes with exact spans: everything above reads documents"),
    ("diagnostics", "document", "a finding on a document's range: what rules produce and every face shows"),
    ("redaction", "document", "stdlib-only masking of keys, shared by the engine, the reporters and the server"),
    ("globs", "document", "gitignore-style globs that cannot backtrack: a pure helper of settings and walk"),
    ("workspace", "document", "the folder a file's references may reach: path logic the rules read"),
    ("rules", "rules", "rule(), checker(), CheckContext and the any-file rules: what every format's rules build on"),
    (
        "calibration",
        "rules",
        "calibration records and their statistics: read by rules (stale records) and graders alike",
    ),
    ("suppression", "rules", "noqa comments silencing rules' findings"),
    ("labelling.hook", "rules", "what a format implements to be labelled (Format.labelling): its hooks build on it"),
    ("labelling.edits", "rules", "the minimal JSON edits the formats' labelling hooks write labels with"),
    (
        "labelling",
        "engine",
        "labelling sessions, their stores and plans: format-neutral, reading each format through Format.labelling",
    ),
    ("labelling.page", "faces", "the labelling page's server: what a person's browser talks to"),
    ("formats", "formats", "the plugin interface and registry; each format's detection, model, view, rules, editor"),
    ("lint", "lint", "the one lint entry point: detection, the checkers, settings, suppression"),
    ("settings", "lint", "[tool.rubric-lint]: which rules and kinds a lint runs (kinds checked against the registry)"),
    ("fixes", "lint", "the guarded fix rounds: they re-lint after each round"),
    ("walk", "lint", "which files a lint run reads"),
    ("engine", "engine", "the grading engine: requests, the runner, the judge, its reply sources, stores and limits"),
    ("formats.*.grading", "graders", "a format's grader: a plugin of the engine, loaded by name (Format.grader)"),
    ("formats.rubrics_task.grader", "graders", "the Rubrics task's grader: one module, same place"),
    (
        "review",
        "graders",
        "rubric review's grader: the criteria themselves graded, whatever the format (engine plugin)",
    ),
    ("reporters", "reporters", "rubric-lint's output formats (lint/) and rubric grade's (grade/)"),
    ("commands", "faces", "the rubric subcommands"),
    ("server", "faces", "the language server"),
    ("cli", "faces", "the rubric command line"),
    ("__main__", "faces", "python -m rubric_lsp"),
)
NEUTRAL = ("lint", "engine", "reporters", "faces")  # import no formats.<fmt> module by name
INTERFACE_OF_FORMATS = "formats.{plugin,registry,editor,errors,schema_export}"

# Arrows that still run against the layers, each removed by another part of issue 27.
# (importer, imported): why it is here — removed by <part>.
ALLOWED: dict[tuple[str, str], str] = {}


def _short(module: str) -> str:
    return module.partition(".")[2]


def layer_of(module: str) -> str | None:
    name = _short(module)
    matches = [
        (len(pattern), layer)
        for pattern, layer, _ in PLACES
        if (name == pattern == "")
        or (pattern and (fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(name, pattern + ".*")))
    ]
    return max(matches)[1] if matches else None


def format_packages() -> set[str]:
    """``formats.<fmt>``: each folder under formats/ is one format's package."""
    return {f"formats.{p.name}" for p in (PACKAGE / "formats").iterdir() if (p / "__init__.py").is_file()}


@pytest.fixture(scope="module")
def found() -> list[Edge]:
    return edges()


def _where(edge: Edge) -> str:
    kind = "in a function" if edge.in_function else "module level"
    return f"{_short(edge.source)} → {_short(edge.target)} (line {edge.line}, {kind})"


def test_no_import_cycle(found):
    arrows = graph(found)
    components = strongly_connected(arrows)
    assert not components, "import cycles (break each by moving what both sides share below them):\n" + "\n".join(
        " → ".join(_short(m) for m in shortest_cycle(component, arrows))
        + f"  (circle of {', '.join(_short(m) for m in component)})"
        for component in components
    )


def test_every_module_has_a_layer(found):
    modules = {e.source for e in found} | {e.target for e in found}
    unplaced = sorted(m for m in modules if layer_of(m) is None)
    assert not unplaced, f"decide each module's layer (PLACES) and why: {unplaced}"


def test_every_place_names_a_module():
    names = [_short(m) for m in module_files()]
    stale = [
        pattern
        for pattern, _, _ in PLACES
        if pattern and not any(fnmatch.fnmatch(n, pattern) or fnmatch.fnmatch(n, pattern + ".*") for n in names)
    ]
    assert not stale, f"these PLACES name no module any more: delete them: {stale}"


def _arrows_up(found: list[Edge]) -> dict[tuple[str, str], list[Edge]]:
    up: dict[tuple[str, str], list[Edge]] = {}
    for edge in found:
        source, target = layer_of(edge.source), layer_of(edge.target)
        if source and target and LAYERS.index(target) > LAYERS.index(source):
            up.setdefault((_short(edge.source), _short(edge.target)), []).append(edge)
    return up


def _arrows_to_a_format(found: list[Edge]) -> dict[tuple[str, str], list[Edge]]:
    packages = format_packages()
    named: dict[tuple[str, str], list[Edge]] = {}
    for edge in found:
        target = _short(edge.target)
        if layer_of(edge.source) in NEUTRAL and any(target == p or target.startswith(p + ".") for p in packages):
            named.setdefault((_short(edge.source), target), []).append(edge)
    return named


def test_no_module_imports_from_a_layer_above(found):
    up = {arrow: e for arrow, e in _arrows_up(found).items() if arrow not in ALLOWED}
    assert not up, "imports from a layer above (move the shared part down, or the importer up):\n" + "\n".join(
        _where(e[0]) + f"  [{layer_of(e[0].source)} → {layer_of(e[0].target)}]" for e in up.values()
    )


def test_format_neutral_layers_import_no_format(found):
    named = {arrow: e for arrow, e in _arrows_to_a_format(found).items() if arrow not in ALLOWED}
    assert not named, f"{', '.join(NEUTRAL)} reach a format only through {INTERFACE_OF_FORMATS}:\n" + "\n".join(
        _where(e[0]) for e in named.values()
    )


def test_every_allowed_arrow_still_exists(found):
    present = set(_arrows_up(found)) | set(_arrows_to_a_format(found))
    gone = sorted(set(ALLOWED) - present)
    assert not gone, f"these arrows are gone: delete them from ALLOWED: {gone}"


def test_in_function_imports_only_fall():
    """In-function imports of the package's own modules: 152 when issue 27 was filed, 175 before its
    circles were broken, 150 after; 108 once those whose module was already loaded at module level
    were hoisted, 94 once the graders stopped loading their own siblings lazily. One that remains
    loads something heavy lazily (litellm, rich, pygls, jinja2, pygal, pydantic models: off the lint
    path and start-up) or keeps a face's start-up cheap; none can hide a circle any more (the graph
    above includes them). 93: `rubric review`'s delegate in cli.py (each subcommand's module is imported when
    it runs); 94: the editor's review command loads the engine on the first review (server/review.py), as a
    grading does; 95: the autorubric view loads its pydantic model only for a criterion the lint's fast path
    cannot vouch for. 110: the language server's first diagnostics wait for none of the engine, calibration's
    records and measures, and the labelling page (issue 36: each loads at its lens, hover or command; the
    server's start guard, tests/test_server_start_guard.py, fails if one comes back). Whether a judge needs
    litellm is the direct route's own question (engine/transports/direct.py), asked at module level.
    112: the alias-expansion check loads only for a document with aliases (document/yaml_expansion.py), and
    the incremental read only when the server hands the lint its last reading (document/incremental.py):
    neither is on the lint path of a file without aliases; 113: nor, for the same reason, on the server's
    way to its first diagnostics (its completion reads a value's probe incrementally too). 114: the direct
    route's HTTP client (engine/transports/http1.py) loads with its first call: httptools is the [grade]
    extra's, and the base install imports the engine's transports without it."""
    assert in_function_imports() <= 114


# The graph builder itself, on a package written here.


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "rubric_lsp"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def test_the_graph_sees_every_kind_of_import(tmp_path):
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a/__init__.py": "",
            "a/one.py": "from . import two\n",  # a submodule, not the package
            "a/two.py": "def f():\n    from rubric_lsp.b import three\n",  # in a function
            "b/__init__.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..a.one import X\n",
            "b/three.py": "import importlib\nimportlib.import_module('rubric_lsp.a.one')\n",
        },
    )
    found = {(_short(e.source), _short(e.target), e.in_function) for e in edges(root)}
    assert found == {
        ("a.one", "a.two", False),
        ("a.two", "b.three", True),
        ("b", "a.one", False),
        ("b.three", "a.one", False),
    }
    arrows = graph(edges(root))
    (component,) = strongly_connected(arrows)
    assert [_short(m) for m in shortest_cycle(component, arrows)] == ["a.one", "a.two", "b.three", "a.one"]
    assert in_function_imports(root) == 1
