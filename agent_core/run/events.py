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
call's entry as saved in the record (:class:`~agent_core.records.run_record.ToolCall`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, cast

from agent_core.providers.base import Usage
from agent_core.records.run_record import Constraint, Grounding, RunError, Status, ToolCall


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
    choices: list[dict[str, Any]] = field(default_factory=list)
    """Each tool call the turn asked for: ``{tool, arguments, origin, harness_rule?}`` (who chose it)."""
    constraint: Constraint | None = None
    """How the output was constrained (the step's ``constraint`` in the record)."""


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
class ApprovalRequested(Event):
    """A tool call waits for a person (its tool's policy asks); the run's status is
    ``waiting_for_approval`` until :class:`ApprovalAnswered`."""

    kind: Literal["approval_requested"] = "approval_requested"
    step: int
    call_id: str
    tool: str
    request: dict[str, Any] = field(default_factory=dict)
    """What the card shows (:meth:`agent_core.run.approval.ApprovalRequest.as_dict`)."""


@dataclass(kw_only=True)
class ApprovalAnswered(Event):
    """The waiting call was approved, edited or rejected; the run goes on."""

    kind: Literal["approval_answered"] = "approval_answered"
    step: int
    call_id: str
    tool: str
    decision: str
    """``approved``, ``edited`` or ``rejected`` (the record's ``approval.decision``)."""
    by: str = ""
    wait_ms: float = 0.0


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
    answer: str = ""
    """The answer that was sent back (not the run's answer)."""


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
    | ApprovalRequested
    | ApprovalAnswered
    | ToolCallFinished
    | StepFinished
    | AnswerSentBack
    | RunFinished
)
"""Every event the loop yields."""


def _usage(value: Any) -> Usage:
    data = value if isinstance(value, dict) else {}
    counts = [data.get(key) for key in ("input_tokens", "output_tokens", "total_tokens")]
    return Usage(*(int(n) if isinstance(n, (int, float)) and not isinstance(n, bool) else 0 for n in counts))


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def choice_of(call: dict[str, Any]) -> dict[str, Any]:
    """Who chose a tool call (a record ``tool_calls`` entry, or the request as the loop saw it):
    ``{tool, arguments, origin, harness_rule?}``; ``origin`` is None in records older than it."""
    choice = {"tool": call.get("tool"), "arguments": call.get("arguments"), "origin": call.get("origin")}
    if call.get("harness_rule"):
        choice["harness_rule"] = call.get("harness_rule")
    return choice


def events_from_record(record: Mapping[str, Any]) -> Iterator[RunEvent]:
    """The events of a saved run, rebuilt from its record, so that a saved run is drawn by the
    very view that drew it live. Tolerant: a partial or hand-edited record gives what it holds.

    Not rebuilt: model loading (not recorded), and retry waits of a model call that failed for
    good (its last attempt is the failure shown)."""
    rid = str(record.get("run_id") or "")
    yield RunStarted(
        run_id=rid,
        goal=str(record.get("goal") or ""),
        provider=str(record.get("provider") or ""),
        model=str(record.get("model") or ""),
    )
    calls = {c.get("call_id"): c for c in record.get("tool_calls") or [] if isinstance(c, dict)}
    steps = [s for s in record.get("steps") or [] if isinstance(s, dict)]
    total = Usage()
    for n, step in enumerate(steps):
        raw_index = step.get("index")
        index = raw_index if isinstance(raw_index, int) else n + 1
        yield ModelCallStarted(
            run_id=rid,
            step=index,
            blocks_sent=list(step.get("blocks_sent") or []),
            blocks_trimmed=list(step.get("blocks_trimmed") or []),
        )
        attempts = [a for a in step.get("model_attempts") or [] if isinstance(a, dict)]
        for attempt in attempts[:-1]:
            if not attempt.get("success") and attempt.get("wait_s") is not None:
                yield ModelCallRetrying(
                    run_id=rid,
                    step=index,
                    attempt=int(attempt.get("attempt") or 0),
                    error_type=str(attempt.get("error_type") or ""),
                    message=str(attempt.get("message") or ""),
                    status=attempt.get("status") if isinstance(attempt.get("status"), int) else None,
                    wait_s=_number(attempt.get("wait_s")) or 0.0,
                )
        ids = [i for i in step.get("tool_call_ids") or [] if i in calls]
        ok = not attempts or bool(attempts[-1].get("success"))
        failed = {} if ok else attempts[-1]
        usage = _usage(step.get("usage"))
        # The run's own total on the last step (an imported record may not add up step by step).
        total = _usage(record.get("usage")) if n == len(steps) - 1 and record.get("usage") else total + usage
        yield ModelCallFinished(
            run_id=rid,
            step=index,
            duration_ms=_number(step.get("model_duration_ms")),
            attempts=len(attempts),
            usage=usage,
            text=str(step.get("text") or ""),
            tool_calls=len(step.get("tool_call_ids") or []),
            ok=ok,
            error=str(failed.get("message") or failed.get("error_type") or "") or None,
            choices=[choice_of(calls[i]) for i in ids],
            constraint=step.get("constraint") if isinstance(step.get("constraint"), dict) else None,
        )
        check = step.get("answer_check")
        if isinstance(check, dict):
            yield AnswerSentBack(
                run_id=rid,
                step=index,
                unsupported=[str(t) for t in check.get("unsupported") or []],
                message=str(check.get("message") or ""),
                answer=str(step.get("text") or ""),
            )
        for call_id in ids:
            entry = calls[call_id]
            yield ToolCallStarted(
                run_id=rid,
                step=index,
                call_id=str(call_id),
                tool=str(entry.get("tool")),
                arguments=entry.get("arguments"),
            )
            yield ToolCallFinished(run_id=rid, step=index, call=cast(ToolCall, entry))
        yield StepFinished(
            run_id=rid,
            step=index,
            duration_ms=_number(step.get("duration_ms")),
            usage=usage,
            total_usage=total,
            cost_usd=_number(record.get("cost_usd")),
        )
    status = record.get("status")
    error = record.get("error")
    grounding = record.get("grounding")
    yield RunFinished(
        run_id=rid,
        status=cast(Status, status if isinstance(status, str) else "error"),
        answer=record.get("answer") if isinstance(record.get("answer"), str) else None,
        error=cast(RunError, error) if isinstance(error, dict) else None,
        steps=len(steps),
        duration_ms=_number(record.get("duration_ms")),
        grounding=cast(Grounding, grounding) if isinstance(grounding, dict) else None,
    )
