"""Settings from the environment and an optional ``.env`` file.

Every value has a default so a fresh machine works; the UI and the CLI override per run with
:meth:`Settings.replace`.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dotenv import find_dotenv, load_dotenv


def _floats(text: str) -> tuple[float, ...]:
    values = tuple(float(part) for part in text.split(",") if part.strip())
    if any(v < 0 for v in values):
        raise ValueError("RETRY_DELAYS must be non-negative numbers")
    return values


def _names(text: str) -> tuple[str, ...]:
    """A comma-separated list, stripped, without empty entries."""
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _flag(text: str, name: str) -> bool:
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"{name} must be 1 or 0 (got {text[:20]!r})")


ANSWER_CHECKS = ("off", "flag", "retry")
"""``ANSWER_CHECK`` values: no check; flag figures no tool result supports; flag them and send the
model one corrective turn (at most twice)."""


@dataclass(frozen=True)
class Settings:
    """Engine settings; see ``.env.example`` for the variables."""

    model_name: str | None = None
    """Model name for the chosen provider; None means the provider's own default."""
    max_steps: int = 10
    """Model turns before the run stops with status ``max_steps``."""
    max_context_blocks: int = 8
    """How many recent context blocks are sent to the model each step."""
    max_tool_output_chars: int = 4000
    """Longer tool outputs are cut and marked ``[TRUNCATED]``."""
    retry_delays: tuple[float, ...] = (1.0, 2.0, 4.0)
    """Base delays (s) between retries; full jitter is applied, one retry per entry."""
    retry_max_delay: float = 30.0
    """Cap on any single wait, including a server's ``retry-after``."""
    tool_timeout: float = 30.0
    """Seconds one tool call may run before it is abandoned as ``timeout``."""
    request_timeout: float = 60.0
    """Seconds a model request may take before it counts as a (transient) timeout."""
    history_max_messages: int = 200
    """``trim_history`` bound for the transcript kept in the record (system messages kept)."""
    data_dir: Path = field(default_factory=lambda: Path("agent_data"))
    """Root of ``runs/`` and ``workspace/``."""
    workspace: Path | None = None
    """``AGENT_WORKSPACE``: the documents folder the tools read; None: ``<data_dir>/workspace``. An
    eval's goal set may name its own (``workspace:`` in the YAML)."""
    search_web_failure_rate: float = 0.3
    """How often the simulated ``search_web`` tool fails transiently (0..1)."""
    answer_check: str | None = None
    """``off`` | ``flag`` | ``retry`` (:mod:`agent_core.checks.grounding`); None: the provider's
    default (``ProviderSpec.answer_check``; see :func:`agent_core.providers.answer_check_for`)."""
    store_url: str | None = field(default=None, repr=False)
    """``AGENT_STORE_URL``: the team store (``postgresql://user:password@host:port/db``); None:
    the runs folder only. Never shown (it holds the password): :attr:`store_label` is."""
    user: str | None = None
    """``AGENT_USER``: who runs are recorded as run by (the page passes the signed-in user instead)."""
    read_only: bool = False
    """``AGENT_READ_ONLY=1``: a viewer instance (History and Tool stats; no runs started here)."""
    mcp_stdio_commands: tuple[str, ...] = ()
    """``MCP_STDIO_COMMANDS=python,uvx``: the commands an MCP server of ``mcp.json`` may be started
    with (matched by name or full path); empty: local commands are off, only URLs connect."""
    mcp_timeout: float = 10.0
    """``MCP_TIMEOUT``: seconds an MCP server gets to start and answer, and each call to return."""
    http_tool_hosts: tuple[str, ...] = ()
    """``HTTP_TOOL_HOSTS=api.example.com,*.example.org``: the hosts a declared http tool may call."""
    http_tool_allow_loopback: bool = False
    """``HTTP_TOOL_ALLOW_LOOPBACK=1``: let declared http tools reach 127.0.0.1 / ::1 (for tests and a
    service on this machine); private and link-local addresses stay refused."""

    @property
    def mcp_config_path(self) -> Path:
        """``<data_dir>/mcp.json``: the MCP servers (the common ``mcpServers`` shape)."""
        return self.data_dir / "mcp.json"

    @property
    def declared_tools_dir(self) -> Path:
        """``<workspace>/tools``: tools declared in YAML (mock, http, imported from OpenAPI)."""
        return self.workspace_dir / "tools"

    max_document_mb: float = 50.0
    """``MAX_DOCUMENT_MB``: the largest document that can be added to the workspace."""
    max_document_pages: int = 2000
    """``MAX_DOCUMENT_PAGES``: the most pages a PDF (or a DOCX's worth of text) may have."""
    document_parse_timeout: float = 60.0
    """``DOCUMENT_PARSE_TIMEOUT``: seconds reading one PDF or DOCX may take before it is stopped."""

    @property
    def runs_dir(self) -> Path:
        return self.data_dir / "runs"

    @property
    def workspace_dir(self) -> Path:
        return self.workspace if self.workspace is not None else self.data_dir / "workspace"

    @property
    def store_label(self) -> str:
        """Where runs are stored, as it may be shown: the folder, or the team store's URL without its password."""
        if not self.store_url:
            return str(self.runs_dir)
        from agent_core.store_url import safe_url

        return safe_url(self.store_url)

    def replace(self, **changes: Any) -> Settings:
        """A copy with some fields changed (None values are ignored)."""
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, *, dotenv: bool = True) -> Settings:
        """Read settings from ``env`` (default ``os.environ``, after loading ``.env``)."""
        if env is None:
            if dotenv:
                load_dotenv(find_dotenv(usecwd=True), override=False)
            env = dict(os.environ)

        def get(name: str, default: str) -> str:
            value = env.get(name, "")
            return value.strip() if value.strip() else default

        base = cls()
        try:
            return cls(
                model_name=env.get("MODEL_NAME") or None,
                max_steps=int(get("MAX_STEPS", str(base.max_steps))),
                max_context_blocks=int(get("MAX_CONTEXT_BLOCKS", str(base.max_context_blocks))),
                max_tool_output_chars=int(get("MAX_TOOL_OUTPUT_CHARS", str(base.max_tool_output_chars))),
                retry_delays=_floats(get("RETRY_DELAYS", "1,2,4")),
                retry_max_delay=float(get("RETRY_MAX_DELAY", str(base.retry_max_delay))),
                tool_timeout=float(get("TOOL_TIMEOUT", str(base.tool_timeout))),
                request_timeout=float(get("REQUEST_TIMEOUT", str(base.request_timeout))),
                data_dir=Path(get("AGENT_DATA_DIR", "agent_data")),
                workspace=Path(get("AGENT_WORKSPACE", "")) if get("AGENT_WORKSPACE", "") else None,
                search_web_failure_rate=float(get("SEARCH_WEB_FAILURE_RATE", str(base.search_web_failure_rate))),
                answer_check=get("ANSWER_CHECK", "").lower() or None,
                store_url=get("AGENT_STORE_URL", "") or None,
                user=get("AGENT_USER", "") or None,
                read_only=_flag(get("AGENT_READ_ONLY", "0"), "AGENT_READ_ONLY"),
                mcp_stdio_commands=_names(get("MCP_STDIO_COMMANDS", "")),
                mcp_timeout=float(get("MCP_TIMEOUT", str(base.mcp_timeout))),
                http_tool_hosts=_names(get("HTTP_TOOL_HOSTS", "")),
                http_tool_allow_loopback=_flag(get("HTTP_TOOL_ALLOW_LOOPBACK", "0"), "HTTP_TOOL_ALLOW_LOOPBACK"),
                max_document_mb=float(get("MAX_DOCUMENT_MB", str(base.max_document_mb))),
                max_document_pages=int(get("MAX_DOCUMENT_PAGES", str(base.max_document_pages))),
                document_parse_timeout=float(get("DOCUMENT_PARSE_TIMEOUT", str(base.document_parse_timeout))),
            ).validated()
        except ValueError as exc:
            raise ValueError(f"Bad setting in the environment or .env: {exc}") from None

    def validated(self) -> Settings:
        """Raise ValueError with a plain message when a value is out of range."""
        if self.max_steps < 1:
            raise ValueError("MAX_STEPS must be at least 1")
        if self.max_context_blocks < 1:
            raise ValueError("MAX_CONTEXT_BLOCKS must be at least 1")
        if self.max_tool_output_chars < 100:
            raise ValueError("MAX_TOOL_OUTPUT_CHARS must be at least 100")
        if self.tool_timeout <= 0 or self.request_timeout <= 0:
            raise ValueError("timeouts must be positive")
        if not 0 < self.mcp_timeout <= 300:
            raise ValueError("MCP_TIMEOUT must be between 0 and 300 seconds")
        if not 0 <= self.search_web_failure_rate <= 1:
            raise ValueError("SEARCH_WEB_FAILURE_RATE must be between 0 and 1")
        if self.max_document_mb <= 0 or self.max_document_pages < 1 or self.document_parse_timeout <= 0:
            raise ValueError("MAX_DOCUMENT_MB, MAX_DOCUMENT_PAGES and DOCUMENT_PARSE_TIMEOUT must be positive")
        if self.store_url:
            from agent_core.store_url import address

            address(self.store_url)  # StoreURLError (a ValueError) for a URL that is not one
        if self.answer_check not in (None, *ANSWER_CHECKS):
            raise ValueError(f"ANSWER_CHECK must be one of {', '.join(ANSWER_CHECKS)} (got {self.answer_check!r})")
        return self
