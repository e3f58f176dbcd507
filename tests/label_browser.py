"""Drive a page in real headless Chromium (/usr/bin/chromium) over the DevTools protocol: open it, press keys,
click, read what it shows, take a screenshot. tests/report_browser.py loads a page once and reads its DOM;
a labelling page is used, so it is driven instead.

Chromium is started with ``--remote-debugging-port=0`` (it prints the port it chose), a page target is made
for the URL, and aiohttp's websocket client speaks the protocol to it. Waiting is on a condition the page
shows (``wait_for``), polled, never on a fixed time.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from tests.report_browser import CHROMIUM, available, remove_profile  # noqa: F401 - available: re-exported for the tests' skip

_LISTENING = re.compile(r"DevTools listening on (ws://[^\s]+)")
KEYS = {"Enter": 13, "Escape": 27, "ArrowDown": 40, "ArrowUp": 38, "Tab": 9}


class Browser:
    """One headless Chromium with one page; ``async with Browser() as page: await page.open(url)``."""

    def __init__(self, width: int = 1280, height: int = 900) -> None:
        self.width, self.height = width, height
        self._ids = itertools.count(1)
        self.console: list[str] = []
        self.requests: list[str] = []

    async def __aenter__(self) -> Browser:
        import aiohttp

        self._scratch = tempfile.mkdtemp(prefix="rubric-chromium-")
        self._process = subprocess.Popen(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--no-first-run",
                "--no-default-browser-check",
                f"--user-data-dir={self._scratch}/profile",
                f"--window-size={self.width},{self.height}",
                "--hide-scrollbars",
                "--remote-debugging-port=0",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        endpoint = await asyncio.get_running_loop().run_in_executor(None, self._endpoint)
        port = endpoint.split(":")[2].split("/")[0]
        self._http = aiohttp.ClientSession()
        async with self._http.get(f"http://127.0.0.1:{port}/json/list") as answer:
            targets = await answer.json()
        page = next(t for t in targets if t.get("type") == "page")
        self._ws = await self._http.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=64 * 1024 * 1024)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._events: list[dict[str, Any]] = []
        self._reader = asyncio.create_task(self._read())
        for domain in ("Page", "Runtime", "Network"):
            await self.send(f"{domain}.enable")
        return self

    def _endpoint(self) -> str:
        assert self._process.stderr is not None
        for line in self._process.stderr:
            found = _LISTENING.search(line)
            if found:
                return found.group(1)
        raise RuntimeError("Chromium did not start its DevTools endpoint")

    async def __aexit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            await self._ws.close()
        self._reader.cancel()
        with contextlib.suppress(BaseException):
            await self._reader
        await self._http.close()
        self._process.terminate()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stderr is not None:
            self._process.stderr.close()
        remove_profile(self._scratch)

    async def _read(self) -> None:
        async for message in self._ws:
            data = json.loads(message.data)
            if "id" in data and data["id"] in self._pending:
                self._pending.pop(data["id"]).set_result(data)
            else:
                self._events.append(data)
                method = data.get("method")
                if method == "Runtime.consoleAPICalled":
                    self.console.append(
                        " ".join(str(a.get("value", a.get("description"))) for a in data["params"]["args"])
                    )
                elif method == "Network.requestWillBeSent":
                    self.requests.append(data["params"]["request"]["url"])

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        number = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[number] = future
        await self._ws.send_str(json.dumps({"id": number, "method": method, "params": params}))
        answer = await asyncio.wait_for(future, 60)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    async def open(self, url: str) -> None:
        await self.send("Page.navigate", url=url)
        await self.wait_for(f"location.href === {json.dumps(url)} && document.readyState === 'complete'")

    async def evaluate(self, expression: str) -> Any:
        answer = await self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in answer:
            raise RuntimeError(f"{expression}: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    async def wait_for(self, expression: str, timeout: float = 60.0) -> Any:
        """Poll ``expression`` until it is truthy (its value), or fail after ``timeout`` seconds."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            value = await self.evaluate(expression)
            if value:
                return value
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"the page never showed {expression!r}")
            await asyncio.sleep(0.05)

    async def settled(self) -> None:
        """Wait until the page has no request of its own in flight and has drawn its state."""
        await self.wait_for("!!document.body && document.body.dataset.ready === '1' && !document.body.dataset.busy")

    async def key(self, key: str, ctrl: bool = False) -> None:
        """Press and release ``key`` ("1", "u", "Enter", …) on the focused element."""
        code = KEYS.get(key, ord(key.upper()) if len(key) == 1 else 0)
        text = key if len(key) == 1 and not ctrl else ""
        modifiers = 2 if ctrl else 0
        common = {"key": key, "windowsVirtualKeyCode": code, "modifiers": modifiers}
        await self.send("Input.dispatchKeyEvent", type="keyDown", text=text, **common)
        await self.send("Input.dispatchKeyEvent", type="keyUp", **common)

    async def type(self, text: str) -> None:
        await self.send("Input.insertText", text=text)

    async def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element ``selector`` finds (scrolled into view first)."""
        box = await self.evaluate(
            f"""(() => {{ const n = document.querySelector({json.dumps(selector)}); if (!n) return null;
            n.scrollIntoView({{block: "center"}}); const r = n.getBoundingClientRect();
            return [r.left + r.width / 2, r.top + r.height / 2]; }})()"""
        )
        if not box:
            raise AssertionError(f"nothing on the page matches {selector!r}")
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            await self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    async def screenshot(self, path: Path) -> None:
        shot = await self.send("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(shot["data"]))
