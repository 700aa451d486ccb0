"""A local stand-in of OpenAI's Batch API on 127.0.0.1, for Inspect's batch mode (`--batch`).

Test double for the hosted endpoints (unreachable here), in the shapes Inspect's OpenAI batcher
sends and reads: `POST /v1/files` (multipart upload of the JSONL requests, purpose `batch`),
`POST /v1/batches` (create from the uploaded file), `GET /v1/batches/{id}` (polling: `in_progress`
for `polls_before_done` polls, then `completed` with `request_counts` and the output and error
file ids) and `GET /v1/files/{id}/content` (the output file: one `{"id", "custom_id", "response":
{"status_code": 200, "request_id", "body"}, "error": null}` line per answered request; the error
file: the same line per failed request, with the HTTP status and OpenAI's error body, as OpenAI's
batch output schema has it). Each request line is answered by `line_reply(body)`: a chat.completion body, or a
`LineError` to fail the line. Everything received (uploaded lines, batches, polls) is kept so
tests can check what Inspect really sent.

Run standalone from tests/: `python -m servers.openai_batch --port 8766`.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from servers.openai_recorded import chat_completion, error_body
from servers.threaded import QuietHandler, ThreadedServer, serve_standalone


@dataclass(frozen=True)
class LineError:
    """A failed request line: its HTTP status and message (in the batch's error file)."""

    status: int
    message: str


LineReply = Callable[[dict[str, Any]], dict[str, Any] | LineError]


def default_reply(body: dict[str, Any]) -> dict[str, Any]:
    """A chat.completion answering `Verdict: A`."""
    return chat_completion("Verdict: A", str(body.get("model", "unknown")))


def multipart_fields(content_type: str, data: bytes) -> dict[str, bytes]:
    """The fields of a multipart/form-data body by name."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + data
    )
    return {
        str(part.get_param("name", header="content-disposition")): part.get_payload(decode=True)
        for part in message.iter_parts()  # type: ignore[attr-defined]
    }


@dataclass
class OpenAIBatchServer(ThreadedServer):
    """Threaded stdlib server; use as a context manager. `url` is the `/v1` base URL."""

    line_reply: LineReply = default_reply
    polls_before_done: int = 1
    files: dict[str, bytes] = field(default_factory=dict)
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    # every request line received, with the status its reply got (200, or the failed line's)
    lines: list[dict[str, Any]] = field(default_factory=list)
    polls: int = 0
    port: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        server = self

        class Handler(QuietHandler):
            def _send(self, status: int, payload: dict[str, Any] | bytes) -> None:
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                ctype = (
                    "application/octet-stream" if isinstance(payload, bytes) else "application/json"
                )
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length)
                path = self.path.rstrip("/")
                if path.endswith("/v1/files"):
                    self._send(200, server.upload(self.headers.get("Content-Type", ""), data))
                elif path.endswith("/v1/batches"):
                    self._send(200, server.create_batch(json.loads(data)))
                else:
                    self._send(404, error_body(f"no route {self.path}", "invalid_request_error"))

            def do_GET(self) -> None:
                parts = self.path.rstrip("/").split("/")
                if len(parts) >= 2 and parts[-2] == "batches" and parts[-1] in server.batches:
                    self._send(200, server.poll(parts[-1]))
                elif parts[-1] == "content" and parts[-2] in server.files:
                    self._send(200, server.files[parts[-2]])
                else:
                    self._send(404, error_body(f"no route {self.path}", "invalid_request_error"))

        self.serve(Handler, self.port)

    def _new_file(self, content: bytes, purpose: str, name: str) -> dict[str, Any]:
        with self._lock:
            file_id = f"file-{len(self.files) + 1}"
            self.files[file_id] = content
        return {
            "id": file_id,
            "object": "file",
            "bytes": len(content),
            "created_at": int(time.time()),
            "filename": name,
            "purpose": purpose,
            "status": "processed",
        }

    def upload(self, content_type: str, data: bytes) -> dict[str, Any]:
        """`POST /v1/files`: keep the uploaded file."""
        fields = multipart_fields(content_type, data)
        return self._new_file(
            fields["file"], fields.get("purpose", b"batch").decode(), "batch.jsonl"
        )

    def create_batch(self, request: dict[str, Any]) -> dict[str, Any]:
        """`POST /v1/batches`: answer every line of the input file now; report it done after polling."""
        requests = [
            json.loads(line) for line in self.files[request["input_file_id"]].splitlines() if line
        ]
        outputs, errors = [], []
        for line in requests:
            reply = self.line_reply(line["body"])
            status = reply.status if isinstance(reply, LineError) else 200
            with self._lock:
                self.lines.append({**line, "status": status})
            if isinstance(reply, LineError):
                kind = "server_error" if reply.status >= 500 else "invalid_request_error"
                body = error_body(reply.message, kind)
                errors.append(
                    {
                        "id": f"batch_req_{len(self.lines)}",
                        "custom_id": line["custom_id"],
                        "response": {
                            "status_code": reply.status,
                            "request_id": "req",
                            "body": body,
                        },
                        "error": None,
                    }
                )
            else:
                outputs.append(
                    {
                        "id": f"batch_req_{len(self.lines)}",
                        "custom_id": line["custom_id"],
                        "response": {"status_code": 200, "request_id": "req", "body": reply},
                        "error": None,
                    }
                )
        jsonl = lambda rows: b"".join(json.dumps(r).encode() + b"\n" for r in rows)  # noqa: E731
        out_file = (
            self._new_file(jsonl(outputs), "batch_output", "output.jsonl") if outputs else None
        )
        err_file = self._new_file(jsonl(errors), "batch_output", "errors.jsonl") if errors else None
        with self._lock:
            batch_id = f"batch_{len(self.batches) + 1}"
            self.batches[batch_id] = {
                "id": batch_id,
                "object": "batch",
                "endpoint": request["endpoint"],
                "input_file_id": request["input_file_id"],
                "completion_window": request["completion_window"],
                "status": "in_progress",
                "created_at": int(time.time()),
                "polls": 0,
                "done": {
                    "output_file_id": out_file["id"] if out_file else None,
                    "error_file_id": err_file["id"] if err_file else None,
                    "request_counts": {
                        "total": len(requests),
                        "completed": len(outputs),
                        "failed": len(errors),
                    },
                },
            }
        return self.poll(batch_id, count=False)

    def poll(self, batch_id: str, count: bool = True) -> dict[str, Any]:
        """`GET /v1/batches/{id}`: in progress for `polls_before_done` polls, then completed."""
        with self._lock:
            batch = self.batches[batch_id]
            if count:
                batch["polls"] += 1
                self.polls += 1
            public = {k: v for k, v in batch.items() if k not in ("polls", "done")}
            if batch["polls"] > self.polls_before_done:
                public.update(status="completed", **batch["done"])
            return public


def main() -> None:
    """Serve until interrupted."""
    serve_standalone(lambda port: OpenAIBatchServer(port=port), 8766, __doc__)


if __name__ == "__main__":
    main()
