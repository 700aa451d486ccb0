"""What the local HTTP stand-ins share: a threaded stdlib server on 127.0.0.1, started and stopped as
a context manager, its `/v1` base URL, and serving until interrupted when run standalone."""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class QuietHandler(BaseHTTPRequestHandler):
    """The stand-ins' request handler base: no per-request log on stderr, and headers and body leave
    as written (with Nagle's algorithm a reply's body waited for the client's delayed ACK of its
    headers, ~40 ms a reply on loopback)."""

    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return


class ThreadedServer:
    """Mixin of a stand-in that calls `serve(handler_class, port)` once; a context manager."""

    port: int

    def serve(self, handler: type[BaseHTTPRequestHandler], port: int) -> None:
        """Bind `handler` on 127.0.0.1:`port` (0: any free port); the thread starts on `__enter__`."""
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """Base URL to give an OpenAI client (`api_base`, `OPENAI_BASE_URL`)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> Any:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def serve_until_interrupted(server: ThreadedServer) -> None:
    """Run `server` standalone: print its URL and serve until Ctrl-C."""
    with server as srv:
        print(f"serving {srv.url}", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass


def serve_standalone(
    make: Callable[[int], ThreadedServer], port: int, description: str | None
) -> None:
    """A stand-in's `main`: `--port` (default `port`), then serve until Ctrl-C."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--port", type=int, default=port)
    serve_until_interrupted(make(parser.parse_args().port))
