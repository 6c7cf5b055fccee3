"""The provider interface: messages, tools and settings in; text, tool calls, usage and the raw
output items out. The loop never sees an SDK type.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from agent_core.context import ContextBlock, ToolCallRequest
from agent_core.providers.model_wait import ModelWait
from agent_core.records.run_record import Constraint, UsageRecord
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

    def as_dict(self) -> UsageRecord:
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
    max_steps: int | None = None
    """The run's step limit (None: not told); a provider may make sure its last step answers."""
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
    constraint: Constraint | None = None
    """How the output was constrained; None: not at all
    (the API chose freely among the tools it was given)."""


@dataclass
class LoadProgress:
    """Progress of a provider's one-time preparation (e.g. joining and loading a local model)."""

    stage: str
    done: float
    total: float
    message: str = ""


AnswerCheckMode = Literal["off", "flag", "retry"]


@dataclass(frozen=True)
class ProviderSpec:
    """What the rest of the program knows about a provider, declared once in its own module (``SPEC``).

    Pages, the CLI, evals, pricing and tracing ask this instead of testing the provider's id.
    """

    id: str
    label: str
    """What the UI and the record call it (honest: "offline demo model — rule-based, no LLM")."""
    default_model: str
    free: bool
    """Its calls cost nothing (a model on this machine, or no model): the cost estimate is 0."""
    answer_check: AnswerCheckMode = "flag"
    """The answer check when ``ANSWER_CHECK`` is unset: ``retry`` for a model likely to make a figure up."""
    otel_name: str = ""
    """``gen_ai.provider.name`` in exported traces: a well-known value where one exists, else the id."""
    preloads: bool = False
    """It loads a model before its first answer: the app starts that load early and shows its progress."""
    one_request_at_a_time: bool = False
    """One model in this process serves one request at a time: evals run its goals one by one."""
    uses_base_url: bool = False
    """A per-run base URL applies to it (the Run page's field, ``--base-url``)."""
    needs_running_server: bool = False
    """It is usable only while a server answers at its base URL (the UI checks every 20 s)."""
    rule_based: bool = False
    """No language model behind it (a planner or recorded turns): never asked to write prose."""

    @property
    def trace_name(self) -> str:
        """The name exported traces give it."""
        return self.otel_name or self.id


@runtime_checkable
class Provider(Protocol):
    """A model behind one API. Implementations live one per file in ``agent_core/providers``."""

    id: str
    """Provider id: ``offline``, ``local``, ``openai``, ``openai-chat``, ``anthropic``, ``scripted``."""
    model: str
    label: str
    """What the UI and the record call it (honest: "offline demo model — rule-based, no LLM")."""
    instant: bool = False
    """True for a provider that answers at once, in process (no network, no model): the loop then
    calls it in its own thread; any other is called in a worker thread, so a Stop need not wait."""

    def complete(self, request: ModelRequest) -> ModelResponse:
        """Make one model call; raise :class:`agent_core.errors.ProviderError` on failure."""
        ...

    def prepare(self) -> Iterator[LoadProgress]:
        """One-time preparation before the first call, reporting progress (may yield nothing)."""
        ...

    # Optional capabilities: a provider class that subclasses Provider gets these defaults.

    def use_run(self, instructions: str, tools: list[Tool]) -> None:
        """Called by the loop before :meth:`prepare` with the run's system prompt and tools (the
        local model computes them once and keeps them); by default nothing."""
        return None

    def meta(self) -> dict[str, Any] | None:
        """What the record keeps about the provider beyond its id and model (``provider_meta``);
        by default nothing."""
        return None

    def model_wait(self) -> ModelWait | None:
        """While a call waits for a stopped run to let go of the model: how long, about; by
        default None (a provider that serves every call at once)."""
        return None
