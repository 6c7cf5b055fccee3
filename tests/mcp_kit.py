"""Shared setup of the MCP tests: data folders with an ``mcp.json``, the fixture server over stdio
and over HTTP, and small HTTP servers that answer like broken or old MCP servers."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from agent_core.settings import Settings
from agent_core.tools import mcp

FIXTURE = Path(__file__).resolve().parent / "mcp_fixture_server.py"
PYTHON = sys.executable


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stdio_entry(**env: str) -> dict[str, Any]:
    """An ``mcpServers`` entry that starts the fixture over stdio."""
    entry: dict[str, Any] = {"command": PYTHON, "args": [str(FIXTURE)]}
    if env:
        entry["env"] = env
    return entry


def data_dir(root: Path, servers: dict[str, Any], **settings: Any) -> Settings:
    """A data folder whose ``mcp.json`` holds ``servers``; settings allowing this Python on stdio."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "workspace").mkdir(exist_ok=True)
    (root / "mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    base = {"data_dir": root, "mcp_stdio_commands": (PYTHON,), "retry_delays": (0.0,)}
    return Settings(**{**base, **settings})


@contextlib.contextmanager
def http_fixture(**env: str) -> Iterator[str]:
    """The fixture over streamable HTTP on 127.0.0.1; yields its ``/mcp`` URL."""
    port = free_port()
    proc = subprocess.Popen(
        [PYTHON, str(FIXTURE), "http", str(port)],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the fixture MCP server did not start") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextlib.contextmanager
def answering(status: int, headers: dict[str, str] | None = None, *, location: str | None = None) -> Iterator[str]:
    """An HTTP server that answers every request with ``status`` (an old SSE-only server: 405;
    one that wants a token: 401; a redirect with ``location``); yields its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            if length:
                self.rfile.read(length)
            self.send_response(status)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            if location:
                self.send_header("Location", location)
            body = json.dumps({"ok": status < 300, "data": {"count": 12, "items": [{"name": "A-100"}]}}).encode()
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_DELETE = _answer

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def close_sessions() -> None:
    """Forget every session of the process hub (each test starts from none)."""
    mcp.hub().close_all()


def wait_http(url: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except OSError:
            time.sleep(0.1)
