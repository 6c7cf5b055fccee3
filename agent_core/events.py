"""Typed events of a run. The loop yields them in order; the UI and the CLI dispatch on the type.

Each event is a keyword-only dataclass with a ``Literal`` ``kind`` (its name in JSON).
:data:`RunEvent` is the union of them all, so a ``match`` over it can end in
``assert_never(event)`` and the type checker proves that every kind is handled::

    match event:
        case RunStarted(): ...
        case ModelLoading(): ...
        ...
        case _:
            assert_never(event)

Payloads are typed: ``usage`` is a :class:`~agent_core.providers.base.Usage`, ``call`` the tool
call's entry as saved in the record (:class:`~agent_core.run_record.ToolCall`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from agent_core.providers.base import Usage
from agent_core.run_record import Grounding, RunError, Status, ToolCall


@dataclass(kw_only=True)
class Event:
    """Fields every event has."""

    run_id: str

    def as_dict(self) -> dict[str, Any]:
        """The event as JSON-ready data (``kind`` first)."""
        data = dataclasses.asdict(self)
        return {"kind": data.pop("kind", "event"), **data}


@dataclass(kw_only=True)
class RunStarted(Event):
    kind: Literal["run_started"] = "run_started"
    goal: str = ""
    provider: str = ""
    model: str = ""
    path: str = ""
    """Where the record is being written."""


@dataclass(kw_only=True)
class ModelLoading(Event):
    """A provider is preparing (a local model being joined or loaded)."""

    kind: Literal["model_loading"] = "model_loading"
    stage: str = ""
    done: float = 0.0
    total: float = 0.0
    message: str = ""


@dataclass(kw_only=True)
class ModelCallStarted(Event):
    kind: Literal["model_call_started"] = "model_call_started"
    step: int
    blocks_sent: list[int] = field(default_factory=list)
    blocks_trimmed: list[int] = field(default_factory=list)


@dataclass(kw_only=True)
class ModelCallRetrying(Event):
    kind: Literal["model_call_retrying"] = "model_call_retrying"
    step: int
    attempt: int
    error_type: str = ""
    message: str = ""
    status: int | None = None
    wait_s: float = 0.0


@dataclass(kw_only=True)
class ModelCallFinished(Event):
    kind: Literal["model_call_finished"] = "model_call_finished"
    step: int
    duration_ms: float | None = 0.0
    attempts: int = 1
    usage: Usage = field(default_factory=Usage)
    text: str = ""
    tool_calls: int = 0
    ok: bool = True
    error: str | None = None


@dataclass(kw_only=True)
class ToolCallStarted(Event):
    kind: Literal["tool_call_started"] = "tool_call_started"
    step: int
    call_id: str
    tool: str
    arguments: Any = None


@dataclass(kw_only=True)
class ToolCallFinished(Event):
    """A tool call is done; ``call`` is its entry as saved in the record's ``tool_calls``."""

    kind: Literal["tool_call_finished"] = "tool_call_finished"
    step: int
    call: ToolCall


@dataclass(kw_only=True)
class StepFinished(Event):
    kind: Literal["step_finished"] = "step_finished"
    step: int
    duration_ms: float | None = 0.0
    usage: Usage = field(default_factory=Usage)
    total_usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = None


@dataclass(kw_only=True)
class AnswerSentBack(Event):
    """The answer check (``ANSWER_CHECK=retry``) found figures no tool result supports and sent
    the answer back to the model with a corrective turn; the run goes on."""

    kind: Literal["answer_sent_back"] = "answer_sent_back"
    step: int
    unsupported: list[str] = field(default_factory=list)
    message: str = ""


@dataclass(kw_only=True)
class RunFinished(Event):
    kind: Literal["run_finished"] = "run_finished"
    status: Status
    answer: str | None = None
    error: RunError | None = None
    steps: int = 0
    duration_ms: float | None = 0.0
    path: str = ""
    grounding: Grounding | None = None
    """The answer check's result (the record's ``grounding``), when the run answered."""


RunEvent: TypeAlias = (
    RunStarted
    | ModelLoading
    | ModelCallStarted
    | ModelCallRetrying
    | ModelCallFinished
    | ToolCallStarted
    | ToolCallFinished
    | StepFinished
    | AnswerSentBack
    | RunFinished
)
"""Every event the loop yields."""
