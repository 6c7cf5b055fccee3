"""MCP tools benchmark: how long a server takes to list its tools, a call takes, and each fault
takes to become its sentence (the tests' fixture server and mcp-server-time; no network).

    python bench/mcp_tools.py

Prints one line per figure and one ``BENCH_MCP {...}`` JSON line.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agent_core.tools import mcp, mcp_config  # noqa: E402
from tests.mcp_kit import PYTHON, answering, close_sessions, data_dir, http_fixture, stdio_entry  # noqa: E402


def _list(settings, name):  # type: ignore[no-untyped-def]
    config = next(s for s in mcp_config.load(settings).servers if s.name == name)
    started = time.perf_counter()
    health, tools = mcp.server_tools(config, settings, check=True)
    listed = time.perf_counter() - started
    call = None
    if health.ok and tools:
        started = time.perf_counter()
        first = tools[0]
        args = {"sku": "A-100"} if first.name.endswith("stock_level") else {"timezone": "UTC"}
        first.func(**args)
        call = time.perf_counter() - started
    return health, listed, call


def main() -> None:
    import mcp as _client  # noqa: F401 - the client's one-time import is not a server's time

    figures: dict[str, float] = {}
    root = Path(tempfile.mkdtemp())
    servers = {
        "stdio": stdio_entry(),
        "time": {"command": PYTHON, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]},
        "not_found": {"command": "no-such-mcp-server"},
        "mute": {"command": PYTHON, "args": ["-c", "import time; time.sleep(60)"]},
        "exits": {"command": PYTHON, "args": ["-c", "import sys; sys.exit(3)"]},
    }
    with http_fixture() as url, answering(405) as old, answering(401) as locked:
        servers |= {"http": {"url": url}, "sse_only": {"url": old + "/sse"}, "needs_token": {"url": locked + "/mcp"}}
        settings = data_dir(root, servers, mcp_stdio_commands=(PYTHON, "no-such-mcp-server"))
        for name in ("stdio", "http", "time"):
            health, listed, call = _list(settings, name)
            figures[f"list_{name}_s"] = round(listed, 3)
            figures[f"call_{name}_s"] = round(call or 0, 3)
            print(f"{name:>12}: listed {len(health.tools)} tools in {listed:.2f} s, a call {call or 0:.3f} s")
        for name in ("not_found", "mute", "exits", "sse_only", "needs_token"):
            health, seconds, _ = _list(settings, name)
            figures[f"fault_{name}_s"] = round(seconds, 3)
            print(f"{name:>12}: {seconds:5.2f} s  {health.sentence}")
    close_sessions()
    print("BENCH_MCP " + json.dumps(figures))


if __name__ == "__main__":
    main()
