"""Reading JSON-RPC frames from stdin, resynchronising after a broken frame.

pygls' reader trusts every ``Content-Length``: one that lies, a header that is missing or not
a number leaves it reading bodies as headers and headers as bodies, so the server stays alive
and never answers again (issue 13, item 11). This reader keeps its own buffer and recovers:

- a frame whose body does not parse as declared is re-read as "the JSON value that starts
  here", wherever it ends (a Content-Length too short or too long by any amount);
- a message with no usable ``Content-Length`` header is read the same way;
- bytes that are neither a header nor a message are skipped up to the next ``Content-Length``.

Each recovery logs one warning; the message is still handled when it could be read whole.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger("rubric_lsp.server.framing")

HEADER = re.compile(rb"^([A-Za-z][A-Za-z0-9\-]*)[ \t]*:[ \t]*(.*?)[ \t]*\r?\n$")
CONTENT_LENGTH = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)
IDLE_SECONDS = 0.5  # a body still short after this long with no new bytes: read it as what arrived
MAX_HEADER_LINE = 8192


class FrameReader:
    """Splits a byte stream into JSON-RPC message bodies (as parsed values)."""

    def __init__(self, decode: Callable[[str], tuple[Any, int]]) -> None:
        self.buffer = bytearray()
        self.eof = False
        self._decode = decode  # str -> (value, end index): json raw_decode with the protocol's hook

    # -- parsing what is buffered --------------------------------------------------------
    def next_message(self, idle: bool) -> tuple[bool, Any]:
        """(True, message) for the next whole message; (False, None) if more bytes are needed.

        ``idle``: no bytes arrived for a while, so a short body is all there will be for now.
        """
        while True:
            headers = self._headers()
            if headers is None:
                return False, None
            end_of_headers, length = headers
            found = self._body(end_of_headers, length, idle)
            if found is None:
                return False, None
            consumed, message, ok = found
            del self.buffer[:consumed]
            if ok:
                return True, message

    def _headers(self) -> tuple[int, int | None] | None:
        """(index after the blank line, Content-Length or None) for the frame at the buffer's start."""
        while True:
            position = 0
            length: int | None = None
            bad = False
            while True:
                newline = self.buffer.find(b"\n", position)
                if newline < 0:
                    if len(self.buffer) - position > MAX_HEADER_LINE or self._starts_json(position):
                        break  # not a header line: handled below
                    return None
                line = bytes(self.buffer[position : newline + 1])
                if not line.strip():
                    return newline + 1, (None if bad else length)
                match = HEADER.match(line)
                if match is None:
                    break
                if match.group(1).lower() == b"content-length":
                    try:
                        length = int(match.group(2))
                        bad = bad or length < 0
                    except ValueError:
                        log.warning("framing: Content-Length %r is not a number", match.group(2)[:40])
                        bad = True
                position = newline + 1
            # Not a header block. A message sent without headers: read it where it starts.
            if self._starts_json(position):
                if position:
                    log.warning("framing: a header block without its blank line; reading the message after it")
                return position, None
            skipped = self._skip_to_next_frame(position)
            if skipped is None:
                return None

    def _starts_json(self, position: int) -> bool:
        rest = bytes(self.buffer[position : position + 64]).lstrip()
        return rest[:1] in (b"{", b"[")

    def _skip_to_next_frame(self, position: int) -> int | None:
        """Drop bytes up to the next Content-Length header (None: none buffered yet)."""
        match = CONTENT_LENGTH.search(self.buffer, position + 1)
        line_start = self.buffer.rfind(b"\n", 0, position) + 1 if position else 0
        if match is None:
            if self.eof or len(self.buffer) > MAX_HEADER_LINE:
                dropped = bytes(self.buffer)
                self.buffer.clear()
                log.warning("framing: skipped %d bytes that are not a message: %r", len(dropped), dropped[:60])
            return None
        dropped = bytes(self.buffer[line_start : match.start()])
        del self.buffer[: match.start()]
        log.warning("framing: skipped %d bytes that are not a message: %r", len(dropped), dropped[:60])
        return match.start()

    def _body(self, start: int, length: int | None, idle: bool) -> tuple[int, Any, bool] | None:
        """(bytes consumed from the buffer, message, whether it is one) or None to wait for more."""
        available = len(self.buffer) - start
        if length is not None and available >= length:
            body = bytes(self.buffer[start : start + length])
            try:
                return start + length, self._decode_whole(body), True
            except ValueError:
                pass
            # The declared length is wrong, or the body is not JSON: read the value that starts here.
            found = self._value_at(start)
            if found is not None:
                end, message = found
                log.warning(
                    "framing: Content-Length %d did not match the message (%d bytes); resynchronised",
                    length,
                    end - start,
                )
                return end, message, True
            if not (idle or self.eof or CONTENT_LENGTH.search(self.buffer, start)):
                return None  # a too-short length: the rest of the message may still be on its way
            log.warning("framing: a %d-byte message is not JSON; skipped", length)
            return start + length, None, False
        # Not all there (or no length at all): a whole JSON value may still be here already.
        if idle or self.eof or (length is None and self._may_be_complete(start)):
            found = self._value_at(start)
            if found is not None:
                end, message = found
                if length is None:
                    log.warning("framing: a message without a usable Content-Length header; read it anyway")
                else:
                    log.warning(
                        "framing: Content-Length %d is longer than the message (%d bytes); resynchronised",
                        length,
                        end - start,
                    )
                return end, message, True
            if self.eof or (length is None and (idle or CONTENT_LENGTH.search(self.buffer, start))):
                # nothing readable before the next frame: drop up to it (at least this frame's headers,
                # when the next frame follows them at once: a header block with no body of its own)
                match = CONTENT_LENGTH.search(self.buffer, start)
                end = match.start() if match else len(self.buffer)
                if end > start or match is None or start > 0:
                    log.warning("framing: skipped a header block and %d bytes that are not a message", end - start)
                    return max(end, start), None, False
        return None

    def _may_be_complete(self, start: int) -> bool:
        """Whether a header-less message could be whole already: the buffer ends like a JSON value or
        the next frame's header has arrived (so a big message is not re-parsed for every chunk)."""
        tail = bytes(self.buffer[-64:]).rstrip()
        return tail.endswith((b"}", b"]")) or CONTENT_LENGTH.search(self.buffer, start) is not None

    def _decode_whole(self, body: bytes) -> Any:
        text = body.decode("utf-8")  # UnicodeDecodeError is a ValueError
        value, end = self._decode(text)
        if text[end:].strip():
            raise ValueError("extra data after the message")
        return value

    def _value_at(self, start: int) -> tuple[int, Any] | None:
        """(buffer index after it, value) of the JSON value starting at ``start`` (blanks skipped)."""
        raw = bytes(self.buffer[start:])
        stripped = raw.lstrip()
        offset = len(raw) - len(stripped)
        if stripped[:1] not in (b"{", b"["):
            return None
        text = stripped.decode("utf-8", errors="surrogateescape")
        try:
            value, end = self._decode(text)
        except (ValueError, RecursionError):
            return None
        return start + offset + len(text[:end].encode("utf-8", errors="surrogateescape")), value


