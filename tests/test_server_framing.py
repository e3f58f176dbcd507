"""Broken JSON-RPC framing never wedges the server (issue 13, item 11).

A Content-Length that lies (too short, too long), a missing or non-numeric header, or bytes
that are no message at all: the reader resynchronises, answers what it could read whole and
every message after it. Unit tests drive ``FrameReader`` with bytes; the end-to-end tests
write raw bytes to the server's stdin.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rubric_lsp.server.framing import FrameReader
from tests.raw_client import RawClient


def frame(message: dict, length_delta: int = 0, header: bytes | None = None) -> bytes:
    body = json.dumps(message).encode()
    if header is None:
        header = b"Content-Length: %d\r\n\r\n" % (len(body) + length_delta)
    return header + body


def read_all(data: bytes, chunk: int = 7) -> list:
    """Every message a reader gets from ``data`` fed ``chunk`` bytes at a time, then idle, then EOF."""
    reader = FrameReader(json.JSONDecoder().raw_decode)
    out = []
    for i in range(0, len(data), chunk):
        reader.buffer += data[i : i + chunk]
        while True:
            ready, message = reader.next_message(idle=False)
            if not ready:
                break
            out.append(message)
    for idle, eof in ((True, False), (True, True)):
        reader.eof = eof
        while True:
            ready, message = reader.next_message(idle=idle)
            if not ready:
                break
            out.append(message)
    return out


A, B, C = ({"jsonrpc": "2.0", "id": i, "method": "m", "params": {"text": "é\r\n{}" * i}} for i in (1, 2, 3))


@pytest.mark.parametrize("chunk", [1, 7, 4096])
@pytest.mark.parametrize(
    "broken",
    [
        pytest.param(frame(B), id="well-formed"),
        pytest.param(frame(B, -9), id="length-too-short"),
        pytest.param(frame(B, +9), id="length-too-long"),
        pytest.param(frame(B, +5000), id="length-far-too-long"),
        pytest.param(frame(B, header=b""), id="no-header"),
        pytest.param(frame(B, header=b"Content-Length: many\r\n\r\n"), id="non-numeric-length"),
        pytest.param(frame(B, header=b"Content-Type: application/json\r\n\r\n"), id="no-length-header"),
        pytest.param(frame(B, header=b"content-length:%d\n\n" % len(json.dumps(B))), id="lenient-header"),
        pytest.param(frame(B, header=b"Content-Length: -4\r\n\r\n"), id="negative-length"),
    ],
)
def test_every_message_around_a_broken_frame_is_read(broken, chunk):
    assert read_all(frame(A) + broken + frame(C), chunk) == [A, B, C]


@pytest.mark.parametrize(
    "junk",
    [b"\xff\xfe not even utf-8\r\n", b"garbage without a newline", b"Content-Length: 5\r\n\r\n{bad}", b"\r\n\r\n"],
)
def test_junk_between_frames_is_skipped(junk):
    assert read_all(frame(A) + junk + frame(C)) == [A, C]


def test_a_long_lie_on_the_last_message_is_read_once_the_client_goes_quiet():
    reader = FrameReader(json.JSONDecoder().raw_decode)
    reader.buffer += frame(A, +100)
    assert reader.next_message(idle=False) == (False, None)  # still waiting for the declared bytes
    assert reader.next_message(idle=True) == (True, A)


# -- end to end: raw bytes on the server's stdin ---------------------------------------------------


@pytest.fixture
def raw(tmp_path: Path):
    client = RawClient(tmp_path)
    rid = client.send("initialize", {"processId": os.getpid(), "rootUri": tmp_path.as_uri(), "capabilities": {}})
    assert "capabilities" in client.response(rid)["result"]
    client.send("initialized", {}, request=False)
    yield client
    client.close()


def hover_request(rid: int, uri: str) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "textDocument/hover",
        "params": {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 6}},
    }


@pytest.mark.parametrize(
    "how",
    [
        {"length_delta": -12},
        {"length_delta": +12},
        {"header": b""},
        {"header": b"Content-Length: twelve\r\n\r\n"},
    ],
    ids=["too-short", "too-long", "missing", "non-numeric"],
)
def test_the_server_answers_after_a_broken_frame(raw: RawClient, tmp_path: Path, how):
    uri = (tmp_path / "a.rubric.yaml").as_uri()
    raw.send(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": "rubric:\n  - requirement: Hi\n"}},
        request=False,
    )
    raw.proc.stdin.write(frame(hover_request(900, uri), **how) + frame(hover_request(901, uri)))
    raw.proc.stdin.flush()
    assert "contents" in raw.response(900)["result"]  # the broken frame's own request, read whole
    assert "contents" in raw.response(901)["result"]  # and the one after it
    raw.next_id = 1000
    rid = raw.send("textDocument/hover", hover_request(0, uri)["params"])
    assert "contents" in raw.response(rid)["result"]
    assert raw.proc.poll() is None


@pytest.mark.parametrize(
    "header",
    [b"Content-Length: -5\r\n\r\n", b"Content-Length: abc\r\n\r\n", b"Content-Type: application/json\r\n\r\n"],
    ids=["negative", "not-a-number", "no-length"],
)
@pytest.mark.parametrize("chunk", [1, 4096])
def test_a_header_block_with_no_usable_length_and_no_body_is_dropped(header, chunk):
    """A header block whose length is unusable, followed at once by the next frame (no body of its own):
    it used to wait for a body forever, wedging the server."""
    assert read_all(frame(A) + header + frame(B) + frame(C), chunk) == [A, B, C]
    reader = FrameReader(json.JSONDecoder().raw_decode)
    reader.buffer += header + frame(B)
    assert reader.next_message(idle=False) == (True, B)  # no idle wait: the next frame is already here


@pytest.mark.parametrize(
    "header", [b"Content-Length: -5\r\n\r\n", b"Content-Length: abc\r\n\r\n", b"X-Other: 1\r\n\r\n"]
)
def test_the_server_answers_after_a_header_block_with_no_body(raw: RawClient, tmp_path: Path, header: bytes):
    uri = (tmp_path / "b.rubric.yaml").as_uri()
    raw.send(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": "rubric:\n  - requirement: Hi\n"}},
        request=False,
    )
    raw.proc.stdin.write(header + frame(hover_request(950, uri)))
    raw.proc.stdin.flush()
    assert "contents" in raw.response(950, timeout=10)["result"]


def test_the_pygls_internals_the_reader_drives_are_there():
    """framing.serve feeds pygls' protocol by hand (pygls>=2.0,<3): these are the two calls it makes."""
    import inspect

    from rubric_lsp.server.app import RubricProtocol

    assert list(inspect.signature(RubricProtocol.handle_message).parameters)[:2] == ["self", "message"]
    assert list(inspect.signature(RubricProtocol.structure_message).parameters)[:2] == ["self", "data"]
