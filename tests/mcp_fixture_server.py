"""A small MCP server for the tests: stdio (``python tests/mcp_fixture_server.py``) or streamable
HTTP (``… http PORT``). ``FIXTURE_TOOLS=60`` adds that many filler tools (the token warning);
``FIXTURE_NAME`` names the server (two servers with the same tool names)."""

from __future__ import annotations

import os
import sys
import time

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

server = MCPServer(os.environ.get("FIXTURE_NAME", "fixture"))


@server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
def stock_level(sku: str) -> str:
    """How many units of an item are in the warehouse, by its code (e.g. A-100)."""
    return f"{sku}: 17 units in stock ({os.environ.get('FIXTURE_NAME', 'fixture')})"


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=True))
def delete_order(order_id: int) -> str:
    """Delete an order for good."""
    return f"order {order_id} deleted"


@server.tool()
def env_var(name: str) -> str:
    """The value of one environment variable of the server process ('' when unset)."""
    return os.environ.get(name, "")


@server.tool()
def boom() -> str:
    """A tool that always fails."""
    raise RuntimeError("the warehouse database is locked")


@server.tool()
def hang() -> str:
    """A tool that never returns."""
    time.sleep(3600)
    return "never"


for n in range(int(os.environ.get("FIXTURE_TOOLS", "0"))):

    def filler(query: str, limit: int = 10, n: int = n) -> str:
        return f"filler {n}: {query}"

    server.add_tool(
        filler,
        name=f"report_{n:02d}",
        description=f"Report number {n}: totals of one department over a period, with a breakdown by week, "
        "region and product line, as a table the model can quote.",
    )

if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
