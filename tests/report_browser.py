"""Load a report page in headless Chromium (/usr/bin/chromium) and read back what happened.

One Chromium run per page: ``--dump-dom`` gives the DOM after the page's script ran,
``--enable-logging=stderr`` its console messages, ``--log-net-log`` every network request
(the page's own are the ones whose network isolation key is ``file://``; the browser's
background calls to its vendor are not the page's), ``--screenshot`` a PNG.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
_FIGURE = re.compile(r'data-figure="([^"]+)"[^>]*>([^<]*)<')


@dataclass
class Loaded:
    dom: str
    console: list[str]
    requests: list[str]

    def figures(self) -> dict[str, str]:
        """``data-figure`` name → the text the page shows for it."""
        return {name: text.strip() for name, text in _FIGURE.findall(self.dom)}


def available() -> bool:
    return Path(CHROMIUM).exists()


def remove_profile(folder: str) -> None:
    """Remove a Chromium scratch folder. Chromium's helper processes (its crash handler, a renderer being
    torn down) can still write into the profile for a moment after the browser process has exited, so
    "Directory not empty" is retried rather than failing a test that has already passed."""
    for _ in range(50):
        try:
            shutil.rmtree(folder)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.1)
    shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def scratch_folder() -> Iterator[str]:
    folder = tempfile.mkdtemp(prefix="rubric-chromium-")
    try:
        yield folder
    finally:
        remove_profile(folder)


def load(page: Path, *, screenshot: Path | None = None, width: int = 1280, height: int = 1400) -> Loaded:
    with scratch_folder() as scratch:
        net_log = Path(scratch) / "net.json"
        argv = [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            f"--user-data-dir={scratch}/profile",
            "--enable-logging=stderr",
            "--v=0",
            f"--window-size={width},{height}",
            "--hide-scrollbars",
            f"--log-net-log={net_log}",
            "--dump-dom",
        ]
        if screenshot is not None:
            argv.append(f"--screenshot={screenshot}")
        done = subprocess.run([*argv, page.resolve().as_uri()], capture_output=True, text=True, timeout=120)
        console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
        return Loaded(done.stdout, console, _page_requests(net_log))


def _page_requests(net_log: Path) -> list[str]:
    try:
        events = json.loads(net_log.read_text(encoding="utf-8"))["events"]
    except (OSError, ValueError, KeyError):
        # Chromium may leave the log's closing brackets out when it exits: read what it wrote.
        text = net_log.read_text(encoding="utf-8").rstrip().rstrip(",")
        events = json.loads(text + "]}")["events"]
    sources = {
        e["source"]["id"]
        for e in events
        if str(e.get("params", {}).get("network_isolation_key", "")).startswith("file://")
    }
    return sorted({e["params"]["url"] for e in events if e["source"]["id"] in sources and "url" in e.get("params", {})})
