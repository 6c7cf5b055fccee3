"""Typed events of a run. The loop yields them in order; the UI and the CLI dispatch on ``kind``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar


@dataclass
class Event:
    """Base of every event; ``kind`` names the type for dispatch and for JSON."""

    kind: ClassVar[str] = "event"
    run_id: str

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **asdict(self)}


@dataclass
class RunStarted(Event):
    kind: ClassVar[str] = "run_started"
    goal: str = ""
    provider: str = ""
    model: str = ""
    path: str = ""
    """Where the record is being written."""


@dataclass
class ModelLoading(Event):
    """A provider is preparing (a local model being joined or loaded)."""

    kind: ClassVar[str] = "model_loading"
    stage: str = ""
    done: float = 0.0
    total: float = 0.0
    message: str = ""


@dataclass
class ModelCallStarted(Event):
    kind: ClassVar[str] = "model_call_started"
    step: int = 0
    blocks_sent: list[int] = field(default_factory=list)
    blocks_trimmed: list[int] = field(default_factory=list)


@dataclass
class ModelCallRetrying(Event):
    kind: ClassVar[str] = "model_call_retrying"
    step: int = 0
    attempt: int = 0
    error_type: str = ""
    message: str = ""
    status: int | None = None
    wait_s: float = 0.0


@dataclass
class ModelCallFinished(Event):
    kind: ClassVar[str] = "model_call_finished"
    step: int = 0
    duration_ms: float = 0.0
    attempts: int = 1
    usage: dict[str, int] = field(default_factory=dict)
    text: str = ""
    tool_calls: int = 0
    ok: bool = True
    error: str | None = None


@dataclass
class ToolCallStarted(Event):
    kind: ClassVar[str] = "tool_call_started"
    step: int = 0
    call_id: str = ""
    tool: str = ""
    arguments: Any = None


@dataclass
class ToolCallFinished(Event):
    """A tool call is done; ``call`` is its entry as saved in the record's ``tool_calls``."""

    kind: ClassVar[str] = "tool_call_finished"
    step: int = 0
    call: dict[str, Any] = field(default_factory=dict)


@dataclass
class StepFinished(Event):
    kind: ClassVar[str] = "step_finished"
    step: int = 0
    duration_ms: float = 0.0
    usage: dict[str, int] = field(default_factory=dict)
    total_usage: dict[str, int] = field(default_factory=dict)
    cost_usd: float | None = None


@dataclass
class AnswerSentBack(Event):
    """The answer check (``ANSWER_CHECK=retry``) found figures no tool result supports and sent
    the answer back to the model with a corrective turn; the run goes on."""

    kind: ClassVar[str] = "answer_sent_back"
    step: int = 0
    unsupported: list[str] = field(default_factory=list)
    message: str = ""


@dataclass
class RunFinished(Event):
    kind: ClassVar[str] = "run_finished"
    status: str = ""
    answer: str | None = None
    error: dict[str, str] | None = None
    steps: int = 0
    duration_ms: float = 0.0
    path: str = ""
    grounding: dict[str, Any] | None = None
    """The answer check's result (the record's ``grounding``), when the run answered."""
