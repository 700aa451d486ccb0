"""`judgeaudit convert` from a Hub id, against a local stand-in for the Hub's file API.

The real Hugging Face Hub is unreachable here, so a small HTTP server on 127.0.0.1 serves
the made-up fixture with the endpoints `snapshot_download` uses (revision info, recursive
tree listing, HEAD/GET resolve). The real `huggingface_hub` client and our real CLI run
against it in a subprocess (HF_ENDPOINT pointed at the stand-in).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from helpers.items import FIXTURES

FIXTURE = FIXTURES / "novelty_judge_bench" / "good"
HUB_ID = "noystl/novelty-judge-bench"


def _git_blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class HubStandIn:
    """Serve one dataset repo (files of a local directory) the way the Hub's file API does."""

    def __init__(self, repo_id: str, root: Path):
        self.repo_id = repo_id
        self.files = {
            p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*"))
            if p.is_file()
        }
        self.sha = hashlib.sha1(b"".join(self.files.values())).hexdigest()
        self.requests: list[str] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())

    @property
    def endpoint(self) -> str:
        """Base URL to put in HF_ENDPOINT."""
        return f"http://127.0.0.1:{self.server.server_port}"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, code: int, body: bytes, headers: dict[str, str], head: bool) -> None:
                self.send_response(code)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if not head:
                    self.wfile.write(body)

            def _route(self, head: bool) -> None:
                path = unquote(urlparse(self.path).path)
                hub.requests.append(f"{self.command} {path}")
                api, resolve = f"/api/datasets/{hub.repo_id}/", f"/datasets/{hub.repo_id}/resolve/"
                as_json = {"Content-Type": "application/json"}
                if path.startswith(api + "revision/"):
                    info = {
                        "id": hub.repo_id,
                        "sha": hub.sha,
                        "private": False,
                        "siblings": [{"rfilename": f} for f in hub.files],
                    }
                    return self._send(200, json.dumps(info).encode(), as_json, head)
                if path.startswith(api + "tree/"):
                    tree = [
                        {"type": "file", "path": f, "size": len(b), "oid": _git_blob_sha(b)}
                        for f, b in hub.files.items()
                    ]
                    return self._send(200, json.dumps(tree).encode(), as_json, head)
                if path.startswith(resolve):
                    name = path[len(resolve) :].partition("/")[2]
                    if name in hub.files:
                        body = hub.files[name]
                        headers = {
                            "X-Repo-Commit": hub.sha,
                            "ETag": f'"{_git_blob_sha(body)}"',
                            "Content-Type": "application/octet-stream",
                        }
                        return self._send(200, body, headers, head)
                self._send(
                    404,
                    b'{"error": "Repository not found"}',
                    {"X-Error-Code": "RepoNotFound", **as_json},
                    head,
                )

            def do_GET(self) -> None:  # noqa: N802 - http.server naming
                self._route(False)

            def do_HEAD(self) -> None:  # noqa: N802
                self._route(True)

        return Handler


@pytest.fixture
def hub() -> Iterator[HubStandIn]:
    """The stand-in Hub serving the good fixture as noystl/novelty-judge-bench."""
    stand_in = HubStandIn(HUB_ID, FIXTURE)
    thread = threading.Thread(target=stand_in.server.serve_forever, daemon=True)
    thread.start()
    yield stand_in
    stand_in.server.shutdown()
    stand_in.server.server_close()


def _convert(hub_id: str, out: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`judgeaudit convert` of a Hub id, started by the interpreter running the tests (not a `judgeaudit` on PATH)."""
    argv = [
        sys.executable,
        "-m",
        "judgeaudit",
        "convert",
        "--from",
        "novelty-judge-bench",
        hub_id,
        "--out",
        str(out),
    ]
    return subprocess.run(
        argv, capture_output=True, text=True, env={**os.environ, **env}, timeout=120
    )


def _hub_env(hub: HubStandIn, tmp_path: Path) -> dict[str, str]:
    """The stand-in Hub, online, with a Hugging Face cache of this test's own: every cache variable is
    set, since the session's (tests/helpers/session_caches.py) would otherwise win over HF_HOME and keep the
    snapshot for later tests of this worker (which then find the repo offline)."""
    hf = tmp_path / "hf"
    return {
        "HF_ENDPOINT": hub.endpoint,
        "HF_HUB_OFFLINE": "0",
        "HF_HOME": str(hf),
        "HF_HUB_CACHE": str(hf / "hub"),
        "HF_DATASETS_CACHE": str(hf / "datasets"),
        "HF_HUB_DISABLE_XET": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
    }


def test_convert_from_hub_id_online_then_offline_from_cache(
    hub: HubStandIn, tmp_path: Path
) -> None:
    env = _hub_env(hub, tmp_path)
    done = _convert(HUB_ID, tmp_path / "online", env)
    assert done.returncode == 0, done.stderr
    assert f"GET /api/datasets/{HUB_ID}/revision/main" in hub.requests
    manifest = json.loads(
        (tmp_path / "online" / "human_only" / "manifest.json").read_text(encoding="utf-8")
    )
    assert manifest["source"]["kind"] == "huggingface_hub"
    assert manifest["source"]["hub_id"] == HUB_ID
    assert manifest["source"]["revision"] == hub.sha
    assert manifest["files"]["pairwise.jsonl"]["items"] == 3
    # the same conversion from a local directory gives byte-identical items
    local = _convert(str(FIXTURE), tmp_path / "local", env)
    assert local.returncode == 0, local.stderr
    for name in ("pairwise.jsonl", "pointwise_plan.jsonl"):
        online_items = (tmp_path / "online" / "human_only" / name).read_text(encoding="utf-8")
        local_items = (tmp_path / "local" / "human_only" / name).read_text(encoding="utf-8")
        assert online_items == local_items
    # offline, the cached snapshot is reused; no request reaches the stand-in
    before = len(hub.requests)
    cached = _convert(HUB_ID, tmp_path / "cached", {**env, "HF_HUB_OFFLINE": "1"})
    assert cached.returncode == 0, cached.stderr
    assert len(hub.requests) == before


def test_unknown_hub_repo_is_a_clear_error(hub: HubStandIn, tmp_path: Path) -> None:
    env = _hub_env(hub, tmp_path)
    done = _convert("someone/not-there", tmp_path / "out", env)
    assert done.returncode == 2
    assert "'someone/not-there'" in done.stderr and "local directory" in done.stderr
    assert not (tmp_path / "out").exists()
