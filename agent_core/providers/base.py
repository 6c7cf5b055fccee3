"""The provider interface: messages, tools and settings in; text, tool calls, usage and the raw
output items out. The loop never sees an SDK type.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from agent_core.context import ContextBlock, ToolCallRequest
from agent_core.tools.registry import Tool


@dataclass
class Usage:
    """Token counts of one response (or a sum of them)."""

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.total_tokens + other.total_tokens,
        )

    def as_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
        }


@dataclass
class ModelRequest:
    """Everything a provider needs for one model call."""

    instructions: str
    """The system prompt."""
    goal: str
    """The initial user message; always sent first."""
    blocks: list[ContextBlock]
    """The context blocks chosen for this call, oldest first (already trimmed)."""
    tools: list[Tool]
    step: int
    timeout: float = 60.0
    """Seconds the request may take."""
    cancel: threading.Event | None = None
    """Set when the run is stopped: the loop stops waiting at once; a provider that can stop its
    own work early (the local model, between tokens) checks it too."""


@dataclass
class ModelResponse:
    """One model turn, normalised. ``raw`` is kept whole for the next turn."""

    text: str = ""
    tool_calls: list[ToolCallRequest] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    raw: list[dict[str, Any]] = field(default_factory=list)
    stop_reason: str | None = None
    model: str | None = None
    constraint: dict[str, Any] | None = None
    """How the output was constrained (:class:`agent_core.run_record.Constraint`); None: not at all
    (the API chose freely among the tools it was given)."""


@dataclass
class LoadProgress:
    """Progress of a provider's one-time preparation (e.g. joining and loading a local model)."""

    stage: str
    done: float
    total: float
    message: str = ""


@runtime_checkable
class Provider(Protocol):
    """A model behind one API. Implementations live one per file in ``agent_core/providers``."""

    id: str
    """Provider id: ``offline``, ``local``, ``openai``, ``openai-chat``, ``anthropic``, ``scripted``."""
    model: str
    label: str
    """What the UI and the record call it (honest: "offline demo model — rule-based, no LLM")."""
    # Optional: ``instant = True`` for a provider that answers at once, in process (no network, no
    # model): the loop then calls it in its own thread; any other is called in a worker thread,
    # so that a Stop need not wait for the answer. Optional: ``use_run(instructions, tools)``,
    # called by the loop before :meth:`prepare` with the run's system prompt and tools.

    def complete(self, request: ModelRequest) -> ModelResponse:
        """Make one model call; raise :class:`agent_core.errors.ProviderError` on failure."""
        ...

    def prepare(self) -> Iterator[LoadProgress]:
        """One-time preparation before the first call, reporting progress (may yield nothing)."""
        ...
