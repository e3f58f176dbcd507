"""The labelling page: a small HTTP server on 127.0.0.1 that serves one page and its session's JSON.

What it answers, and what it refuses (tests/test_labelling_page_security.py):

- it listens on 127.0.0.1 only, on a port of the system's choosing unless one is given;
- every request carries the run's token (a random 32-byte secret: ``?token=`` for the page itself, the
  ``X-Rubric-Token`` header for its JSON), compared in constant time; anything else is a bare 403;
- the ``Host`` header must name the loopback (127.0.0.1 or localhost), which a page of another site reaching
  it through DNS rebinding cannot send; a request whose ``Origin`` is another site's, or that a browser marks
  ``Sec-Fetch-Site: cross-site`` or ``same-site``, is refused, and a change must be ``application/json`` (a
  cross-site form cannot send it, and the server answers no CORS preflight);
- no request names a file: the session writes the labelled file (or the labels file it was opened with) and
  its labels log, and nothing else;
- the page needs no network: its script and style are inline, under a Content-Security-Policy that allows
  them by nonce and nothing else to load.
"""

from __future__ import annotations

import hmac
import json
import secrets
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from rubric_lsp.labelling.files import ChangedMeanwhile
from rubric_lsp.labelling.session import Session

HOST = "127.0.0.1"
LOOPBACK_NAMES = ("127.0.0.1", "localhost")
TOKEN_HEADER = "X-Rubric-Token"
MAX_BODY = 64 * 1024
NONCE = "{{nonce}}"
# Where the page may be framed: the VS Code webview (docs/labelling.md) and itself.
FRAME_ANCESTORS = "'self' vscode-webview: vscode-file:"


def page_html(nonce: str) -> bytes:
    """The page, its style and script inline, each allowed by ``nonce``."""
    folder = resources.files(__package__)
    html = folder.joinpath("label.html").read_text(encoding="utf-8")
    style = folder.joinpath("label.css").read_text(encoding="utf-8")
    script = folder.joinpath("label.js").read_text(encoding="utf-8")
    html = html.replace("/*style*/", style).replace("/*script*/", script)
    return html.replace(NONCE, nonce).encode("utf-8")


class LabellingServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, session: Session, port: int = 0, token: str | None = None) -> None:
        self.session = session
        self.token = token or secrets.token_urlsafe(32)
        super().__init__((HOST, port), _Handler)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/?token={self.token}"

    def serves(self, host: str) -> bool:
        """Whether a ``Host`` header names this machine's loopback (any port: a forwarded one, as VS Code's
        remote port forwarding and code-server's proxy give, is still this server), never another name, which
        is what DNS rebinding sends."""
        name, _, port = host.rpartition(":") if host.count(":") == 1 else (host, "", "")
        return name in LOOPBACK_NAMES and (not port or port.isdigit())

    def from_here(self, origin: str) -> bool:
        """Whether an ``Origin`` is a page on this machine's loopback (the page itself, forwarded or not)."""
        scheme, _, rest = origin.partition("://")
        return scheme in ("http", "https") and "/" not in rest and self.serves(rest)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A request that failed unexpectedly: one line on standard error (never the request, which holds the
        token), and the page shows the error its request got."""
        kind, value, _trace = sys.exc_info()
        print(f"rubric label: a request failed: {kind.__name__ if kind else 'error'}: {value}", file=sys.stderr)

    def start(self) -> threading.Thread:
        """Serve on a daemon thread (the language server's way); ``shutdown()`` stops it."""
        thread = threading.Thread(target=self.serve_forever, name="rubric-label-page", daemon=True)
        thread.start()
        return thread


class _Handler(BaseHTTPRequestHandler):
    server: LabellingServer
    server_version = "rubric-label"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        return  # no request log: its lines would carry the token

    # -- the checks every request passes -------------------------------------------------------------
    def _refusal(self, change: bool, page: bool = False) -> str | None:
        """Why a request is refused (None: it is answered). ``page``: the page itself, which a webview frames
        from another origin (a navigation, the token in its URL: nothing else of the page's is read that way)."""
        if not self.server.serves(self.headers.get("Host", "")):
            return "host"
        origin = self.headers.get("Origin")
        if origin is not None and not self.server.from_here(origin):
            return "origin"
        fetched = self.headers.get("Sec-Fetch-Site", "same-origin")
        if fetched not in ("same-origin", "none") and not (page and self.headers.get("Sec-Fetch-Mode") == "navigate"):
            return "cross-site"
        query = parse_qs(urlsplit(self.path).query)
        given = self.headers.get(TOKEN_HEADER) or (query.get("token") or [""])[0]
        if not hmac.compare_digest(given.encode("utf-8"), self.server.token.encode("utf-8")):
            return "token"
        if change and self.headers.get_content_type() != "application/json":
            return "content-type"
        return None

    def _refuse(self) -> None:
        self._send(HTTPStatus.FORBIDDEN, b"forbidden\n", "text/plain; charset=utf-8")

    def _send(self, status: HTTPStatus, body: bytes, content_type: str, nonce: str | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        policy = "default-src 'none'; connect-src 'self'; base-uri 'none'; form-action 'none'"
        if nonce is not None:
            policy += f"; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'"
        self.send_header("Content-Security-Policy", f"{policy}; frame-ancestors {FRAME_ANCESTORS}")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, value: Any, status: HTTPStatus = HTTPStatus.OK) -> None:
        self._send(status, json.dumps(value, ensure_ascii=False).encode("utf-8"), "application/json; charset=utf-8")

    # -- requests ------------------------------------------------------------------------------------
    def do_GET(self) -> None:
        route = urlsplit(self.path).path
        if self._refusal(change=False, page=route == "/") is not None:
            return self._refuse()
        if route == "/":
            nonce = secrets.token_urlsafe(16)
            return self._send(HTTPStatus.OK, page_html(nonce), "text/html; charset=utf-8", nonce)
        if route == "/api/state":
            return self._answer(self.server.session.state)
        if route == "/api/review":
            return self._answer(self.server.session.review)
        self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")

    def do_POST(self) -> None:
        if self._refusal(change=True) is not None:
            return self._refuse()
        body = self._body()
        if body is None:
            return self._json({"error": "the request is not a JSON object of at most 64 KiB"}, HTTPStatus.BAD_REQUEST)
        session = self.server.session
        route = urlsplit(self.path).path
        text = {name: str(body.get(name) or "") for name in ("key", "unit", "word", "note")}
        actions = {
            "/api/answer": lambda: session.answer(text["key"], text["unit"], text["word"], text["note"]),
            "/api/change": lambda: session.change(text["key"], text["unit"], text["word"]),
            "/api/keep": lambda: session.keep(text["key"], text["unit"]),
            "/api/undo": session.undo,
            "/api/go": lambda: session.go(text["key"] or None),
        }
        action = actions.get(route)
        if action is None:
            return self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")
        self._answer(action)

    def do_OPTIONS(self) -> None:
        self._refuse()

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS

    def _body(self) -> dict[str, Any] | None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            return None
        if not 0 <= length <= MAX_BODY:
            return None
        try:
            value = json.loads(self.rfile.read(length) or b"{}")
        except (ValueError, RecursionError):
            return None
        return value if isinstance(value, dict) else None

    def _answer(self, action: Any) -> None:
        try:
            self._json(action())
        except ChangedMeanwhile as exc:
            self._json({"error": str(exc)}, HTTPStatus.CONFLICT)
        except ValueError as exc:  # a refused answer, a labels log or file that cannot be read: one line
            self._json({"error": str(exc)}, HTTPStatus.BAD_REQUEST)
        except OSError as exc:
            self._json({"error": f"cannot write: {exc.strerror or exc}"}, HTTPStatus.INTERNAL_SERVER_ERROR)
        except Exception as exc:  # a bug: the page says so in one line, and the server goes on
            self.server.handle_error(self.request, self.client_address)
            self._json(
                {"error": f"the labelling server failed: {type(exc).__name__}"}, HTTPStatus.INTERNAL_SERVER_ERROR
            )
