"""MCP servers as tools: one event loop per process, one session per server, sync calls with a deadline.

The ``mcp`` client is async; the engine runs tools in worker threads. So one daemon thread runs
one asyncio loop for the whole process (:class:`McpHub`), each configured server keeps one open
session on it (:class:`ServerConnection`), and a tool call is a coroutine handed to that loop
with ``run_coroutine_threadsafe`` and waited for with a deadline. Nothing here ever waits without
one: a server that does not start, answer or return costs at most its timeout (``MCP_TIMEOUT``,
10 s), and the caller gets one plain sentence (:func:`explain`). The cleanup of a session that
was given up on (the SDK's stdio shutdown takes up to ~6 s) goes on in the loop, not in the caller.

Each tool a server lists becomes a :class:`~agent_core.tools.registry.Tool` named
``server__tool`` (two servers may offer the same name), with the server's ``inputSchema`` as its
parameters (the dispatcher validates against it), ``source="mcp"``, the server and the
annotations; so timeouts, retries, duplicates, the record, stats and replay treat it like a
built-in.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from agent_core.errors import ToolTimeout
from agent_core.masking import mask_text
from agent_core.settings import Settings
from agent_core.tools.mcp_config import ConfigError, ServerConfig, resolve, stdio_refusal
from agent_core.tools.registry import Tool

log = logging.getLogger("agent_core.tools.mcp")

FAILED_RETRY_S = 30.0
"""A server that failed is not tried again for this long, unless someone asks (check, Test)."""
STDERR_TAIL_CHARS = 600
MAX_TOOLS_PER_SERVER = 500
MAX_LIST_PAGES = 20
TOOL_SEPARATOR = "__"
ANNOTATION_KEYS = {
    "title": "title",
    "read_only_hint": "readOnlyHint",
    "destructive_hint": "destructiveHint",
    "idempotent_hint": "idempotentHint",
    "open_world_hint": "openWorldHint",
}
"""The SDK's field names → the names of the MCP spec (the record keeps the spec's)."""


class McpToolError(RuntimeError):
    """The server ran the tool and reported an error (``isError``), or the call could not be made."""


@dataclass(frozen=True)
class RemoteTool:
    """A tool as the server listed it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    annotations: dict[str, Any]


@dataclass
class Health:
    """What the health card shows: did it start, what it speaks, what it offers, what it said."""

    server: str
    ok: bool
    sentence: str
    """One plain sentence: what works, or what went wrong and what to do."""
    transport: str = "stdio"
    protocol_version: str | None = None
    server_info: str | None = None
    tools: list[RemoteTool] = field(default_factory=list)
    stderr_tail: str = ""
    seconds: float = 0.0
    checked_at: float = field(default_factory=time.time)

    @property
    def tokens(self) -> int:
        """An estimate of what the tools' definitions cost in every request (characters / 4)."""
        return sum(definition_tokens(t.name, t.description, t.input_schema) for t in self.tools)


def definition_tokens(name: str, description: str, parameters: dict[str, Any]) -> int:
    """Tokens a tool definition costs a request, estimated as characters / 4 (no tokenizer needed)."""
    text = json.dumps({"name": name, "description": description, "parameters": parameters}, ensure_ascii=False)
    return max(1, round(len(text) / 4))


class McpHub:
    """The process's MCP sessions and the one event loop they run on (shared, like a connection pool)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._connections: dict[str, ServerConnection] = {}

    def loop(self) -> asyncio.AbstractEventLoop:
        """The event loop, started on first use in a daemon thread."""
        with self._lock:
            if self._loop is None or not self._loop.is_running():
                loop = asyncio.new_event_loop()
                started = threading.Event()
                loop.call_soon(started.set)
                threading.Thread(target=loop.run_forever, name="mcp-loop", daemon=True).start()
                started.wait(5)
                self._loop = loop
            return self._loop

    def submit(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Run ``coro`` on the loop; a ``concurrent.futures.Future`` of its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop())

    def connection(self, config: ServerConfig, settings: Settings) -> ServerConnection:
        """The session of ``config.name`` (a new one when the entry changed since)."""
        with self._lock:
            current = self._connections.get(config.name)
            if current is not None and current.config.fingerprint() == config.fingerprint():
                current.config = config  # disabled tools, timeout: no new session needed
                current.settings = settings
                return current
            connection = ServerConnection(self, config, settings)
            self._connections[config.name] = connection
        if current is not None:
            current.close()
        return connection

    def forget(self, name: str) -> None:
        """Close and drop the session of a removed server."""
        with self._lock:
            current = self._connections.pop(name, None)
        if current is not None:
            current.close()

    def close_all(self) -> None:
        with self._lock:
            connections = list(self._connections.values())
            self._connections.clear()
        for connection in connections:
            connection.close()


_HUB = McpHub()


def hub() -> McpHub:
    """The process's hub: sessions are a process resource (one child process per stdio server)."""
    return _HUB


