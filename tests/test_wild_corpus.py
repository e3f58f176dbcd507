"""Real users' promptfoo configs (corpus/wild), linted as their owners would: precision on the files people write.

Each of the 70 repositories under ``corpus/wild/trees`` is copied to a temporary folder, made a git
checkout (``git init``) and linted with ``rubric-lint CONFIG…`` from its root, as a user runs it in
pre-commit or CI; the language server then lints one config per repository with that root as the
workspace folder. ``labels.json`` classes every finding once seen on these files TRUE (a real mistake,
checked against promptfoo 0.123.1), FALSE (the config is fine) or UNSURE.

- No FALSE-labelled finding may come back (a false alarm at error level blocks a good commit).
- Every TRUE finding is still reported on its line, under its code or the code that now reports that
  mistake (``SUCCESSORS``, each with why).
- A finding no label knows is a failure until it is reviewed here (``REVIEWED``: what promptfoo does).
- Nothing crashes (no RL900, no exit 2).
"""

from __future__ import annotations

import asyncio
import collections
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rubric_lsp.cli import lint_main
from tests.conftest import CORPUS, require

WILD = CORPUS / "wild"
pytestmark = pytest.mark.slow  # 70 checkouts, 163 configs (~10 s)

# A TRUE label's mistake now reported under another code, same line: (labelled code, reason) -> codes.
SUCCESSORS: dict[str, tuple[str, ...]] = {
    # "file really missing (reported as outside-workspace)": the reference stays inside the repository, so
    # it is no longer outside the workspace; the file is missing, which RL010 reports.
    "RL011": ("RL010",),
    # `prompt:` for `prompts:`: promptfoo ignores the key and runs its default prompt `{{prompt}}` (it does
    # not refuse the config), which the unknown-key rule reported with the did-you-mean, and PF121 now does
    # as an error (the prompts written are never sent; issue 34).
    "PF108": ("PF001", "PF121"),
    "PF001": ("PF121",),
}

# Findings no label knows, each checked against promptfoo 0.123.1: (file, line, code) -> why it is right.
_JINJA2 = (
    "`prompts: ../backend/…/*.jinja2` (no file://): .jinja2 is not an extension promptfoo reads as a prompt "
    "file and the file is not executable, so promptfoo 0.123.1's own readPrompts, run on this tree, stops with "
    "'There are no prompts in …'"
)
REVIEWED: dict[tuple[str, int, str], str] = {
    ("phillipou__blossomer_gtm_app/eval/email_generation_blossomer.yaml", 1, "PF120"): _JINJA2,
    ("phillipou__blossomer_gtm_app/eval/product_overview.yaml", 1, "PF120"): _JINJA2,
    ("Hathi-Labs__Metorite/skills/maintenance/codebase_health_audit/evals/cases.yaml", 19, "PF125"): (
        "`regex: (?i)(extract|…)`: promptfoo 0.123.1's handleRegex runs `new RegExp(value)`, which Node refuses "
        "('Invalid regular expression: /(?i)…/: Invalid group', recorded in tests/data/promptfoo-recorded/javascript), "
        "so the assertion fails on every output"
    ),
    # issue 34: `{id: target_account, label: …, file: ../backend/…/target_account.jinja2}` has no `raw`, so
    # promptfoo 0.123.1 sends its id: normalizeInput takes `raw || id` and processString keeps id, raw, label
    # and config only (tests/data/promptfoo-lint-gaps: the echo provider answers with the id).
    ("phillipou__blossomer_gtm_app/eval/promptfooconfig.yaml", 10, "PF119"): (
        "the prompt sent is the text 'target_account', not the template file"
    ),
}


