"""A fault-injecting OpenAI-compatible chat-completions server on 127.0.0.1 (a test double).

Hosted APIs are unreachable here; this stand-in fails the way they do, deterministically per
call. A call is keyed by its request (messages, seed and model): the server counts the attempts
of each key, and the *fault schedule* says what attempt n of a key gets. Answers that are not
faults are deterministic in the prompt alone (so a flaky run and a clean run agree verdict for
verdict): a pairwise prompt ("Idea A"/"Idea B" or "Idea 1"/"Idea 2") gets `Verdict: A`/`B`
(or `1`/`2`), anything else `Verdict: NOVEL`/`NOT NOVEL`, picked by a hash of the prompt.

Faults (the names `FAULTS` lists):
- transient: `429` (with `Retry-After`), `500`, `503`, `529` (overloaded), `stall` (answer
  after `stall_seconds`, longer than the client's timeout), `cut` (200 whose body stops
  mid-JSON), `reset` (connection closed mid-body), `empty_choices` (200, `choices: []`),
  `null_content` (200, a message with no content, finish `stop`), `no_message` (a choice
  without a message);
- final replies holding no verdict: `length` (answer cut at the limit), `content_filter`
  (null content), `refusal` (the `refusal` field), `reasoning` (reasoning text only),
  `tool_call` (a tool call, no content);
- permanent: `401` (key rejected), `404` (unknown model), `400_context` (too long for the context).

Schedules: `script` maps a prompt substring to the faults of its first attempts (later attempts
answer); `rate` makes that share of keys fail their first attempt with a fault drawn from `mix`
(seeded by the key, so the same run twice fails the same calls; a verdict-less reply is given
to every attempt of its key, as a model answers that prompt); `never` is the share of keys
that stall on every attempt. `down=True` answers every call with 503 (an outage); flip it off to
"recover". Every request is counted (`attempts`, `served`).

Run standalone: `python tests/servers/flaky_openai.py --port 8766 --rate 0.3`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from servers.openai_recorded import error_body
from servers.threaded import QuietHandler, ThreadedServer, serve_until_interrupted

TRANSIENT = (
    "429",
    "500",
    "503",
    "529",
    "stall",
    "cut",
    "reset",
    "empty_choices",
    "null_content",
    "no_message",
)
VERDICTLESS = ("length", "content_filter", "refusal", "reasoning", "tool_call")
PERMANENT = ("401", "404", "400_context")
FAULTS = TRANSIENT + VERDICTLESS + PERMANENT


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def prompt_text(request: dict[str, Any]) -> str:
    """The text of every message of a chat request, joined."""
    parts = []
    for message in request.get("messages") or []:
        content = message.get("content")
        if isinstance(content, list):
            content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        parts.append(str(content or ""))
    return "\n".join(parts)


def answer_for(prompt: str) -> str:
    """The deterministic well-formed answer to a prompt (see the module docstring)."""
    pick = _digest(prompt) % 2
    if re.search(r"\bIdea 1\b", prompt):
        return f"Both ideas are close; the one shown first goes further.\nVerdict: {'12'[pick]}"
    if re.search(r"\bIdea [AB]\b", prompt):
        return f"Both ideas are close; one goes further.\nVerdict: {'AB'[pick]}"
    return f"Judged against prior work.\nVerdict: {('NOVEL', 'NOT NOVEL')[pick]}"


def completion(
    message: dict[str, Any] | None, model: str, finish: str = "stop", choices: bool = True
) -> dict[str, Any]:
    """A chat.completion body in OpenAI's shape (`message` None: a choice without a message)."""
    choice: dict[str, Any] = {"index": 0, "logprobs": None, "finish_reason": finish}
    if message is not None:
        choice["message"] = {"role": "assistant", "refusal": None, **message}
    return {
        "id": "chatcmpl-flaky",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [choice] if choices else [],
        "usage": {"prompt_tokens": 40, "completion_tokens": 8, "total_tokens": 48},
    }


