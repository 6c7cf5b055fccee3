"""Every tool a run could get: the built-ins, the declared tools and the MCP servers' tools, with
where each comes from, whether it is enabled, and what their definitions cost.

The registry a run gets (:func:`agent_core.tools.builtins.build_default_registry`) holds the
enabled ones; the Tools page, ``tools list`` and ``tools check`` show them all, with each
server's health and each declared file's problems.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

from agent_core.settings import Settings
from agent_core.tools import declared, mcp, mcp_config
from agent_core.tools.registry import Tool, ToolRegistry

log = logging.getLogger("agent_core.tools.catalog")

WARN_TOOLS = 20
WARN_TOKENS = 10_000


@dataclass
class Catalog:
    """The tools that are not built in, and what went wrong finding them."""

    tools: list[Tool] = field(default_factory=list)
    """All of them, enabled or not."""
    disabled: set[str] = field(default_factory=set)
    """Names of the tools left out of runs."""
    health: dict[str, mcp.Health] = field(default_factory=dict)
    """Each enabled MCP server's health, by server name."""
    servers: list[mcp_config.ServerConfig] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """One sentence per unusable entry of ``mcp.json`` or ``workspace/tools/``."""

    def enabled(self) -> list[Tool]:
        return [t for t in self.tools if t.name not in self.disabled]


def load_catalog(
    settings: Settings, *, builtin_names: tuple[str, ...] = (), check: bool = False, connect: bool = True
) -> Catalog:
    """Declared tools and MCP tools (servers connect side by side; each is bounded by its timeout).

    Args:
        check: Connect every server afresh (``tools check``, the Test button), even one that failed
            a moment ago.
        connect: False: only servers already connected count (nothing waits).
    """
    found = Catalog()
    specs, problems = declared.load_all(settings, builtin_names=builtin_names)
    found.problems += problems
    for item in specs:
        tool = declared.make_tool(item, settings)
        found.tools.append(tool)
        if item.spec.get("enabled") is False:
            found.disabled.add(tool.name)
    file = mcp_config.load(settings)
    found.problems += file.problems
    found.servers = file.servers
    servers = [s for s in file.servers if not s.disabled]
    hub = mcp.hub()
    connections = [hub.connection(s, settings) for s in servers]
    if connect:
        for connection in connections:
            connection.start(force=check)
    started = time.perf_counter()
    for connection in connections:
        if connect:
            health = connection.wait(connection.timeout - (time.perf_counter() - started) + 0.5)
        else:
            health = connection.health or mcp.Health(connection.config.name, False, "Not connected yet.")
        found.health[connection.config.name] = health
        if not health.ok:
            continue
        for tool in mcp.make_tools(connection, health):
            remote = tool.func.__name__
            found.tools.append(tool)
            if remote in connection.config.disabled_tools:
                found.disabled.add(tool.name)
    return found


def add_enabled(registry: ToolRegistry, catalog: Catalog) -> None:
    """Register the catalog's enabled tools (a name the registry already has is reported, not added)."""
    for tool in catalog.enabled():
        if tool.name in registry:
            catalog.problems.append(f"{tool.name}: a tool of this name is already registered; this one is left out.")
            continue
        registry.add(tool)


def definition_tokens(tool: Tool) -> int:
    """What one tool's definition costs a request, estimated (characters / 4)."""
    return mcp.definition_tokens(tool.name, tool.description, tool.parameters)


def cost_warning(tools: list[Tool]) -> str | None:
    """A warning when the definitions of ``tools`` are many or long (they go with every request)."""
    count = len(tools)
    tokens = sum(definition_tokens(t) for t in tools)
    if count <= WARN_TOOLS and tokens <= WARN_TOKENS:
        return None
    return (
        f"{count} tools whose definitions cost about {tokens:,} tokens in every request: a model chooses worse "
        f"among many tools and the context fills up. Above {WARN_TOOLS} tools or {WARN_TOKENS:,} tokens, "
        "leave out the ones this goal does not need."
    )


def describe(tool: Tool, *, enabled: bool = True) -> dict[str, Any]:
    """One line of ``tools list --json`` (and of the Tools page's table)."""
    return {
        "name": tool.name,
        "source": tool.source,
        "server": tool.server,
        "description": tool.description,
        "annotations": tool.annotations or {},
        "badges": mcp.describe_annotations(tool.annotations),
        "enabled": enabled,
        "tokens": definition_tokens(tool),
    }
