"""The run's instructions (the system prompt), made from the tools the run has enabled.

The words name no particular tool: a disabled tool is never mentioned, and a tool the person adds
is introduced by its own name and description (which every provider also receives with its
schema). The record keeps exactly the instructions a run was given.
"""

from __future__ import annotations

from collections.abc import Iterable

from agent_core.tools.registry import Tool

RULES = """Rules:
1. When you need information you do not have, call the right tool; do not guess.
2. Read each tool result before deciding the next step.
3. If a tool result starts with ERROR, fix the call or try another approach; never repeat the
   same call with the same arguments.
4. When you have enough information, answer the user clearly, in the user's language.
5. If the information cannot be found, say what is missing."""


def build_instructions(tools: Iterable[Tool]) -> str:
    """The system prompt for a run with ``tools`` enabled (none: the model answers alone)."""
    names = [t.name for t in tools]
    if not names:
        return (
            "You are a careful, accurate assistant. No tools are available in this run.\n"
            "Answer the user clearly, in the user's language; when you do not know, say so."
        )
    listed = ", ".join(names)
    return (
        "You are a careful, accurate assistant that works by calling tools.\n"
        f"Tools in this run: {listed} (each one's description says what it does).\n" + RULES
    )
