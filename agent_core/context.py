"""Context blocks and history trimming: pure functions from history to history.

A block is one model turn's whole output (text, reasoning, tool calls, kept in the provider's own
shape in ``raw``) plus the tool outputs it caused. Trimming drops whole blocks, so a call and its
output are never separated.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from agent_core.records.run_record import BlockItem


def canonical_json(value: Any) -> str:
    """``value`` as JSON with sorted keys: equal arguments give equal text, whatever their order."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _normalise(value: Any) -> Any:
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, Mapping):
        return {str(k): _normalise(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_normalise(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def canonical_arguments(arguments: Any) -> str:
    """Arguments as canonical JSON: keys sorted, whitespace collapsed, ``2.0`` → ``2``.

    A JSON string is parsed first (a provider may send arguments as text); text that is not
    JSON is kept as a (whitespace-collapsed) string.
    """
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return json.dumps(" ".join(arguments.split()), ensure_ascii=False)
    if arguments is None:
        arguments = {}
    return json.dumps(_normalise(arguments), sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def call_signature(name: str, arguments: Any) -> str:
    """``name(canonical arguments)``: the one signature of a tool call. Equal for the same tool
    with the same arguments, whatever their key order, spacing or ``2.0``/``2``: the dispatcher
    refuses a repeat by it, compare aligns runs by it, tracing links a duplicate to its first call."""
    return f"{name}({canonical_arguments(arguments)})"


@dataclass
class ToolCallRequest:
    """A model's request to run a tool, normalised across providers.

    ``arguments`` is what the model sent: a JSON string (OpenAI) or an object (Anthropic); the
    dispatcher parses and validates it.
    """

    call_id: str
    name: str
    arguments: str | dict[str, Any] | Any
    origin: str = "model"
    """Who chose this call: ``model`` (the model generated the tool and its arguments, perhaps under
    a schema) or ``harness`` (the program chose it for the model; :attr:`harness_rule` says why)."""
    harness_rule: str | None = None
    """For a ``harness`` call: the rule that chose it, in plain words."""


@dataclass
class ToolOutput:
    """What went back to the model for one call."""

    call_id: str
    name: str
    output: str
    is_error: bool = False


@dataclass
class ContextBlock:
    """One model turn and the tool outputs it caused."""

    index: int
    step: int
    provider: str
    text: str = ""
    tool_calls: list[ToolCallRequest] = field(default_factory=list)
    outputs: list[ToolOutput] = field(default_factory=list)
    raw: list[dict[str, Any]] = field(default_factory=list)
    """The provider's output items as it sent them (reasoning, text beside tool_use …)."""
    feedback: str = ""
    """The engine's reply to this turn, sent as a user message after it: the answer check's
    corrective turn (``ANSWER_CHECK=retry``) when the answer stated unsupported figures."""

    def items(self) -> list[BlockItem]:
        """Items for the record: text, reasoning, tool_call and tool_output entries in order."""
        out: list[BlockItem] = []
        for item in self.raw:
            if item.get("type") == "reasoning":
                summary = " ".join(part.get("text", "") for part in item.get("summary") or [] if isinstance(part, dict))
                out.append({"kind": "reasoning", "text": summary})
        if self.text:
            out.append({"kind": "text", "text": self.text})
        for call in self.tool_calls:
            out.append({"kind": "tool_call", "call_id": call.call_id, "tool": call.name, "arguments": call.arguments})
        for result in self.outputs:
            out.append(
                {
                    "kind": "tool_output",
                    "call_id": result.call_id,
                    "tool": result.name,
                    "output": result.output,
                    "is_error": result.is_error,
                }
            )
        if self.feedback:
            out.append({"kind": "answer_check", "text": self.feedback})
        return out

    def chars(self) -> int:
        """Size of what this block adds to the model's input (text, arguments and outputs)."""
        total = len(self.text)
        for call in self.tool_calls:
            args = call.arguments
            total += len(call.name) + (len(args) if isinstance(args, str) else len(str(args)))
        return total + sum(len(o.output) for o in self.outputs) + len(self.feedback)


def select_blocks(blocks: list[ContextBlock], max_blocks: int) -> tuple[list[ContextBlock], list[int]]:
    """The last ``max_blocks`` blocks to send, and the indexes of the ones trimmed."""
    if max_blocks < 1:
        raise ValueError("max_blocks must be at least 1")
    keep = blocks[-max_blocks:]
    trimmed = [b.index for b in blocks[: max(0, len(blocks) - max_blocks)]]
    return keep, trimmed


M = TypeVar("M", bound=Mapping[str, Any])


def trim_history(history: list[M], max_messages: int = 30) -> list[M]:
    """Keep every system message and the most recent others, ``max_messages`` in all (the
    ``trim_history`` of the agent-loop design this engine follows)."""
    if len(history) <= max_messages:
        return history
    system = [m for m in history if m.get("role") == "system"]
    others = [m for m in history if m.get("role") != "system"]
    room = max(0, max_messages - len(system))
    return system + (others[-room:] if room else [])
