"""The VS Code extension's settings (vscode-extension/package.json) against the server's settings model.

Every setting the server reads has a VS Code setting, and each VS Code default is what the server
does when the setting is absent (so a user who never opens the settings gets the server's behaviour).
"""

from __future__ import annotations

import json
from dataclasses import fields

from rubric_lsp.engine.settings import JudgeSettings
from rubric_lsp.server.settings import _KEYS, ServerSettings, option_settings
from tests.conftest import REPO

PACKAGE = REPO / "vscode-extension" / "package.json"
# Read by the extension itself, never sent to the server.
EXTENSION_ONLY = {"server.path", "server.interpreter", "trace.server"}
# Server keys that are not user settings (see ServerSettings).
NOT_USER_SETTINGS = {"debounceSeconds"}
# Server fields that are None ("the engine decides"): the engine's default is the effective one.
ENGINE = {
    "judge_concurrency": "concurrency",
    "judge_timeout_seconds": "timeout_seconds",
    "judge_deadline_seconds": "deadline_seconds",
}


def _vscode_settings() -> dict[str, dict]:
    props = json.loads(PACKAGE.read_text(encoding="utf-8"))["contributes"]["configuration"]["properties"]
    return {key.removeprefix("rubric."): spec for key, spec in props.items()}


def _server_keys() -> dict[str, object]:
    """Every key the server reads, with the default it applies when the key is absent: its own
    settings', and the formats' grading options' (the grader's default; ``Format.grade_options``)."""
    defaults = {
        key: _server_default(attr) for key, (attr, _kind, _what) in _KEYS.items() if key not in NOT_USER_SETTINGS
    }
    return defaults | {key: option.default for key, option in option_settings().items()}


def _server_default(attr: str):
    default = {f.name: f.default for f in fields(ServerSettings)}[attr]
    if default is None and attr in ENGINE:
        return getattr(JudgeSettings(), ENGINE[attr])
    if default is None:
        return ""  # a text setting left empty: the server's own default (or the environment) applies
    if isinstance(default, tuple):
        return list(default)
    return default


def test_every_server_setting_has_a_vscode_setting_and_no_extra_one():
    vscode = set(_vscode_settings()) - EXTENSION_ONLY
    server = set(_server_keys())
    assert server - vscode == set(), "server settings without a VS Code setting"
    assert vscode - server == set(), "VS Code settings the server does not read"


def test_vscode_defaults_are_the_servers():
    vscode = _vscode_settings()
    wrong = {
        key: (vscode[key].get("default"), default)
        for key, default in _server_keys().items()
        if vscode[key].get("default") != default
    }
    assert wrong == {}, "(VS Code default, server default)"


def test_vscode_enums_are_what_the_server_accepts():
    vscode = _vscode_settings()
    for key in _server_keys():
        for value in vscode.get(key, {}).get("enum", []):
            assert ServerSettings().merged({key: value}).problems == (), (key, value)
    assert ServerSettings().merged({"grading.cannotAssess": "bogus"}).problems  # the check above can fail
