"""The MCP servers a person has added: ``<data_dir>/mcp.json`` in the common ``mcpServers`` shape.

    {"mcpServers": {
        "tickets": {"url": "https://tickets.example.com/mcp",
                    "headers": {"Authorization": "Bearer ${TICKETS_TOKEN}"}},
        "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}}
    }}

The same file other MCP clients read, plus a few keys of ours: ``disabled`` (the whole server),
``disabledTools`` (tools left out of runs) and ``timeout`` (seconds). ``${NAME}`` in a header or
an ``env`` value is read from the environment / ``.env`` when the server is started, so a token
can stay out of the file; a value found that way is registered as a secret (masked everywhere).
Keys we do not know are kept as they were when the file is written back.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from agent_core.masking import register_secret
from agent_core.settings import Settings

SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
"""A server's name: it prefixes its tools' names (``server__tool``), so the APIs' name rules apply."""
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_OUR_KEYS = ("url", "headers", "command", "args", "env", "disabled", "disabledTools", "timeout")


class ConfigError(ValueError):
    """``mcp.json`` or a server in it cannot be used; the message says why, in one sentence."""


@dataclass(frozen=True)
class ServerConfig:
    """One entry of ``mcpServers``: a URL (streamable HTTP) or a command (stdio)."""

    name: str
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    """Sent with every request; ``${NAME}`` is read from the environment when connecting."""
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    """The child's environment on top of a short allow-list (PATH, HOME …): nothing else of ours."""
    disabled: bool = False
    disabled_tools: tuple[str, ...] = ()
    """Tools of this server (their names on the server) that runs do not get."""
    timeout: float | None = None
    """Seconds to start and answer, and for each call; None: ``MCP_TIMEOUT``."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Keys of the entry this app does not use (kept when the file is written back)."""

    @property
    def transport(self) -> str:
        """``http`` (streamable HTTP) or ``stdio``."""
        return "http" if self.url else "stdio"

    @property
    def where(self) -> str:
        """The URL, or the command line, as it may be shown (headers and env values are not)."""
        if self.url:
            return self.url
        return " ".join([self.command or "", *self.args]).strip()

    def fingerprint(self) -> str:
        """Changes when anything that matters to the connection changes (a new session then)."""
        data = json.dumps([self.url, dict(self.headers), self.command, list(self.args), dict(self.env)], sort_keys=True)
        return hashlib.sha256(data.encode()).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        """The ``mcpServers`` entry (only the keys that say something)."""
        out: dict[str, Any] = dict(self.extra)
        if self.url:
            out["url"] = self.url
            if self.headers:
                out["headers"] = dict(self.headers)
        else:
            out["command"] = self.command
            if self.args:
                out["args"] = list(self.args)
            if self.env:
                out["env"] = dict(self.env)
        if self.disabled:
            out["disabled"] = True
        if self.disabled_tools:
            out["disabledTools"] = list(self.disabled_tools)
        if self.timeout is not None:
            out["timeout"] = self.timeout
        return out


def parse_server(name: str, entry: Any) -> ServerConfig:
    """One ``mcpServers`` entry, checked (ConfigError with a plain sentence)."""
    if not SERVER_NAME.match(name):
        raise ConfigError(f"Server name {name!r}: use letters, digits, _ or - (at most 32).")
    if not isinstance(entry, dict):
        raise ConfigError(f"Server {name!r}: its entry must be an object with a url or a command.")
    url, command = entry.get("url"), entry.get("command")
    if bool(url) == bool(command):
        raise ConfigError(f"Server {name!r}: give either a url (streamable HTTP) or a command (stdio), not both.")
    if entry.get("type") == "sse" or entry.get("transport") == "sse":
        raise ConfigError(
            f"Server {name!r} is marked SSE: this app speaks streamable HTTP (SSE is deprecated); use the "
            "server's streamable-HTTP URL (often ending in /mcp)."
        )
    headers = _strings(entry.get("headers"), f"Server {name!r}: headers")
    env = _strings(entry.get("env"), f"Server {name!r}: env")
    args = entry.get("args") or []
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ConfigError(f"Server {name!r}: args must be a list of strings.")
    if url is not None:
        check_server_url(str(url))
    timeout = entry.get("timeout")
    if timeout is not None and (
        not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not 0 < timeout <= 300
    ):
        raise ConfigError(f"Server {name!r}: timeout must be a number of seconds between 0 and 300.")
    disabled_tools = entry.get("disabledTools") or []
    if not isinstance(disabled_tools, list):
        raise ConfigError(f"Server {name!r}: disabledTools must be a list of tool names.")
    return ServerConfig(
        name=name,
        url=str(url) if url else None,
        headers=headers,
        command=str(command) if command else None,
        args=tuple(args),
        env=env,
        disabled=bool(entry.get("disabled", False)),
        disabled_tools=tuple(str(t) for t in disabled_tools),
        timeout=float(timeout) if timeout is not None else None,
        extra={k: v for k, v in entry.items() if k not in _OUR_KEYS},
    )


