"""A hostile OpenAI-compatible chat-completions server on 127.0.0.1 (a test double).

Hosted APIs and the proxies in front of them are unreachable here; this stand-in misbehaves the
way they can, at the HTTP and socket level as well as in the JSON, to check that nothing a
provider returns makes a judge raise or turns into a verdict. It was written independently of
`flaky_openai.py` (whose fault list the product was built against) to find what that list misses.

A prompt names its fault: `<FAULT>` gets the fault on every attempt, `<once FAULT>` on the first
attempt only (later attempts answer). `script` maps any other prompt substring to the faults of
its first attempts, as `flaky_openai.py` does; `always` names a fault every request gets. Attempts are counted per prompt (`attempts`) and
per fault served (`served`); the paths requested are kept in order (`paths`). Well-formed answers
are `flaky_openai.answer_for` (deterministic in the prompt). The faults, by what they should end
as (`FAULTS` maps each name to its class):

- `ok_shape`: odd but well-formed replies that hold the answer: HTTP/1.0 without a length,
  content as a list of text parts, unknown or null `finish_reason`, bad `usage`, JSON served as
  `text/html`, a real gzip body, a body of a few MB;
- `transient`: 429 with `Retry-After` as an HTTP date, as `retry-after-ms`, absent, garbage or not finite;
  408, 409, 502/504 with HTML pages, 500 with odd JSON error shapes (a string, a FastAPI `detail`,
  a leaked traceback, the caller's key echoed, terminal control characters), 503 as plain text, 529 in Anthropic's shape;
  200 carrying an error object, `choices` null, `message` null, empty content, a choice that
  finished with `error`, an HTML page, a body that lies about gzip, a chunked body cut short,
  JSON `null` / `[]` / a string / a number, trailing garbage after the JSON, invalid UTF-8,
  server-sent events to a plain request, two choices that disagree, the connection closed or reset
  before the headers, a reset after the headers, a slow drip of bytes (slowloris) that outlasts
  any timeout, a redirect to a login page; `long_429` asks to wait an hour;
- `verdictless`: a final reply with no verdict: a tool call with malformed arguments, a refusal
  beside content, a 400 content-policy rejection of this prompt;
- `permanent`: no retry can fix it: 401 `invalid_api_key`, 402 payment required, 403 model not
  accessible, 404 as an HTML page, 400 with the context limit in other providers' words, 413, 422
  (a validation error) and 418.

Run standalone: `python tests/servers/hostile_openai.py --port 8767`.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import socket
import struct
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler
from typing import Any

from servers.flaky_openai import answer_for, completion, prompt_text
from servers.openai_recorded import error_body
from servers.threaded import QuietHandler, ThreadedServer, serve_standalone

OK_SHAPE = (
    "http10_no_length",
    "content_parts",
    "finish_unknown",
    "finish_null",
    "usage_bad",
    "json_as_html",
    "gzip_real",
    "huge_body",
)
TRANSIENT = (
    "429_date",
    "429_ms",
    "429_bare",
    "429_garbage",
    "429_nonfinite",
    "408",
    "409",
    "502_html",
    "504_html",
    "500_string_error",
    "500_detail",
    "500_traceback",
    "500_echo_key",
    "500_control_chars",
    "503_text",
    "529_anthropic",
    "200_error_object",
    "choices_null",
    "message_null",
    "empty_content",
    "finish_error",
    "html_200",
    "gzip_lie",
    "chunked_cut",
    "body_null",
    "body_list",
    "body_string",
    "body_number",
    "trailing_garbage",
    "bad_utf8",
    "sse_unasked",
    "dup_choices",
    "close_before_headers",
    "rst_before_headers",
    "rst_after_headers",
    "slowloris",
    "long_429",
    "redirect_login",
)
VERDICTLESS = ("tool_bad_args", "refusal_and_content", "400_policy")
PERMANENT = (
    "401_key",
    "402",
    "403_model",
    "404_html",
    "400_ctx_anthropic",
    "400_ctx_vllm",
    "413",
    "422",
    "418",
)
FAULTS = {
    **dict.fromkeys(OK_SHAPE, "ok_shape"),
    **dict.fromkeys(TRANSIENT, "transient"),
    **dict.fromkeys(VERDICTLESS, "verdictless"),
    **dict.fromkeys(PERMANENT, "permanent"),
}
MARKER = re.compile(r"<(once )?([a-z0-9_]+)>")

HTML = (
    "<html>\r\n<head><title>{code} {title}</title></head>\r\n<body>\r\n<center><h1>{code} {title}"
    "</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
)
TRACEBACK = (
    'Traceback (most recent call last):\n  File "/srv/gateway/app.py", line 88, in route\n'
    "    return await upstream(request)\nKeyError: 'choices'\n"
)


def _html(code: int, title: str) -> bytes:
    return HTML.format(code=code, title=title).encode()


def _start_json_reply(h: Any, body: Any) -> bytes:
    """Send a 200's status line and headers for `body` as JSON; the bytes are the caller's to write."""
    data = json.dumps(body).encode()
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(data)))
    h.end_headers()
    return data


@dataclass
class HostileOpenAIServer(ThreadedServer):
    """Threaded stdlib server; a context manager. `url` is the `/v1` base URL."""

    script: dict[str, Sequence[str]] = field(default_factory=dict)
    always: str | None = None
    drip_interval: float = 0.5  # slowloris: one byte every this many seconds ...
    drip_limit: float = 20.0  # ... for at most this long, then the connection is closed
    huge_bytes: int = 3_000_000
    port: int = 0
    attempts: Counter[str] = field(default_factory=Counter)
    served: Counter[str] = field(default_factory=Counter)
    paths: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        for fault in (f for faults in self.script.values() for f in faults):
            if fault not in FAULTS and fault != "ok":
                raise ValueError(f"unknown fault {fault!r}")
        self._lock = threading.Lock()
        self._closing = threading.Event()
        server = self

        class Handler(QuietHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # where `redirect_login` sends a client that follows it
                with server._lock:
                    server.paths.append(self.path)
                body = b"<html><body><form action=/login>Sign in</form></body></html>"
                server._send(self, 200, body, "text/html")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    request = json.loads(self.rfile.read(length) or b"{}")
                except (json.JSONDecodeError, UnicodeDecodeError):
                    request = {}
                try:
                    server._answer(self, request)
                except (BrokenPipeError, ConnectionResetError, OSError):
                    self.close_connection = True  # the client gave up waiting

        self.serve(Handler, self.port)
        self._httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]

    def __exit__(self, *exc: object) -> None:
        self._closing.set()  # a slowloris drip still running stops
        super().__exit__(*exc)

    def fault_for(self, prompt: str, attempt: int) -> str:
        """What attempt `attempt` (1-based) of `prompt` gets: a fault name or `ok`."""
        if self.always is not None:
            return self.always
        for marker, faults in self.script.items():
            if marker in prompt:
                return faults[attempt - 1] if attempt <= len(faults) else "ok"
        found = MARKER.search(prompt)
        if found is None or found.group(2) not in FAULTS:
            return "ok"
        return found.group(2) if not found.group(1) or attempt == 1 else "ok"

    def sent(self, prompt: str) -> int:
        """How many requests with `prompt` (as its only message) reached the server."""
        with self._lock:
            return self.attempts[hashlib.sha256(prompt.encode()).hexdigest()]

    # -- writing -------------------------------------------------------------------------------

    @staticmethod
    def _send(
        handler: BaseHTTPRequestHandler,
        status: int,
        body: bytes,
        content_type: str = "application/json",
        headers: dict[str, str] | None = None,
    ) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(body)
        handler.wfile.flush()

    @staticmethod
    def _raw(handler: BaseHTTPRequestHandler, data: bytes) -> None:
        """Write `data` as it is (status line and all), then close the connection."""
        handler.close_connection = True
        handler.wfile.write(data)
        handler.wfile.flush()

    @staticmethod
    def _reset(handler: BaseHTTPRequestHandler) -> None:
        """Close the connection with a TCP reset (SO_LINGER 0), not a clean FIN."""
        handler.close_connection = True
        sock = handler.connection
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()

    def _json(
        self,
        handler: BaseHTTPRequestHandler,
        status: int,
        body: Any,
        headers: dict[str, str] | None = None,
    ) -> None:
        self._send(handler, status, json.dumps(body).encode(), headers=headers)

    # -- answering -----------------------------------------------------------------------------

    def _answer(self, handler: BaseHTTPRequestHandler, request: dict[str, Any]) -> None:
        prompt = prompt_text(request)
        model = str(request.get("model") or "unknown")
        key = hashlib.sha256(prompt.encode()).hexdigest()
        with self._lock:
            self.paths.append(handler.path)
            self.attempts[key] += 1
            fault = self.fault_for(prompt, self.attempts[key])
            self.served[fault] += 1
        answer = answer_for(prompt)
        good = completion({"content": answer}, model)
        if not handler.path.rstrip("/").endswith("/chat/completions"):
            body = error_body(f"no route {handler.path}", "invalid_request_error")
            return self._json(handler, 404, body)
        getattr(self, f"_{fault}" if fault[0].isalpha() else f"_s{fault}")(
            handler, answer, model, good, request
        )

    # well-formed
    def _ok(self, h: Any, answer: str, model: str, good: dict[str, Any], req: Any) -> None:
        self._json(h, 200, good)

    # ok_shape
    def _http10_no_length(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        head = b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n"
        self._raw(h, head + json.dumps(good).encode())

    def _content_parts(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        head, _, last = answer.rpartition("\n")
        parts = [{"type": "text", "text": head + "\n"}, {"type": "text", "text": last}]
        self._json(h, 200, completion({"content": parts}, model))

    def _finish_unknown(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._json(h, 200, completion({"content": answer}, model, finish="eos_token"))

    def _finish_null(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        body = completion({"content": answer}, model)
        body["choices"][0]["finish_reason"] = None
        self._json(h, 200, body)

    def _usage_bad(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        body = dict(
            good, usage={"prompt_tokens": None, "completion_tokens": -3, "total_tokens": "?"}
        )
        self._json(h, 200, body)

    def _json_as_html(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._send(h, 200, json.dumps(good).encode(), "text/html; charset=utf-8")

    def _gzip_real(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        body = gzip.compress(json.dumps(good).encode())
        self._send(h, 200, body, headers={"Content-Encoding": "gzip"})

    def _huge_body(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        body = dict(good, system_fingerprint="fp_" + "x" * self.huge_bytes)
        self._json(h, 200, body)

    # transient: HTTP errors
    def _s429_date(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        body = error_body("Rate limit reached", "requests", "rate_limit_exceeded")
        self._json(h, 429, body, {"Retry-After": formatdate(time.time(), usegmt=True)})

    def _s429_ms(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        body = error_body("Rate limit reached", "tokens", "rate_limit_exceeded")
        self._json(h, 429, body, {"retry-after-ms": "40"})

    def _s429_bare(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._send(h, 429, b"Too Many Requests", "text/plain")

    def _s429_garbage(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        body = error_body("Slow down", "requests", "rate_limit_exceeded")
        self._json(h, 429, body, {"Retry-After": "soon, maybe"})

    def _s429_nonfinite(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        body = error_body("Slow down", "tokens", "rate_limit_exceeded")
        self._json(h, 429, body, {"Retry-After": "nan", "retry-after-ms": "inf"})

    def _long_429(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        body = error_body("Daily quota reached; try again in an hour", "requests", "rate_limit")
        self._json(h, 429, body, {"Retry-After": "3600"})

    def _s408(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._send(h, 408, _html(408, "Request Time-out"), "text/html")

    def _s409(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._json(h, 409, error_body("Conflict: request already in flight", "conflict"))

    def _s502_html(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._send(h, 502, _html(502, "Bad Gateway"), "text/html")

    def _s504_html(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._send(h, 504, _html(504, "Gateway Time-out"), "text/html")

    def _s500_string_error(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._json(h, 500, {"error": "internal error", "status": "fail"})

    def _s500_detail(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._json(h, 500, {"detail": [{"loc": ["body"], "msg": "engine died", "type": "x"}]})

    def _s500_traceback(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._send(h, 500, TRACEBACK.encode(), "text/plain")

    def _s500_echo_key(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        auth = h.headers.get("Authorization", "")
        self._json(h, 500, error_body(f"upstream refused credentials {auth}", "server_error"))

    def _s500_control_chars(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        text = "\x1b[2J\x1b[31mengine crashed\x1b[0m\r\nretry later\x00\x07 \u202edesrever"
        self._json(h, 500, error_body(text, "server_error"))

    def _s503_text(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        text = b"upstream connect error or disconnect/reset before headers. reset reason: overflow"
        self._send(h, 503, text, "text/plain")

    def _s529_anthropic(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        self._json(h, 529, body)

    # transient: 200 with a body that is no answer
    def _s200_error_object(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._json(h, 200, {"error": {"message": "Provider returned error", "code": 502}})

    def _choices_null(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._json(h, 200, dict(good, choices=None))

    def _message_null(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        body = completion(None, model)
        body["choices"][0]["message"] = None
        self._json(h, 200, body)

    def _empty_content(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._json(h, 200, completion({"content": ""}, model))

    def _finish_error(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        body = completion({"content": None}, model, finish="error")
        body["choices"][0]["error"] = {"message": "upstream stream ended", "code": 502}
        self._json(h, 200, body)

    def _html_200(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._send(h, 200, b"<html><body>Please wait while we check your browser</body></html>",
                   "text/html")  # fmt: skip

    def _gzip_lie(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._send(h, 200, json.dumps(good).encode(), headers={"Content-Encoding": "gzip"})

    def _chunked_cut(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        data = json.dumps(good).encode()
        part = data[: len(data) // 2]
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        self._raw(h, head + f"{len(data):x}\r\n".encode() + part)

    def _body_null(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._json(h, 200, None)

    def _body_list(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._json(h, 200, [])

    def _body_string(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._json(h, 200, "ok")

    def _body_number(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._json(h, 200, 42)

    def _trailing_garbage(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._send(h, 200, json.dumps(good).encode() + b"}\x00garbage")

    def _bad_utf8(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        data = json.dumps(good).encode().replace(b"Verdict", b"Ver\xff\xfedict")
        self._send(h, 200, data)

    def _sse_unasked(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        chunk = {"id": "c", "object": "chat.completion.chunk", "model": model,
                 "choices": [{"index": 0, "delta": {"content": answer}, "finish_reason": "stop"}]}  # fmt: skip
        data = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
        self._send(h, 200, data, "text/event-stream")

    def _dup_choices(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        other = answer[:-1] + ("B" if answer.endswith("A") else "A")
        body = completion({"content": answer}, model)
        body["choices"].append(dict(body["choices"][0], index=1,
                                    message={"role": "assistant", "content": other}))  # fmt: skip
        body["choices"].append(dict(body["choices"][0], index=0,
                                    message={"role": "assistant", "content": other}))  # fmt: skip
        self._json(h, 200, body)

    # transient: the connection
    def _close_before_headers(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        h.close_connection = True
        h.connection.shutdown(socket.SHUT_RDWR)

    def _rst_before_headers(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._reset(h)

    def _rst_after_headers(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        data = _start_json_reply(h, good)
        h.wfile.write(data[:10])
        h.wfile.flush()
        time.sleep(0.05)
        self._reset(h)

    def _slowloris(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        data = _start_json_reply(h, good)
        h.wfile.flush()
        deadline = time.monotonic() + self.drip_limit
        for byte in data:
            if time.monotonic() > deadline or self._closing.wait(self.drip_interval):
                break
            h.wfile.write(bytes([byte]))
            h.wfile.flush()
        h.close_connection = True

    # verdict-less
    def _tool_bad_args(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        call = {"id": "call_0", "type": "function",
                "function": {"name": "search", "arguments": '{"q": "prior work'}}  # fmt: skip
        self._json(h, 200, completion({"content": None, "tool_calls": [call]}, model, "tool_calls"))

    def _refusal_and_content(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        message = {"content": answer, "refusal": "I won't judge this."}
        self._json(h, 200, completion(message, model))

    def _s400_policy(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        body = error_body(
            "The response was filtered due to the prompt triggering content management policy.",
            "invalid_request_error",
            "content_filter",
        )
        self._json(h, 400, body)

    # permanent
    def _s401_key(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        auth = h.headers.get("Authorization", "").removeprefix("Bearer ")
        body = error_body(f"Incorrect API key provided: {auth}.", "invalid_request_error",
                          "invalid_api_key")  # fmt: skip
        self._json(h, 401, body)

    def _s402(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        body = {"error": {"message": "Insufficient credits. Add more using the billing page",
                          "code": 402}}  # fmt: skip
        self._json(h, 402, body)

    def _s403_model(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        body = error_body(f"Project does not have access to model `{model}`",
                          "invalid_request_error", "model_not_found")  # fmt: skip
        self._json(h, 403, body)

    def _s404_html(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._send(h, 404, _html(404, "Not Found"), "text/html")

    def _s400_ctx_anthropic(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        body = {"type": "error", "error": {"type": "invalid_request_error",
                "message": "prompt is too long: 215000 tokens > 200000 maximum"}}  # fmt: skip
        self._json(h, 400, body)

    def _s400_ctx_vllm(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        body = {"object": "error", "type": "BadRequestError", "code": 400, "param": None,
                "message": "This model's maximum context length is 4096 tokens. However, you "
                "requested 9000 tokens (8000 in the messages, 1000 in the completion)."}  # fmt: skip
        self._json(h, 400, body)

    def _s413(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._send(h, 413, _html(413, "Request Entity Too Large"), "text/html")

    def _s422(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        detail = [{"loc": ["body", "messages"], "msg": "field required", "type": "missing"}]
        self._json(h, 422, {"detail": detail})

    def _s418(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._send(h, 418, b"I'm a teapot", "text/plain")

    def _redirect_login(self, h: Any, answer: str, model: str, good: Any, req: Any) -> None:
        self._send(h, 302, b"", headers={"Location": f"http://127.0.0.1:{self.port}/login"})


def main() -> None:
    """Serve until interrupted."""
    serve_standalone(lambda port: HostileOpenAIServer(port=port), 8767, __doc__)


if __name__ == "__main__":
    main()
