"""A small OpenAI chat-completions server on 127.0.0.1 replaying recorded-shape responses.

Test double for hosted OpenAI-compatible APIs (unreachable here). Responses have the exact
JSON shape OpenAI returns for `POST /v1/chat/completions`; tests script them per call
(status code + body), answer from the request (`reply_for`, e.g. a tool call until the
request carries a tool result), or let a default reply with usage be generated. Every request
(path, headers, JSON body) is kept so tests can check what the client really sent.

Run standalone from tests/: `python -m servers.openai_recorded --port 8765`.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from servers.threaded import QuietHandler, ThreadedServer, serve_standalone


def chat_completion(
    content: str,
    model: str,
    prompt_tokens: int = 42,
    completion_tokens: int = 7,
    finish_reason: str = "stop",
    cached_tokens: int = 0,
) -> dict[str, Any]:
    """A chat.completion body in OpenAI's recorded shape."""
    return {
        "id": f"chatcmpl-rec{int(time.time() * 1000)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": "fp_recorded",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached_tokens, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
    }


def tool_call_completion(
    calls: list[tuple[str, str]], model: str, prompt_tokens: int = 42, completion_tokens: int = 7
) -> dict[str, Any]:
    """A chat.completion body whose message calls tools: `calls` = [(function name, raw arguments)]."""
    body = chat_completion("", model, prompt_tokens, completion_tokens, finish_reason="tool_calls")
    body["choices"][0]["message"].update(
        content=None,
        tool_calls=[
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }
            for i, (name, arguments) in enumerate(calls)
        ],
    )
    return body


def error_body(message: str, type_: str, code: str | None = None) -> dict[str, Any]:
    """An OpenAI error body."""
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


@dataclass
class Reply:
    """One scripted reply."""

    status: int
    body: dict[str, Any]
    delay: float = 0.0  # seconds to wait before answering (for client timeouts)


@dataclass
class RecordedOpenAIServer(ThreadedServer):
    """Threaded stdlib server; use as a context manager. `url` is the `/v1` base URL."""

    default_content: Callable[[dict[str, Any]], str] = lambda request: "Verdict: A"
    # when set, answers every unscripted request from its JSON body (instead of default_content)
    reply_for: Callable[[dict[str, Any]], Reply] | None = None
    script: deque[Reply] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        server = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append(
                        {"path": self.path, "headers": dict(self.headers), "body": body}
                    )
                    reply = server.script.popleft() if server.script else None
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    reply = Reply(404, error_body(f"no route {self.path}", "invalid_request_error"))
                if reply is None and server.reply_for is not None:
                    reply = server.reply_for(body)
                if reply is None:
                    content = server.default_content(body)
                    reply = Reply(200, chat_completion(content, body.get("model", "unknown")))
                data = json.dumps(reply.body).encode()
                time.sleep(reply.delay)
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (
                    BrokenPipeError,
                    ConnectionResetError,
                ):  # the client gave up waiting (timeouts)
                    return

        self.serve(Handler, self.port)


def main() -> None:
    """Serve until interrupted."""
    serve_standalone(lambda port: RecordedOpenAIServer(port=port), 8765, __doc__)


if __name__ == "__main__":
    main()