def _strings(value: Any, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ConfigError(f"{what} must be an object of strings.")
    return dict(value)


def check_server_url(url: str) -> None:
    """An MCP URL must be http(s) with a host; the cloud metadata address is refused.

    Servers on this machine or the local network are allowed here (that is where people run
    them); tools declared in YAML have the stricter rule of :mod:`agent_core.tools.http_guard`.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{url!r} is not an http(s) URL of an MCP server.")
    if parts.hostname in ("169.254.169.254", "fd00:ec2::254", "metadata.google.internal"):
        raise ConfigError(f"{parts.hostname} is a cloud metadata address, not an MCP server.")


@dataclass(frozen=True)
class McpFile:
    """What ``mcp.json`` holds: the servers that could be read, and a sentence for each that could not."""

    servers: list[ServerConfig]
    problems: list[str]
    raw: dict[str, Any]


def load(settings: Settings) -> McpFile:
    """Read ``<data_dir>/mcp.json`` (missing: no servers; unreadable: one problem, no servers)."""
    path = settings.mcp_config_path
    if not path.exists():
        return McpFile([], [], {})
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return McpFile([], [f"{path} could not be read as JSON ({exc})."], {})
    if not isinstance(raw, dict) or not isinstance(raw.get("mcpServers", {}), dict):
        return McpFile([], [f'{path} must hold an object with "mcpServers".'], {})
    servers, problems = [], []
    for name, entry in (raw.get("mcpServers") or {}).items():
        try:
            servers.append(parse_server(str(name), entry))
        except ConfigError as exc:
            problems.append(str(exc))
    return McpFile(servers, problems, raw)


def save(settings: Settings, servers: list[ServerConfig]) -> Path:
    """Write the servers back to ``mcp.json`` (other top-level keys kept; temp file + rename)."""
    path = settings.mcp_config_path
    raw = dict(load(settings).raw)
    raw["mcpServers"] = {s.name: s.to_json() for s in servers}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(raw, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def put_server(settings: Settings, server: ServerConfig) -> None:
    """Add a server, or replace the one of the same name."""
    servers = [s for s in load(settings).servers if s.name != server.name]
    save(settings, [*servers, server])


def remove_server(settings: Settings, name: str) -> bool:
    """Remove a server; False when there was none of that name."""
    servers = load(settings).servers
    kept = [s for s in servers if s.name != name]
    if len(kept) == len(servers):
        return False
    save(settings, kept)
    return True


def set_tool_enabled(settings: Settings, server: str, tool: str, enabled: bool) -> None:
    """Give runs a server's tool, or leave it out (``disabledTools``)."""
    servers = load(settings).servers
    updated = []
    for s in servers:
        if s.name == server:
            off = [t for t in s.disabled_tools if t != tool] + ([] if enabled else [tool])
            s = ServerConfig(**{**s.__dict__, "disabled_tools": tuple(off)})
        updated.append(s)
    save(settings, updated)


def resolve(text: str, env: Mapping[str, str] | None = None) -> str:
    """``text`` with each ``${NAME}`` read from ``env`` (default: the environment); ConfigError
    naming a variable that is not set. Each value read is registered as a secret."""
    source = os.environ if env is None else env

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        found = source.get(name)
        if not found:
            raise ConfigError(f"The variable {name} is not set (add it to .env or the environment).")
        register_secret(found)
        return found

    return _VARIABLE.sub(value, text)


def stdio_refusal(command: str, settings: Settings) -> str | None:
    """Why ``command`` may not be started here, or None when ``MCP_STDIO_COMMANDS`` allows it."""
    allowed = settings.mcp_stdio_commands
    if not allowed:
        return (
            "Local commands are off: this app starts no programs unless the operator allows them "
            "(MCP_STDIO_COMMANDS=python,uvx,… in .env); use the server's URL instead."
        )
    if command in allowed or Path(command).name in allowed:
        return None
    return f"The command {Path(command).name!r} is not allowed here (MCP_STDIO_COMMANDS allows: {', '.join(allowed)})."


def masked_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Headers as they may be shown: a ``${NAME}`` stays (it names the secret), a literal value
    under a secret-looking name becomes ``••••`` plus its last four characters."""
    from agent_core.masking import is_secret_key

    out = {}
    for key, value in headers.items():
        secretish = is_secret_key(key) or key.lower() in ("authorization", "proxy-authorization", "cookie")
        if secretish and not _VARIABLE.search(value):
            scheme, _, token = value.partition(" ")
            shown = "••••" + (token or scheme)[-4:] if len(token or scheme) > 8 else "••••"
            out[key] = f"{scheme} {shown}" if token else shown
        else:
            out[key] = value
    return out
