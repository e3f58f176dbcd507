"""OpenAI's batch endpoints on tests/judge_server.py (stdlib only): files and batches.

Served next to ``/v1/chat/completions`` by the same server (``server.batches``)::

    POST /v1/files                  multipart upload (purpose=batch, file=JSONL)  -> file object
    GET  /v1/files/{id}/content     the uploaded file, or a batch's output / error file
    POST /v1/batches                {input_file_id, endpoint, completion_window}  -> batch object
    GET  /v1/batches/{id}           the batch, its status advancing with time
    POST /v1/batches/{id}/cancel    -> status cancelled

Each line of an input file is answered with the server's own reply choice (queue, ``when``
rules, ``handler``, ``default``: ``JudgeServer._choose``), so a scripted judge answers a batch
exactly as it answers live calls. A reply with a non-200 status (``Reply.server_error()``,
``Reply.rate_limited()``, ``Reply.error(...)``) becomes a line of the batch's error file, as
OpenAI reports a failed request; a ``Reply.hang()`` line is left unanswered.

Scripting (attributes of ``server.batches``):

- ``processing_seconds`` (0): time a batch spends ``in_progress`` before it finishes; ``hold``
  (False) keeps every batch ``in_progress`` until set back to False; ``in_progress_polls`` (0):
  a batch also stays ``in_progress`` for its first that many polls (GET /v1/batches/{id}), so a
  test that counts status lines does not depend on how soon a loaded machine polls;
- ``final_status`` ("completed"): what a batch ends as; "expired", "failed" or "cancelled" leave
  it without an output file (an expired one with an error line ``batch_expired`` per request);
- ``refuse`` (None): a ``(status, message)`` every batch endpoint answers instead (an invalid key);
- ``uploads`` / ``created`` / ``downloads``: counts of POST /v1/files, POST /v1/batches and file
  downloads (per file id), for resume tests.

Lines are answered when the batch is created; the batch then reports them as it advances
(``validating`` → ``in_progress`` → ``finalizing`` → final status over ``processing_seconds``).
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

_BATCH = re.compile(r"^/v1/batches/([^/]+)(/cancel)?$")
_FILE = re.compile(r"^/v1/files/([^/]+)(/content)?$")


@dataclass
class _Batch:
    id: str
    input_file_id: str
    endpoint: str
    created_at: float
    outputs: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    total: int = 0
    cancelled: bool = False
    output_file_id: str | None = None
    error_file_id: str | None = None
    final: str | None = None
    polls: int = 0  # GET /v1/batches/{id} so far


class FakeBatches:
    """The batch endpoints of one ``JudgeServer``; see the module docstring."""

    def __init__(self, server: Any) -> None:
        self._server = server
        self._lock = threading.Lock()
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, _Batch] = {}
        self.processing_seconds = 0.0
        self.hold = False
        self.in_progress_polls = 0
        self.final_status = "completed"
        self.uploads = 0
        self.created = 0
        self.downloads: dict[str, int] = {}  # GET /v1/files/{id}/content, per file
        self.refuse: tuple[int, str] | None = None  # (status, message): every batch endpoint answers this error

    @staticmethod
    def serves(path: str) -> bool:
        return path.split("?", 1)[0].rstrip("/").startswith(("/v1/files", "/v1/batches"))

    # -- HTTP ---------------------------------------------------------------------
    def post(self, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, bytes]:
        """The answer to a POST: HTTP status and body."""
        return _encoded(*self._post(path.split("?", 1)[0].rstrip("/"), headers, raw))

    def get(self, path: str) -> tuple[int, bytes]:
        """The answer to a GET: HTTP status and body."""
        return _encoded(*self._get(path.split("?", 1)[0].rstrip("/")))

    def _post(self, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, Any]:
        if self.refuse is not None:
            return self.refuse[0], _error(self.refuse[1])
        if path == "/v1/files":
            return self._upload(headers, raw)
        if path == "/v1/batches":
            return self._create(json.loads(raw or b"{}"))
        match = _BATCH.match(path)
        if match and match.group(2):
            with self._lock:
                batch = self.batches.get(match.group(1))
                if batch is None:
                    return 404, _error("no such batch")
                batch.cancelled = True
            return 200, self._view(batch)
        return 404, _error(f"not served: POST {path}")

    def _get(self, path: str) -> tuple[int, Any]:
        if self.refuse is not None:
            return self.refuse[0], _error(self.refuse[1])
        match = _BATCH.match(path)
        if match and not match.group(2):
            batch = self.batches.get(match.group(1))
            if batch is None:
                return 404, _error("no such batch")
            with self._lock:
                batch.polls += 1
            return 200, self._view(batch)
        match = _FILE.match(path)
        if match:
            data = self.files.get(match.group(1))
            if data is None:
                return 404, _error("no such file")
            if match.group(2):
                self.downloads[match.group(1)] = self.downloads.get(match.group(1), 0) + 1
            return (200, data) if match.group(2) else (200, _file_object(match.group(1), data))
        return 404, _error(f"not served: GET {path}")

    # -- internals ----------------------------------------------------------------
    def _upload(self, headers: dict[str, str], raw: bytes) -> tuple[int, Any]:
        content_type = headers.get("content-type", "")
        message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
        data = None
        for part in message.iter_parts() if message.is_multipart() else []:
            if part.get_param("name", header="content-disposition") == "file":
                data = part.get_payload(decode=True)
        if data is None:
            return 400, _error("no file part in the upload")
        with self._lock:
            self.uploads += 1
            file_id = f"file-{len(self.files) + 1}"
            self.files[file_id] = data
        return 200, _file_object(file_id, data)

    def _create(self, body: dict[str, Any]) -> tuple[int, Any]:
        data = self.files.get(str(body.get("input_file_id")))
        if data is None:
            return 404, _error("no such input file")
        with self._lock:
            self.created += 1
            batch = _Batch(
                f"batch_{len(self.batches) + 1}", body["input_file_id"], body.get("endpoint", ""), time.time()
            )
            self.batches[batch.id] = batch
        for line in data.decode("utf-8").splitlines():
            if line.strip():
                self._answer(batch, json.loads(line))
        return 200, self._view(batch)

    def _answer(self, batch: _Batch, line: dict[str, Any]) -> None:
        recorded = sys.modules[type(self._server).__module__].RecordedRequest
        body = line.get("body") or {}
        raw = json.dumps(body).encode()
        request = recorded("POST", line.get("url", ""), {}, raw, body, time.time())
        reply = self._server._choose(request)
        batch.total += 1
        entry: dict[str, Any] = {"id": f"batch_req_{batch.total}", "custom_id": line.get("custom_id"), "error": None}
        if reply.never_answer:
            return
        if reply.raw_body is not None or reply.status != 200:
            try:
                error_body = json.loads(reply.raw_body or b"{}")
            except ValueError:
                error_body = {"error": {"message": "unreadable reply"}}
            entry["response"] = {"status_code": reply.status, "request_id": entry["id"], "body": error_body}
            batch.errors.append(entry)
            return
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        entry["response"] = {
            "status_code": 200,
            "request_id": entry["id"],
            "body": {
                "id": f"chatcmpl-{entry['id']}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "judge"),
                "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
                "usage": reply.usage or {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
            },
        }
        batch.outputs.append(entry)

    def _status(self, batch: _Batch) -> str:
        if batch.final is not None:
            return batch.final
        if batch.cancelled:
            return self._finish(batch, "cancelled")
        elapsed = time.time() - batch.created_at
        if self.hold or elapsed < self.processing_seconds or batch.polls <= self.in_progress_polls:
            return "validating" if elapsed < self.processing_seconds / 10 else "in_progress"
        return self._finish(batch, self.final_status)

    def _finish(self, batch: _Batch, status: str) -> str:
        with self._lock:
            if batch.final is not None:
                return batch.final
            outputs, errors = batch.outputs, batch.errors
            if status != "completed":
                outputs = []
                if status == "expired":
                    errors = [
                        {
                            "id": f"expired_{n}",
                            "custom_id": e["custom_id"],
                            "response": None,
                            "error": {"code": "batch_expired", "message": "This request could not be executed"},
                        }
                        for n, e in enumerate(batch.outputs + batch.errors)
                    ]
            if outputs:
                batch.output_file_id = f"file-out-{batch.id}"
                self.files[batch.output_file_id] = _jsonl(outputs)
            if errors:
                batch.error_file_id = f"file-err-{batch.id}"
                self.files[batch.error_file_id] = _jsonl(errors)
            batch.final = status
            return status

    def _view(self, batch: _Batch) -> dict[str, Any]:
        status = self._status(batch)
        done = status in ("completed", "expired", "failed", "cancelled")
        completed = len(batch.outputs) if status == "completed" else 0
        failed = len(batch.errors) if status == "completed" else (batch.total if done else 0)
        return {
            "id": batch.id,
            "object": "batch",
            "endpoint": batch.endpoint,
            "errors": None,
            "input_file_id": batch.input_file_id,
            "completion_window": "24h",
            "status": status,
            "output_file_id": batch.output_file_id,
            "error_file_id": batch.error_file_id,
            "created_at": int(batch.created_at),
            "request_counts": {"total": batch.total, "completed": completed, "failed": failed},
            "metadata": None,
        }


def _file_object(file_id: str, data: bytes) -> dict[str, Any]:
    return {
        "id": file_id,
        "object": "file",
        "bytes": len(data),
        "created_at": int(time.time()),
        "filename": "batch.jsonl",
        "purpose": "batch",
        "status": "processed",
    }


def _encoded(status: int, body: Any) -> tuple[int, bytes]:
    return status, body if isinstance(body, bytes) else json.dumps(body).encode()


def _jsonl(entries: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(e) + "\n" for e in entries).encode()


def _error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error"}}
