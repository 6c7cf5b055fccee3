"""A destructive fixture tool (as an MCP server would offer it) and scripted turns that call it."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from agent_core.providers.scripted import ScriptedProvider
from agent_core.run.approval import ApprovalDesk, ApprovalRequest
from agent_core.tools.registry import Tool, ToolRegistry

TOOL = "tickets__delete_ticket"
SCHEMA = {
    "type": "object",
    "properties": {
        "ticket_id": {"type": "integer", "description": "The ticket to delete"},
        "note": {"type": "string", "description": "Why it is deleted"},
        "labels": {"type": "array", "items": {"type": "string"}, "description": "Labels to keep on record"},
    },
    "required": ["ticket_id"],
    "additionalProperties": False,
}


@dataclass
class Tickets:
    """The fixture's state: every execution of the tool, with its arguments."""

    ran: list[dict[str, Any]] = field(default_factory=list)

    def delete(self, **kwargs: Any) -> str:
        self.ran.append(kwargs)
        return f"ticket {kwargs['ticket_id']} deleted"


def registry(tickets: Tickets, *, extra: list[Tool] | None = None) -> ToolRegistry:
    """The destructive tool (MCP, ``destructiveHint: true``), and a read-only one beside it."""
    reg = ToolRegistry()
    reg.add(
        Tool(
            name=TOOL,
            description="Delete a support ticket for good.",
            func=tickets.delete,
            parameters=SCHEMA,
            source="mcp",
            server="tickets",
            annotations={"destructiveHint": True, "readOnlyHint": False},
        )
    )
    reg.add(
        Tool(
            name="tickets__list_tickets",
            description="List the open tickets.",
            func=lambda: "7, 8",
            parameters={"type": "object", "properties": {}, "additionalProperties": False},
            source="mcp",
            server="tickets",
            annotations={"readOnlyHint": True},
        )
    )
    for tool in extra or []:
        reg.add(tool)
    return reg


def delete_turns(*ids: int, answer: str = "Done.") -> list[dict[str, Any]]:
    """One turn per ticket id deleting it, then the answer."""
    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"name": TOOL, "arguments": {"ticket_id": i}, "call_id": f"call_{i}"}]} for i in ids
    ]
    return [*turns, {"text": answer}]


def provider(*ids: int) -> ScriptedProvider:
    return ScriptedProvider(delete_turns(*ids))


def wait_for_pending(desk: ApprovalDesk, *, call_id: str | None = None, timeout: float = 10.0) -> ApprovalRequest:
    """The call waiting at ``desk`` (the one named ``call_id``), once it waits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pending = desk.pending
        if pending is not None and (call_id is None or pending.call_id == call_id):
            return pending
        time.sleep(0.01)
    raise AssertionError("no call came to wait for approval")


def in_thread(func: Any, *args: Any, **kwargs: Any) -> tuple[threading.Thread, dict[str, Any]]:
    """Run ``func`` in a thread; its result lands in the returned dict's ``value``."""
    out: dict[str, Any] = {}

    def body() -> None:
        out["value"] = func(*args, **kwargs)

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    return thread, out
