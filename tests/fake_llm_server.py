"""A local fake LLM HTTP server for provider tests: scripted answers, recorded requests.

The real ``openai`` / ``anthropic`` clients are pointed at it through ``base_url``, so tests check
exactly what goes over the wire (reference/WIRE_AND_STREAMLIT.md §5). Each POST pops the next
scripted ``(status, headers, payload, delay)``; once the script is exhausted it answers 500 so a
test that makes more calls than planned fails loudly.

    with FakeLLMServer() as srv:
        srv.push(responses_body(text="Sunny."))
        client = OpenAI(api_key="test", base_url=srv.url("/v1"), max_retries=0)
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class ScriptedReply:
    """One scripted answer: a dict goes out as JSON, a str as an SSE stream."""

    payload: dict[str, Any] | str
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to wait before answering (to provoke client read timeouts)."""


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet: a client that timed out leaves a broken pipe behind."""


class FakeLLMServer:
    """Stdlib HTTP server on 127.0.0.1:<free port>; a context manager."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        """Every POST received: ``{path, headers (lower-case keys), json, at (time.monotonic()), status}``."""
        self._script: deque[ScriptedReply] = deque()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body: Any = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                with server._lock:
                    server.requests.append(
                        {
                            "path": self.path,
                            "headers": {k.lower(): v for k, v in self.headers.items()},
                            "json": body,
                            "at": time.monotonic(),
                        }
                    )
                    reply = server._script.popleft() if server._script else None
                    server.requests[-1]["status"] = reply.status if reply is not None else 500
                if reply is None:
                    reply = ScriptedReply(
                        {"error": {"message": "fake server: script exhausted", "type": "server_error"}},
                        status=500,
                    )
                if reply.delay:
                    time.sleep(reply.delay)
                if isinstance(reply.payload, str):
                    data = reply.payload.encode()
                    content_type = "text/event-stream"
                else:
                    data = json.dumps(reply.payload).encode()
                    content_type = "application/json"
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", content_type)
                    self.send_header("content-length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (read timeout)
                    pass

        self._server = _QuietServer(("127.0.0.1", 0), Handler)
        self.port: int = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def url(self, suffix: str = "") -> str:
        """Base URL for a client, e.g. ``url("/v1")`` for OpenAI, ``url()`` for Anthropic."""
        return f"http://127.0.0.1:{self.port}{suffix}"

    def push(
        self,
        payload: dict[str, Any] | str,
        *,
        status: int = 200,
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
    ) -> FakeLLMServer:
        """Queue the answer to the next POST."""
        with self._lock:
            self._script.append(ScriptedReply(payload, status, dict(headers or {}), delay))
        return self

    @property
    def remaining(self) -> int:
        """Scripted replies not used yet."""
        with self._lock:
            return len(self._script)

    @property
    def bodies(self) -> list[Any]:
        """The JSON bodies received, in order."""
        return [r["json"] for r in self.requests]

    def start(self) -> FakeLLMServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def closed_port_url(suffix: str = "") -> str:
    """A URL on 127.0.0.1 where nothing listens (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}{suffix}"


# ---------------------------------------------------------------- response body builders

_counter = iter(range(1, 1_000_000))


def _n() -> int:
    return next(_counter)


def responses_body(
    *,
    text: str | None = None,
    calls: list[tuple[str, str, str]] = (),  # type: ignore[assignment]
    reasoning: str | None = None,
    usage: tuple[int, int] = (10, 5),
    model: str = "gpt-4.1-mini-2025-04-14",
) -> dict[str, Any]:
    """A Responses API body: optional reasoning item, message, and ``(call_id, name, args_json)`` calls."""
    output: list[dict[str, Any]] = []
    if reasoning is not None:
        output.append(
            {
                "type": "reasoning",
                "id": f"rs_{_n()}",
                "summary": [{"type": "summary_text", "text": reasoning}],
                "encrypted_content": "gAAAAencrypted",
            }
        )
    if text is not None:
        output.append(
            {
                "type": "message",
                "id": f"msg_{_n()}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )
    for call_id, name, arguments in calls:
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{_n()}",
                "call_id": call_id,
                "name": name,
                "arguments": arguments,
                "status": "completed",
            }
        )
    return {
        "id": f"resp_{_n()}",
        "object": "response",
        "created_at": 1764460800,
        "model": model,
        "status": "completed",
        "output": output,
        "usage": {
            "input_tokens": usage[0],
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": usage[1],
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage[0] + usage[1],
        },
    }


def chat_body(
    *,
    text: str | None = None,
    calls: list[tuple[str, str, str]] = (),  # type: ignore[assignment]
    finish_reason: str | None = None,
    usage: tuple[int, int] | None = (12, 7),
    model: str = "llama3.2",
) -> dict[str, Any]:
    """A Chat Completions body with optional content and ``(id, name, args_json)`` tool calls."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {"id": cid, "type": "function", "function": {"name": name, "arguments": args}} for cid, name, args in calls
        ]
    body: dict[str, Any] = {
        "id": f"chatcmpl-{_n()}",
        "object": "chat.completion",
        "created": 1764460800,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": finish_reason or ("tool_calls" if calls else "stop"),
            }
        ],
    }
    if usage is not None:
        body["usage"] = {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": usage[0] + usage[1],
        }
    return body


def anthropic_body(
    *,
    text: str | None = None,
    calls: list[tuple[str, str, Any]] = (),  # type: ignore[assignment]
    stop_reason: str | None = None,
    usage: tuple[int, int] = (20, 9),
    model: str = "claude-sonnet-4-6",
    thinking: str | None = None,
) -> dict[str, Any]:
    """A Messages API body: optional thinking, text, and ``(id, name, input)`` tool_use blocks."""
    content: list[dict[str, Any]] = []
    if thinking is not None:
        content.append({"type": "thinking", "thinking": thinking, "signature": "sig-abc"})
    if text is not None:
        content.append({"type": "text", "text": text})
    for call_id, name, tool_input in calls:
        content.append({"type": "tool_use", "id": call_id, "name": name, "input": tool_input})
    return {
        "id": f"msg_{_n()}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason or ("tool_use" if calls else "end_turn"),
        "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
    }


def openai_error(message: str, *, type_: str = "invalid_request_error", code: str | None = None) -> dict[str, Any]:
    """An OpenAI-style error body."""
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


def anthropic_error(message: str, *, type_: str = "invalid_request_error") -> dict[str, Any]:
    """An Anthropic-style error body."""
    return {"type": "error", "error": {"type": type_, "message": message}, "request_id": "req_fake"}
