"""Tool helpers of the pages: the Tools page's slow call (while the dispatcher waits before a retry,
the page says which attempt failed and which comes next), and the Run page's tool menu labels
and notes."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import streamlit as st

from agent_core.providers import provider_spec
from agent_core.tools.approvals import load_policies, policy_for
from agent_core.tools.catalog import cost_warning
from agent_core.tools.registry import Tool, ToolRegistry
from ui import common as ui
from ui.approval import explain as approval_explain


def retry_waiter(slot: Any, tool: str, sleep: Callable[[float], Any] = time.sleep) -> Callable[[float], None]:
    """A ``sleep`` for :class:`agent_core.run.dispatcher.Dispatcher` that shows the attempt count in
    ``slot`` (an ``st.empty``) while it waits, then the attempt under way."""
    failed = 0
    name = ui.md_label(tool, 64)

    def wait(seconds: float) -> None:
        nonlocal failed
        failed += 1
        slot.caption(
            f"🔁 Attempt {failed} of {name} failed (a temporary error) · attempt {failed + 1} in {seconds:.2f} s…"
        )
        sleep(seconds)
        slot.caption(f"🔁 Attempt {failed + 1} of {name}…")

    return wait


def tool_label(tool: Tool | None, name: str) -> str:
    """A tool as the Run page's menu names it: where it comes from, when it is not built in."""
    if tool is None or tool.source == "builtin":
        return name
    where = f"MCP: {tool.server}" if tool.source == "mcp" else "declared"
    return f"{name} ({where})"


def tool_choice_notes(registry: ToolRegistry, chosen: list[str], provider_id: str, config: Any = None) -> None:
    """Under the tool menu: the cost of many tool definitions, and what a rule-based demo model
    (the offline one) cannot use, and which tools ask before they run (their policies, from ``config``)."""
    tools = [t for t in (registry.get(n) for n in chosen) if t is not None]
    warning = cost_warning(tools)
    if warning:
        st.warning(ui.escape_md(warning), icon="🧮")
    saved = load_policies(config) if config is not None else {}
    asking = [t.name for t in tools if policy_for(t, saved) == "ask"]
    blocked = [t.name for t in tools if policy_for(t, saved) == "blocked"]
    if asking:
        st.caption(
            f"✋ Asks you first: {ui.md_label(', '.join(asking), 200)} — a call waits on a card in its step until you "
            "approve, edit or reject it. Set each tool's policy on the Tools page.",
            help=approval_explain(),
        )
    if blocked:
        st.caption(f"⛔ Blocked (never run): {ui.md_label(', '.join(blocked), 200)}.")
    own = [t.name for t in tools if t.source != "builtin"]
    spec = provider_spec(provider_id)
    if own and spec is not None and spec.rule_based:
        st.caption(
            "The offline demo model only knows the built-in tools: it will not call "
            + ui.md_label(", ".join(own), 200)
            + ". Pick the local model or an API provider to use them."
        )