class ServerConnection:
    """One server's session: started in the background, waited for with a deadline, called by tools."""

    def __init__(self, hub: McpHub, config: ServerConfig, settings: Settings) -> None:
        self.hub = hub
        self.config = config
        self.settings = settings
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._client: Any = None
        self._closing: asyncio.Event | None = None
        self._future: Any = None
        self._started = 0.0
        self._generation = 0
        """Bumped by each (re)start: a session given up on must not write over its successor."""
        self.health: Health | None = None

    @property
    def timeout(self) -> float:
        return self.config.timeout or self.settings.mcp_timeout

    def start(self, *, force: bool = False) -> None:
        """Start connecting unless a session is up or under way (a failed one waits out
        :data:`FAILED_RETRY_S` unless ``force``)."""
        with self._lock:
            health = self.health
            if self._future is not None and not self._future.done():
                if not force or (health is not None and health.ok):
                    return
                self._stop_locked()
            elif health is not None and not health.ok and not force:
                if time.time() - health.checked_at < FAILED_RETRY_S:
                    return
            self._ready.clear()
            self.health = None
            self._started = time.perf_counter()
            self._generation += 1
            self._future = self.hub.submit(self._run(self._generation))

    def wait(self, timeout: float | None = None) -> Health:
        """The health once the session is up or failed; a "did not answer" failure after
        ``timeout`` (default: the server's) — the session is then given up on."""
        limit = self.timeout if timeout is None else timeout
        if not self._ready.wait(max(0.0, limit - (time.perf_counter() - self._started))):
            self._fail(self._no_answer(), stop=True)
        health = self.health
        assert health is not None
        return health

    def check(self) -> Health:
        """Connect afresh and report (the health card's Test, ``tools check``)."""
        self.start(force=True)
        return self.wait()

    def ensure(self) -> Health:
        """The session's health, connecting first if needed (bounded by the server's timeout)."""
        self.start()
        return self.wait()

    def close(self) -> None:
        with self._lock:
            self._stop_locked()

    def _stop_locked(self) -> None:
        closing, self._closing = self._closing, None
        if closing is not None:  # an open session: let it close in order
            self.hub.loop().call_soon_threadsafe(closing.set)
        elif self._future is not None and not self._future.done():  # still starting: give up on it
            self._future.cancel()
        self._client = None

    def _no_answer(self) -> str:
        if self.config.transport == "http":
            return f"The server at {self.config.url} did not answer within {self.timeout:g} s."
        return (
            f"The server started but did not answer the MCP handshake (initialize) within {self.timeout:g} s: "
            "is this an MCP server speaking on stdio?"
        )

    def _fail(self, sentence: str, *, stop: bool = False, stderr: str = "", generation: int | None = None) -> None:
        with self._lock:
            if generation is not None and generation != self._generation:
                return  # a session given up on: its successor reports
            if self.health is None or self.health.ok or stop:
                self.health = Health(
                    self.config.name,
                    False,
                    mask_text(sentence),
                    transport=self.config.transport,
                    stderr_tail=mask_text(stderr),
                    seconds=round(time.perf_counter() - self._started, 3),
                )
            if stop:
                self._stop_locked()
        self._ready.set()

    async def _run(self, generation: int) -> None:
        """The session's life: connect, list the tools, then stay open until closed."""
        errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        statuses: list[int] = []
        closing = asyncio.Event()
        try:
            async with contextlib.AsyncExitStack() as stack:
                client = await self._open(stack, errlog, statuses)
                tools = await _list_tools(client)
                info = client.server_info
                with self._lock:
                    if generation != self._generation:
                        return
                    self._client = client
                    self._closing = closing
                    self.health = Health(
                        self.config.name,
                        True,
                        f"Connected: {len(tools)} tool{'s' if len(tools) != 1 else ''}.",
                        transport=self.config.transport,
                        protocol_version=client.protocol_version,
                        server_info=f"{info.name} {info.version}".strip() if info is not None else None,
                        tools=tools,
                        stderr_tail=mask_text(_tail(errlog)),
                        seconds=round(time.perf_counter() - self._started, 3),
                    )
                self._ready.set()
                await closing.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # noqa: BLE001 - every failure becomes the card's sentence
            stderr = _tail(errlog)
            sentence = explain(exc, self.config, statuses, stderr)
            self._fail(sentence, stderr=stderr, generation=generation)
            log.info("MCP server %s: %s", self.config.name, sentence)
        finally:
            with self._lock:
                current = generation == self._generation
                if current:
                    self._client = None
            if current and self.health is not None and self.health.ok and not closing.is_set():
                self._fail(
                    f"The server {self.config.name!r} closed the connection.",
                    stderr=_tail(errlog),
                    generation=generation,
                )
            errlog.close()

    async def _open(self, stack: contextlib.AsyncExitStack, errlog: Any, statuses: list[int]) -> Any:
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client
        from mcp_types import Implementation

        config = self.config
        info = Implementation(name="agent-workbench", version="1")
        if config.url:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            headers = {key: resolve(value) for key, value in config.headers.items()}

            async def note(response: Any) -> None:
                statuses.append(int(response.status_code))

            http = await stack.enter_async_context(
                httpx2.AsyncClient(
                    headers=headers,
                    timeout=httpx2.Timeout(self.timeout, read=max(300.0, self.timeout)),
                    event_hooks={"response": [note]},
                )
            )
            transport: Any = streamable_http_client(config.url, http_client=http)
        else:
            assert config.command is not None
            refusal = stdio_refusal(config.command, self.settings)
            if refusal:
                raise ConfigError(refusal)
            env = {key: resolve(value) for key, value in config.env.items()}
            params = StdioServerParameters(command=config.command, args=list(config.args), env=env)
            transport = stdio_client(params, errlog=errlog)
        return await stack.enter_async_context(Client(transport, client_info=info))

    def call(self, tool: str, arguments: dict[str, Any]) -> str:
        """Call ``tool`` and return its text; :class:`McpToolError` or :class:`ToolTimeout` with a
        plain sentence. A session that is down is started again first (within the timeout)."""
        health = self.ensure()
        client = self._client
        if not health.ok or client is None:
            raise McpToolError(f"The MCP server {self.config.name!r} is not connected: {health.sentence}")
        future = self.hub.submit(client.call_tool(tool, arguments))
        try:
            result = future.result(self.timeout)
        except TimeoutError:
            future.cancel()
            raise ToolTimeout(
                f"The MCP server {self.config.name!r} did not return {tool} within {self.timeout:g} s."
            ) from None
        except Exception as exc:  # noqa: BLE001 - the session's failure, said plainly
            if self._client is None:
                raise McpToolError(
                    f"The MCP server {self.config.name!r} went away during the call "
                    f"({explain(exc, self.config, [], '')})"
                ) from None
            raise McpToolError(f"The MCP server {self.config.name!r} refused the call: {_message(exc)}") from None
        text = result_text(result)
        if getattr(result, "is_error", False):
            raise McpToolError(f"The tool reported an error: {text or 'no details given'}")
        return text