def structured(value: Any, hook: Callable[[dict], Any]) -> Any:
    """``value`` with ``hook`` applied to every object, innermost first (what json's object_hook does)."""
    if isinstance(value, dict):
        return hook({k: structured(v, hook) for k, v in value.items()})
    if isinstance(value, list):
        return [structured(v, hook) for v in value]
    return value


async def serve(
    stop_event: threading.Event,
    stdin: Any,
    protocol: Any,
    error_handler: Callable[[Exception, Any], Any] | None = None,
) -> None:
    """The message loop over ``stdin`` (a binary file): pygls' ``run_async`` with resynchronisation."""
    loop = asyncio.get_running_loop()
    chunks: asyncio.Queue[bytes | None] = asyncio.Queue()
    fd = stdin.fileno()

    def pump() -> None:  # a thread of its own: pygls' pool also runs handlers
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            loop.call_soon_threadsafe(chunks.put_nowait, data or None)
            if not data:
                return

    threading.Thread(target=pump, name="rubric-lsp-stdin", daemon=True).start()
    reader = FrameReader(json.JSONDecoder().raw_decode)
    idle = False
    while not stop_event.is_set():
        ready, message = reader.next_message(idle)
        if ready:
            idle = False
            try:
                protocol.handle_message(structured(message, protocol.structure_message))
            except Exception as exc:  # one bad message never ends the loop
                log.exception("unable to handle a message")
                if error_handler is not None:
                    error_handler(exc, Exception)
            continue
        if reader.eof:
            break
        try:
            data = await asyncio.wait_for(chunks.get(), IDLE_SECONDS) if reader.buffer else await chunks.get()
        except asyncio.TimeoutError:
            idle = True
            continue
        idle = False
        if data is None:
            reader.eof = True
        else:
            reader.buffer += data
