"""The direct route's HTTP/1.1 client (engine/transports/http1.py) against a scripted server on 127.0.0.1: kept-alive
connections reused and never shared, replies in any framing and any split, the limit, the deadline, every way a
connection can break, and a seeded run where the server frames and cuts its replies at random."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import struct
import threading
from collections.abc import Awaitable, Callable

import pytest

from rubric_lsp.engine.transports import http1

Handler = Callable[[bytes, asyncio.StreamWriter], Awaitable[bool]]  # (request body, writer) -> keep the connection


class Server:
    """An HTTP/1.1 server reading each request whole, answering it with ``handler``; it counts connections."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.connections = 0
        self.requests: list[bytes] = []
        self.closed = asyncio.Event()
        self.handlers: list[asyncio.Task[None]] = []

    async def __aenter__(self) -> http1.Endpoint:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        return http1.endpoint(f"http://127.0.0.1:{port}/v1/chat/completions", "test")

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()
        for task in self.handlers:  # (else they would be destroyed pending when the test's loop closes)
            task.cancel()
        await asyncio.gather(*self.handlers, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.handlers.append(asyncio.current_task())  # type: ignore[arg-type]
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                self.requests.append(head)
                self.reader = reader  # (a handler may watch for the client's close)
                length = int(next(v for k, v in _headers(head) if k == "content-length"))
                if not await self.handler(await reader.readexactly(length), writer):
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.closed.set()
            writer.close()


def _headers(head: bytes) -> list[tuple[str, str]]:
    lines = head.decode("latin-1").split("\r\n")[1:]
    return [(k.strip().lower(), v.strip()) for k, _, v in (line.partition(":") for line in lines if line)]


def answer(body: bytes, status: int = 200, extra: str = "") -> bytes:
    return f"HTTP/1.1 {status} X\r\nContent-Length: {len(body)}\r\n{extra}\r\n".encode() + body


def echo(extra: str = "") -> Handler:
    async def handle(body: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(answer(body, extra=extra))
        await writer.drain()
        return "close" not in extra

    return handle


async def post(where: http1.Endpoint, body: bytes = b"{}", timeout: float = 5.0, limit: int = 1 << 20) -> http1.Reply:
    return await http1.post(where, b"Authorization: Bearer k\r\n", body, timeout, limit)


async def test_a_request_is_sent_whole_and_its_reply_read():
    server = Server(echo("Retry-After: 3\r\n"))
    async with server as where:
        reply = await post(where, b'{"a": 1}')
    assert reply == http1.Reply(200, {"content-length": "8", "retry-after": "3"}, b'{"a": 1}')
    sent = dict(_headers(server.requests[0]))
    assert server.requests[0].startswith(b"POST /v1/chat/completions HTTP/1.1\r\n")
    assert sent["host"] == f"127.0.0.1:{where.port}" and sent["authorization"] == "Bearer k"
    assert sent["content-length"] == "8" and sent["user-agent"] == "test"


async def test_a_connection_is_kept_and_reused_but_never_shared():
    server = Server(echo())
    async with server as where:
        for n in range(5):
            assert (await post(where, b"%d" % n)).body == b"%d" % n
        assert server.connections == 1
        bodies = [b"%d" % n for n in range(40)]
        replies = await asyncio.gather(*(post(where, body) for body in bodies))
        assert [r.body for r in replies] == bodies
        assert server.connections == 40  # each call in flight has a connection of its own


async def test_connection_close_is_honoured():
    server = Server(echo("Connection: close\r\n"))
    async with server as where:
        assert (await post(where, b"1")).body == b"1"
        await server.closed.wait()
        assert (await post(where, b"2")).body == b"2"
    assert server.connections == 2


async def test_a_connection_the_server_dropped_while_idle_is_not_reused():
    async def once(body: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(answer(body))  # and close, without saying so
        await writer.drain()
        return False

    server = Server(once)
    async with server as where:
        assert (await post(where, b"1")).body == b"1"
        await server.closed.wait()
        await asyncio.sleep(0.05)
        assert (await post(where, b"2")).body == b"2"
    assert server.connections == 2


async def test_a_chunked_reply_in_pieces_byte_by_byte():
    async def chunked(body: bytes, writer: asyncio.StreamWriter) -> bool:
        data = b"HTTP/1.1 429 Slow\r\nTransfer-Encoding: chunked\r\nretry-after: 1\r\n\r\n"
        data += b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:3], body[3:])) + b"0\r\n\r\n"
        for byte in data:
            writer.write(bytes([byte]))
            await writer.drain()
        return True

    server = Server(chunked)
    async with server as where:
        reply = await post(where, b'{"error": "slow down"}')
        assert reply.status == 429 and reply.body == b'{"error": "slow down"}' and reply.headers["retry-after"] == "1"
        assert (await post(where, b"again")).body == b"again"
    assert server.connections == 1