async def _list_tools(client: Any) -> list[RemoteTool]:
    tools: list[RemoteTool] = []
    cursor = None
    for _ in range(MAX_LIST_PAGES):
        page = await client.list_tools(cursor=cursor)
        for tool in page.tools:
            annotations = {}
            if tool.annotations is not None:
                for attr, key in ANNOTATION_KEYS.items():
                    value = getattr(tool.annotations, attr, None)
                    if value is not None:
                        annotations[key] = value
            tools.append(
                RemoteTool(
                    name=tool.name,
                    description=(tool.description or "").strip(),
                    input_schema=tool.input_schema if isinstance(tool.input_schema, dict) else {"type": "object"},
                    annotations=annotations,
                )
            )
        cursor = page.next_cursor
        if cursor is None or len(tools) >= MAX_TOOLS_PER_SERVER:
            break
    return tools[:MAX_TOOLS_PER_SERVER]


def result_text(result: Any) -> str:
    """A ``CallToolResult`` as the text a model reads: the text blocks, a note for each other block,
    the structured result when there is no text."""
    parts = []
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(str(block.text))
        elif kind in ("image", "audio"):
            parts.append(
                f"[{kind}: {getattr(block, 'mime_type', '?')}, {len(getattr(block, 'data', '') or '') * 3 // 4} bytes]"
            )
        elif kind == "resource_link":
            parts.append(f"[resource: {getattr(block, 'uri', '')}]")
        elif kind == "resource":
            resource = getattr(block, "resource", None)
            parts.append(str(getattr(resource, "text", None) or f"[resource: {getattr(resource, 'uri', '')}]"))
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False, default=str))
    return "\n".join(parts)