def _labels() -> dict:
    return json.loads((WILD / "labels.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def wild() -> dict:
    if not (WILD / "labels.json").is_file():
        pytest.skip(f"wild corpus not found at {WILD} (the team's ../shared folder; see README.md, Development)")
    require(shutil.which("git") is not None, "git is needed to make the wild repositories git checkouts")
    return _labels()


@pytest.fixture(scope="module")
def checkouts(wild, tmp_path_factory) -> dict[str, tuple[Path, list[str]]]:
    """repository -> (its root, a git checkout in a temporary folder; its configs, relative to the root)."""
    configs: dict[str, list[str]] = collections.defaultdict(list)
    for entry in wild["configs"]:
        parts = Path(entry["tree_file"]).relative_to("trees").parts
        configs[parts[0]].append(str(Path(*parts[1:])))
    base = tmp_path_factory.mktemp("wild")
    out = {}
    for repo, files in sorted(configs.items()):
        root = base / repo
        shutil.copytree(WILD / "trees" / repo, root, symlinks=True)
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        out[repo] = (root, sorted(files))
    return out


@pytest.fixture(scope="module")
def cli_findings(checkouts) -> dict[tuple[str, int, str], dict]:
    """(repository/file, 1-based line, code) -> the finding, for every finding of every repository."""
    monkeypatch = pytest.MonkeyPatch()
    found: dict[tuple[str, int, str], dict] = {}
    try:
        for repo, (root, files) in checkouts.items():
            monkeypatch.chdir(root)
            report = root.parent / f"{repo}.json"
            code = lint_main(["--format", "json", "--exit-zero", "-o", str(report), *files])
            assert code == 0, f"{repo}: rubric-lint exited {code}"
            for finding in json.loads(report.read_text(encoding="utf-8")):
                key = (f"{repo}/{finding['path']}", finding["range"]["start"]["line"] + 1, finding["code"])
                found[key] = finding
    finally:
        monkeypatch.undo()
    return found


def _serious(findings: dict) -> dict:
    return {k: f for k, f in findings.items() if f["severity"] in ("error", "warning")}


def test_no_finding_crashes(cli_findings):
    crashes = [f"{k}: {f['message']}" for k, f in cli_findings.items() if k[2] == "RL900"]
    assert not crashes, "\n".join(crashes)


def test_no_false_alarm_comes_back(wild, cli_findings):
    false = {(l["file"], l["line"], l["code"]): l for l in wild["labels"] if l["class"] == "FALSE"}
    back = [
        f"{k} {f['severity']}: {f['message']}  [labelled FALSE: {false[k]['why']}]"
        for k, f in _serious(cli_findings).items()
        if k in false
    ]
    assert not back, "false alarms on real users' configs:\n" + "\n".join(back)


def test_every_true_finding_is_still_reported(wild, cli_findings):
    missed = []
    for label in wild["labels"]:
        if label["class"] != "TRUE":
            continue
        codes = (label["code"], *SUCCESSORS.get(label["code"], ()))
        if not any((label["file"], label["line"], code) in cli_findings for code in codes):
            missed.append(f"{label['file']}:{label['line']} {label['code']} ({label['why'] or label['msg'][:80]})")
    assert not missed, "real mistakes no longer reported:\n" + "\n".join(missed)


def test_no_unreviewed_finding(wild, cli_findings):
    labelled = {(l["file"], l["line"], l["code"]) for l in wild["labels"]}
    successors = {(l["file"], l["line"], c) for l in wild["labels"] for c in SUCCESSORS.get(l["code"], ())}
    new = [
        f"{k} {f['severity']}: {f['message']}"
        for k, f in _serious(cli_findings).items()
        if k not in labelled and k not in successors and k not in REVIEWED
    ]
    assert not new, "findings no label knows (check each against promptfoo, then add it to REVIEWED):\n" + "\n".join(
        new
    )


def test_the_server_agrees_with_the_cli_with_the_repository_as_workspace(checkouts, cli_findings):
    """One server, every repository root a workspace folder, the first config of each opened."""
    pytest_lsp = pytest.importorskip("pytest_lsp")
    from lsprotocol import types

    opened = {repo: root / files[0] for repo, (root, files) in checkouts.items()}
    diagnostics = asyncio.run(_serve(pytest_lsp, types, checkouts, opened))
    for repo, path in opened.items():
        rel = f"{repo}/{path.relative_to(checkouts[repo][0]).as_posix()}"
        expected = sorted((k[1], k[2]) for k in cli_findings if k[0] == rel)
        # The smell rules (RL3xx) run in the editor by default and in the CLI only when selected (docs/smells.md).
        got = sorted(
            (d.range.start.line + 1, str(d.code))
            for d in diagnostics[path.as_uri()]
            if not str(d.code).startswith("RL3")
        )
        assert got == expected, f"{rel}: the server reports {got}, the CLI {expected}"


async def _serve(pytest_lsp, types, checkouts, opened) -> dict[str, list]:
    config = pytest_lsp.ClientServerConfig(
        server_command=[sys.executable, "-m", "rubric_lsp", "serve"],
        server_env={"LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONUNBUFFERED": "1"},
    )
    client = await config.start()

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params):
        return None

    try:
        first = next(iter(checkouts.values()))[0]
        await client.initialize_session(
            types.InitializeParams(
                capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
                root_uri=first.as_uri(),
                workspace_folders=[
                    types.WorkspaceFolder(uri=root.as_uri(), name=repo) for repo, (root, _) in checkouts.items()
                ],
            )
        )
        for path in opened.values():
            client.text_document_did_open(
                types.DidOpenTextDocumentParams(
                    types.TextDocumentItem(path.as_uri(), "yaml", 1, path.read_text(encoding="utf-8"))
                )
            )
        uris = {p.as_uri() for p in opened.values()}
        deadline = asyncio.get_running_loop().time() + 60
        while not uris <= client.diagnostics.keys() and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.05)
        missing = uris - client.diagnostics.keys()
        assert not missing, f"no diagnostics within 60 s for {sorted(missing)[:3]}"
        return {uri: list(client.diagnostics[uri]) for uri in uris}
    finally:
        await client.shutdown_session()