async def test_a_reply_past_the_limit_is_cut_and_its_connection_closed():
    async def big(body: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(answer(b"x" * 100_000))
        await writer.drain()
        return True

    server = Server(big)
    async with server as where:
        reply = await post(where, limit=1000)
        assert len(reply.body) == 1001  # enough to know it is too long
        await asyncio.wait_for(server.closed.wait(), 5)
        reply = await post(where, limit=200_000)
        assert len(reply.body) == 100_000
    assert server.connections == 2


async def test_no_reply_within_the_deadline_is_a_timeout_and_the_connection_is_dropped():
    async def never(body: bytes, writer: asyncio.StreamWriter) -> bool:
        await asyncio.sleep(30)
        return False

    server = Server(never)
    async with server as where:
        started = asyncio.get_running_loop().time()
        for _ in range(2):
            with pytest.raises(asyncio.TimeoutError):
                await post(where, timeout=0.3)
        assert asyncio.get_running_loop().time() - started < 2
    assert server.connections == 2  # the first, its reply maybe still to come, was not reused


async def test_a_reply_half_sent_then_dropped_is_a_failure_never_a_reply():
    async def half(body: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(answer(body)[:-3])
        await writer.drain()
        return False

    async with Server(half) as where:
        with pytest.raises(http1.HttpFailure, match="Server disconnected"):
            await post(where, b'{"verdict": "MET"}')


async def test_an_answer_that_is_not_http_is_a_failure():
    async def garbage(body: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")
        await writer.drain()
        return True

    async with Server(garbage) as where:
        with pytest.raises(http1.HttpFailure, match="not HTTP"):
            await post(where)


async def test_a_cancelled_call_closes_its_connection_at_once():
    client_left = asyncio.Event()

    async def slow(body: bytes, writer: asyncio.StreamWriter) -> bool:
        if await server.reader.read(1) == b"":  # nothing more comes: the client closed the connection
            client_left.set()
        return False

    server = Server(slow)
    async with server as where:
        call = asyncio.ensure_future(post(where, b"slow"))
        await asyncio.sleep(0.1)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await asyncio.wait_for(client_left.wait(), 2)


async def test_a_connection_that_never_opens_is_a_timeout(monkeypatch):
    async def never(*args: object, **kwargs: object) -> None:
        await asyncio.sleep(30)

    monkeypatch.setattr(asyncio.get_running_loop(), "create_connection", never)
    with pytest.raises(asyncio.TimeoutError):
        await post(http1.endpoint("http://127.0.0.1:9/v1", "test"), timeout=0.2)


async def test_nothing_listening_is_a_connection_failure_worded_as_aiohttps():
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    with pytest.raises(http1.HttpFailure, match=rf"^Cannot connect to host 127\.0\.0\.1:{port} "):
        await post(http1.endpoint(f"http://127.0.0.1:{port}/v1", "test"))


def test_idle_connections_are_closed_with_the_loop():
    # The server in a thread of its own, holding its side open: only the client can close the connection.
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    client_closed = threading.Event()

    def serve() -> None:
        connection, _ = listener.accept()
        with connection:
            request = b""
            while not request.endswith(b"{}"):
                request += connection.recv(65536)
            connection.sendall(answer(b"{}"))
            if connection.recv(1) == b"":
                client_closed.set()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    kept: list[http1._Connection] = []

    async def main() -> None:
        await post(http1.endpoint(f"http://127.0.0.1:{port}/v1", "test"))
        kept.extend(c for held in http1._pools[asyncio.get_running_loop()].idle.values() for c in held)

    asyncio.run(main())
    assert kept and all(c.transport is not None and c.transport.is_closing() for c in kept)
    assert client_closed.wait(5)
    listener.close()


@pytest.mark.parametrize("seed", range(3))
async def test_seeded_framings_splits_and_drops_never_give_a_reply_to_the_wrong_call(seed):
    """Each reply echoes its request's id; the server frames it by length, in chunks or by closing, sends it in random
    pieces, sometimes says Connection: close, sometimes drops the connection halfway, sometimes stalls past the
    deadline. Every call ends with its own reply or with a failure; none with another call's."""
    rng = random.Random(seed)

    async def chaotic(body: bytes, writer: asyncio.StreamWriter) -> bool:
        fate = rng.random()
        if fate < 0.05:
            await asyncio.sleep(1.0)  # past the deadline
        framing = rng.random()
        if framing < 0.1 and not 0.05 <= fate < 0.1:  # (cut, it would read as whole: HTTP/1.0 cannot tell)
            data = b"HTTP/1.0 200 OK\r\n\r\n" + body
            fate = 1.0  # then the connection closes
        elif framing < 0.55:
            data = answer(body, extra="Connection: close\r\n" if fate > 0.9 else "")
        else:
            pieces = [body[i : i + 5] for i in range(0, len(body), 5)]
            data = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            data += b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"
        if 0.05 <= fate < 0.1:
            data = data[: rng.randrange(len(data))]
        cuts = sorted(rng.sample(range(1, len(data)), min(3, len(data) - 1))) if len(data) > 1 else []
        for a, b in zip([0, *cuts], [*cuts, len(data)]):
            writer.write(data[a:b])
            await writer.drain()
            if rng.random() < 0.3:
                await asyncio.sleep(0)
        return fate <= 0.9 and not 0.05 <= fate < 0.1

    slots = asyncio.Semaphore(32)

    async def one(where: http1.Endpoint, n: int) -> str:
        body = json.dumps({"id": n}).encode()
        try:
            async with slots:
                reply = await post(where, body, timeout=0.5)
        except (http1.HttpFailure, asyncio.TimeoutError) as exc:
            return type(exc).__name__ + str(exc)
        assert reply.body == body
        return "answered"

    async with Server(chaotic) as where:
        outcomes = await asyncio.gather(*(one(where, n) for n in range(150)))
    assert outcomes.count("answered") > 110, sorted(set(outcomes))
    assert {o for o in outcomes if o != "answered"} <= {"TimeoutError", "HttpFailureServer disconnected"}


async def test_a_reply_landing_after_its_deadline_fired_is_dropped_with_its_connection():
    # The deadline and the reply's last bytes in one turn of the loop: the call has already failed with a
    # timeout, so the reply is nobody's, and its connection must not go back to the pool for another call.
    class Transport:
        aborted = False

        def write(self, data: bytes) -> None:
            pass

        def is_closing(self) -> bool:
            return self.aborted

        def abort(self) -> None:
            self.aborted = True

    loop = asyncio.get_running_loop()
    pool = http1._Pool(loop)
    connection = http1._Connection(pool, ("127.0.0.1", 9))
    transport = Transport()
    connection.connection_made(transport)  # type: ignore[arg-type]
    waiter: asyncio.Future[http1.Reply] = loop.create_future()
    connection.send(b"POST / HTTP/1.1\r\n\r\n", 1000, waiter)
    http1._expire(waiter)
    connection.data_received(answer(b"late"))
    assert transport.aborted and not pool.idle.get(("127.0.0.1", 9))
    with pytest.raises(asyncio.TimeoutError):
        waiter.result()


async def test_a_body_without_a_length_ends_with_its_connection():
    # HTTP/1.0, as a judge written on Python's http.server answers by default: no Content-Length, then a close.
    async def old(body: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n" + body)
        await writer.drain()
        return False

    async with Server(old) as where:
        assert (await post(where, b'{"a": 1}')).body == b'{"a": 1}'
        assert (await post(where, b'{"b": 2}')).body == b'{"b": 2}'


async def test_a_reset_in_a_body_without_a_length_is_a_failure_not_a_short_reply():
    async def reset(body: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.0 200 OK\r\n\r\n" + body[:4])
        await writer.drain()
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()  # a reset (RST), not an end (FIN)
        return False

    async with Server(reset) as where:
        with pytest.raises(http1.HttpFailure):
            await post(where, b'{"verdict": "MET"}')