def _flatten(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [inner for sub in exc.exceptions for inner in _flatten(sub)]
    return [exc]


def _message(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def explain(exc: BaseException, config: ServerConfig, statuses: list[int], stderr: str) -> str:
    """One plain sentence for a server that could not be used (what happened, and what to do)."""
    errors = _flatten(exc)
    first = errors[0] if errors else exc
    said = f' It said: "{_last_line(stderr)}".' if _last_line(stderr) else ""
    if isinstance(first, ConfigError):
        return str(first)
    if isinstance(first, FileNotFoundError) and config.transport == "stdio":
        return f"The command {config.command!r} was not found on this machine: install it or give its full path."
    if isinstance(first, PermissionError) and config.transport == "stdio":
        return f"The command {config.command!r} may not be run (permission denied)."
    errors_seen = [s for s in statuses if s >= 400]
    if 401 in errors_seen or 403 in errors_seen:
        status = 401 if 401 in errors_seen else 403
        return (
            f"The server answered HTTP {status}: it needs a token (add a bearer token for this server) "
            "or the token given was refused."
        )
    if 405 in errors_seen:
        return (
            "The server answered HTTP 405 (method not allowed): it may be an old SSE-only server; this app "
            "speaks streamable HTTP — use the server's streamable-HTTP URL (often ending in /mcp) or update it."
        )
    if 404 in errors_seen:
        return f"Nothing answers MCP at {config.url} (HTTP 404): check the path (often /mcp)."
    if errors_seen:
        return f"The server answered HTTP {errors_seen[-1]} instead of MCP."
    name = type(first).__name__
    if config.transport == "http" and ("Connect" in name or isinstance(first, (ConnectionError, OSError))):
        return f"Nothing answers at {config.url} (connection refused or host not found): is the server running?"
    if config.transport == "stdio" and "Connection closed" in str(first):
        return f"The server exited before it answered.{said}"
    if isinstance(first, TimeoutError):
        return f"The server did not answer within {config.timeout or 10:g} s.{said}"
    return f"The server could not be used ({_message(first)[:200]}).{said}"


def _tail(errlog: Any) -> str:
    try:
        errlog.flush()
        errlog.seek(0, 2)
        size = errlog.tell()
        errlog.seek(max(0, size - STDERR_TAIL_CHARS * 4))
        return str(errlog.read())[-STDERR_TAIL_CHARS:].strip()
    except (OSError, ValueError):
        return ""


def _last_line(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def tool_name(server: str, tool: str) -> str:
    """``server__tool``, made of the characters every API accepts, at most 64 long."""
    name = f"{server}{TOOL_SEPARATOR}{_UNSAFE.sub('_', tool)}"
    if len(name) <= 64:
        return name
    import hashlib

    digest = hashlib.sha256(tool.encode()).hexdigest()[:6]
    return name[:57] + "_" + digest


def make_tools(connection: ServerConnection, health: Health) -> list[Tool]:
    """The server's tools as registry tools (its disabled ones included; the caller filters)."""
    config = connection.config
    out = []
    for remote in health.tools:
        schema = dict(remote.input_schema)
        schema.setdefault("type", "object")
        schema.setdefault("properties", {})
        schema.pop("title", None)
        out.append(
            Tool(
                name=tool_name(config.name, remote.name),
                description=remote.description or remote.name.replace("_", " "),
                func=_caller(connection, remote.name),
                parameters=schema,
                args_model=None,
                tags=("mcp", config.name),
                timeout=connection.timeout + 2.0,  # the dispatcher's backstop; the call says it first
                source="mcp",
                server=config.name,
                annotations=dict(remote.annotations) or None,
            )
        )
    return out


def _caller(connection: ServerConnection, remote_name: str) -> Callable[..., str]:
    def call(**arguments: Any) -> str:
        return connection.call(remote_name, arguments)

    call.__name__ = remote_name
    return call


def server_tools(config: ServerConfig, settings: Settings, *, check: bool = False) -> tuple[Health, list[Tool]]:
    """A configured server's health and its tools (connecting if needed; bounded by its timeout)."""
    connection = hub().connection(config, settings)
    health = connection.check() if check else connection.ensure()
    return health, make_tools(connection, health) if health.ok else []


def start_all(configs: list[ServerConfig], settings: Settings) -> list[ServerConnection]:
    """Start connecting every server at once (they come up side by side)."""
    connections = [hub().connection(c, settings) for c in configs if not c.disabled]
    for connection in connections:
        connection.start()
    return connections


def describe_annotations(annotations: dict[str, Any] | None) -> list[str]:
    """The badges a tool's annotations earn, in plain words (hints the server gives, not promises)."""
    notes = annotations or {}
    badges = []
    if notes.get("readOnlyHint") is True:
        badges.append("only reads")
    elif notes:
        if notes.get("destructiveHint", True) is not False:
            badges.append("may change or delete")
        else:
            badges.append("changes things (adds only)")
    if notes and notes.get("openWorldHint", True) is not False:
        badges.append("reaches the internet")
    return badges


__all__ = [
    "Health",
    "McpHub",
    "McpToolError",
    "RemoteTool",
    "ServerConnection",
    "describe_annotations",
    "explain",
    "hub",
    "make_tools",
    "server_tools",
    "start_all",
    "tool_name",
]
