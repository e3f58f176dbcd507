"""The labelling page answers only its token, only on 127.0.0.1, only to requests naming it as their host and
coming from itself, and writes only the file it was opened for (and that file's labels log)."""

from __future__ import annotations

import hmac
import http.client
import json
import os
from pathlib import Path

import pytest

from rubric_lsp.labelling.page import server as page_server
from rubric_lsp.labelling.page.server import LabellingServer
from rubric_lsp.labelling.session import Options, Session
from tests.labelling_data import write_dataset


@pytest.fixture
def page(tmp_path):
    folder = tmp_path / "labelled"
    folder.mkdir()
    path = write_dataset(folder)
    server = LabellingServer(Session(path, Options(labeller="ann")))
    server.start()
    yield server, path
    server.shutdown()
    server.server_close()


def request(server, method, route, *, token=True, headers=None, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        sent = {"Host": f"127.0.0.1:{server.port}"}
        if token:
            sent[page_server.TOKEN_HEADER] = server.token
        if body is not None:
            sent["Content-Type"] = "application/json"
        sent.update(headers or {})
        data = body if isinstance(body, bytes) else None if body is None else json.dumps(body).encode()
        connection.request(method, route, body=data, headers=sent)
        answer = connection.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read()
    finally:
        connection.close()


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_it_listens_on_loopback_only_and_the_url_carries_a_long_random_token(page):
    server, _path = page
    assert server.server_address[0] == "127.0.0.1"
    assert server.url == f"http://127.0.0.1:{server.port}/?token={server.token}"
    assert len(server.token) >= 40
    other = LabellingServer(server.session)
    try:
        assert other.token != server.token and other.port != server.port
    finally:
        other.server_close()


def test_the_page_and_its_json_answer_the_token_alone(page):
    server, _path = page
    assert request(server, "GET", f"/?token={server.token}", token=False)[0] == 200
    assert request(server, "GET", "/api/state")[0] == 200
    for route in ("/", "/?token=", f"/?token={server.token[:-1]}", "/api/state", "/api/review"):
        status, _headers, body = request(server, "GET", route, token=False)
        assert (status, body) == (403, b"forbidden\n"), route
    status, _headers, body = request(server, "GET", "/api/state", token=False, headers={"X-Rubric-Token": "x" * 43})
    assert status == 403 and b"polite" not in body


def test_the_token_is_compared_in_constant_time(page, monkeypatch):
    server, _path = page
    seen = []
    original = hmac.compare_digest

    def compare(a, b):
        seen.append((a, b))
        return original(a, b)

    monkeypatch.setattr(page_server.hmac, "compare_digest", compare)
    assert request(server, "GET", "/api/state", token=False, headers={"X-Rubric-Token": "guess"})[0] == 403
    assert seen == [(b"guess", server.token.encode())]


@pytest.mark.parametrize(
    "headers",
    [
        {"Host": "evil.example:80"},  # DNS rebinding: another name resolved to 127.0.0.1
        {"Host": "127.0.0.1.evil.example"},
        {"Host": "localhost.evil.example:80"},
        {"Host": ""},
        {"Origin": "http://127.0.0.1.evil.example"},
        {"Origin": "http://localhost/../evil"},
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ],
)
def test_requests_from_another_site_are_refused_even_with_the_token(page, headers):
    server, path = page
    before = path.read_bytes()
    assert request(server, "GET", "/api/state", headers=headers)[0] == 403
    state = request(server, "GET", "/api/state")[2]
    key = json.loads(state)["item"]["key"]
    status, _h, _b = request(
        server, "POST", "/api/answer", headers=headers, body={"key": key, "unit": "polite", "word": "MET"}
    )
    assert status == 403 and path.read_bytes() == before
    assert not path.with_name(path.name + ".labellers.jsonl").exists()


def test_a_webview_may_frame_the_page_but_not_call_its_json(page):
    """VS Code frames the page from its webview's origin (a cross-site navigation, the token in the URL); the page's
    own requests then come from itself. A cross-site fetch of its JSON is refused."""
    server, _path = page
    framed = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "iframe"}
    assert request(server, "GET", f"/?token={server.token}", token=False, headers=framed)[0] == 200
    assert request(server, "GET", "/", token=False, headers=framed)[0] == 403
    for mode in ("cors", "no-cors", "navigate"):
        headers = {**framed, "Sec-Fetch-Mode": mode}
        assert request(server, "GET", "/api/state", headers=headers)[0] == 403, mode


