"""What the select-best tests share: the key they plant, how a comparison request is told apart, and
``rubric grade`` run on a config with several outputs."""

from __future__ import annotations

from rubric_lsp.cli import main

SECRET = "sk-test-SECRET-sb-0123456789"


def comparing(request) -> bool:
    return "You are comparing multiple pieces of text" in request.text or "Pick one:" in request.text


def run_cli(tmp_path, server, config, outputs, *extra):
    (tmp_path / "promptfooconfig.yaml").write_text(config)
    args = ["grade", str(tmp_path / "promptfooconfig.yaml")]
    for i, text in enumerate(outputs):
        (tmp_path / f"out{i}.txt").write_text(text)
        args += ["--response", str(tmp_path / f"out{i}.txt")]
    return main([*args, "--api-base", server.base_url, "--no-cache", *extra])
