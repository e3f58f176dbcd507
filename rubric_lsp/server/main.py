"""``rubric-lsp`` / ``rubric serve``: start the language server on stdio (or TCP for debugging)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import threading

from rubric_lsp import __version__
from rubric_lsp.commands.exit_codes import Terminal  # argparse's formatter, without shutil
from rubric_lsp.runtime import gc as collector
from rubric_lsp.server.lsp_types import import_types


def build_server():
    import_types()  # first: pygls would import lsprotocol.types without the cached bytecode
    from lsprotocol import types

    from rubric_lsp.server import (
        actions,
        calibrate,
        completion,
        diagnostics,
        grading,
        hover,
        labelling,
        report,
        review,
        symbols,
    )
    from rubric_lsp.server.app import ClientLogHandler, RubricServer
    from rubric_lsp.server.settings import SETTINGS_GLOB

    ls = RubricServer()
    handler = ClientLogHandler(ls)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    logging.getLogger("rubric_lsp").addHandler(handler)

    @ls.feature(types.INITIALIZE)
    def initialize(ls: RubricServer, params: types.InitializeParams) -> None:
        ls.loop = asyncio.get_running_loop() if _loop_running() else None
        if ls.loop is not None and not os.environ.get("RUBRIC_LSP_LOG"):
            # From now on the client's log has our lines, with their levels (window/logMessage); a
            # copy on stderr would show in VS Code's output channel as [error], whatever its level.
            # RUBRIC_LSP_LOG (debugging the server) keeps the stderr copy.
            logging.getLogger("rubric_lsp").propagate = False
        if params.initialization_options:
            ls.init_options = params.initialization_options
            ls.apply_settings(params.initialization_options)

    @ls.feature(types.INITIALIZED)
    async def initialized(ls: RubricServer, params: types.InitializedParams) -> None:
        ls.loop = asyncio.get_running_loop()
        await ls.refresh_settings()
        if ls.client_supports("workspace.did_change_watched_files.dynamic_registration"):
            try:
                await ls.client_register_capability_async(
                    types.RegistrationParams(
                        registrations=[
                            types.Registration(
                                id="rubric-pyproject",
                                method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                register_options=types.DidChangeWatchedFilesRegistrationOptions(
                                    watchers=[
                                        types.FileSystemWatcher(glob_pattern=SETTINGS_GLOB),
                                        # files that rubric configs reference (file://…): their changes re-lint the config
                                        types.FileSystemWatcher(
                                            glob_pattern="**/*.{yaml,yml,json,jsonl,csv,txt,md,py,js}"
                                        ),
                                    ]
                                ),
                            )
                        ]
                    )
                )
            except Exception as exc:
                logging.getLogger("rubric_lsp.server").info("could not watch pyproject.toml files: %s", exc)
        # The grading engine's first use imports litellm (seconds of CPU): pay that in a
        # background thread, but only once the editor has been quiet for a while, so it
        # never competes with start-up or with linting while someone types, and only where
        # the configured judges go through litellm.
        _warm_up_when_idle(ls)

    @ls.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: RubricServer, params: types.DidChangeConfigurationParams) -> None:
        before = ls.settings
        if isinstance(params.settings, dict) and params.settings:
            ls.apply_settings(params.settings, replace_all=True)  # clients that push the section
        await ls.refresh_settings()  # clients that are asked for it
        if (before.lint_select, before.lint_ignore) != (ls.settings.lint_select, ls.settings.lint_ignore):
            diagnostics.relint_all(ls)

    for module in (diagnostics, actions, hover, completion, symbols, grading, report, calibrate, review, labelling):
        module.register(ls)
    return ls


WARM_UP_IDLE_SECONDS = float(os.environ.get("RUBRIC_LSP_WARM_UP_IDLE", "2"))


def _warm_up_when_idle(ls) -> None:
    """Once the editor has been quiet a while: every format's rules (the first diagnostics waited for none but
    their file's own), then the grading engine. Neither competes with start-up or with linting while someone
    types: nothing is imported until the editor is quiet (importing the engine's modules takes ~0.3-0.7 s of
    the event loop)."""
    loaded_rules = False

    def check() -> None:
        nonlocal loaded_rules
        quiet = ls.loop.time() - ls.last_activity
        if quiet < WARM_UP_IDLE_SECONDS or ls.lint_busy:
            ls.loop.call_later(max(0.2, WARM_UP_IDLE_SECONDS - quiet), check)
        elif not loaded_rules:
            loaded_rules = True
            ls.load_all_rules()
            ls.loop.call_later(0.2, check)  # the engine next, if it is still quiet then
        else:
            from rubric_lsp.server import grading_run  # the engine: loaded once the editor is quiet, not at start

            if not grading_run.warm_started and grading_run.needs_litellm(grading_run.judge_settings(ls)):
                grading_run.start_warm_up()

    ls.loop.call_later(WARM_UP_IDLE_SECONDS, check)


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
        return True
    except RuntimeError:
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="rubric-lsp", description="The rubric language server (LSP over stdio).", formatter_class=Terminal
    )
    parser.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    parser.add_argument("--tcp", type=int, metavar="PORT", help="listen on 127.0.0.1:PORT instead (for debugging)")
    parser.add_argument("--host", default="127.0.0.1", help="with --tcp: the address to bind (default 127.0.0.1)")
    parser.add_argument(
        "--log-level",
        default=os.environ.get("RUBRIC_LSP_LOG", "INFO"),
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        help="what goes to the client's log (and, with RUBRIC_LSP_LOG set, to stderr too)",
    )
    parser.add_argument("--version", action="version", version=f"rubric-lsp {__version__}")
    args = parser.parse_args(argv)

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # never fetch a price map
    # Start-up builds many thousands of objects that all live on (protocol types, schemas):
    # collecting garbage while importing them only costs time. Collection resumes after
    # the first lint (see RubricServer.start_up_done), or 5 s after start at the latest.
    collector.hold_start_up()
    # stdout is the protocol channel: logs go to stderr and to the client's log only.
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="rubric-lsp %(levelname)s %(name)s: %(message)s"
    )
    from rubric_lsp.redaction import RedactingFilter

    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactingFilter())  # stderr is a log the user may paste into an issue
    logging.getLogger("rubric_lsp").setLevel(args.log_level)
    logging.getLogger("pygls").setLevel(logging.WARNING)  # it logs every message body at INFO
    for noisy in ("LiteLLM", "litellm", "httpx"):
        logging.getLogger(noisy).setLevel(logging.WARNING)

    server = build_server()
    timer = threading.Timer(5.0, server.start_up_done)
    timer.daemon = True
    timer.start()
    if args.tcp is not None:
        server.start_tcp(args.host, args.tcp)
    else:
        server.start_io()
    return 0