def test_its_own_origin_and_localhost_are_answered(page):
    server, _path = page
    origin = f"http://127.0.0.1:{server.port}"
    assert request(server, "GET", "/api/state", headers={"Origin": origin, "Sec-Fetch-Site": "same-origin"})[0] == 200
    assert request(server, "GET", "/api/state", headers={"Host": f"localhost:{server.port}"})[0] == 200
    # A forwarded port (VS Code remote, code-server's proxy) is still the loopback, and so is its page.
    forwarded = {"Host": "localhost:41234", "Origin": "http://localhost:41234"}
    assert request(server, "GET", "/api/state", headers=forwarded)[0] == 200


def test_a_change_must_be_json_and_no_preflight_is_granted(page):
    server, path = page
    before = path.read_bytes()
    key = json.loads(request(server, "GET", "/api/state")[2])["item"]["key"]
    form = f"key={key}&unit=polite&word=MET".encode()
    status, _h, _b = request(
        server, "POST", "/api/answer", headers={"Content-Type": "application/x-www-form-urlencoded"}, body=form
    )
    assert status == 403
    status, _h, _b = request(server, "POST", "/api/answer", headers={"Content-Type": "text/plain"}, body=form)
    assert status == 403
    status, headers, _b = request(server, "OPTIONS", "/api/answer", headers={"Origin": "http://evil.example"})
    assert status == 403 and not any(h.lower().startswith("access-control") for h in headers)
    assert request(server, "POST", "/api/answer", body=b"{" + b" " * (70 * 1024) + b"}")[0] == 400
    assert path.read_bytes() == before


def test_the_page_loads_nothing_from_elsewhere(page):
    server, _path = page
    status, headers, body = request(server, "GET", f"/?token={server.token}", token=False)
    policy = headers["Content-Security-Policy"]
    assert status == 200 and "default-src 'none'" in policy and "connect-src 'self'" in policy
    assert headers["Referrer-Policy"] == "no-referrer" and headers["Cache-Control"] == "no-store"
    html = body.decode()
    assert "http://" not in html.replace("http://${", "") and "https://" not in html and "src=" not in html
    nonce = policy.split("'nonce-")[1].split("'")[0]
    assert html.count(f'nonce="{nonce}"') == 2  # its one style and one script
    assert request(server, "GET", f"/?token={server.token}", token=False)[1]["Content-Security-Policy"] != policy


def test_it_writes_only_the_file_it_was_opened_for(page, tmp_path):
    """Whatever a request names, the labelled file and its labels log are all that change under tmp_path."""
    server, path = page
    (tmp_path / "other.dataset.json").write_text(path.read_text())
    before = files(tmp_path)
    state = json.loads(request(server, "GET", "/api/state")[2])
    key = state["item"]["key"]
    hostile = [
        {"key": "../../other.dataset.json", "unit": "polite", "word": "MET"},
        {"key": key, "unit": "../other.dataset.json", "word": "MET"},
        {"key": key, "unit": "polite", "word": "MET", "path": str(tmp_path / "other.dataset.json")},
        {"key": key, "unit": "polite", "word": "../../x"},
    ]
    for body in hostile[:2] + hostile[3:]:
        assert request(server, "POST", "/api/answer", body=body)[0] == 400
    assert files(tmp_path) == before
    assert request(server, "POST", "/api/answer", body=hostile[2])[0] == 200  # the extra field is ignored
    assert request(server, "POST", "/api/answer", body={"key": key, "unit": "tone", "word": "Warm"})[0] == 200
    after = files(tmp_path)
    changed = {name for name in after if after[name] != before.get(name)}
    assert changed == {"labelled/replies.dataset.json", "labelled/replies.dataset.json.labellers.jsonl"}
    assert not [n for n in os.listdir(path.parent) if n.endswith(".tmp")]


def test_no_request_is_logged_with_its_token(page, capfd):
    server, _path = page
    request(server, "GET", f"/?token={server.token}", token=False)
    request(server, "GET", "/api/state", token=False)
    out, err = capfd.readouterr()
    assert server.token not in out + err and "GET" not in err