@dataclass
class FlakyOpenAIServer(ThreadedServer):
    """Threaded stdlib server; a context manager. `url` is the `/v1` base URL."""

    script: dict[str, Sequence[str]] = field(default_factory=dict)
    rate: float = 0.0
    mix: Sequence[str] = TRANSIENT
    never: float = 0.0
    seed: int = 0
    stall_seconds: float = 3.0
    retry_after: float = 0.0
    delay: float = 0.0  # seconds every reply waits (a slow provider, to interrupt a run mid-way)
    down: bool = False
    port: int = 0
    attempts: Counter[str] = field(default_factory=Counter)
    served: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        for fault in [*self.mix, *(f for faults in self.script.values() for f in faults)]:
            if fault not in FAULTS and fault != "ok":
                raise ValueError(f"unknown fault {fault!r}; known: {', '.join(FAULTS)}")
        self._lock = threading.Lock()
        server = self

        class Handler(QuietHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    request = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    request = {}
                server._answer(self, request)

        self.serve(Handler, self.port)
        self._httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]

    def fault_for(self, prompt: str, key: str, attempt: int) -> str:
        """What attempt `attempt` (1-based) of call `key` with `prompt` gets: a fault name or `ok`."""
        if self.down:
            return "503"
        for marker, faults in self.script.items():
            if marker in prompt:
                return faults[attempt - 1] if attempt <= len(faults) else "ok"
        draw = _digest(f"{self.seed}:{key}")
        if self.never and (draw % 10_000) / 10_000 < self.never:
            return "stall"
        if self.rate and ((draw >> 16) % 10_000) / 10_000 < self.rate:
            fault = self.mix[(draw >> 32) % len(self.mix)]
            # a transient fault hits the first attempt; a reply without a verdict is the model's
            # answer to that prompt, so every attempt gets it
            if attempt == 1 or fault in VERDICTLESS:
                return fault
        return "ok"

    def _answer(self, handler: BaseHTTPRequestHandler, request: dict[str, Any]) -> None:
        prompt = prompt_text(request)
        model = str(request.get("model") or "unknown")
        key = hashlib.sha256(
            json.dumps([request.get("messages"), request.get("seed"), model]).encode()
        ).hexdigest()
        with self._lock:
            self.attempts[key] += 1
            fault = self.fault_for(prompt, key, self.attempts[key])
            self.served[fault] += 1
        answer = answer_for(prompt)
        status, headers, body = 200, {}, None
        time.sleep(self.delay)
        if not handler.path.rstrip("/").endswith("/chat/completions"):
            fault, status = (
                "404",
                404,
            )  # chat completions only (Inspect's openai/: responses_api=false)
            body = error_body(f"no route {handler.path}", "invalid_request_error")
        elif fault == "ok":
            body = completion({"content": answer}, model)
        elif fault == "429":
            status, headers = 429, {"Retry-After": f"{self.retry_after:g}"}
            body = error_body("Rate limit reached, slow down", "requests", "rate_limit_exceeded")
        elif fault in ("500", "503", "529"):
            status = int(fault)
            kind = {"500": "server_error", "503": "service_unavailable", "529": "overloaded"}
            body = error_body(f"upstream {kind[fault]}", kind[fault])
        elif fault == "401":
            status = 401
            body = error_body(
                "Incorrect API key provided", "invalid_request_error", "invalid_api_key"
            )
        elif fault == "404":
            status = 404
            body = error_body(
                f"The model `{model}` does not exist", "invalid_request_error", "model_not_found"
            )
        elif fault == "400_context":
            status = 400
            body = error_body(
                "This model's maximum context length is 128 tokens; your messages resulted in 9000",
                "invalid_request_error",
                "context_length_exceeded",
            )
        elif fault == "stall":
            time.sleep(self.stall_seconds)
            body = completion({"content": answer}, model)
        elif fault == "empty_choices":
            body = completion({"content": answer}, model, choices=False)
        elif fault == "null_content":
            body = completion({"content": None}, model)
        elif fault == "no_message":
            body = completion(None, model)
        elif fault == "length":
            body = completion({"content": answer[: len(answer) // 2]}, model, "length")
        elif fault == "content_filter":
            body = completion({"content": None}, model, "content_filter")
        elif fault == "refusal":
            body = completion({"content": None, "refusal": "I can't help with that."}, model)
        elif fault == "reasoning":
            body = completion(
                {"content": "", "reasoning_content": "Thinking about idea A..."}, model
            )
        elif fault == "tool_call":
            call = {"id": "call_0", "type": "function"}
            call["function"] = {"name": "search", "arguments": '{"q": "prior work"}'}
            body = completion({"content": None, "tool_calls": [call]}, model, "tool_calls")
        data = json.dumps(body).encode()
        try:
            if fault in ("cut", "reset"):
                full = json.dumps(completion({"content": answer}, model)).encode()
                part = full[: len(full) // 2]
                handler.send_response(200)
                handler.send_header("Content-Type", "application/json")
                # `cut`: a complete HTTP message whose JSON stops; `reset`: the connection drops
                handler.send_header(
                    "Content-Length", str(len(part) if fault == "cut" else len(full))
                )
                handler.send_header("Connection", "close")
                handler.end_headers()
                handler.wfile.write(part)
                handler.wfile.flush()
                handler.close_connection = True
                return
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting
            return


def main() -> None:
    """Serve until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--rate", type=float, default=0.3)
    parser.add_argument("--never", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stall-seconds", type=float, default=3.0)
    args = parser.parse_args()
    server = FlakyOpenAIServer(
        rate=args.rate, never=args.never, seed=args.seed, stall_seconds=args.stall_seconds
    )
    serve_until_interrupted(server)


if __name__ == "__main__":
    main()
